#!/bin/bash
# A NIC hot-plugged to a running GPU VM lands beside the GPU it pairs with
# (design decision 15): deploy left a free downstream port on each GPU's
# switch (switch ports cannot be hot-plugged), and the hot-plug takes it.
# On an HGX-class host (hgx: rails 2s, 2s+1 beside GPUs 2s, 2s+1), VM 42,
# OpenNebula 7.0's q35 layout, GPUs 0000:17:00.0 (host node 0) and
# 0000:97:00.0 (host node 1), one NIC on network 5 at deploy: NIC 0 pairs
# with GPU 0 (rail 0); the NIC hot-plugged on network 5 pairs with GPU 1
# (two NICs on two GPUs), gets rail 4 beside it, and is attached on the
# free downstream port of GPU 1's switch, as libvirt's QEMU driver accepts
# it (the virsh stand-in validates every attach).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs hgx
export -f numa_two_nodes
on hv1 bash -c numa_two_nodes || die "NUMA nodes on hv1"
# PFs programmable (MLNX_OFED's sriov files; no IPoIB netdev here)
for pf in 0000:19:00.0 0000:99:00.0; do
	for i in 0 1 2 3 4 5 6 7; do
		d=$SIM_HOSTS/hv1/host/sys/bus/pci/devices/$pf/sriov/$i
		mkdir -p "$d"
		echo 00:00:00:00:00:00:00:00 >"$d/node"
		echo 00:00:00:00:00:00:00:00 >"$d/port"
		echo Follow >"$d/policy"
	done
done
rails() { # VM: "nic:pf" by NIC
	on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r "[.leases[] | select(.vm == $1)] | sort_by(.nic) | map(\"\(.nic):\(.pf)\") | join(\" \")"
}

one_vm_new 42 0/02:00:c0:a8:01:05/5
vm_q35 42
vm_pin 42 1 4,5
vm_gpus 42 "0000:17:00.0@0 0000:97:00.0@1"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (2 GPUs, 1 NIC)"
assert_eq "0:0000:19:00.0" "$(rails 42)" "NIC 0 beside GPU 0: rail 0"
dep=$TEST_TMP/shared-ds/0/42/deployment.0
assert_match 'ua-oneib-sw1-p1' "$(cat "$dep")" "GPU 1's switch has a free port (p1)"
free=$(sed -n 's/.*index="\([0-9]*\)" model="pcie-switch-downstream-port"><alias name="ua-oneib-sw1-p1".*/\1/p' "$dep")
assert_match '^[0-9]+$' "$free" "its index: $free"

assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:05/5)" "hot-plug NIC 1 on network 5"
assert_eq "0:0000:19:00.0 1:0000:99:00.0" "$(rails 42)" "NIC 1 pairs with GPU 1: rail 4, beside it"
printf -v hex '0x%02x' "$free"
assert_match "validated attach-device .*bus=\"0x99\".*<address type=\"pci\" domain=\"0x0000\" bus=\"$hex\"" \
	"$(grep 'validated attach-device' "$SIM_HOSTS/standin.log" | tail -n 1)" \
	"attached on the free downstream port of GPU 1's switch ($free), validated by the QEMU driver"
# (cloud_agrees would count the GPUs as VFs held without a lease: the
# harness's view of a domain knows no passthrough devices of oned's)
assert_eq 4 "$(on hv1 virsh -c "$SIM_HV_URI" dumpxml one-42 | grep -c "<hostdev")" \
	"the domain holds the two GPUs and the two VFs"
test_done
