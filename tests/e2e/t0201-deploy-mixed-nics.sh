#!/bin/bash
# Two InfiniBand NICs and an ordinary one: two distinct VFs as hostdevs, the
# bridge interface untouched; cancel gives both VFs back.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

uuid=$(one_deploy 7 ib/0/02:00:c0:a8:02:01/0x8101 bridge/1/02:00:c0:a8:02:02 ib/2/02:00:c0:a8:02:03/0x8102)
assert_eq 0 $? "deploy succeeds"
virsh dumpxml one-7 >"$TEST_TMP/dom.xml"
assert_eq 2 "$(grep -c "<hostdev mode='subsystem' type='pci' managed='yes'>" "$TEST_TMP/dom.xml")" "two hostdevs"
assert_eq 1 "$(grep -c "<mac address='02:00:c0:a8:02:02'/>" "$TEST_TMP/dom.xml")" "ordinary NIC kept"
"$R/ib/bin/oneib-vf" list --format=json >"$TEST_TMP/l.json"
assert_eq "0000:3b:00.1 0 0x8101
0000:3b:00.2 2 0x8102" "$(jq -r '.leases[] | "\(.vf) \(.nic) \(.pkey)"' "$TEST_TMP/l.json")" "one lease per IB NIC, its own P_Key"

"$R/vmm/kvm-ib/cancel" "$uuid" node1 7 node1
assert_eq 0 $? "cancel succeeds"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "both VFs free"
test_done
