#!/bin/bash
# The installed host/system probe class of kvm-ib, run the way monitord's
# client runs it: stock probes and ours together, IB_SRIOV and one IB_PF per
# PF port with the facts oneib-discover found.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst"
probes=$inst/var/lib/one/remotes/im/kvm-ib-probes.d

run_probes "$probes/host/system" kvm-ib 3 node3 >"$TEST_TMP/sys" 2>"$TEST_TMP/err"
assert_eq 0 $? "class succeeds"
assert_eq "kvm" "$(tmpl_value "$TEST_TMP/sys" HYPERVISOR)" "stock probe ran in the same class"
assert_eq YES "$(tmpl_value "$TEST_TMP/sys" IB_SRIOV)" "IB_SRIOV"
tmpl_vectors "$TEST_TMP/sys" IB_PF >"$TEST_TMP/pf"
assert_eq 2 "$(grep -c . "$TEST_TMP/pf")" "one IB_PF per PF port"
exp=$(jq -r '.hcas[] | "ADDRESS=\(.address)|IBDEV=\(.ibdev)|PORT=\(.ports[0].port)|PORT_GUID=\(.ports[0].port_guid)|SUBNET_PREFIX=0xfe80000000000000|STATE=\(.ports[0].state)|RATE=\(.ports[0].rate)|LINK_LAYER=\(.ports[0].link_layer)|NUMA_NODE=\(.numa_node)|VFS_TOTAL=\(.sriov_totalvfs)|VFS_ENABLED=\(.vfs | length)|DRIVER=\(.driver)|PKEY_CAP=\(.ports[0].pkey_cap)|PKEY_USED=\(.ports[0].pkeys | length)|LEAF_GUID=|LEAF_PORT=|LEAF_DESC=|PEER_TYPE=|RAIL=\(.ports[0].rail)|PCIE_SWITCH=\(.pcie_switch // "")|PCIE_ROOT_PORT=\(.pcie_root_port)"' "$SIM_HOST_DIR/expect.json")
assert_eq "$exp" "$(cat "$TEST_TMP/pf")" "IB_PF vectors carry the fixture's facts"
# No oneib-peer on this machine: the leaves stay empty and one attribute
# says why, port by port; the class still succeeds (above).
assert_match '^PF 0000:3b:00.0 port 1: .*/usr/sbin/oneib-peer.*; PF 0000:af:00.0 port 1: ' \
	"$(tmpl_value "$TEST_TMP/sys" IB_NO_LEAF)" "IB_NO_LEAF says why, for each port"
assert_eq "" "$(tmpl_value "$TEST_TMP/sys" IB_LEAVES)" "no leaf"
test_done
