#!/bin/bash
# A user's VM with InfiniBand through the real OpenNebula front-end
# (tests/lib/one.sh: oned, scheduler, monitord, hook manager, CLI; release
# $ONEIB_ONE_VERSION, 6.10.0 by default) and one simulated ConnectX-5 host,
# one-ib installed and configured as one-ib-frontend(7) says, every step through the
# CLI as the operator (oneadmin) or the user (alice) would take it:
#   - the host, created with the kvm-ib drivers, is MONITORED with the
#     InfiniBand attributes (IB_SRIOV, one IB_PF per PF with its port GUID,
#     IB_VFS_FREE);
#   - oneadmin creates the network from templates/ib-network.tmpl and the
#     hooks from templates/hooks; alice instantiates templates/ib-vm.tmpl
#     (its disk and Ethernet NIC left out: this cloud has neither), which
#     names the network's owner (before, OpenNebula refused it: "User 2
#     does not own a network with name: ib-tenant-a");
#   - the scheduler places it (SCHED_REQUIREMENTS on IB_SRIOV and
#     IB_VFS_FREE), kvm-ib deploys it: RUNNING, a <hostdev> for the VF
#     leased to its NIC, the lease with the NIC's GUID and the network's
#     P_Key, the VF programmed;
#   - hot nic-attach, hot nic-detach and suspend need libvirt to hot-plug a
#     PCI device, which libvirt 9.0's test driver cannot (one-ib-lifecycle(7)): each
#     fails with libvirt's reason (the line one-ib-lifecycle(7) quotes), the VM
#     RUNNING as before, nothing changed (the detach keeps the leases'
#     time);
#   - poweroff frees the VF; a cold nic-attach of a second IB NIC, then
#     resume: two VFs; terminate frees every lease;
#   - after each step the hosts agree with oned (domains, ledger, VFs) and,
#     once the partitions hook has run, opensm's partitions.conf holds
#     exactly the running NICs' GUIDs; the hook ran, successfully, on each
#     event.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
V=$ONE_VM0 # the VM's ID (0 on a front-end of its own)
one_host hv1 cx5 --vfs "$V/0 $V/1"
one_fabric
# the hooks of the events below (one-ib-frontend(7) creates them all; each costs a CLI
# call here)
hooks="oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-poweroff oneib-api-vm-attachnic oneib-vm-boot-poweroff oneib-api-vm-detachnic oneib-vm-done oneib-api-vn-allocate oneib-vnet-ready oneib-api-host-allocate oneib-host-monitored"
# shellcheck disable=SC2086 # names
one_hooks $hooks
one_host_create hv1
T=$ONE_DIR/share/one-ib/templates

# --- the host as monitored
x=$(one_xml host hv1)
xp() { printf '%s' "$x" | one_xpath "$1"; }
assert_eq "hv1 kvm" "$(xp /HOST/TEMPLATE/HOSTNAME) $(xp /HOST/TEMPLATE/HYPERVISOR)" \
	"host: the stock probes ran (HOSTNAME, HYPERVISOR)"
assert_eq "YES" "$(xp /HOST/TEMPLATE/IB_SRIOV)" "host: IB_SRIOV"
assert_eq "0000:3b:00.0 0x0c42a10301001001 ACTIVE mlx5_core" \
	"$(xp "concat(/HOST/TEMPLATE/IB_PF[ADDRESS='0000:3b:00.0']/ADDRESS, ' ', /HOST/TEMPLATE/IB_PF[ADDRESS='0000:3b:00.0']/PORT_GUID, ' ', /HOST/TEMPLATE/IB_PF[ADDRESS='0000:3b:00.0']/STATE, ' ', /HOST/TEMPLATE/IB_PF[ADDRESS='0000:3b:00.0']/DRIVER)")" \
	"host: IB_PF of PF A, its port GUID the fixture's"
