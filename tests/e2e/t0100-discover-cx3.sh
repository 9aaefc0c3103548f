#!/bin/bash
# oneib-discover on a ConnectX-3 host (mlx4, 2 ports, 16 VFs) reports exactly
# what the fixture generator put in sysfs, warns about nothing, and its table
# shows every VF.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx3

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq "" "$(cat "$TEST_TMP/err")" "no warnings on a healthy host"

"$IBBIN/oneib-discover" >"$TEST_TMP/table"
assert_eq 16 "$(grep -cE '^ +[0-9]+ +0000:03:0[0-2]\.[0-7] +vfio-pci' "$TEST_TMP/table")" "16 VF rows in the table"
assert_match 'port 2  ACTIVE/LinkUp  56 Gb/s  InfiniBand' "$(cat "$TEST_TMP/table")" "port 2 line"
assert_match 'pkeys 0xffff 0x8101 0x8102  \(3 of 127 entries\)$' "$(cat "$TEST_TMP/table")" \
	"P_Key table, and its room: the host's view of ConnectX-3's 128 (one reserved)"
test_done
