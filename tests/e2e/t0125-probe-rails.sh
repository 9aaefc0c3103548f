#!/bin/bash
# The host/system probe publishes the host's rails and PCIe facts (design
# decision 15), never failing over them, on a host of 2 GPUs and 2 HCAs
# (gpu2: one PCIe switch per NUMA node holding a GPU and a ConnectX-7, an
# NVMe drive on vfio-pci on a root port of node 0):
# - IB_RAILS, and RAIL/PCIE_SWITCH/PCIE_ROOT_PORT on each IB_PF;
# - IB_PCI for each passthrough-able device, with its nearest rails;
# - IB_RAIL: free VFs per rail, the ledger's count (what deploy leases
#   by): VMs pinned to one PF take its VFs one by one, and IB_RAILS_FREE
#   drops when that rail is full; VFS_USABLE (free or the cloud's, what
#   the front-end counts each rail's VMs against) stays;
# - with ONEIB_RAIL_MAP, rails by leaf switch: the leaves learnt through
#   ONEIB_PEER are kept in the ledger directory for deploy, the
#   host/monitor class numbers the rails alike from them, a port whose
#   leaf the map lacks has no rail and IB_NO_RAIL says why; a map that
#   does not parse fails oneib-discover with one line naming it, and the
#   class still reports (IB_ERROR, nothing free).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host gpu2
sim_libvirtd
kvm_ib_host
probes=$R/im/kvm-ib-probes.d
rc=$R/etc/vmm/kvm-ib/kvm-ibrc

probe() { run_probes "$probes/host/system" kvm-ib 0 node1 >"$TEST_TMP/sys" 2>"$TEST_TMP/sys.err"; }
monitor() { run_probes "$probes/host/monitor" kvm-ib 0 node1 >"$TEST_TMP/mon" 2>"$TEST_TMP/mon.err"; }
vecs() { tmpl_vectors "${2:-$TEST_TMP/sys}" "$1" | tr '\n' ' ' | sed 's/ $//'; }
one_value() { sed -n "s/^$1=\"\(\([^\"\\\\]\|\\\\.\)*\)\"\$/\1/p" "${2:-$TEST_TMP/sys}" | sed 's/\\"/"/g'; }
set_rc() { sed -i "s|^$1=.*|$1=\"$2\"|" "$rc"; }
set_rc ONEIB_PEER ""

probe
assert_eq 0 $? "the class succeeds"
assert_eq 2 "$(tmpl_value "$TEST_TMP/sys" IB_RAILS)" "IB_RAILS: two"
assert_match '^ADDRESS=0000:18:00.0\|.*\|RAIL=0\|PCIE_SWITCH=0000:15:00.0\|PCIE_ROOT_PORT=0000:14:01.0$' \
	"$(tmpl_vectors "$TEST_TMP/sys" IB_PF | head -n 1)" "PF 0000:18:00.0: rail 0, its switch and root port"
assert_match '^ADDRESS=0000:98:00.0\|.*\|RAIL=1\|PCIE_SWITCH=0000:95:00.0\|PCIE_ROOT_PORT=0000:94:01.0$' \
	"$(tmpl_vectors "$TEST_TMP/sys" IB_PF | tail -n 1)" "PF 0000:98:00.0: rail 1"
assert_eq "ADDRESS=0000:17:00.0|CLASS=0302|VENDOR=10de|DEVICE=2330|DRIVER=vfio-pci|NUMA_NODE=0|PCIE_SWITCH=0000:15:00.0|PCIE_ROOT_PORT=0000:14:01.0|NEAR=switch|NEAR_RAILS=0 ADDRESS=0000:31:00.0|CLASS=0108|VENDOR=144d|DEVICE=a80a|DRIVER=vfio-pci|NUMA_NODE=0|PCIE_SWITCH=|PCIE_ROOT_PORT=0000:30:01.0|NEAR=numa|NEAR_RAILS=0 ADDRESS=0000:97:00.0|CLASS=0302|VENDOR=10de|DEVICE=2330|DRIVER=vfio-pci|NUMA_NODE=1|PCIE_SWITCH=0000:95:00.0|PCIE_ROOT_PORT=0000:94:01.0|NEAR=switch|NEAR_RAILS=1" \
	"$(vecs IB_PCI)" "IB_PCI: the GPUs beside their switch's rail, the NVMe drive its node's"
assert_eq "RAIL=0|ADDRESS=0000:18:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8 RAIL=1|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8" \
	"$(vecs IB_RAIL)" "IB_RAIL: 8 free on each"
assert_eq 2 "$(tmpl_value "$TEST_TMP/sys" IB_RAILS_FREE)" "IB_RAILS_FREE: both"

# --- the counters follow the ledger -----------------------------------------
deploy_on() { # VMID PF
	local mac
	printf -v mac '02:00:0a:06:%02x:%02x' $(($1 / 256)) $(($1 % 256))
	mkdir -p "$DS/$1"
	vm_xml "$1" "ib/0/$mac/0x8101/$2" >"$DS/$1/vm.xml"
	domain_xml "$1" "$mac" | "$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1 >/dev/null
}
for vm in 1 2 3 4 5 6 7 8; do
	assert_ok "VM $vm on rail 1's PF deploys" -- deploy_on "$vm" 0000:98:00.0
done
probe
assert_eq "RAIL=0|ADDRESS=0000:18:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8 RAIL=1|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=0|VFS_USABLE=8" \
	"$(vecs IB_RAIL)" "rail 1 full, rail 0 untouched"