assert_eq 2 "$(xp 'count(/HOST/TEMPLATE/IB_PF)')" "host: one IB_PF per PF"
# PF A: 8 VFs, VF 7 the host's own (mlx5_core); PF B: 8
assert_eq 15 "$(xp /HOST/TEMPLATE/IB_VFS_FREE)" "host: IB_VFS_FREE"
assert_eq "" "$(xp /HOST/TEMPLATE/IB_ERROR)$(xp /HOST/TEMPLATE/IB_NOT_READY)" "host: no IB_ERROR, not IB_NOT_READY"

# --- the network (oneadmin's, one-ib-frontend(7)), pinned to PF A
sed -e 's/^NAME .*/NAME = "ib-tenant-a"/' -e 's/^# IB_PF .*/IB_PF = "0000:3b:00.0"/' \
	"$T/ib-network.tmpl" >"$TEST_TMP/net.tmpl"
assert_ok "oneadmin creates the network" -- as_oneadmin onevnet create "$TEST_TMP/net.tmpl"
net=$(one_xml vnet ib-tenant-a | one_xpath /VNET/ID)
one_wait_vnet "$net"
pkey=$(one_xml vnet "$net" | one_xpath /VNET/TEMPLATE/IB_PKEY)
assert_eq 0x8100 "$pkey" "vnet_create gave it the first P_Key of IB_PKEY_RANGE"

# --- alice's VM from the shipped template
one_user alice
grep -v -e '^DISK' -e 'NETWORK = "public"' "$T/ib-vm.tmpl" |
	sed -e 's/^CPU .*/CPU = "0.1"/' -e 's/^MEMORY .*/MEMORY = "128"/' >"$TEST_TMP/vm.tmpl"
chmod 0644 "$TEST_TMP/vm.tmpl"
assert_match 'NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin"' "$(cat "$TEST_TMP/vm.tmpl")" \
	"the template names the network's owner"
assert_ok "alice creates the template" -- as_user alice onetemplate create "$TEST_TMP/vm.tmpl"
assert_ok "alice instantiates it" -- as_user alice onetemplate instantiate "ib-vm"
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq "hv1" "$(one_xml vm "$V" | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME')" "scheduled on hv1"
assert_eq 1 "$(one_domxml hv1 "$V" | grep -c '<hostdev')" "deployed with one <hostdev>"
one_cloud_agrees "deploy"
assert_match "^$V 0 0000:3b:00\.[1-7] $(guid_of "$V" 0) $pkey [0-9]+$" "$(one_leases hv1)" \
	"one lease: VM $V NIC 0, its GUID, the network's P_Key"
one_partitions_agree "deploy" "$net"

# --- hot-plug on libvirt's test driver: refused, nothing changed
state() { one_leases hv1; one_domxml hv1 "$V" | grep -A3 '<hostdev'; }
before=$(state)
assert_ok "alice: hot nic-attach" -- as_user alice onevm nic-attach "$V" --network ib-tenant-a
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_match "ATTACHNIC: VM $V: cannot attach VF 0000:3b:00\.[1-7] \([-0-9a-f]+\): this function is not supported by the connection driver: virDomainAttachDevice" \
	"$(one_vm_log "$V")" "hot nic-attach fails with libvirt's reason"
assert_eq 1 "$(one_xml vm "$V" | one_xpath 'count(/VM/TEMPLATE/NIC)')" "the NIC was not added"
assert_eq "$before" "$(state)" "hot nic-attach: lease and domain as before"
assert_ok "alice: suspend" -- as_user alice onevm suspend "$V"
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_match "SAVE: VM $V: cannot detach VF 0000:3b:00\.[1-7] \([-0-9a-f]+\): this function is not supported by the connection driver: virDomainDetachDevice" \
	"$(one_vm_log "$V")" "suspend fails with libvirt's reason"
assert_eq "$before" "$(state)" "suspend: lease and domain as before"
one_cloud_agrees "hot-plug refused"

