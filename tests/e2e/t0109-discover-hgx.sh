#!/bin/bash
# An HGX-class host (design decision 15): 2 NUMA nodes, 4 PCIe switches,
# each with 2 GPUs (10de:2330, class 0x0302) and 2 ConnectX-7 PFs. What
# oneib-discover learns from the kernel's device paths alone:
# - the rails: the 8 InfiniBand ports in PCI address order, 0-7;
# - each PF's and each GPU's root port, PCIe switch (the upstream port the
#   tree shows two bridges above it) and NUMA node;
# - each GPU's nearest rails: the two PFs under its own switch;
# and what it does when the tree is not what it says: a "bridge" that is
# no bridge names no switch (one warning), and a GPU whose switch holds
# no PF is nearest the rails of its NUMA node. lspci (libpci) reads the
# same tree as one tree of switches, as on a real host.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host hgx

disc() { "$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json" 2>"$TEST_TMP/err"; }
q() { jq -r "$1" "$TEST_TMP/out.json"; }

disc
assert_eq 0 $? "exit status"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "JSON equals the fixture"
assert_eq "" "$(cat "$TEST_TMP/err")" "no warnings"

# Rails by PCI address: the fixture's PFs 0000:19 0000:1a 0000:3d 0000:3e ...
assert_eq "0:0000:19:00.0 1:0000:1a:00.0 2:0000:3d:00.0 3:0000:3e:00.0 4:0000:99:00.0 5:0000:9a:00.0 6:0000:bd:00.0 7:0000:be:00.0" \
	"$(q '[.rails[] | "\(.rail):\(.address)"] | join(" ")')" "8 rails, in PCI address order"
assert_eq "0 0 0 0 1 1 1 1" "$(q '[.rails[].numa_node] | join(" ")')" "rails 0-3 on node 0, 4-7 on node 1"
assert_eq "0000:15:00.0 0000:15:00.0 0000:39:00.0 0000:39:00.0 0000:95:00.0 0000:95:00.0 0000:b9:00.0 0000:b9:00.0" \
	"$(q '[.hcas[].pcie_switch] | join(" ")')" "two PFs per switch, the switch their upstream port"
assert_eq "0000:14:01.0 0000:38:01.0 0000:94:01.0 0000:b8:01.0" \
	"$(q '[.hcas[].pcie_root_port] | unique | join(" ")')" "one root port per switch"

# The GPUs, with the same facts, each beside the two rails of its switch.
assert_eq 8 "$(q '[.pci_devices[] | select(.class == "0x030200")] | length')" "8 GPUs"
assert_eq "0000:17:00.0=0000:15:00.0/switch/0,1 0000:18:00.0=0000:15:00.0/switch/0,1 0000:3b:00.0=0000:39:00.0/switch/2,3 0000:3c:00.0=0000:39:00.0/switch/2,3 0000:97:00.0=0000:95:00.0/switch/4,5 0000:98:00.0=0000:95:00.0/switch/4,5 0000:bb:00.0=0000:b9:00.0/switch/6,7 0000:bc:00.0=0000:b9:00.0/switch/6,7" \
	"$(q '[.pci_devices[] | "\(.address)=\(.pcie_switch)/\(.near)/\(.near_rails | map(tostring) | join(","))"] | join(" ")')" \
	"each GPU: its switch, and the two rails under it"
assert_eq "0 0 0 0 1 1 1 1" "$(q '[.pci_devices[].numa_node] | join(" ")')" "GPUs' NUMA nodes"
assert_eq "" "$(q '.pci_devices[] | select(.address | test("^0000:(19|1a):")) | .address')" \
	"the HCAs' own functions are not passthrough devices"

# Person's view: rail and switch on each PF, the GPUs and their rails.
"$IBBIN/oneib-discover" >"$TEST_TMP/table"
assert_match 'root port 0000:14:01.0  PCIe switch 0000:15:00.0' "$(cat "$TEST_TMP/table")" "table: PF's switch"
assert_match 'guid 0xa088c20300b80001  rail 7' "$(cat "$TEST_TMP/table")" "table: mlx5_7's port is rail 7"
assert_match '0000:bc:00.0  0302   10de:2330 vfio-pci  1    0000:b8:01.0  0000:b9:00.0  6,7 \(switch\)' \
	"$(cat "$TEST_TMP/table")" "table: GPU 7's line"
assert_match 'free VFs per rail: rail 0: 8, rail 1: 8, .* rail 7: 8' "$(cat "$TEST_TMP/table")" "table: free VFs per rail"

# lspci sees the same switches (the fixture is a faithful tree).
if command -v lspci >/dev/null; then
	assert_eq "0000:17:00.0 0000:18:00.0 0000:3b:00.0 0000:3c:00.0 0000:97:00.0 0000:98:00.0 0000:bb:00.0 0000:bc:00.0" \
		"$(lspci -D -n -d ::0302 | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')" "lspci: the same 8 3D controllers"
	assert_match '\[0000:14\]---01.0----00.0--\+-00.0----00.0  NVIDIA' "$(lspci -tv)" \
		"lspci: root port, upstream port, downstream ports, GPU"
fi

# The same tree under valgrind and the ASan+UBSan build, every format.
for f in json one table; do
	mc_check 0 "oneib-discover --format=$f" "$IBBIN/oneib-discover" --format=$f
done

# A "bridge" that says it is none (the upstream port's class): the chain
# is not trusted, its functions name no switch, and the GPUs there are
# nearest the rails of their NUMA node.
printf '0x020000\n' >/sys/bus/pci/devices/0000:39:00.0/class
disc
assert_eq 0 $? "a bad bridge: still exit 0"
assert_match '^oneib-discover: /sys/bus/pci/devices/0000:39:00.0/class: not a PCI bridge, so no PCIe switch is named for 0000:3d:00.0$' \
	"$(head -n 1 "$TEST_TMP/err")" "one warning names the bridge"
assert_eq 4 "$(grep -c 'not a PCI bridge' "$TEST_TMP/err")" "once for each function behind it (2 PFs, 2 GPUs)"
assert_eq "null null" "$(q '[.hcas[] | select(.address | test("^0000:3[de]:")) | .pcie_switch | tostring] | join(" ")')" \
	"its PFs: no switch"
assert_eq "numa/0,1,2,3" "$(q '.pci_devices[] | select(.address == "0000:3b:00.0") | "\(.near)/\(.near_rails | map(tostring) | join(","))"')" \
	"its GPU: nearest node 0's rails"
assert_eq "switch/0,1" "$(q '.pci_devices[] | select(.address == "0000:17:00.0") | "\(.near)/\(.near_rails | map(tostring) | join(","))"')" \
	"another switch's GPU: as before"
test_done
