#!/bin/bash
# A lease a live action uses is never reclaimed by reconcile, whatever the
# clocks do (design decision 5). The kvm-ib action that takes a lease is
# recorded in it as its owner (pid and start time, with the boot id); while
# that process runs, reconcile keeps the lease. Otherwise the grace period
# counts on the boot clock, which no clock step moves.
#
# Clocks are stepped without faketime, by writing the ledger (under its
# lock) as a clock step would leave it: since=0 (the wall clock, decades
# later) and up=0 (the boot clock says: taken when the host booted, longer
# ago than a grace of 1 s).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
gate=$TEST_TMP/gate
vf=$R/ib/bin/oneib-vf

line_of() { grep " vm=$1 " /var/lib/one/ib/leases 2>/dev/null; }
has_lease() { [ -n "$(line_of "$1")" ]; }
vf_of() { line_of "$1" | sed -n 's/^vf=\([^ ]*\) .*/\1/p'; }
owner_of() { line_of "$1" | sed -n 's/.* owner=\([0-9]*\)\/.*/\1/p'; }
# "VF DOMAIN" for every hostdev of every domain
held() {
	local d
	for d in $(virsh list --name); do
		virsh dumpxml "$d" | sed -n "s/.*<address domain='0x0000' bus='0x\(..\)' slot='0x\(..\)' function='0x\(.\)'.*/0000:\1:\2.\3 $d/p"
	done | sort
}

# --- a deploy held between its lease and its domain, as a slow one is
: >"$gate"
SIM_DEPLOY_GATE=$gate one_deploy 5 ib/0/02:00:0a:08:00:05/0x8101 >"$TEST_TMP/d5.out" 2>&1 &
deploy=$!
wait_for 20 has_lease 5 || die "VM 5's deploy took no lease"
owner=$(owner_of 5)
assert_match '^[0-9]+$' "$owner" "the lease names its owner"
assert_match "vmm/kvm-ib/deploy" "$(tr '\0' ' ' <"/proc/$owner/cmdline" 2>/dev/null)" \
	"the owner is the kvm-ib deploy that took it"
vf5=$(vf_of 5)
ledger_age
assert_match " since=0 .* up=0 owner=$owner/" "$(line_of 5)" "both clocks say: taken long ago"
assert_eq "reconcile: 1 kept, 0 released, 0 adopted" "$("$vf" reconcile --grace 1)" \
	"reconcile keeps it: its deploy runs"
assert_eq "$vf5" "$(vf_of 5)" "VM 5 still holds its lease"
assert_eq "DEPLOY SUCCESS" "$(one_deploy 7 ib/0/02:00:0a:08:00:07/0x8101 >/dev/null && echo "DEPLOY SUCCESS")" \
	"VM 7 deployed meanwhile"
assert_ok "and got another VF" -- test "$(vf_of 7)" != "$vf5"
rm -f "$gate"
wait "$deploy"
assert_eq 0 $? "VM 5's deploy finishes"
assert_eq "$vf5 one-5" "$(held | grep " one-5$")" "with its VF in its domain"
assert_eq "" "$(held | cut -d' ' -f1 | uniq -d)" "no VF in two domains"
assert_eq "reconcile: 2 kept, 0 released, 0 adopted" "$("$vf" reconcile --grace 1)" "both kept: their domains hold them"

# --- the same, the deploy killed there: nothing owns the lease any more
: >"$gate"
SIM_DEPLOY_GATE=$gate one_deploy 8 ib/0/02:00:0a:08:00:08/0x8101 >/dev/null 2>&1 &
deploy=$!
wait_for 20 has_lease 8 || die "VM 8's deploy took no lease"
owner=$(owner_of 8)
# the deploy and everything it started, as a crash of the action would
tree() { local c; for c in $(pgrep -P "$1"); do tree "$c"; done; echo "$1"; }
# shellcheck disable=SC2046 # one pid a word
kill -KILL $(tree "$owner")
wait "$deploy" 2>/dev/null
rm -f "$gate"
ledger_age --wall
assert_eq "reconcile: 3 kept, 0 released, 0 adopted" "$("$vf" reconcile --grace 600)" \
	"its owner dead, a clock stepped forward: kept within the grace on the boot clock"
ledger_age
assert_eq "VF $(vf_of 8): VM 8 has no domain holding it, released
reconcile: 2 kept, 1 released, 0 adopted" "$("$vf" reconcile --grace 1)" "the grace over: released"

# --- a lease without an owner (oneib-vf run by hand), the wall clock
# stepped forward: kept for the grace period of the boot clock
mkdir -p "$DS/9"
vm_xml 9 ib/0/02:00:0a:08:00:09/0x8101 >"$DS/9/vm.xml"
domain_xml 9 02:00:0a:08:00:09 | "$vf" deploy --vm 9 --vm-xml "$DS/9/vm.xml" >/dev/null
assert_eq "" "$(owner_of 9)" "no owner: the command ended"
ledger_age --wall
assert_eq "reconcile: 3 kept, 0 released, 0 adopted" "$("$vf" reconcile)" "a clock step forward: kept"
assert_match " up=[1-9]" "$(line_of 9)" "the boot clock still says: just now"

# --- an old ledger, written before boot and up (one-ib 1.x): read as it
# is, dated on the first reconcile, kept for a grace from then
sed -i -E 's/ boot=[^ ]+ up=[0-9]+( owner=[^ ]+)?//' /var/lib/one/ib/leases
assert_eq "" "$(grep -c ' up=' /var/lib/one/ib/leases | grep -v '^0$')" "no line has a boot time"
assert_eq "5 7 9" "$("$vf" list --format=json | jq -r '[.leases[].vm] | sort | join(" ")')" "the old ledger reads"
assert_eq "reconcile: 3 kept, 0 released, 0 adopted" "$("$vf" reconcile --grace 1)" "an undated lease is kept"
assert_match " since=[1-9][0-9]* boot=[0-9a-f-]{36} up=[0-9]+$" "$(line_of 9)" "and dated now"
ledger_age
assert_eq "VF $(vf_of 9): VM 9 has no domain holding it, released
reconcile: 2 kept, 1 released, 0 adopted" "$("$vf" reconcile --grace 1)" "its grace over: released"
assert_eq "" "$(held | cut -d' ' -f1 | uniq -d)" "no VF in two domains, ever"

# --- --owner must name a process
assert_refused --rc 2 "an owner that is no process" "^oneib-vf: --owner 999999: no such process$" -- \
	"$vf" list --owner 999999
test_done