assert_eq 1 "$(tmpl_value "$TEST_TMP/sys" IB_RAILS_FREE)" "IB_RAILS_FREE: one rail left"
assert_ok "VM 3 is cancelled" -- "$R/vmm/kvm-ib/cancel" one-3 node1 3 node1
monitor
assert_eq "RAIL=0|ADDRESS=0000:18:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8 RAIL=1|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=1|VFS_USABLE=8" \
	"$(vecs IB_RAIL "$TEST_TMP/mon")" "host/monitor: the released VF counts on rail 1 again"
assert_eq 2 "$(tmpl_value "$TEST_TMP/mon" IB_RAILS_FREE)" "and both rails have room"

# --- rails by leaf switch ------------------------------------------------------
# Stands in for "sudo -n /usr/sbin/oneib-peer": PF 0000:18:00.0 is cabled
# to leaf B, 0000:98:00.0 to leaf A (oneib-peer itself: t0124, t0134).
leaf_a=0x0002c90200000a00 leaf_b=0x0002c90200000b00
cat >"$TEST_TMP/peer" <<EOS
#!/bin/sh
case \$1 in
0000:18:00.0) g=$leaf_b n=leafB ;;
0000:98:00.0) g=$leaf_a n=leafA ;;
*) echo "PF \$1 port \$2: no such PF" >&2; exit 1 ;;
esac
printf 'type switch\nnode_guid %s\nport 7\ndesc MF0;%s:MQM9700/U1\n' "\$g" "\$n"
EOS
chmod +x "$TEST_TMP/peer"
set_rc ONEIB_PEER "$TEST_TMP/peer"
set_rc ONEIB_RAIL_MAP "$leaf_a=0 $leaf_b=1"
probe
assert_eq 0 $? "with a map: the class succeeds"
assert_match '^ADDRESS=0000:18:00.0\|.*\|LEAF_GUID=0x0002c90200000b00\|.*\|RAIL=1\|' \
	"$(tmpl_vectors "$TEST_TMP/sys" IB_PF | head -n 1)" "PF 0000:18:00.0 under leaf B: rail 1"
assert_match '^ADDRESS=0000:98:00.0\|.*\|LEAF_GUID=0x0002c90200000a00\|.*\|RAIL=0\|' \
	"$(tmpl_vectors "$TEST_TMP/sys" IB_PF | tail -n 1)" "PF 0000:98:00.0 under leaf A: rail 0"
assert_eq "RAIL=1|ADDRESS=0000:18:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8 RAIL=0|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=1|VFS_USABLE=8" \
	"$(vecs IB_RAIL)" "IB_RAIL by the map"
assert_match 'NEAR=switch\|NEAR_RAILS=1$' "$(tmpl_vectors "$TEST_TMP/sys" IB_PCI | head -n 1)" \
	"the first GPU: beside rail 1 now"
assert_eq "" "$(one_value IB_NO_RAIL)" "IB_NO_RAIL empty"
assert_eq "0000:18:00.0 1 $leaf_b
0000:98:00.0 1 $leaf_a" "$(cat /var/lib/one/ib/leaves)" "the leaves kept for deploy"
monitor
assert_eq "RAIL=1|ADDRESS=0000:18:00.0|PORT=1|VFS_FREE=8|VFS_USABLE=8 RAIL=0|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=1|VFS_USABLE=8" \
	"$(vecs IB_RAIL "$TEST_TMP/mon")" "host/monitor (asks no peer): the same rails, from the leaves kept"

# A leaf the map does not list: no rail, and why.
set_rc ONEIB_RAIL_MAP "$leaf_a=0"
probe
assert_eq 1 "$(tmpl_value "$TEST_TMP/sys" IB_RAILS)" "one rail"
assert_match '^ADDRESS=0000:18:00.0\|.*\|RAIL=\|PCIE_SWITCH=' "$(tmpl_vectors "$TEST_TMP/sys" IB_PF | head -n 1)" \
	"PF 0000:18:00.0: RAIL empty"
assert_eq "PF 0000:18:00.0 port 1: leaf 0x0002c90200000b00 is not in ONEIB_RAIL_MAP" "$(one_value IB_NO_RAIL)" \
	"IB_NO_RAIL says why"
assert_eq "RAIL=0|ADDRESS=0000:98:00.0|PORT=1|VFS_FREE=1|VFS_USABLE=8" "$(vecs IB_RAIL)" "IB_RAIL: the railed port only"
# A leaf not learnt (the peer command fails): no rail either.
set_rc ONEIB_PEER /bin/false
set_rc ONEIB_RAIL_MAP "$leaf_a=0 $leaf_b=1"
probe
assert_eq "PF 0000:18:00.0 port 1: oneib-peer failed (so no rail); PF 0000:98:00.0 port 1: oneib-peer failed (so no rail)" \
	"$(one_value IB_NO_RAIL)" "no leaf learnt: no rail, said for each port"
assert_eq "" "$(cat /var/lib/one/ib/leaves)" "nor any leaf kept"

# A map that does not parse: oneib-discover refuses it in one line, the
# class still succeeds and says the host cannot take VMs.
set_rc ONEIB_RAIL_MAP "$leaf_a=0 banana"
probe
assert_eq 0 $? "a bad map: the class succeeds"
assert_eq 0 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)" "nothing free"
assert_match 'oneib-discover failed' "$(one_value IB_ERROR)" "IB_ERROR says so"
assert_eq "oneib-discover: --rail-map: ONEIB_RAIL_MAP: 'banana' is not a leaf GUID, '=' and a rail 0-255" \
	"$(cat "$TEST_TMP/sys.err")" "the monitoring log gets the one line naming it"
test_done
