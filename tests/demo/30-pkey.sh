#!/bin/bash
# Demo part: isolation on the host. VMs of two virtual clusters (P_Keys
# 0x8101 and 0x8102) on a simulated host ($1: cx3 = ConnectX-3, mlx4 tables;
# cx5 = ConnectX-5, VF GUIDs through the MLNX_OFED files): each VF gets its
# GUID and exactly its network's partition before the domain starts, and
# loses them at shutdown; a default-partition P_Key is refused.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
host=${DEMO_HOST:?DEMO_HOST=fixture name}
sim_host "$host"
sim_libvirtd
kvm_ib_host
pkey=$TEST_TMP/inst/usr/sbin/oneib-pkey
# Production: ONEIB_PKEY="sudo -n /usr/sbin/oneib-pkey"; the demo is root.
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$pkey\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
vfs_of() { "$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1) | .vf"; }

say "=== host '$host': VM 1 (cluster blue, 0x8101), VM 2 (cluster red, 0x8102) ==="
u1=$(one_deploy 1 ib/0/02:00:0a:00:01:01/0x8101)
u2=$(one_deploy 2 ib/0/02:00:0a:00:02:01/0x8102)
for vm in 1 2; do
	vf=$(vfs_of $vm)
	say "VM $vm, VF $vf: oneib-pkey show"
	"$pkey" show "$vf" | sed 's/^/    /'
done
vf1=$(vfs_of 1)
if [ "$host" = cx3 ]; then
	assert_eq 1 "$(cat /sys/class/infiniband/mlx4_0/iov/$vf1/ports/1/pkey_idx/0)" "VM 1's VF sees 0x8101 (physical index 1) at its index 0"
	assert_eq "" "$(grep -Lx none /sys/class/infiniband/mlx4_0/iov/$vf1/ports/1/pkey_idx/[1-9]*)" "and no other partition"
else
	idx=$(("${vf1##*.}" - 1))
	assert_eq 02:00:00:00:00:01:00:00 "$(cat /sys/bus/pci/devices/0000:3b:00.0/sriov/$idx/port)" "VM 1's VF carries the GUID of VM 1 NIC 0"
fi

say "=== a NIC on a network claiming the default partition ==="
one_deploy 3 ib/0/02:00:0a:00:03:01/0x7fff >/dev/null 2>"$TEST_TMP/err"
say "refused: $(cat "$TEST_TMP/err")"
assert_match "IB_PKEY '0x7fff' is the default partition" "$(cat "$TEST_TMP/err")" "default partition refused"
assert_fail "VM 3 did not boot" -- virsh domuuid one-3

say "=== shutdown: the VFs lose GUID and partitions ==="
"$R/vmm/kvm-ib/shutdown" "$u1" node1 1 node1
"$R/vmm/kvm-ib/shutdown" "$u2" node1 2 node1
"$pkey" show "$vf1" | sed 's/^/    /'
assert_match "none|ff:ff:ff:ff:ff:ff:ff:ff|0xffffffffffffffff" "$("$pkey" show "$vf1" | grep -i guid | head -n 1)" "GUID invalidated"
test_done
