#!/bin/bash
# deploy reads the host quickly (hca_inventory: VF n numbered from the PF's
# SR-IOV offset and stride, a VF's driver read only when placement asks)
# and still picks exactly what full discovery would: the VFs oneib-discover
# lists from the virtfnN links, in index order, never the one the host
# driver holds (cx5's VF 7, 0000:3b:01.0, bound to mlx5_core), which the
# refusal does not count either.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

pf=0000:3b:00.0
"$R/ib/bin/oneib-discover" --format=json >"$TEST_TMP/d.json"
assert_eq mlx5_core "$(jq -r ".hcas[] | select(.address == \"$pf\") | .vfs[] | select(.address == \"0000:3b:01.0\") | .driver" "$TEST_TMP/d.json")" \
	"the fixture's VF 7 of $pf is the host's"
jq -r ".hcas[] | select(.address == \"$pf\") | .vfs[] | select(.driver == \"vfio-pci\") | .address" "$TEST_TMP/d.json" >"$TEST_TMP/want"
assert_eq 7 "$(grep -c . "$TEST_TMP/want")" "7 VFs of $pf are assignable"

for i in 1 2 3 4 5 6 7; do
	one_deploy "$i" "ib/0/02:00:0a:05:00:0$i/0x8101/$pf" >/dev/null 2>"$TEST_TMP/err.$i" ||
		echo "$i: $(cat "$TEST_TMP/err.$i")" >>"$TEST_TMP/failed"
done
assert_eq "" "$(cat "$TEST_TMP/failed" 2>/dev/null)" "7 VMs pinned to $pf deploy"
"$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases | sort_by(.vm) | .[].vf' >"$TEST_TMP/got"
assert_file_eq "$TEST_TMP/want" "$TEST_TMP/got" "they got the assignable VFs in index order, as discovery lists them"

one_deploy 8 "ib/0/02:00:0a:05:00:08/0x8101/$pf" >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "the 8th is refused"
assert_match "no free VF on 0000:3b:00.0 port 1 for VM 8 \\(7 of 7 leased\\)" "$(cat "$TEST_TMP/err")" \
	"the host's VF is neither leased nor counted"
assert_eq "" "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.vf == "0000:3b:01.0") | .vm')" \
	"0000:3b:01.0 never leased"
test_done
