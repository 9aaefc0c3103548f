#!/bin/bash
# The partitions.conf the renderer produces (tests/unit/data/partitions/
# expected.conf, the exact text test_partitions checks) is accepted by the
# real opensm and applied: a member port holds both tenant P_Keys. A copy
# with one ';' missing is what opensm silently replaces by "everyone in the
# default partition": the reason the renderer re-parses what it writes.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host none
# The ConnectX-3 host port of the sample cloud becomes the fabric's Hca2.
sed 's/0x0002c90300a1b2c1/0x0002c90300002001/' \
	"$TOP/tests/unit/data/partitions/expected.conf" >"$TEST_TMP/parts"
sim_fabric "$TOP/tests/e2e/data/fabric-2sw-4hca.net" "$TEST_TMP/parts"

lid=$(sim_lid Hca2)
pk=$(sim_client Hca1 smpquery pkeys "$lid")
assert_match '0x8101' "$pk" "Hca2 is a full member of tenant-a (0x0101)"
assert_match '0x8102' "$pk" "and of tenant b (0x0102)"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm parsed the rendered file"
pk4=$(sim_client Hca1 smpquery pkeys "$(sim_lid Hca4)")
assert_eq "" "$(echo "$pk4" | grep -E '0x(8|0)10[12]')" "Hca4, not a member, holds neither"

# One missing ';' and opensm falls back to everyone-in-the-default.
# (the first tenant partition loses its closing ';')
awk '!done && /=full ;$/ && NR > 2 { sub(/ ;$/, ""); done = 1 } { print }' \
	"$TEST_TMP/parts" >"$SIM_PARTITIONS.new"
assert_eq 1 "$(diff "$TEST_TMP/parts" "$SIM_PARTITIONS.new" | grep -c '^>')" "exactly one line broken"
cp "$SIM_PARTITIONS.new" "$SIM_PARTITIONS"
sim_opensm_reread
assert_match 'Partition configuration in error' "$(cat "$SIM_OPENSM_LOG")" "a broken file is rejected by opensm"
test_done
