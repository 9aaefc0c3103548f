#!/bin/bash
# Each port's leaf switch, learnt with a directed-route SMP one hop out of
# the PF's own port: hosts under either leaf of a two-leaf ibsim fabric
# (tests/e2e/data/fabric-2leaf.net) get their leaf's node GUID, the switch
# port their cable is plugged into and the switch's description; a host
# cabled straight to another HCA is told so and gets no leaf; a port whose
# query fails keeps its leaf empty and says why, and the others are still
# reported. Everything runs for real: oneib-discover runs the installed
# oneib-peer through the peer command, as the probe does through sudo, and
# oneib-peer reaches the fabric through libumad2sim. The fixture is cx5
# with PF A's RDMA device named ibsim0, the one device libumad2sim shows:
# the hypervisor's HCA node of the fabric (SIM_HOST) is PF A's port; PF B
# (mlx5_1) has no simulated port.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5-ibsim
sim_fabric "$TOP/tests/e2e/data/fabric-2leaf.net"

# What stands in for "sudo -n /usr/sbin/oneib-peer" (the test runs as
# root): the installed oneib-peer attached to fabric node $NODE.
peer=$TEST_TMP/peer
cat >"$peer" <<EOS
#!/bin/sh
cd "$TEST_TMP/fabric/client" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST="\$NODE" \
	"$ONEIB_DESTDIR/usr/sbin/oneib-peer" "\$@"
EOS
chmod +x "$peer"
discover() { # NODE FORMAT
	NODE=$1 "$IBBIN/oneib-discover" --format="$2" --peer-cmd "$peer" \
		--ledger "$TEST_TMP/ledger"
}

leaf1=0x0002c90200000a00 leaf2=0x0002c90200000b00
for spec in "hv1 $leaf1 2 leaf1" "hv2 $leaf1 5 leaf1" "hv3 $leaf2 3 leaf2" "hv4 $leaf2 7 leaf2"; do
	read -r node guid port name <<<"$spec"
	discover "$node" json >"$TEST_TMP/$node.json" 2>"$TEST_TMP/$node.err"
	assert_eq 0 $? "$node: exit status"
	assert_eq "switch $guid $port MF0;$name:MQM8700/U1" \
		"$(jq -r '.hcas[0].ports[0].peer | "\(.type) \(.node_guid) \(.port) \(.desc)"' "$TEST_TMP/$node.json")" \
		"$node: PF A port 1 is cabled to $name port $port"
	discover "$node" one-system >"$TEST_TMP/$node.one" 2>/dev/null
	tmpl_vectors "$TEST_TMP/$node.one" IB_PF >"$TEST_TMP/$node.pf"
	assert_match "^ADDRESS=0000:3b:00.0\|.*\|LEAF_GUID=$guid\|LEAF_PORT=$port\|LEAF_DESC=MF0;$name:MQM8700/U1\|PEER_TYPE=switch\|RAIL=0\|PCIE_SWITCH=\|PCIE_ROOT_PORT=0000:3a:00.0$" \
		"$(cat "$TEST_TMP/$node.pf")" "$node: IB_PF of PF A names its leaf"
	assert_eq ",$guid," "$(tmpl_value "$TEST_TMP/$node.one" IB_LEAVES)" "$node: IB_LEAVES"
done
# The same leaf seen from two hosts is one switch; the two leaves differ.
assert_eq "$(jq -r '.hcas[0].ports[0].peer.node_guid' "$TEST_TMP/hv1.json")" \
	"$(jq -r '.hcas[0].ports[0].peer.node_guid' "$TEST_TMP/hv2.json")" "hv1 and hv2 share leaf1"

# PF B has no simulated port: its query fails, its leaf stays empty, the
# reason is oneib-peer's own line, and PF A is still reported.
assert_eq "null" "$(jq -c '.hcas[1].ports[0].peer' "$TEST_TMP/hv1.json")" "PF B: no peer"
assert_match '^PF 0000:af:00.0 port 1: cannot open its umad device' \
	"$(jq -r '.hcas[1].ports[0].peer_error' "$TEST_TMP/hv1.json")" "PF B: why, from oneib-peer"
assert_match '^ADDRESS=0000:af:00.0\|.*\|LEAF_GUID=\|LEAF_PORT=\|LEAF_DESC=\|PEER_TYPE=\|RAIL=1\|PCIE_SWITCH=\|PCIE_ROOT_PORT=0000:ae:00.0$' \
	"$(cat "$TEST_TMP/hv1.pf")" "PF B: LEAF_* empty"
assert_match '^IB_NO_LEAF="PF 0000:af:00.0 port 1: cannot open its umad device: ' \
	"$(cat "$TEST_TMP/hv1.one")" "IB_NO_LEAF says why, for PF B alone"

# hv5 is cabled straight to stor1's HCA: a CA, said so, and no leaf.
discover hv5 one-system >"$TEST_TMP/hv5.one" 2>/dev/null
assert_eq 0 $? "hv5: exit status"
tmpl_vectors "$TEST_TMP/hv5.one" IB_PF >"$TEST_TMP/hv5.pf"
assert_match '^ADDRESS=0000:3b:00.0\|.*\|LEAF_GUID=\|LEAF_PORT=\|LEAF_DESC=\|PEER_TYPE=CA\|RAIL=0\|PCIE_SWITCH=\|PCIE_ROOT_PORT=0000:3a:00.0$' \
	"$(cat "$TEST_TMP/hv5.pf")" "hv5: PF A's peer is a CA, no leaf"
assert_match '^IB_NO_LEAF="PF 0000:3b:00.0 port 1: cabled to a CA, not a switch \(0x0002c90300006000 port 1, \\"stor1 HCA-1\\"\); PF 0000:af:00.0 port 1: ' \
	"$(cat "$TEST_TMP/hv5.one")" "hv5: IB_NO_LEAF says what it is cabled to"
assert_eq "" "$(tmpl_value "$TEST_TMP/hv5.one" IB_LEAVES)" "hv5: no leaf in IB_LEAVES"

# The table a person reads.
discover hv3 table >"$TEST_TMP/hv3.table" 2>/dev/null
assert_match "^ +leaf $leaf2 port 3 \"MF0;leaf2:MQM8700/U1\"$" "$(cat "$TEST_TMP/hv3.table")" "table: the leaf"
test_done
