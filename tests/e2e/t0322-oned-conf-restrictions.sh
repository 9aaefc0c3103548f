#!/bin/bash
# The oned.conf fragment keeps every IB_* attribute that reaches a NIC out
# of a tenant's hands the same way: each one INHERIT_VNET_ATTR carries into
# the NICs is restricted in the NIC (VM_RESTRICTED_ATTR NIC/X), in the
# network (VNET_RESTRICTED_ATTR X) and in its address ranges (AR/X, whose
# attributes reach the NICs of their leases too), IB_PF and IB_PORT exactly
# like IB_PKEY; and the fabric-wide ones, IB_SL and IB_RATE, are
# oneadmin's, in the network and in a NIC (tests/one/t0703 tries them all
# as a tenant under a real oned).
. "$(dirname "$0")/../lib/test-lib.sh"
conf=$TOP/drivers/oned.conf.kvm-ib

values() { # NAME: the values of NAME = "..." lines, one per line
	sed -n "s/^$1[[:space:]]*=[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p" "$conf" | sort -u
}
inherited=$(values INHERIT_VNET_ATTR)
assert_eq "IB_PF IB_PKEY IB_PORT" "$(echo $inherited)" "the NICs inherit IB_PKEY, IB_PF, IB_PORT"
for a in $inherited; do
	assert_match "^NIC/$a$" "$(values VM_RESTRICTED_ATTR)" "$a: restricted in a VM's NIC"
	assert_match "^$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: restricted in the network"
	assert_match "^AR/$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: restricted in an address range"
done
for a in IB_SL IB_RATE; do
	assert_match "^$a$" "$(values VNET_RESTRICTED_ATTR)" "$a: the fabric's, not a tenant's"
	assert_match "^NIC/$a$" "$(values VM_RESTRICTED_ATTR)" "$a: not a tenant's in a VM's NIC either"
done
test_done
