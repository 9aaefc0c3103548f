#!/bin/bash
# One VF per rail, each beside its GPU (design decision 15), through the
# installed kvm-ib deploy on an HGX-class host (hgx: rails 0-7 in PCI
# address order, rails 2s and 2s+1 under the PCIe switch of GPUs 2s and
# 2s+1, 8 VFs each). The GPUs are OpenNebula's own PCI hostdevs in the
# deployment file, in its order:
# - 8 NICs on one network, no GPU: rails 0-7, in rail order;
# - 8 GPUs x 8 NICs, the GPUs listed in reverse: NIC k pairs with the k-th
#   GPU of the file and gets a rail under that GPU's switch: 8 distinct
#   rails, each VF beside its GPU;
# - two 4-GPU, 4-NIC VMs: each on 4 rails of its own, beside its GPUs;
# - IB_RAILS pack: the first PF with a free VF, as before rails;
# - when a switch's HCAs have no free VF: preferred takes the next best
#   and logs one warning line, required refuses with one line naming the
#   NIC, the GPU and what was free, leaving the ledger as it was;
# - bad input (a GPU the host lacks, an affinity that is none): one line,
#   nothing leased.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host hgx
sim_libvirtd
kvm_ib_host

"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/facts.json" || die "oneib-discover failed"
G0=0000:17:00.0 G1=0000:18:00.0 G2=0000:3b:00.0 G3=0000:3c:00.0
G4=0000:97:00.0 G5=0000:98:00.0 G6=0000:bb:00.0 G7=0000:bc:00.0

