#!/bin/bash
# The host/system probe class publishes the host's place in the fabric and
# its room, and never fails over it:
# - each IB_PF names the leaf switch its port is cabled to (oneib-peer run
#   through ONEIB_PEER, here attached to ibsim node hv2 under leaf1 port 5),
#   IB_LEAVES lists it, a port whose leaf cannot be learnt keeps LEAF_*
#   empty and IB_NO_LEAF says why; no peer command, or one that fails,
#   changes nothing else;
# - PKEY_CAP/PKEY_USED are the port's table size and entries in use;
# - IB_NUMA counts free VFs per NUMA node as the ledger says, and the
#   counts are what deploy leases by: VMs pinned to node 1 take node 1's
#   VFs one by one, each probe shows one fewer there, and when it shows 0
#   the next such VM gets a VF of node 0.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5-ibsim
sim_libvirtd
sim_fabric "$TOP/tests/e2e/data/fabric-2leaf.net"
kvm_ib_host
probes=$R/im/kvm-ib-probes.d
rc=$R/etc/vmm/kvm-ib/kvm-ibrc

# The host's NUMA layout: node0 CPUs 0-3 (PF A 0000:3b:00.0), node1 4-7
# (PF B 0000:af:00.0).
numa_two_nodes || die "cannot fake the NUMA nodes"

# Stands in for "sudo -n /usr/sbin/oneib-peer": the installed oneib-peer
# attached to fabric node hv2.
cat >"$TEST_TMP/peer" <<EOS
#!/bin/sh
cd "$TEST_TMP/fabric/client" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST=hv2 \
	"$TEST_TMP/inst/usr/sbin/oneib-peer" "\$@"
EOS
chmod +x "$TEST_TMP/peer"
set_peer() { sed -i "s|^ONEIB_PEER=.*|ONEIB_PEER=\"$1\"|" "$rc"; }
probe() { run_probes "$probes/host/system" kvm-ib 0 node1 >"$TEST_TMP/sys" 2>"$TEST_TMP/sys.err"; }
# OpenNebula's reading of NAME="..." (a \" is a quote).
one_value() { sed -n "s/^$1=\"\(\([^\"\\\\]\|\\\\.\)*\)\"\$/\1/p" "$TEST_TMP/sys" | sed 's/\\"/"/g'; }
numa() { tmpl_vectors "$TEST_TMP/sys" IB_NUMA | tr '\n' ' ' | sed 's/ $//'; }

set_peer "$TEST_TMP/peer"
probe
assert_eq 0 $? "the class succeeds"
tmpl_vectors "$TEST_TMP/sys" IB_PF >"$TEST_TMP/pf"
assert_match '^ADDRESS=0000:3b:00.0\|IBDEV=ibsim0\|.*\|PKEY_CAP=128\|PKEY_USED=1\|LEAF_GUID=0x0002c90200000a00\|LEAF_PORT=5\|LEAF_DESC=MF0;leaf1:MQM8700/U1\|PEER_TYPE=switch\|RAIL=0\|PCIE_SWITCH=\|PCIE_ROOT_PORT=0000:3a:00.0$' \
	"$(cat "$TEST_TMP/pf")" "PF A: room in its P_Key table, and its leaf: leaf1 port 5"
assert_eq ",0x0002c90200000a00," "$(one_value IB_LEAVES)" "IB_LEAVES: leaf1"
assert_match '^ADDRESS=0000:af:00.0\|.*\|LEAF_GUID=\|LEAF_PORT=\|LEAF_DESC=\|PEER_TYPE=\|RAIL=1\|PCIE_SWITCH=\|PCIE_ROOT_PORT=0000:ae:00.0$' \
	"$(cat "$TEST_TMP/pf")" "PF B (no simulated port): LEAF_* empty"
assert_match '^PF 0000:af:00.0 port 1: cannot open its umad device: ' "$(one_value IB_NO_LEAF)" \
	"IB_NO_LEAF: why, for PF B only"
assert_eq "NODE=0|VFS_FREE=7 NODE=1|VFS_FREE=8" "$(numa)" \
	"IB_NUMA: node 0 has PF A's 7 VFs (VF 7 is the host's), node 1 PF B's 8"

