#!/bin/bash
# Two ConnectX-5 PFs on two NUMA nodes: the fixture's facts field by field;
# the VF the host driver holds shows its RDMA device and is not an HCA.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx5

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq "" "$(cat "$TEST_TMP/err")" "no warnings"
assert_eq "mlx5_0 mlx5_1" "$(jq -r '[.hcas[].ibdev] | join(" ")' "$TEST_TMP/out.json")" "host-bound VF's mlx5_2 is not an HCA"
assert_eq "mlx5_2" "$(jq -r '.hcas[0].vfs[7].ibdev' "$TEST_TMP/out.json")" "VF 7 of 0000:3b:00.0 carries mlx5_2"
assert_eq "0 1" "$(jq -r '[.hcas[].numa_node] | join(" ")' "$TEST_TMP/out.json")" "NUMA nodes"
test_done
