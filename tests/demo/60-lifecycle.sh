#!/bin/bash
# Demo part: the life cycle of a VM with SR-IOV InfiniBand on two simulated
# ConnectX-5 hosts, hv1 and hv2, each with its own libvirtd and lease
# ledger, driven as OpenNebula's one_vmm_exec drives kvm-ib (VNM steps
# included): hot-attach an IB NIC to a running VM and detach it, suspend and
# resume, live-migrate to the other host. At each step: the domain's VFs,
# the ledger, the GUID on the VF and the partition membership the renderer
# gives; every step checks that hosts and oned's view agree.
# (libvirt's test driver lacks hot-plug, restore --xml and migration:
# tests/lib/standin/virsh stands in, validating with the QEMU driver.)
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0

# The port GUID VF carries on HOST (PF A's MLNX_OFED sriov/<n>/port file).
port_guid() { # HOST VF
	local pf=$SIM_HOSTS/$1/host/sys/bus/pci/devices/0000:3b:00.0 v
	for v in "$pf"/virtfn*; do
		if [ "$(basename "$(readlink "$v")")" = "$2" ]; then
			printf '0x%s\n' "$(tr -d ':\n' <"$pf/sriov/${v##*virtfn}/port")"
			return
		fi
	done
}

# What VM 42 has on each host (ledger, domain, the VF itself) and the
# partitions oned's view renders to.
show() {
	local h vf guid of pkey held a b
	for h in hv1 hv2; do
		on "$h" /var/tmp/one/ib/bin/oneib-vf list --format=json |
			jq -r '.leases[] | select(.vm == 42) | "\(.vf) \(.guid) \(.pkey) \(.guid_of)"' >"$TEST_TMP/show"
		[ -s "$TEST_TMP/show" ] || echo "    $h: no VF leased to VM 42"
		while read -r vf guid pkey of; do
			held=no
			on "$h" /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 --held | grep -q "^$vf " && held=yes
			printf '    %s: VF %s leased to %s (GUID %s, P_Key %s), in one-42: %s, GUID on the VF: %s\n' \
				"$h" "$vf" "$of" "$guid" "$pkey" "$held" "$(port_guid "$h" "$vf")"
		done <"$TEST_TMP/show"
	done
	cloud_xml >"$TEST_TMP/cloud.xml"
	a=$(partition_vm_members 5)
	b=$(partition_vm_members 7)
	printf '    partition members: tenant-a %s, tenant-b %s\n' "${a:-(none)}" "${b:-(none)}"
}

say "=== VM 42 (NIC 0 on tenant-a) deployed on hv1 ==="
one_vm_new 42 0/02:00:c0:a8:01:05/5
one_deploy_vm 42 hv1 | sed 's/^/    /'
show
cloud_agrees "deployed"

say "=== nic-attach: NIC 1 on tenant-b, hot-plugged into the running VM ==="
one_attach_nic 42 1/02:00:c0:a8:02:05/7 | sed 's/^/    /'
grep 'validated attach-device' "$SIM_HOSTS/standin.log" | tail -n 1 | sed 's/^/    /'
show
cloud_agrees "NIC attached"

say "=== nic-detach of NIC 1: out of the domain first, then unmapped and released ==="
one_detach_nic 42 1 | sed 's/^/    /'
show
cloud_agrees "NIC detached"

say "=== suspend: the VF leaves the domain before the save; the checkpoint names none ==="
one_save 42 | sed 's/^/    /'
echo "    hostdevs in the checkpoint: $(on hv1 virsh save-image-dumpxml /var/lib/one/datastores/0/42/checkpoint | grep -c '<hostdev')"
show
cloud_agrees "suspended"
say "=== resume: a VF leased and programmed with the same GUID, then attached ==="
one_restore 42 hv1 | sed 's/^/    /'
show
cloud_agrees "resumed"

say "=== live migration to hv2: VF reserved there, detached here, moved, attached there ==="
one_migrate 42 hv2 | sed 's/^/    /'
sed -n 's/^/    /; /hv2: .*vfs/p' "$SIM_HOSTS/ssh.log" | tail -n 2
show
echo "    hv1: VF 0000:3b:00.1 now carries GUID $(port_guid hv1 0000:3b:00.1) (unmapped)"
assert_eq 0xffffffffffffffff "$(port_guid hv1 0000:3b:00.1)" "the source VF no longer carries the GUID"
cloud_agrees "migrated"
test_done