# dep VMID "GPU..." NIC...: deploy VM VMID with those PCI hostdevs and
# vm_xml's NIC specs (TYPE/ID/MAC/PKEY/PF/PORT/RAILS/AFFINITY/NET)
dep() {
	local vmid=$1 gpus=$2 n macs=()
	shift 2
	mkdir -p "$DS/$vmid"
	VM_XML_PCI=$gpus vm_xml "$vmid" "$@" >"$DS/$vmid/vm.xml"
	for n in "$@"; do macs+=("$(echo "$n" | cut -d/ -f3)"); done
	DOMAIN_XML_PCI=$gpus domain_xml "$vmid" "${macs[@]}" |
		"$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 "$vmid" node1
}
# nics VMID N [RAILS [AFFINITY]]: N InfiniBand NIC specs on network 20
nics() {
	local i out=()
	for ((i = 0; i < $2; i++)); do
		out+=("$(printf 'ib/%d/02:00:0a:%02x:00:%02x/0x8101///%s/%s/20' $i $(($1 % 256)) $i "${3:-}" "${4:-}")")
	done
	printf '%s\n' "${out[@]}"
}
deploy_n() { # VMID "GPUS" N [RAILS [AFFINITY]]
	local specs
	mapfile -t specs < <(nics "$1" "$3" "${4:-}" "${5:-}")
	dep "$1" "$2" "${specs[@]}"
}
# rails_of VMID: the rail of each NIC's VF, by NIC
rails_of() {
	"$R/ib/bin/oneib-vf" list --format=json | jq -r --slurpfile d "$TEST_TMP/facts.json" "
		[.leases[] | select(.vm == $1)] | sort_by(.nic) |
		map(. as \$l | \$d[0].rails[] | select(.address == \$l.pf and .port == \$l.port) | .rail) |
		map(tostring) | join(\" \")"
}
# beside VMID "GPU...": for NIC k, whether its VF's PF is under the switch
# of the k-th GPU: "yes yes ..."
beside() {
	local vmid=$1 k=0 g pf out=()
	for g in $2; do
		pf=$("$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $vmid and .nic == $k) | .pf")
		if [ "$(jq -r ".hcas[] | select(.address == \"$pf\") | .pcie_switch" "$TEST_TMP/facts.json")" = \
			"$(jq -r ".pci_devices[] | select(.address == \"$g\") | .pcie_switch" "$TEST_TMP/facts.json")" ]; then
			out+=(yes)
		else
			out+=(no)
		fi
		k=$((k + 1))
	done
	echo "${out[*]}"
}
cancel() { "$R/vmm/kvm-ib/cancel" "one-$1" node1 "$1" node1; }
leases() { "$R/ib/bin/oneib-vf" list --format=json | jq -c '[.leases[] | [.vf, .vm, .nic]] | sort'; }

# --- one VF per rail
assert_ok "VM 1: 8 NICs on one network" -- deploy_n 1 "" 8
assert_eq "0 1 2 3 4 5 6 7" "$(rails_of 1)" "8 distinct rails, in rail order"
assert_ok "cancel VM 1" -- cancel 1

# --- 8 GPUs x 8 NICs, the GPUs in reverse order in the deployment
rev="$G7 $G6 $G5 $G4 $G3 $G2 $G1 $G0"
assert_ok "VM 2: 8 GPUs, 8 NICs" -- deploy_n 2 "$rev" 8
assert_eq "6 7 4 5 2 3 0 1" "$(rails_of 2)" "NIC k on a rail under the k-th GPU's switch, 8 distinct"
assert_eq "yes yes yes yes yes yes yes yes" "$(beside 2 "$rev")" "every VF beside its GPU"
assert_eq "" "$(cat "$LAST_ERR")" "no warning"
assert_eq 16 "$(grep -c '<hostdev' "$DS/2/deployment.0")" "the deployment: 8 GPUs and 8 VFs"
assert_ok "cancel VM 2" -- cancel 2

# --- two 4-GPU, 4-NIC VMs (OpenNebula gives the first free GPUs in
# address order: node 0's four, then node 1's)
assert_ok "VM 3: 4 GPUs of node 0, 4 NICs" -- deploy_n 3 "$G0 $G1 $G2 $G3" 4
assert_ok "VM 4: 4 GPUs of node 1, 4 NICs" -- deploy_n 4 "$G4 $G5 $G6 $G7" 4
assert_eq "0 1 2 3" "$(rails_of 3)" "VM 3: rails 0-3"
assert_eq "4 5 6 7" "$(rails_of 4)" "VM 4: rails 4-7"
assert_eq "yes yes yes yes" "$(beside 3 "$G0 $G1 $G2 $G3")" "VM 3: each VF beside its GPU"
assert_eq "yes yes yes yes" "$(beside 4 "$G4 $G5 $G6 $G7")" "VM 4: each VF beside its GPU"
assert_ok "cancel VM 3" -- cancel 3
assert_ok "cancel VM 4" -- cancel 4

# --- IB_RAILS pack: as before rails; GPUs still pair
assert_ok "VM 5: 2 NICs, pack" -- deploy_n 5 "" 2 pack
assert_eq "0 0" "$(rails_of 5)" "pack: both on the first PF"
assert_ok "VM 6: 2 NICs, pack, 2 GPUs of one switch" -- deploy_n 6 "$G6 $G7" 2 pack
assert_eq "6 6" "$(rails_of 6)" "pack: both beside their GPUs, on one rail"
assert_ok "cancel VM 5" -- cancel 5
assert_ok "cancel VM 6" -- cancel 6

# --- switch 0's HCAs full (rails 0 and 1: 16 VMs with one NIC each)
for vm in $(seq 100 115); do
	pf=0000:19:00.0
	[ "$vm" -lt 108 ] || pf=0000:1a:00.0
	dep "$vm" "" "ib/0/02:00:0b:00:00:$(printf %02x $((vm - 100)))/0x8101/$pf" >/dev/null ||
		die "filler VM $vm"
done
assert_eq "" "$(jq -r '.rails[] | select(.rail < 2) | .vfs_free' <("$IBBIN/oneib-discover" --format=json) | grep -v '^0$')" \
	"rails 0 and 1: no free VF"
assert_ok "VM 10, preferred: GPUs of switches 0 and 2" -- deploy_n 10 "$G0 $G4" 2
assert_eq "2 4" "$(rails_of 10)" "NIC 0 on the next best (rail 2, its NUMA node), NIC 1 beside GPU 4"
assert_eq "INFO: deploy: VM 10 NIC 0: rail 2 (0000:3d:00.0 port 1) is not beside GPU 0000:17:00.0: no free VF under its PCIe switch 0000:15:00.0 (IB_AFFINITY preferred)" \
	"$(cat "$LAST_ERR")" "one warning line, in the VM log"
before=$(leases)
assert_refused --state leases "VM 11, required: refused" \
	'^VM 11 NIC 0: no free VF beside GPU 0000:17:00\.0 \(IB_AFFINITY required, under its PCIe switch 0000:15:00\.0: rail 0 8 of 8 leased, rail 1 8 of 8 leased\)$' \
	-- deploy_n 11 "$G0 $G4" 2 "" required
assert_eq "$before" "$(leases)" "required: nothing leased"
assert_ok "a VF of rail 0 freed" -- cancel 103
assert_ok "VM 11, required, now deploys" -- deploy_n 11 "$G0 $G4" 2 "" required
assert_eq "0 4" "$(rails_of 11)" "beside both GPUs"
assert_eq "" "$(cat "$LAST_ERR")" "no warning"

# --- bad input: one line, nothing leased
before=$(leases)
assert_refused --state leases "a GPU the host lacks" \
	'^VM 12: PCI device 0000:55:00\.0 is not on this host$' -- deploy_n 12 "$G5 0000:55:00.0" 2
assert_refused --state leases "an affinity that is none" \
	"^VM 13 NIC 1: IB_AFFINITY 'strict' is not preferred, required or none\$" \
	-- dep 13 "$G5" "ib/0/02:00:0c:00:00:00/0x8101" "ib/1/02:00:0c:00:00:01/0x8101////strict/20"
assert_refused --state leases "a rails value that is none" \
	"^VM 13 NIC 0: IB_RAILS 'wide' is not spread or pack\$" \
	-- dep 13 "" "ib/0/02:00:0c:00:00:00/0x8101///wide//20"
assert_eq "$before" "$(leases)" "the ledger as it was"

# The placement of 4 GPUs x 4 NICs under valgrind and the ASan+UBSan build
# (oneib-vf deploy itself, then its release).
mapfile -t specs < <(nics 20 4)
mkdir -p "$DS/20"
VM_XML_PCI="$G4 $G5 $G6 $G7" vm_xml 20 "${specs[@]}" >"$DS/20/vm.xml"
DOMAIN_XML_PCI="$G4 $G5 $G6 $G7" domain_xml 20 02:00:0a:14:00:00 02:00:0a:14:00:01 02:00:0a:14:00:02 \
	02:00:0a:14:00:03 >"$TEST_TMP/dom20.xml"
MC_ON=(env LIBVIRT_URI="$LIBVIRT_URI")
for run in mc_valgrind mc_asan; do
	bin=$R/ib/bin/oneib-vf
	[ "$run" = mc_asan ] && bin=$MC_ASAN_BIN/oneib-vf
	$run 0 "oneib-vf deploy, 4 GPUs x 4 NICs" "$bin" deploy --vm 20 --vm-xml "$DS/20/vm.xml" \
		--connect "$LIBVIRT_URI" <"$TEST_TMP/dom20.xml"
	assert_eq "4 5 6 7" "$(rails_of 20)" "$run: rails 4-7, beside the GPUs"
	assert_ok "$run: release" -- "$bin" release --vm 20 --connect "$LIBVIRT_URI"
done
test_done
