#!/bin/bash
# Tenant isolation on the fabric, end to end through the real OpenNebula
# front-end (tests/lib/one.sh): two ConnectX-5 hosts on two leaf switches of
# an ibsim fabric whose opensm reads /etc/opensm/partitions.conf, one-ib's
# hooks of the events below created from its templates (oneib-partitions-sync(8)), and
# the hook's defaults (the
# one-ib-sm package's sudo rule: oneib-partitions-install on the front-end,
# which is the SM's host here). Two tenants' networks; alice's VMs 0 (hv1)
# and 2 (hv2) on the first, bob's VM 1 (hv1, beside alice's) on the
# second. The VFs are ports of the fabric (one-port CAs with the GUIDs
# kvm-ib gives them, VM ID and NIC ID, on their host's leaf). Once the hook
# has run after the deployments:
#   - partitions.conf holds each network's running NICs, nothing else;
#   - opensm programmed it: each VF's P_Key table holds its own tenant's
#     key and the default partition, the SA has a path between alice's two
#     VMs, across the leaves, in her partition, and none between the
#     tenants, even on one host; oneib-partitions verify finds no drift;
#   - powering alice's VM 2 off takes its VF out of her partition again.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
. "$TOP/tests/lib/cloud.sh"
one_sim
one_frontend
# the VMs' IDs (0, 1, 2 on a front-end of its own)
A=$ONE_VM0 B=$((ONE_VM0 + 1)) C=$((ONE_VM0 + 2))
one_host hv1 cx5 --leaf 1 --vfs "$A/0 $B/0"
one_host hv2 cx5 --leaf 2 --vfs "$C/0"
one_fabric 2
# the hooks of the events below (one-ib-frontend(7) creates them all; each costs a CLI
# call here)
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-poweroff \
	oneib-api-vn-allocate oneib-vnet-ready oneib-api-host-allocate oneib-host-monitored
one_host_create hv1 hv2
na=$(one_ib_network ib-tenant-a)
nb=$(one_ib_network ib-tenant-b)
pa=$(one_xml vnet "$na" | one_xpath /VNET/TEMPLATE/IB_PKEY)
pb=$(one_xml vnet "$nb" | one_xpath /VNET/TEMPLATE/IB_PKEY)
assert_eq "0x8100 0x8101" "$pa $pb" "the networks' partitions"
one_user alice
one_user bob

vm() { # USER NETWORK HOST: a VM of USER on NETWORK, on HOST
	printf '%s\n' 'NAME = "vm"' 'CPU = "0.1"' 'MEMORY = "64"' \
		"NIC = [ NETWORK = \"$2\", NETWORK_UNAME = \"oneadmin\" ]" \
		"SCHED_REQUIREMENTS = \"HOSTNAME = \\\"$3\\\" & IB_VFS_FREE > 0\"" >"$TEST_TMP/vm.tmpl"
	chmod 0644 "$TEST_TMP/vm.tmpl"
	as_user "$1" onevm create "$TEST_TMP/vm.tmpl" >/dev/null || die "$1: onevm create"
}
vm alice ib-tenant-a hv1
vm bob ib-tenant-b hv1
vm alice ib-tenant-a hv2
for id in $A $B $C; do one_wait_vm $id "^ACTIVE RUNNING$"; done
on=
for id in $A $B $C; do
	on="$on $(one_xml vm $id | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME')"
done
assert_eq " hv1 hv1 hv2" "$on" "VMs $A and $B (two tenants) on hv1, VM $C on hv2"
one_cloud_agrees "three VMs"
one_partitions_agree "three VMs" "$na" "$nb"
assert_eq "$(guid_of "$A" 0) $(guid_of "$C" 0)" "$(one_partition_members "$na")" \
	"alice's partition: VM $A NIC 0 and VM $C NIC 0"
assert_eq "$(guid_of "$B" 0)" "$(one_partition_members "$nb")" "bob's partition: VM $B NIC 0"

# --- what opensm programmed, read back over the fabric
path_is() { [ "$(cloud_path_pkey "$1" "$2")" = "$3" ]; }
wait_for 60 path_is vm$A-nic0 vm$C-nic0 "$pa" || say "no path in alice's partition yet"
assert_eq "$pa" "$(cloud_path_pkey vm$A-nic0 vm$C-nic0)" \
	"SA: alice's VMs $A and $C reach each other across the leaves, in her partition"
assert_eq "" "$(cloud_path_pkey vm$A-nic0 vm$B-nic0)" "SA: no path between alice's VM $A and bob's VM $B on one host"
assert_eq "" "$(cloud_path_pkey vm$B-nic0 vm$C-nic0)" "SA: no path between bob's VM $B and alice's VM $C"
assert_eq "0x7fff $pa" "$(cloud_pkeys vm$A-nic0)" "VM $A's VF: the default partition (limited) and alice's"
assert_eq "0x7fff $pb" "$(cloud_pkeys vm$B-nic0)" "VM $B's VF: the default partition (limited) and bob's"
assert_ok "oneib-partitions verify: the fabric is what the file says" -- \
	sim_client sm /usr/sbin/oneib-partitions verify --conf /etc/opensm/partitions.conf

# --- alice's VM 2 powered off: out of her partition
assert_ok "alice: poweroff VM $C" -- as_user alice onevm poweroff "$C"
one_wait_vm "$C" "^POWEROFF LCM_INIT$"
one_cloud_agrees "VM $C powered off"
one_partitions_agree "VM $C powered off" "$na" "$nb"
wait_for 60 path_is vm$A-nic0 vm$C-nic0 "" || say "a path to VM $C is still there"
assert_eq "" "$(cloud_path_pkey vm$A-nic0 vm$C-nic0)" "SA: VM $C's VF left alice's partition"
assert_eq "$pa" "$(cloud_pkeys vm$A-nic0 | cut -d' ' -f2)" "VM $A keeps it"
assert_eq "" "$(one_hook_log | grep -v ' 0$')" "every hook run succeeded"
test_done
