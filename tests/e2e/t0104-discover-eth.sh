#!/bin/bash
# A ConnectX-5 port in Ethernet mode is listed as such and never offered as
# InfiniBand.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host eth

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq Ethernet "$(jq -r '.hcas[0].ports[0].link_layer' "$TEST_TMP/out.json")" "link layer"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/one"
assert_eq NO "$(tmpl_value "$TEST_TMP/one" IB_SRIOV)" "IB_SRIOV"
assert_eq 0 "$(tmpl_value "$TEST_TMP/one" IB_VFS_FREE)" "IB_VFS_FREE"
test_done
