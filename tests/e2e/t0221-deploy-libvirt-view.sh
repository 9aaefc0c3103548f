#!/bin/bash
# How deploy consults libvirt (design decision 5, domview.h), case by case:
#  - what libvirt said to an earlier deploy is never trusted by a later one:
#    a foreign domain started in between keeps its VF;
#  - a view taken after a deploy started is used by it without asking
#    libvirt again (the deploys of a burst share a few scans), one taken
#    before is not (shown with a libvirt URI that cannot be reached: only
#    the deploy that must ask fails); a view of another libvirt URI never;
#  - release --domain-gone frees without asking libvirt; if the domain was
#    in fact still there, the next deploy still never hands its VF out
#    (one-N without a lease is read), and reconcile adopts it;
#  - reconcile reads every domain, also the OpenNebula ones deploy trusts
#    the ledger for, so a VF such a domain holds beyond its leases is
#    adopted;
#  - on a host with many domains, read by several threads at once (virt.c),
#    every domain is still read: each free VF but one taken by its own
#    foreign domain, among idle ones, leaves deploy exactly that one.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
VF=$R/ib/bin/oneib-vf
LOCK=/var/lib/one/ib/leases.lock # the ledger lock: the view is read and written under it

vf_of() { "$VF" list --format=json | jq -r ".leases[] | select(.vm == $1) | .vf"; }
hostdev() { # NAME BUS.FN...: a running domain holding those VFs of bus 03
	local name=$1 a
	shift
	{
		echo "<domain type='kvm'><name>$name</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os><devices>"
		for a in "$@"; do
			echo "<hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0x03' slot='0x00' function='0x$a'/></source></hostdev>"
		done
		echo "</devices></domain>"
	} >"$TEST_TMP/$name.xml"
	virsh create "$TEST_TMP/$name.xml" >/dev/null
}

# --- a view is never older than the deploy using it -------------------------
one_deploy 1 ib/0/02:00:0a:06:00:01/0x8101 >/dev/null
assert_eq 0000:03:00.1 "$(vf_of 1)" "VM 1 gets the first VF"
VIEW=$(echo /dev/shm/oneib-view-*) # sim_host gives the test its own /dev/shm
assert_match "^# one-ib: VFs libvirt domains held" "$(head -n 1 "$VIEW")" "its view of libvirt is kept in shared memory"
assert_eq "600 $(id -u)" "$(stat -c '%a %u' "$VIEW")" "readable and writable by its user alone"
hostdev "legacy db" 2
one_deploy 2 ib/0/02:00:0a:06:00:02/0x8101 >/dev/null
assert_eq 0000:03:00.3 "$(vf_of 2)" "VM 2 does not get 03:00.2, which a domain took after VM 1's deploy"

# --- a view taken after a deploy started is shared ---------------------------
# A deploy that cannot reach libvirt succeeds only if it uses a view it did
# not take itself. The ledger lock is held here while it waits, and the
# view is written under that lock, as a deploy ahead of it in the queue
# would.
bad_uri="test+unix:///default?socket=$TEST_TMP/no-such-socket"
mkdir -p "$DS/3" "$DS/4"
vm_xml 3 ib/0/02:00:0a:06:00:03/0x8101 >"$DS/3/vm.xml"
vm_xml 4 ib/0/02:00:0a:06:00:04/0x8101 >"$DS/4/vm.xml"
boot=$(cat /proc/sys/kernel/random/boot_id)
# CLOCK_BOOTTIME in ns from /proc/uptime, which shows it in 10 ms steps:
# "before" is at or before now, "after" at or after now.
before_ns() { awk '{ printf "%.0f", $1 * 1e9 }' /proc/uptime; }
after_ns() { awk '{ printf "%.0f", ($1 + 0.01) * 1e9 }' /proc/uptime; }
view() { # AT [VF]: the view format of domview.h, of libvirt at $bad_uri
	printf '# one-ib: VFs libvirt domains held when oneib-vf last asked; a cache\nboot=%s at=%s\nuri=%s\nvf=%s vm=-\nend\n' \
		"$boot" "$1" "$bad_uri" "${2:-0000:03:00.2}"
}
# The lock is held by a live flock(1) process: /proc/locks of a pid
# namespace leaves out a lock whose taker has exited (as "flock FD" does),
# and with it the processes waiting for it.
hold_lock() {
	coproc HOLDER { flock "$LOCK" sh -c 'echo held; read -r _'; }
	read -r _ <&"${HOLDER[0]}" || die "cannot take $LOCK"
}
release_lock() {
	local p=$HOLDER_PID
	echo >&"${HOLDER[1]}"
	wait "$p"
}
waits_on_lock() { grep -q -- "-> FLOCK .* $1 " /proc/locks; }

hold_lock
domain_xml 3 02:00:0a:06:00:03 | "$VF" deploy --vm 3 --vm-xml "$DS/3/vm.xml" --connect "$bad_uri" \
	>"$TEST_TMP/out.3" 2>"$TEST_TMP/err.3" &
pid=$!
assert_ok "VM 3's deploy waits for the ledger lock" -- wait_for 20 waits_on_lock $pid
view "$(after_ns)" >"$VIEW"
release_lock
wait $pid
assert_eq "0 " "$? $(cat "$TEST_TMP/err.3")" "VM 3, deployed without reaching libvirt, used the view taken after it started"
assert_eq 0000:03:00.4 "$(vf_of 3)" "and what that view says: 03:00.2 held, so 03:00.4"

hold_lock
view "$(before_ns)" >"$VIEW"
domain_xml 4 02:00:0a:06:00:04 | "$VF" deploy --vm 4 --vm-xml "$DS/4/vm.xml" --connect "$bad_uri" \
	>"$TEST_TMP/out.4" 2>"$TEST_TMP/err.4" &
