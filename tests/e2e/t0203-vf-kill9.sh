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
parse_fail=0
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
	sleep "0.00$((RANDOM % 10))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# Some of the VMs whose deploy finished get a domain, as the stock deploy would.
	if [ $((r % 4)) = 1 ] && [ -s "$DS/$vm/new.xml" ] && ! virsh domuuid "one-$vm" >/dev/null 2>&1; then
		virsh create "$DS/$vm/new.xml" >/dev/null 2>&1
	fi
	"$vf" list >/dev/null 2>&1 || parse_fail=$((parse_fail + 1))
done
assert_eq 0 "$parse_fail" "ledger parsed after every kill ($rounds rounds)"
assert_eq "" "$(ls /var/lib/one/ib | grep -v '^leases$' | grep -v '^leases.lock$' | grep -v '^leases.tmp' )" "nothing but the ledger, its lock and killed writers' temp files"

"$vf" reconcile --grace 0 >"$TEST_TMP/rec" 2>&1
assert_eq 0 $? "reconcile succeeds"
assert_eq "" "$(ls /var/lib/one/ib | grep '^leases.tmp')" "temp files of killed writers removed"
for d in $(virsh list --name | grep '^one-'); do
	virsh dumpxml "$d" | sed -n "s/.*<address domain='0x0000' bus='0x\(..\)' slot='0x\(..\)' function='0x\(.\)'.*/0000:\1:\2.\3 ${d#one-}/p"
done | sort >"$TEST_TMP/held"
"$vf" list --format=json | jq -r '.leases[] | "\(.vf) \(.vm)"' | sort >"$TEST_TMP/leased"
assert_file_eq "$TEST_TMP/held" "$TEST_TMP/leased" "after reconcile the ledger is exactly what the domains hold"
held=$(grep -c . "$TEST_TMP/held")
assert_eq $((16 - held)) "$("$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p')" "no VF leaked ($held held)"
say "$(cat "$TEST_TMP/rec" | tail -n 1)"
test_done
