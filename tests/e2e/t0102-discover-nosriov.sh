#!/bin/bash
# SR-IOV disabled (sriov_numvfs 0): the PF is listed with no VFs, the probe
# says IB_SRIOV="NO".
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host nosriov

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq 0 "$(jq '.hcas[0].vfs | length' "$TEST_TMP/out.json")" "no VFs"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/one"
assert_eq NO "$(tmpl_value "$TEST_TMP/one" IB_SRIOV)" "IB_SRIOV"
assert_eq 0 "$(tmpl_value "$TEST_TMP/one" IB_VFS_FREE)" "IB_VFS_FREE"
test_done
