#!/bin/bash
# oneib-context tells NCCL and UCX which GPU each InfiniBand NIC is beside
# and their rails (design decision 15), in a guest as one-ib deploys a VM
# of two GPUs and two NICs (guest-gpu2: each GPU and its VF under a switch
# of their own, one per guest NUMA node; the host's SMBIOS OEM string
# "one-ib rails 1=5,2=3"):
# - the NCCL topology file pairs them as the guest's PCIe tree does: per
#   NUMA node, the switch with its GPU and its VF, links as the devices
#   report them; well-formed XML, as NCCL's parser needs;
# - the environment file names the NICs in rail order (NIC 2 on rail 3
#   before NIC 1 on rail 5), for NCCL exactly (=) and for UCX;
# - without the OEM string: NIC order; a VF no GPU shares a switch with:
#   no topology file (one of the past is removed), the NICs still listed.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_guest guest-gpu2
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=42 \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 \
	ETH2_MAC=02:00:0a:0b:00:06 ETH2_IP=10.11.1.5 ETH2_MASK=255.255.255.0
topo=$GUEST_STATE/nccl-topology.xml env=$GUEST_STATE/environment

assert_ok "configure" -- guest_ctx "$ctx"
assert_eq '<system version="1">
  <cpu numaid="0">
    <pci busid="0000:21:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:23:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"/>
      <pci busid="0000:24:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16"/>
    </pci>
  </cpu>
  <cpu numaid="1">
    <pci busid="0000:41:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
      <pci busid="0000:43:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"/>
      <pci busid="0000:44:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16"/>
    </pci>
  </cpu>
</system>' "$(cat "$topo")" "the NCCL topology file: each GPU and its VF under their switch, on their node"
assert_ok "well-formed XML" -- xmllint --noout "$topo"
assert_eq "NCCL_TOPO_FILE=$topo
NCCL_IB_HCA==mlx5_1:1,mlx5_0:1
UCX_NET_DEVICES=mlx5_1:1,mlx5_0:1" "$(grep -E '^(NCCL_TOPO_FILE|NCCL_IB_HCA|UCX_NET_DEVICES)=' "$env")" \
	"the environment: the NICs in rail order (NIC 2 on rail 3, NIC 1 on rail 5)"

# the same run under valgrind and the ASan+UBSan build
mc_check 0 "oneib-context, two GPUs beside their NICs" "$IBCTX" --context "$ctx" --state-dir "$GUEST_STATE"
assert_ok "and the same file" -- grep -q 'busid="0000:44:00.0"' "$topo"

# without the host's rails: NIC order
rm /sys/firmware/dmi/entries/11-0/raw
assert_ok "configure again, no OEM string" -- guest_ctx "$ctx"
assert_eq "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1" "$(grep '^NCCL_IB_HCA=' "$env")" "NIC order"

# the VFs moved off the GPUs' switches (a guest layout that cannot show the
# pairing): no topology file, the NICs still listed
for v in 0000:24:00.0 0000:44:00.0; do
	d=$(readlink -f "/sys/bus/pci/devices/$v")
	printf '0x020000\n' >"${d%/*}/../class" # the upstream port says it is no bridge
done
assert_ok "configure again, no switch shared" -- guest_ctx "$ctx"
assert_fail "no topology file: the old one removed" -- test -e "$topo"
assert_eq "" "$(grep '^NCCL_TOPO_FILE=' "$env")" "nor NCCL_TOPO_FILE"
assert_eq "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1" "$(grep '^NCCL_IB_HCA=' "$env")" "the NICs still listed"
test_done
