#!/bin/bash
# Harness: sim_fabric runs ibsim + opensm on data/fabric-2sw-4hca.net with a
# partitions file; clients see the P_Keys opensm programmed, and
# sim_opensm_reread applies a rewritten partitions file.
. "$(dirname "$0")/../lib/test-lib.sh"

sim_host none

# port GUIDs: HcaN port 1 = 0x0002c9030000N001 (see the net file)
cat >"$TEST_TMP/partitions.conf" <<-EOF
Default=0x7fff, ipoib : ALL=full;
harness=0x0101 : 0x0002c90300002001=full, 0x0002c90300003001=full;
EOF
sim_fabric "$TOP/tests/e2e/data/fabric-2sw-4hca.net" "$TEST_TMP/partitions.conf"

assert_ok "opensm reported SUBNET UP" -- grep -q "SUBNET UP" "$SIM_OPENSM_LOG"
assert_ok "partitions file in use is SIM_PARTITIONS" -- \
	cmp -s "$TEST_TMP/partitions.conf" "$SIM_PARTITIONS"

declare -A lid
for n in 1 2 3 4; do
	lid[$n]=$(sim_lid Hca$n)
	assert_match '^[1-9][0-9]*$' "${lid[$n]}" "Hca$n has a LID"
done
assert_eq 4 "$(printf '%s\n' "${lid[@]}" | sort -u | wc -l)" "the four HCAs have distinct LIDs"

pkeys() { # N -> P_Key table of HcaN in $TEST_TMP/pkeysN, queried from Hca1
	sim_client Hca1 smpquery pkeys "${lid[$1]}" >"$TEST_TMP/pkeys$1"
}
for n in 2 3 4; do
	assert_ok "smpquery pkeys Hca$n" -- pkeys $n
done
for n in 2 3; do
	assert_match '0xffff' "$(cat "$TEST_TMP/pkeys$n")" "Hca$n: full member of the default partition"
	assert_match '0x8101' "$(cat "$TEST_TMP/pkeys$n")" "Hca$n: full member of 0x0101"
done
assert_match '0xffff' "$(cat "$TEST_TMP/pkeys4")" "Hca4: full member of the default partition"
assert_fail "Hca4: not a member of 0x0101" -- grep -Eq '0x[08]101' "$TEST_TMP/pkeys4"

# rewrite the partitions, make opensm re-read them
echo 'more=0x0102 : 0x0002c90300004001;' >>"$SIM_PARTITIONS"
sim_opensm_reread
assert_ok "smpquery pkeys Hca4 after reread" -- pkeys 4
assert_match '0x0102' "$(cat "$TEST_TMP/pkeys4")" "Hca4: limited member of 0x0102 after reread"

# the ibsim console answers
sim_ibsim 'Dump "Hca4"'
assert_ok "ibsim console: Dump answers in SIM_IBSIM_LOG" -- \
	wait_for 5 grep -q 'nodeguid 2c90300004000' "$SIM_IBSIM_LOG"

test_done
