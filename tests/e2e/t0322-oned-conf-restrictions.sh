#!/bin/bash
# The oned.conf fragment keeps every IB_* attribute that reaches a NIC out
# of a tenant's hands the same way: each one INHERIT_VNET_ATTR carries into
# the NICs that decides a partition or a PF is restricted in the NIC (VM_RESTRICTED_ATTR NIC/X), in the
# network (VNET_RESTRICTED_ATTR X) and in its address ranges (AR/X, whose
# attributes reach the NICs of their leases too), IB_PF and IB_PORT exactly
# like IB_PKEY; and the fabric-wide ones, IB_SL and IB_RATE (in the
# network and in a NIC), and a service network's IB_MEMBERSHIP,
# IB_SERVICE_GUIDS, IB_SERVICE_PARTITION, are oneadmin's (tests/one/t0703
# tries them as a tenant under a real oned).
. "$(dirname "$0")/../lib/test-lib.sh"
conf=$TOP/drivers/oned.conf.kvm-ib

values() { # NAME: the values of NAME = "..." lines, one per line
	sed -n "s/^$1[[:space:]]*=[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p" "$conf" | sort -u
}
inherited=$(values INHERIT_VNET_ATTR)
assert_eq "IB_AFFINITY IB_PF IB_PKEY IB_PORT IB_RAILS" "$(echo $inherited)" \
	"the NICs inherit IB_PKEY, IB_PF, IB_PORT, IB_RAILS, IB_AFFINITY"
# IB_RAILS and IB_AFFINITY place only the VM's own NICs (rails, the side
# of its GPUs): a tenant may set them in a NIC.
for a in IB_RAILS IB_AFFINITY; do
	assert_eq "" "$(values VM_RESTRICTED_ATTR | grep -x "NIC/$a")" "$a: a tenant's to set in a NIC"
done
for a in IB_PKEY IB_PF IB_PORT; do
	assert_match "^NIC/$a$" "$(values VM_RESTRICTED_ATTR)" "$a: restricted in a VM's NIC"
	assert_match "^$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: restricted in the network"
	assert_match "^AR/$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: restricted in an address range"
done
for a in IB_SL IB_RATE; do
	assert_match "^$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: the fabric's, not a tenant's"
	assert_match "^NIC/$a$" "$(values VM_RESTRICTED_ATTR)" "$a: not a tenant's in a VM's NIC either"
done
# A service network's membership and endpoints decide who reaches whom
# (design decision 11): oneadmin's only, and never inherited into a NIC,
# where the renderer would not read them anyway.
for a in IB_MEMBERSHIP IB_SERVICE_GUIDS IB_SERVICE_PARTITION; do
	assert_match "^$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: restricted in the network"
	assert_eq "" "$(grep -x "$a" <<<"$inherited")" "$a: not inherited into the NICs"
done
test_done
