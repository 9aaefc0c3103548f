#!/bin/bash
# Capacity is known before it bites (design decision 11). opensm drops the
# P_Keys beyond a port's table (ERR 0512, "Pkey table is full") and
# carries on: 70 networks in node01's cluster make its ConnectX-3 PF port
# a member of 70 tenant partitions, 71 entries with the default one, and
# ibsim's CA tables hold 64 (PartitionCap, fixed in ibsim: opensm-facts
# §4). verify reads every end port's PartitionCap and the enforcement
# capacity of the switch port it is cabled to, and reports the port, with
# the keys opensm dropped (exit 1).
# A real ConnectX-3 port holds 128 entries, 126 of them tenant keys, which
# ibsim cannot model: the renderer's own limit (per network, one warning,
# the port left out of the newest networks) is rendered here from 127 and
# 126 networks, without the fabric; its model is tests/unit/test_partitions.c
# (mlx4_port_key_limit, mlx4_limit_less_static).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

# N networks 0x8201.. (VNET 101..) in cluster 100, no VM
many_vnets() { # N
	local i
	printf '<VNET_POOL>\n'
	for ((i = 1; i <= $1; i++)); do
		printf '<VNET><ID>%d</ID><NAME><![CDATA[n%d]]></NAME><STATE>1</STATE><CLUSTERS><ID>100</ID></CLUSTERS>' $((100 + i)) "$i"
		printf '<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x%04x]]></IB_PKEY></TEMPLATE></VNET>\n' $((0x8200 + i))
	done
	printf '</VNET_POOL>\n'
}
cloud() { # N
	{ shared_vms 10/node02/; shared_hosts; many_vnets "$1"; } >"$TEST_TMP/cloud$1.xml"
}

shared_fabric
cloud 70
"$PART" render "$TEST_TMP/cloud70.xml" >"$TEST_TMP/70.conf" 2>"$TEST_TMP/70.err" || die "render 70"
assert_eq "" "$(cat "$TEST_TMP/70.err")" "70 networks fit a ConnectX-3 port: no warning"
n=$(sim_opensm_sweeps)
"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/70.conf" >/dev/null || die "install"
sim_opensm_wait_sweep "$n"
assert_match "ERR 0512: Failed to set PKey 0x[0-9a-f]+ because Pkey table is full for node 0x0002c90300001000 port 1" \
	"$(grep 'ERR 0512' "$SIM_OPENSM_LOG")" "opensm dropped keys on node01, and carried on"
assert_eq 64 "$(shared_pkeys node01 | wc -w)" "node01 holds 64 keys"

assert_fail "verify reports the port" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" \
	--opensm-conf "$TEST_TMP/fabric/opensm.conf"
out=$(cat "$LAST_OUT")
assert_match "^capacity: port 0x0002c90300001001 \(lid [0-9]+, \"node01\"\) needs 71 P_Key entries, its table holds 64, switch 0x0002c90200001000 port 2 enforces at most 64 \(opensm turns its enforcement off\): opensm dropped( 0x8[0-9a-f]{3}){7}$" \
	"$out" "the port, what it needs, what holds it, and the 7 keys opensm dropped"
dropped=$(sed -n 's/^capacity: .*opensm dropped //p' <<<"$out")
for k in $dropped; do
	assert_eq "" "$(shared_pkeys node01 | tr ' ' '\n' | grep -x "$k")" "$k is indeed not in node01's table"
done
assert_match "^drift: port 0x0002c90300001001 .*\"node01\"\) holds" "$out" "and its table differs from the file"
assert_match "; 1 port over capacity$" "$out" "counted"
assert_eq 1 "$(grep -c '^capacity:' <<<"$out")" "no other port over capacity"

# the renderer's ConnectX-3 limit: 126 tenant keys on a port
cloud 127
assert_ok "127 networks" -- "$PART" render "$TEST_TMP/cloud127.xml"
assert_eq "oneib-partitions: warning: VNET 227 (n127): HOST 1 (node01) port 0x0002c90300001001 already holds the 126 tenant keys a ConnectX-3 port can; left out on that port" \
	"$(cat "$LAST_ERR")" "one warning, for the newest network"
assert_eq 126 "$(grep -c '^	0x0002c90300001001=full' "$LAST_OUT")" "node01 in 126 partitions"
assert_match "^# refused: VNET 227 \(n127\): HOST 1 \(node01\)" "$(cat "$LAST_OUT")" "the file says so, for verify"
cloud 126
shared_static >"$TEST_TMP/static.conf"
assert_ok "126 networks and the hosts partition" -- "$PART" render --static "$TEST_TMP/static.conf" \
	--hosts-partition infra "$TEST_TMP/cloud126.xml"
assert_eq "oneib-partitions: warning: VNET 226 (n126): HOST 1 (node01) port 0x0002c90300001001 already holds the 125 tenant keys a ConnectX-3 port can; left out on that port" \
	"$(cat "$LAST_ERR")" "infra takes an entry: 125 tenant keys"
test_done
