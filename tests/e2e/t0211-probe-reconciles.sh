#!/bin/bash
# The host/monitor probe heals the ledger before counting: a lease whose VM
# has no domain (a failed release, a crash) is back in IB_VFS_FREE after the
# grace period, and a VF a foreign domain took is not counted as free.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
probe=$R/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh

mkdir -p "$DS/5"
vm_xml 5 ib/0/02:00:0a:07:00:05/0x8101 >"$DS/5/vm.xml"
domain_xml 5 02:00:0a:07:00:05 | "$R/ib/bin/oneib-vf" deploy --vm 5 --vm-xml "$DS/5/vm.xml" >/dev/null
assert_eq "IB_VFS_FREE=14" "$("$probe" kvm-ib 0 node1 </dev/null | head -n 1)" "within the grace period the lease counts"

sed -i 's/^ONEIB_RECONCILE_GRACE=.*/ONEIB_RECONCILE_GRACE=1/' "$R/etc/vmm/kvm-ib/kvm-ibrc"
ledger_age # taken long ago
assert_eq "IB_VFS_FREE=15" "$("$probe" kvm-ib 0 node1 </dev/null | head -n 1)" "after it, the VF is free again"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "stale lease released"

printf "<domain type='kvm'><name>foreign</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os><devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0xaf' slot='0x00' function='0x3'/></source></hostdev></devices></domain>" >"$TEST_TMP/f.xml"
virsh create "$TEST_TMP/f.xml" >/dev/null
assert_eq "IB_VFS_FREE=14" "$("$probe" kvm-ib 0 node1 </dev/null | head -n 1)" "a VF a foreign domain holds is not free"
assert_eq foreign "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[0].domain')" "and is recorded as adopted"
test_done
