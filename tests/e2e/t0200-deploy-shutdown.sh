#!/bin/bash
# deploy of a VM with one InfiniBand NIC through the kvm-ib driver: the
# running domain holds the leased VF as a PCI hostdev, the ledger and
# oneib-discover show who holds it; shutdown gives it back.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

uuid=$(one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101 2>"$TEST_TMP/err")
assert_eq 0 $? "deploy succeeds"
assert_eq "$(virsh domuuid one-42 | sed '/^$/d')" "$uuid" "deploy prints only the domain UUID"
virsh dumpxml one-42 >"$TEST_TMP/dom.xml"
assert_match "<address domain='0x0000' bus='0x3b' slot='0x00' function='0x1'/>" "$(cat "$TEST_TMP/dom.xml")" "hostdev of the first free VF"
assert_eq 0 "$(grep -c '<interface' "$TEST_TMP/dom.xml")" "the IB NIC is no longer an interface"

"$R/ib/bin/oneib-vf" list --format=json >"$TEST_TMP/leases.json"
assert_eq "0000:3b:00.1 42 0 02:00:c0:a8:01:05 0x02000000002a0000 0x8101" \
	"$(jq -r '.leases[] | "\(.vf) \(.vm) \(.nic) \(.mac) \(.guid) \(.pkey)"' "$TEST_TMP/leases.json")" "ledger records VF, VM, NIC, MAC, GUID, P_Key"
assert_eq "VM 42 NIC 0" "$(jq -r '.leases[0].guid_of' "$TEST_TMP/leases.json")" "the GUID reads back as its VM and NIC"
assert_match "0x02000000002a0000 +VM 42 NIC 0 " "$("$R/ib/bin/oneib-vf" list)" "so does the table"
assert_eq 42 "$("$R/ib/bin/oneib-discover" --format=json | jq '.hcas[0].vfs[0].vm')" "oneib-discover shows the holder"
assert_eq 14 "$("$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p')" "one VF fewer free"

"$R/vmm/kvm-ib/shutdown" "$uuid" node1 42 node1
assert_eq 0 $? "shutdown succeeds"
assert_fail "domain gone" -- virsh domuuid one-42
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "ledger empty"
assert_eq null "$("$R/ib/bin/oneib-discover" --format=json | jq '.hcas[0].vfs[0].vm')" "VF free again"
assert_eq 15 "$("$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p')" "all free again"

"$R/vmm/kvm-ib/shutdown" "$uuid" node1 42 node1 2>/dev/null
assert_eq 0 $? "shutdown of a vanished domain succeeds, as the stock one does"

# A VM whose domain died outside OpenNebula (crash, virsh destroy): cancel
# succeeds and its VF comes back.
uuid=$(one_deploy 43 ib/0/02:00:c0:a8:01:06/0x8101)
virsh destroy one-43 >/dev/null
assert_eq 1 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "lease still there after the crash"
"$R/vmm/kvm-ib/cancel" "$uuid" node1 43 node1
assert_eq 0 $? "cancel after the crash succeeds"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "its VF is free again"
test_done
