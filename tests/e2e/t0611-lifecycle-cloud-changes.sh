#!/bin/bash
# End to end, on two ConnectX-3 hosts (whose VFs the host maps to the
# P_Key: a stale key shows on the VF itself), in a cloud whose id is not 0:
#   - a deploy retried, or a resume retried, after the network's P_Key
#     changed (the first try killed between its lease and its domain, the
#     front-end with it, so no fail action released the lease): the VF is
#     leased and mapped with the new key, never the stale lease reused;
#   - a powered-off VM holds no VF and is no member of its network's
#     partition, while a running VM of that network is;
#   - the partitions are rendered with the cloud's id (ONEIB_CLOUD_ID on
#     the hosts, --cloud-id to the renderer): the members are the GUIDs the
#     hosts programmed, 02:07:..., and a render with another id would not
#     be.
# cloud_agrees checks all three after every step: the ledgers' P_Keys and
# the VFs' mapping against oned's view, and the rendered partitions against
# the leased GUIDs.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx3
hosts_cloud_id 7

lease_pkey() { # HOST VMID NIC: the P_Key of that NIC's lease
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r ".leases[] | select(.vm == $2 and .nic == $3) | .pkey"
}

one_vm_new 42 0/02:00:c0:a8:01:05/5
one_vm_new 43 0/02:00:c0:a8:01:06/5

# --- a deploy killed between its lease and its domain, front-end and all
inject crash-in-deploy
assert_match "^DEPLOY FAILURE" "$(SIM_NO_FAIL_ACTIONS=1 one_deploy_vm 42 hv1)" "deploy of VM 42, killed"
uninject crash-in-deploy
assert_eq 0x8101 "$(lease_pkey hv1 42 0)" "its lease, with tenant-a's P_Key, is left"
# tenant-a and tenant-b swap their partitions (onevnet update IB_PKEY)
vnet_pkey 5 0x8102
vnet_pkey 7 0x8101
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "the deploy retried (onevm recover --retry)"
assert_eq 0x8102 "$(lease_pkey hv1 42 0)" "the lease has tenant-a's new P_Key"
cloud_agrees "deploy retried after the P_Key changed"

# --- a resume killed before its domain, then the P_Key changed back
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
inject crash-in-restore
assert_match "^RESTORE FAILURE" "$(one_restore 42 hv2)" "resume on hv2, killed"
uninject crash-in-restore
assert_eq 0x8102 "$(lease_pkey hv2 42 0)" "its lease on hv2, with the key of then"
vnet_pkey 5 0x8101
vnet_pkey 7 0x8102
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv2)" "the resume retried"
assert_eq 0x8101 "$(lease_pkey hv2 42 0)" "the lease has the network's P_Key now"
cloud_agrees "resume retried after the P_Key changed"

# --- a powered-off VM is no member of its partition; a running one is
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 43 hv1)" "deploy of VM 43 (tenant-a) on hv1"
cloud_agrees "two VMs of tenant-a"
assert_eq "$(guid_of 42 0) $(guid_of 43 0)" "$(partition_vm_members 5)" "both are members of tenant-a"
assert_eq "SHUTDOWN SUCCESS" "$(one_shutdown 42)" "poweroff of VM 42"
assert_eq "8 0" "$(vm_state 42)" "oned: POWEROFF"
cloud_agrees "VM 42 powered off"
assert_eq "$(guid_of 43 0)" "$(partition_vm_members 5)" "only VM 43 is a member of tenant-a"

# --- the cloud's id: the hosts' GUIDs and the rendered members alike
assert_eq 0x02070000002b0000 "$(guid_of 43 0)" "the harness's GUID of VM 43 NIC 0 in cloud 7"
assert_match "^0x02070000002b0000$" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json |
	jq -r '.leases[] | select(.vm == 43) | .guid')" "hv1 programmed VM 43 NIC 0 as 02:07:00:00:00:2b:00:00"
SIM_CLOUD_ID=0 partition_vm_members 5 >"$TEST_TMP/members0"
assert_eq "0x02000000002b0000" "$(cat "$TEST_TMP/members0")" "rendered as cloud 0, the member would be another GUID"
test_done
