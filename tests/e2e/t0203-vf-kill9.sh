#!/bin/bash
# kill -9 of oneib-vf at random instants of acquire and release, many times:
# the ledger always parses, reconcile brings it in line with libvirt, and no
# VF is lost (free = total - held by domains).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
vf=$R/ib/bin/oneib-vf
rounds=${KILL_ROUNDS:-60}
parse_fail=0 produced=0

# How long one undisturbed acquire takes here: kills land anywhere in
# [0, 1.5 x that], so they hit startup, the locked section and the commit.
mkdir -p "$DS/199"
vm_xml 199 ib/0/02:00:0a:01:00:c7/0x8101 >"$DS/199/vm.xml"
t0=$(date +%s%N)
domain_xml 199 02:00:0a:01:00:c7 | "$vf" deploy --vm 199 --vm-xml "$DS/199/vm.xml" >/dev/null
span_us=$(( ($(date +%s%N) - t0) * 3 / 2000 ))
"$vf" release --vm 199 >/dev/null
say "kill window: 0-$((span_us / 1000)) ms"

for r in $(seq 1 "$rounds"); do
	vm=$((200 + r % 20))
	mkdir -p "$DS/$vm"
	vm_xml "$vm" "ib/0/02:00:0a:01:00:$(printf %02x "$vm")/0x8101" >"$DS/$vm/vm.xml"
	# Never boot from an older round's output: only this deploy's counts.
	rm -f "$DS/$vm/new.xml"
	if [ $((r % 3)) = 0 ]; then
		"$vf" release --vm "$vm" >/dev/null 2>&1 &
	else
		domain_xml "$vm" "02:00:0a:01:00:$(printf %02x "$vm")" |
			"$vf" deploy --vm "$vm" --vm-xml "$DS/$vm/vm.xml" >"$DS/$vm/new.xml" 2>/dev/null &
	fi
	pid=$!
	# Every fourth round runs undisturbed, so some VMs boot however
	# slow a loaded machine makes the others (the window is measured
	# once); the rest are killed at a random instant.
	if [ $((r % 4)) != 1 ]; then
		us=$(( (RANDOM * 32768 + RANDOM) % span_us ))
		sleep "$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))"
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	[ -s "$DS/$vm/new.xml" ] && produced=$((produced + 1))
	# Some of the VMs whose deploy finished get a domain, as the stock deploy would.
	if [ $((r % 4)) = 1 ] && [ -s "$DS/$vm/new.xml" ] && ! virsh domuuid "one-$vm" >/dev/null 2>&1; then
		virsh create "$DS/$vm/new.xml" >/dev/null 2>&1
	fi
	"$vf" list >/dev/null 2>&1 || parse_fail=$((parse_fail + 1))
done
assert_eq 0 "$parse_fail" "ledger parsed after every kill ($rounds rounds)"
assert_ok "the ledger exists (kills did not all land before any commit)" -- test -f /var/lib/one/ib/leases
assert_match '^[1-9]' "$produced" "some deploys finished ($produced)"
assert_match '^[1-9]' "$(virsh list --name | grep -c '^one-')" "some VMs booted"
say "$produced of $rounds rounds finished (every fourth one is never killed)"
assert_eq "" "$(find /var/lib/one/ib -mindepth 1 ! -name leases ! -name leases.lock ! -name 'leases.tmp*')" "nothing but the ledger, its lock and killed writers' temp files"

ledger_age # the grace over for every lease the kills left
"$vf" reconcile --grace 1 >"$TEST_TMP/rec" 2>&1
assert_eq 0 $? "reconcile succeeds"
assert_eq "" "$(find /var/lib/one/ib -mindepth 1 -name 'leases.tmp*')" "temp files of killed writers removed"
for d in $(virsh list --name | grep '^one-'); do
	virsh dumpxml "$d" | sed -n "s/.*<address domain='0x0000' bus='0x\(..\)' slot='0x\(..\)' function='0x\(.\)'.*/0000:\1:\2.\3 ${d#one-}/p"
done | sort >"$TEST_TMP/held"
"$vf" list --format=json | jq -r '.leases[] | "\(.vf) \(.vm)"' | sort >"$TEST_TMP/leased"
assert_file_eq "$TEST_TMP/held" "$TEST_TMP/leased" "after reconcile the ledger is exactly what the domains hold"
held=$(grep -c . "$TEST_TMP/held")
assert_eq $((16 - held)) "$("$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p')" "no VF leaked ($held held)"
say "$(cat "$TEST_TMP/rec" | tail -n 1)"
test_done