# --- poweroff, cold nic-attach, resume
assert_ok "alice: poweroff" -- as_user alice onevm poweroff "$V"
one_wait_vm "$V" "^POWEROFF LCM_INIT$"
one_cloud_agrees "poweroff"
assert_eq "" "$(one_leases hv1)" "poweroff: the lease is freed"
assert_fail "poweroff: no domain" -- one_domxml hv1 "$V"
one_partitions_agree "poweroff" "$net"
kept=$ONE_DIR/var/.oneib-partitions.lock.vms
stamp=$(stat -c %Y "$kept")
n=$(one_hook_log | grep -c '^oneib-api-vm-attachnic 0$')
assert_ok "alice: cold nic-attach of a second IB NIC" -- \
	as_user alice onevm nic-attach "$V" --network ib-tenant-a
one_wait_vm "$V" "^POWEROFF LCM_INIT$"
assert_eq "0 1" "$(one_xml vm "$V" | one_xpath 'concat(/VM/TEMPLATE/NIC[1]/NIC_ID, " ", /VM/TEMPLATE/NIC[2]/NIC_ID)')" \
	"the VM has NICs 0 and 1"
# no state changed: the API hook alone tells the hook which VM ("vm-nic
# $API"), and its run reads that VM into the listing it keeps
one_wait_hook oneib-api-vm-attachnic "$n"
assert_eq 2 "$(grep -o "<VM><ID>$V</ID>.*" "$kept" | sed 's|</VM>.*||' | grep -o '<NIC_ID>' | wc -l)" \
	"the hook's kept listing has VM $V's new NIC"
assert_eq "$stamp" "$(stat -c %Y "$kept")" "read by the NIC event's run alone (no full listing since)"
assert_ok "alice: resume" -- as_user alice onevm resume "$V"
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq 2 "$(one_domxml hv1 "$V" | grep -c '<hostdev')" "resumed with two <hostdev>s"
assert_eq 2 "$(one_leases hv1 | wc -l)" "two leases"
one_cloud_agrees "resume with two NICs"
one_partitions_agree "resume with two NICs" "$net"

# --- hot nic-detach on the test driver: refused, the leases keep their time
before=$(one_leases hv1)
later() { [ "$(date +%s)" -gt "$1" ]; }
wait_for 3 later "$(one_leases hv1 | awk '{ print $6 }' | sort -n | tail -n 1)" ||
	die "the clock does not move"
assert_ok "alice: hot nic-detach of NIC 1" -- as_user alice onevm nic-detach "$V" 1
one_wait_vm "$V" "^ACTIVE RUNNING$"
# the line one-ib-lifecycle(7) quotes, for this VM
said=$(sed -e 's/\\-/-/g' "$TOP/doc/one-ib-lifecycle.7" |
	sed -n 's/^[[:space:]]*\(DETACHNIC: VM 42: cannot detach VF .*\)$/\1/p')
[ -n "$said" ] || die "one-ib-lifecycle(7) quotes no failed DETACHNIC"
re=$(printf '%s' "$said" | sed -e 's/[].[()*^$+?{}|]/\\&/g' -e "s/VM 42/VM $V/" \
	-e 's/0000:3b:00\\\.2/0000:3b:00\\.[1-7]/' -e 's/<uuid>/[-0-9a-f]+/')
assert_match "$re" "$(one_vm_log "$V")" "hot nic-detach fails with libvirt's reason, as one-ib-lifecycle(7) says"
assert_eq 2 "$(one_xml vm "$V" | one_xpath 'count(/VM/TEMPLATE/NIC)')" "the NIC stays"
assert_eq "$before" "$(one_leases hv1)" "the leases as they were, their time too"
one_cloud_agrees "hot nic-detach refused"

# --- terminate
assert_ok "alice: terminate" -- as_user alice onevm terminate "$V"
one_wait_vm "$V" "^DONE "
one_cloud_agrees "terminate"
assert_eq "" "$(one_leases hv1)" "terminate: every lease freed"
assert_fail "terminate: no domain" -- one_domxml hv1 "$V"
one_partitions_agree "terminate" "$net"

# --- the hook ran, successfully, on every event
# shellcheck disable=SC2086 # names
one_wait_hooks $hooks
for h in $hooks; do
	assert_match "^$h 0$" "$ONE_HOOK_LOG" "the hook ran on $h"
done
assert_eq "" "$(printf '%s\n' "$ONE_HOOK_LOG" | grep -v ' 0$')" "no hook run failed"
test_done
