#!/bin/bash
# A host without any InfiniBand (no RDMA core loaded): empty list, exit 0,
# no noise from libibumad.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host noib

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq "" "$(cat "$TEST_TMP/err")" "nothing on stderr"
assert_eq "no InfiniBand HCA found" "$("$IBBIN/oneib-discover")" "table"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/one"
assert_eq 'IB_SRIOV="NO"
IB_NOT_READY=""
IB_LEAVES=""
IB_NO_LEAF=""
IB_RAILS=0
IB_NO_RAIL=""
IB_VFS_FREE=0
IB_VFS_USABLE=0
IB_ERROR=""
IB_RAILS_FREE=0' "$(cat "$TEST_TMP/one")" "monitoring attributes"
test_done
