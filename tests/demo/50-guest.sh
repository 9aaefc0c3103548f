#!/bin/bash
# Demo part: inside the guest. VM 10 of tenant a (an InfiniBand NIC on the
# network of partition 0x8101, and an ordinary NIC) is deployed by kvm-ib
# on a simulated ConnectX-3 host: its VF gets the port GUID of VM 10 NIC 0
# and its partition at P_Key index 0 (oneib-pkey). What that VF then shows
# its guest (the GUID in the IPoIB address, the P_Key table through the
# host's mapping) becomes the guest's sysfs, and guest-vm.sh configures the
# guest in network and mount namespaces of its own: the context, the
# --dry-run plan, the run, the resulting interface.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
pkey=$TEST_TMP/inst/usr/sbin/oneib-pkey
# Production: ONEIB_PKEY="sudo -n /usr/sbin/oneib-pkey"; the demo is root.
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$pkey\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"

say "=== kvm-ib deploy: VM 10, NIC 0 on tenant a's network (0x8101), NIC 1 ordinary ==="
one_deploy 10 ib/0/02:00:0a:0a:00:0a/0x8101 bridge/1/02:00:c0:a8:0a:0a >/dev/null ||
	die "deploy of VM 10 failed"
"$R/ib/bin/oneib-vf" list | sed 's/^/    /'
lease=$("$R/ib/bin/oneib-vf" list --format=json | jq -c '.leases[] | select(.vm == 10)')
vf=$(jq -r .vf <<<"$lease")
guid=$(jq -r .guid <<<"$lease")
assert_eq "VM 10 NIC 0" "$(jq -r .guid_of <<<"$lease")" "the host gave the VF VM 10 NIC 0's GUID ($guid)"
say "--- oneib-pkey show $vf"
"$pkey" show "$vf" | sed 's/^/    /'

# The VF's P_Key table as its guest reads it: virtual index i is the
# port's physical entry pkey_idx/i names, "none" reads as 0x0000.
iov=/sys/class/infiniband/mlx4_0/iov/$vf/ports/1
table=()
for ((i = 0; i < 127; i++)); do
	phys=$(cat "$iov/pkey_idx/$i")
	if [ "$phys" = none ]; then
		table+=(0000)
	else
		k=$(cat "/sys/class/infiniband/mlx4_0/ports/1/pkeys/$phys")
		table+=("${k#0x}")
	fi
done
while [ "${table[-1]}" = 0000 ]; do unset 'table[-1]'; done
say "the VF's P_Key table, as its guest will read it: ${table[*]}"
assert_eq 8101 "${table[0]}" "the tenant key at the VF's index 0"

say ""
MKHOST_GUEST_KIND=mlx4 MKHOST_GUEST_GUID=${guid#0x} MKHOST_GUEST_PKEYS="${table[*]}" \
	bash "$TOP/tests/demo/guest-vm.sh"
assert_eq 0 "$?" "VM 10's guest configured"
test_done