# No peer command, or one that fails: the leaves go empty, one attribute
# says why, the rest is as before and the class still succeeds.
for cmd in "" /bin/false; do
	set_peer "$cmd"
	probe
	assert_eq 0 $? "ONEIB_PEER='$cmd': the class succeeds"
	assert_eq "" "$(one_value IB_LEAVES)" "ONEIB_PEER='$cmd': no leaf"
	assert_eq 0 "$(tmpl_vectors "$TEST_TMP/sys" IB_PF | grep -vc 'LEAF_GUID=|')" "ONEIB_PEER='$cmd': every LEAF_GUID empty"
	assert_eq "NODE=0|VFS_FREE=7 NODE=1|VFS_FREE=8" "$(numa)" "ONEIB_PEER='$cmd': IB_NUMA as before"
done
assert_eq "PF 0000:3b:00.0 port 1: oneib-peer failed; PF 0000:af:00.0 port 1: oneib-peer failed" \
	"$(one_value IB_NO_LEAF)" "a failing command: said for each port"
set_peer ""
probe
assert_eq "PF 0000:3b:00.0 port 1: no peer command configured (ONEIB_PEER in kvm-ibrc); PF 0000:af:00.0 port 1: no peer command configured (ONEIB_PEER in kvm-ibrc)" \
	"$(one_value IB_NO_LEAF)" "no command: said for each port"

# --- IB_NUMA is the ledger's count, and deploy leases by it -------------------
deploy_pinned() { # VMID CPUSET: one IB NIC, vCPUs pinned to CPUSET
	local mac
	printf -v mac '02:00:0a:05:%02x:%02x' $(($1 / 256)) $(($1 % 256))
	mkdir -p "$DS/$1"
	vm_xml "$1" "ib/0/$mac/0x8101" >"$DS/$1/vm.xml"
	domain_xml "$1" "$mac" | sed "s|<vcpu>1</vcpu>|<vcpu cpuset='$2'>1</vcpu>|" |
		"$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1 >/dev/null
}
# Free VFs per node as the ledger has it: each PF's VFs no lease records
# (PF A's VF 7 is the host's, never free).
ledger_free() {
	local a b
	a=$("$R/ib/bin/oneib-vf" list --format=json | jq '[.leases[] | select(.pf == "0000:3b:00.0")] | length')
	b=$("$R/ib/bin/oneib-vf" list --format=json | jq '[.leases[] | select(.pf == "0000:af:00.0")] | length')
	echo "NODE=0|VFS_FREE=$((7 - a)) NODE=1|VFS_FREE=$((8 - b))"
}
for vm in 1 2 3 4 5 6 7 8; do
	assert_ok "VM $vm pinned to node 1 deploys" -- deploy_pinned "$vm" 4-5
	probe
	assert_eq "NODE=0|VFS_FREE=7 NODE=1|VFS_FREE=$((8 - vm))" "$(numa)" "after VM $vm: node 1 one fewer"
	assert_eq "$(ledger_free)" "$(numa)" "after VM $vm: IB_NUMA is the ledger's count"
done
assert_eq "$(($(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)))" 7 "IB_VFS_FREE is their sum"
assert_ok "VM 9 pinned to node 1, which shows 0 free" -- deploy_pinned 9 4-5
assert_eq 0000:3b:00.0 "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.vm == 9) | .pf')" \
	"it gets a VF of node 0, as IB_NUMA said"
probe
assert_eq "NODE=0|VFS_FREE=6 NODE=1|VFS_FREE=0" "$(numa)" "and node 0 shows one fewer"
assert_ok "VM 3 is cancelled" -- "$R/vmm/kvm-ib/cancel" one-3 node1 3 node1
probe
assert_eq "NODE=0|VFS_FREE=6 NODE=1|VFS_FREE=1" "$(numa)" "a released VF of node 1 counts again"
assert_ok "VM 10 pinned to node 1 deploys" -- deploy_pinned 10 6-7
assert_eq 0000:af:00.0 "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.vm == 10) | .pf')" \
	"and node 1's one free VF is the one deploy takes"
test_done