pid=$!
assert_ok "VM 4's deploy waits for the ledger lock" -- wait_for 20 waits_on_lock $pid
release_lock
wait $pid
assert_eq 1 $? "VM 4, whose deploy started after the view was taken, asks libvirt"
assert_match "cannot connect to libvirt at test\\+unix:///default\\?socket=$TEST_TMP/no-such-socket" \
	"$(cat "$TEST_TMP/err.4")" "and fails on the URI it cannot reach"
assert_eq "" "$(vf_of 4)" "VM 4 holds nothing"

# --- release --domain-gone, and a domain that was not gone --------------------
assert_eq 0000:03:00.1 "$(virsh dumpxml one-1 | sed -n "s/.*bus='0x03' slot='0x00' function='0x\(.\)'.*/0000:03:00.\1/p")" \
	"one-1, VM 1's domain, runs with 03:00.1"
assert_ok "release --domain-gone (wrongly: one-1 still runs)" -- "$VF" release --vm 1 --domain-gone
assert_eq "" "$(vf_of 1)" "it freed 03:00.1 without asking libvirt"
one_deploy 5 ib/0/02:00:0a:06:00:05/0x8101 >/dev/null
assert_eq 0000:03:00.5 "$(vf_of 5)" "VM 5 does not get 03:00.1: one-1, without a lease now, is read"
"$VF" reconcile >"$TEST_TMP/rec"
assert_match "VF 0000:03:00.1: held by domain one-1 without a lease, adopted" "$(cat "$TEST_TMP/rec")" "reconcile adopts it"

# --- reconcile reads the domains deploy trusts the ledger for ----------------
# one-2 (VM 2, leased 03:00.3) replaced by a domain holding 03:00.3 and
# 03:00.6: deploy trusts VM 2's lease for one-2; reconcile does not.
virsh destroy one-2 >/dev/null
hostdev one-2 3 6
"$VF" reconcile >"$TEST_TMP/rec2"
assert_match "VF 0000:03:00.6: held by domain one-2 without a lease, adopted" "$(cat "$TEST_TMP/rec2")" \
	"reconcile adopts a VF a leased VM's domain holds beyond its leases"
one_deploy 6 ib/0/02:00:0a:06:00:06/0x8101 >/dev/null
assert_eq 0000:03:00.7 "$(vf_of 6)" "then deploy leaves it alone"

# --- a view of another libvirt is never used -----------------------------------
# Fresh for VM 7's deploy, but taken of $bad_uri: it says 03:01.0 is held.
mkdir -p "$DS/7"
vm_xml 7 ib/0/02:00:0a:06:00:07/0x8101 >"$DS/7/vm.xml"
hold_lock
domain_xml 7 02:00:0a:06:00:07 | "$VF" deploy --vm 7 --vm-xml "$DS/7/vm.xml" >/dev/null 2>"$TEST_TMP/err.7" &
pid=$!
assert_ok "VM 7's deploy waits for the ledger lock" -- wait_for 20 waits_on_lock $pid
view "$(after_ns)" 0000:03:01.0 >"$VIEW"
release_lock
wait $pid
assert_eq "0 0000:03:01.0" "$? $(vf_of 7)" "VM 7 asked its own libvirt, where 03:01.0 is free"

# --- many domains: every one is read -------------------------------------------
# Enough domains for virt_scan to read with all its threads; the VFs sit in
# domains spread over the whole listing.
"$R/ib/bin/oneib-discover" --format=json |
	jq -r '.hcas[].vfs[] | select(.vm == null) | .address' >"$TEST_TMP/free"
"$VF" list --format=json | jq -r '.leases[].vf' >"$TEST_TMP/leased"
grep -vxF -f "$TEST_TMP/leased" "$TEST_TMP/free" | grep -vx 0000:03:00.2 >"$TEST_TMP/unheld"
last=$(tail -n 1 "$TEST_TMP/unheld")
held=$(($(wc -l <"$TEST_TMP/unheld") - 1))
i=0
head -n "$held" "$TEST_TMP/unheld" | while IFS=':.' read -r _ bus slot fn; do
	i=$((i + 1))
	printf "<domain type='kvm'><name>tenant-%02d</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os><devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0x%s' slot='0x%s' function='0x%s'/></source></hostdev></devices></domain>\n" \
		"$i" "$bus" "$slot" "$fn" >"$TEST_TMP/tenant.xml"
	virsh create "$TEST_TMP/tenant.xml" >/dev/null
	for j in 1 2 3 4; do
		printf "<domain type='kvm'><name>idle-%02d-%d</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>\n" \
			"$i" "$j" >"$TEST_TMP/idle.xml"
		virsh create "$TEST_TMP/idle.xml" >/dev/null
	done
done
ndom=$(virsh list --all --name | grep -c .)
assert_ok "$ndom domains, $held of them each holding one of the free VFs" -- test "$held" -ge 4 -a "$ndom" -ge 32
one_deploy 8 ib/0/02:00:0a:06:00:08/0x8101 >/dev/null
assert_eq "$last" "$(vf_of 8)" "VM 8 gets $last, the one free VF no domain holds"
mkdir -p "$DS/9"
vm_xml 9 ib/0/02:00:0a:06:00:09/0x8101 >"$DS/9/vm.xml"
domain_xml 9 02:00:0a:06:00:09 >"$TEST_TMP/dom.9"
assert_refused "VM 9, with every VF held" "no free VF on .* for VM 9" -- \
	sh -c "exec '$VF' deploy --vm 9 --vm-xml '$DS/9/vm.xml' <'$TEST_TMP/dom.9'"
test_done
