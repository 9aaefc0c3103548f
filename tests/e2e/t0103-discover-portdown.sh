#!/bin/bash
# Port DOWN: VFs are listed but none is free, and SR-IOV is not offered.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host portdown

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq "DOWN Disabled" "$(jq -r '.hcas[0].ports[0] | "\(.state) \(.phys_state)"' "$TEST_TMP/out.json")" "port state"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/one"
assert_eq NO "$(tmpl_value "$TEST_TMP/one" IB_SRIOV)" "IB_SRIOV"
assert_eq 0 "$(tmpl_value "$TEST_TMP/one" IB_VFS_FREE)" "no free VF behind a DOWN port"
assert_match 'STATE="DOWN"' "$(cat "$TEST_TMP/one")" "IB_PF shows the state"
test_done
