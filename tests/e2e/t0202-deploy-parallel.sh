#!/bin/bash
# 32 deploys at once on a host with 16 free VFs (-p lets OpenNebula run
# actions for one host concurrently): 16 succeed with 16 distinct VFs, 16
# fail saying no VF is free, the ledger matches libvirt; after cancelling
# all, 16 free again.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host

pids=()
for i in $(seq 100 131); do
	( one_deploy "$i" "ib/0/02:00:0a:00:00:$(printf %02x "$i")/0x8101" >"$TEST_TMP/out.$i" 2>"$TEST_TMP/err.$i"
	  echo $? >"$TEST_TMP/rc.$i" ) &
	pids+=($!)
done
wait "${pids[@]}" # not a bare wait: the harness's daemons are children too
ok=0 refused=0
for i in $(seq 100 131); do
	if [ "$(cat "$TEST_TMP/rc.$i")" = 0 ]; then
		ok=$((ok + 1))
	elif grep -q "no free VF on 0000:03:00.0 for VM $i (16 of 16 leased)" "$TEST_TMP/err.$i"; then
		refused=$((refused + 1))
	fi
done
assert_eq "16 16" "$ok $refused" "16 deployed, 16 refused with the reason"
"$R/ib/bin/oneib-vf" list --format=json >"$TEST_TMP/l.json"
assert_eq 16 "$(jq '[.leases[].vf] | unique | length' "$TEST_TMP/l.json")" "16 distinct leased VFs"
for d in $(virsh list --name | grep '^one-'); do
	virsh dumpxml "$d" | sed -n "s/.*<address domain='0x0000' bus='0x\(..\)' slot='0x\(..\)' function='0x\(.\)'.*/0000:\1:\2.\3/p"
done | sort >"$TEST_TMP/held"
jq -r '.leases[].vf' "$TEST_TMP/l.json" | sort >"$TEST_TMP/leased"
assert_file_eq "$TEST_TMP/leased" "$TEST_TMP/held" "ledger = what the domains hold"
assert_eq 16 "$(sort -u "$TEST_TMP/held" | grep -c .)" "no VF in two domains"

for i in $(seq 100 131); do
	[ "$(cat "$TEST_TMP/rc.$i")" = 0 ] && "$R/vmm/kvm-ib/cancel" "$(cat "$TEST_TMP/out.$i")" node1 "$i" node1
done
assert_eq 16 "$("$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p')" "16 free after cancelling all"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "ledger empty"
test_done
