#!/bin/bash
# On an ibsim fabric (libibumad through libumad2sim) oneib-discover lists the
# simulated CA ibsim0, which has no PCI device, with the port state, LID and
# P_Keys opensm programmed.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host none
printf 'Default=0x7fff, ipoib : ALL=full ;\nblue=0x0101 : 0x0002c90300002001=full ;\n' >"$TEST_TMP/parts"
sim_fabric "$TOP/tests/e2e/data/fabric-2sw-4hca.net" "$TEST_TMP/parts"

lid=$(sim_lid Hca2)
sim_client Hca2 "$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_eq 1 "$(jq '.hcas | length' "$TEST_TMP/out.json")" "one CA"
assert_eq "ibsim0 null null" "$(jq -r '.hcas[0] | "\(.ibdev) \(.address) \(.numa_node)"' "$TEST_TMP/out.json")" "ibsim0 without a PCI device"
assert_eq "ACTIVE LinkUp InfiniBand" "$(jq -r '.hcas[0].ports[0] | "\(.state) \(.phys_state) \(.link_layer)"' "$TEST_TMP/out.json")" "port brought up by opensm"
assert_eq "$((lid))" "$(jq '.hcas[0].ports[0].lid' "$TEST_TMP/out.json")" "LID opensm assigned"
assert_eq 0x0002c90300002001 "$(jq -r '.hcas[0].ports[0].port_guid' "$TEST_TMP/out.json")" "port GUID from the net file"
assert_match '"0x8101"' "$(jq -c '.hcas[0].ports[0].pkeys' "$TEST_TMP/out.json")" "P_Key opensm programmed for the partition"
assert_eq "[]" "$(jq -c '.hcas[0].vfs' "$TEST_TMP/out.json")" "no VFs"
sim_client Hca2 "$IBBIN/oneib-discover" --format=one >"$TEST_TMP/one"
assert_match '^IB_SRIOV="NO"$' "$(cat "$TEST_TMP/one")" "no SR-IOV on a simulated CA"
test_done
