#!/bin/bash
# Live migration, suspend/resume and NIC hot-plug of a user's VM with
# InfiniBand through the real OpenNebula front-end (tests/lib/one.sh) and
# two simulated ConnectX-5 hosts, OpenNebula's own stock kvm scripts doing
# their part and kvm-ib its own (design decision 10):
#   - live migration (oneadmin: onevm migrate --live): RUNNING on the other
#     host, its VF there (leased, programmed, in the domain), none left on
#     the first host;
#   - suspend: SUSPENDED, no VF held or leased anywhere; resume: RUNNING,
#     a VF again with the NIC's GUID;
#   - hot nic-attach of a second IB NIC: two VFs; hot nic-detach: one;
#   - terminate: nothing left.
# After each step the hosts agree with oned (domains, ledgers, VFs).
# libvirt 9.0's test driver, which runs the VMs, has no device hot-plug
# (nor change-media, which the stock scripts run around a NIC hot-plug for
# the context CD), no `restore --xml` and no migration: on these hosts the
# stand-in
# tests/lib/standin/virsh (one_host --standin) provides exactly those
# calls, after libvirt's QEMU driver on the same host validated the XML
# they carry (its log is checked below); every other virsh call is real.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
one_host hv1 cx5 --standin
one_host hv2 cx5 --standin
one_host_create hv1 hv2
one_ib_network ib-tenant-a >/dev/null
V=$ONE_VM0 # the VM's ID (0 on a front-end of its own)
one_user alice
printf '%s\n' 'NAME = "vm"' 'CPU = "0.1"' 'MEMORY = "128"' \
	'NIC = [ NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin" ]' \
	'SCHED_REQUIREMENTS = "IB_SRIOV = \"YES\" & IB_VFS_FREE > 0"' \
	'CONTEXT = [ NETWORK = "YES", VMID = "$VMID" ]' >"$TEST_TMP/vm.tmpl"
chmod 0644 "$TEST_TMP/vm.tmpl"
host_of() { one_xml vm "$V" | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME'; }
hostdevs() { one_domxml "$1" "$V" | grep -c '<hostdev'; }
validated() { grep -c "^validated $1" "$SIM_HOSTS/standin.log"; }

assert_ok "alice: a VM with one IB NIC" -- as_user alice onevm create "$TEST_TMP/vm.tmpl"
one_wait_vm "$V" "^ACTIVE RUNNING$"
src=$(host_of)
case $src in hv1) dst=hv2 ;; hv2) dst=hv1 ;; *) die "VM $V runs on '$src'" ;; esac
assert_eq 1 "$(hostdevs "$src")" "deployed on $src with its VF"
one_cloud_agrees "deploy"

# --- live migration
n=$(validated migrate)
assert_ok "oneadmin: live migration to $dst" -- as_oneadmin onevm migrate --live "$V" "$dst"
one_wait_migrated "$V"
assert_eq "$dst" "$(host_of)" "the VM runs on $dst"
assert_eq 1 "$(hostdevs "$dst")" "with its VF there"
assert_fail "no domain left on $src" -- one_domxml "$src" "$V"
assert_eq "" "$(one_leases "$src")" "no lease left on $src"
assert_match "^$V 0 0000:3b:00\.[1-7] $(guid_of "$V" 0) 0x8100 " "$(one_leases "$dst")" \
	"the lease on $dst: the NIC's GUID and P_Key"
assert_eq $((n + 1)) "$(validated migrate)" "the QEMU driver validated the migrated domain (no hostdev in it)"
one_cloud_agrees "live migration"

# --- suspend, resume
assert_ok "alice: suspend" -- as_user alice onevm suspend "$V"
one_wait_vm "$V" "^SUSPENDED LCM_INIT$"
one_cloud_agrees "suspend"
assert_eq "" "$(one_leases "$dst")" "suspended: no lease"
n=$(validated 'restore --xml')
assert_ok "alice: resume" -- as_user alice onevm resume "$V"
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq 1 "$(hostdevs "$(host_of)")" "resumed with a VF"
assert_eq $((n + 1)) "$(validated 'restore --xml')" "the QEMU driver validated the restored domain"
one_cloud_agrees "resume"

# --- hot-plug
h=$(host_of)
n=$(validated attach-device) m=$(validated change-media)
assert_ok "alice: hot nic-attach of a second IB NIC" -- as_user alice onevm nic-attach "$V" --network ib-tenant-a
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq 2 "$(one_xml vm "$V" | one_xpath 'count(/VM/TEMPLATE/NIC)')" "the VM has two NICs"
assert_eq 2 "$(hostdevs "$h")" "and two VFs"
assert_eq $((n + 1)) "$(validated attach-device)" "the QEMU driver validated the hot-plugged hostdev"
assert_eq $((m + 2)) "$(validated change-media)" \
	"and the context CD's eject and insert (the stock prereconfigure and reconfigure)"
one_cloud_agrees "hot nic-attach"
assert_ok "alice: hot nic-detach of NIC 1" -- as_user alice onevm nic-detach "$V" 1
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq 1 "$(one_xml vm "$V" | one_xpath 'count(/VM/TEMPLATE/NIC)')" "the VM has one NIC"
assert_eq 1 "$(hostdevs "$h")" "and one VF"
one_cloud_agrees "hot nic-detach"

# --- terminate
assert_ok "alice: terminate" -- as_user alice onevm terminate "$V"
one_wait_vm "$V" "^DONE "
one_cloud_agrees "terminate"
assert_eq "" "$(one_leases hv1)$(one_leases hv2)" "no lease anywhere"
test_done
