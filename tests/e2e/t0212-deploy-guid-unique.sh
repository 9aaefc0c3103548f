#!/bin/bash
# Design decision 2: a NIC's port GUID comes from the cloud id, the VM ID and
# the NIC ID, never from the MAC. Two tenants whose networks hand out the
# same MAC (OpenNebula keeps MACs unique per network only) get two GUIDs on
# their VFs; a lease written before the change gets the new GUID at its next
# deploy, on the same VF; the cloud id lands in byte 1; and a GUID another
# lease already carries is refused with nothing changed.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
kvm_ib_pkey
vf=$R/ib/bin/oneib-vf
ledger=/var/lib/one/ib/leases
lease_of() { "$vf" list --format=json | jq -r ".leases[] | select(.vm == $1) | \"\(.vf) \(.guid) \(.guid_of)\""; }
# MLNX_OFED file of a VF: sriov/<index> on the PF, index = function - 1
port_file() { echo "/sys/bus/pci/devices/0000:3b:00.0/sriov/$((${1##*.} - 1))/port"; }

# Two tenants, two networks, one MAC (both networks start at 10.0.0.5).
one_deploy 7 ib/0/02:00:0a:00:00:05/0x8101 >/dev/null
assert_eq 0 $? "tenant a's VM deploys"
one_deploy 8 ib/0/02:00:0a:00:00:05/0x8102 >/dev/null
assert_eq 0 $? "tenant b's VM, same MAC, deploys"
read -r vf7 g7 _ <<<"$(lease_of 7)"
read -r vf8 g8 _ <<<"$(lease_of 8)"
assert_eq "0x0200000000070000 0x0200000000080000" "$g7 $g8" "each NIC's GUID is its VM ID and NIC ID"
assert_eq "VM 7 NIC 0" "$(lease_of 7 | cut -d' ' -f3-)" "decoded in the listing"
assert_eq 02:00:00:00:00:07:00:00 "$(cat "$(port_file "$vf7")")" "tenant a's VF carries its own GUID"
assert_eq 02:00:00:00:00:08:00:00 "$(cat "$(port_file "$vf8")")" "tenant b's VF carries another one"

# A lease from before the change: GUID from the MAC (02:00:c0:a8:09:01).
"$R/vmm/kvm-ib/shutdown" one-7 node1 7 node1 >/dev/null 2>&1
"$R/vmm/kvm-ib/shutdown" one-8 node1 8 node1 >/dev/null 2>&1
now=$(date +%s)
cat >"$ledger" <<EOS
# one-ib VF leases, written by oneib-vf under flock; see oneib-vf(8) before editing by hand
vf=0000:3b:00.3 pf=0000:3b:00.0 port=1 vm=9 nic=0 mac=02:00:c0:a8:09:01 guid=0x0200c0fffea80901 pkey=0x8101 since=$now
EOS
assert_match "MAC 02:00:c0:a8:09:01 \(old GUID\)" "$("$vf" list)" "an old lease reads as the MAC it came from"
one_deploy 9 ib/0/02:00:c0:a8:09:01/0x8101 >/dev/null
assert_eq 0 $? "the VM of an old lease deploys again"
assert_eq "0000:3b:00.3 0x0200000000090000 VM 9 NIC 0" "$(lease_of 9)" "same VF, new GUID"
assert_eq 02:00:00:00:00:09:00:00 "$(cat "$(port_file 0000:3b:00.3)")" "and the VF is programmed with it"
"$R/vmm/kvm-ib/shutdown" one-9 node1 9 node1 >/dev/null 2>&1

# The cloud id of this zone, byte 1.
sed -i 's|^ONEIB_CLOUD_ID=.*|ONEIB_CLOUD_ID=3|' "$R/etc/vmm/kvm-ib/kvm-ibrc"
one_deploy 10 ib/0/02:00:0a:00:00:0a/0x8101 >/dev/null
assert_eq "0x02030000000a0000 cloud 3 VM 10 NIC 0" "$(lease_of 10 | cut -d' ' -f2-)" "cloud id in byte 1"

# A GUID some other lease carries (two front-ends given the same cloud id):
# refused, nothing changes.
"$R/vmm/kvm-ib/shutdown" one-10 node1 10 node1 >/dev/null 2>&1
cat >"$ledger" <<EOS
# one-ib VF leases, written by oneib-vf under flock; see oneib-vf(8) before editing by hand
vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=11 nic=0 mac=02:00:0a:00:00:0b guid=0x02030000000c0000 pkey=0x8101 since=$now
EOS
cp "$ledger" "$TEST_TMP/ledger.before"
sriov_before=$(cat /sys/bus/pci/devices/0000:3b:00.0/sriov/*/port | md5sum)
one_deploy 12 ib/0/02:00:0a:00:00:0c/0x8101 >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "deploy refused"
assert_eq "VM 12 NIC 0: GUID 0x02030000000c0000 is already leased to VM 11 NIC 0 on VF 0000:3b:00.1" \
	"$(tail -n 1 "$TEST_TMP/err")" "one line naming the GUID and its holder"
assert_file_eq "$TEST_TMP/ledger.before" "$ledger" "ledger unchanged"
assert_eq "$sriov_before" "$(cat /sys/bus/pci/devices/0000:3b:00.0/sriov/*/port | md5sum)" "no VF reprogrammed"
assert_fail "no domain" -- virsh domuuid one-12
test_done
