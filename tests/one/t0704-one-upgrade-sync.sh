#!/bin/bash
# Upgrading one-ib under a running cloud, as one-ib-upgrade(7) says, through the
# real OpenNebula front-end (tests/lib/one.sh): the front-end runs an older
# one-ib (this repository at $ONEIB_OLD_REV, c37ba87 by default: main before
# the real front-end tests, whose oneib-vf differs from today's), a user's
# VM runs with its VF on a ConnectX-5 host; the operator has tuned
# kvm-ibrc. Then the new one-ib is installed over it (one-ib-frontend(7)'s
# self-contained make install, from this checkout) and, as oneadmin,
# `onehost sync --force`:
#   - the front-end's remotes are the new ones, the operator's kvm-ibrc
#     kept; the host runs exactly the front-end's remotes (every one-ib
#     file and the stock ones it links to), no longer the old ones;
#   - the VM keeps running with its VF: the same domain hostdev, the same
#     lease (VF, GUID, P_Key, time), the VF still programmed;
#   - the new helpers take over the old lease: poweroff frees it, resume
#     leases a VF again, terminate leaves nothing.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_ib_build "${ONEIB_OLD_REV:-c37ba87}"
ONE_IB_SRC=$ONE_IB_OLD one_frontend
one_host hv1 cx5
one_host_create hv1
R=$ONE_DIR/var/remotes
assert_ok "the front-end runs the old one-ib" -- cmp "$ONE_IB_OLD/build/bin/oneib-vf" "$R/ib/bin/oneib-vf"
assert_fail "which is not this checkout's" -- cmp -s "$TOP/build/bin/oneib-vf" "$R/ib/bin/oneib-vf"
on hv1 cmp /var/tmp/one/ib/bin/oneib-vf "$ONE_IB_OLD/build/bin/oneib-vf" ||
	die "the host does not run the old oneib-vf"
# the operator's setting, which the upgrade must keep
sed -i 's/^ONEIB_RECONCILE_GRACE=.*/ONEIB_RECONCILE_GRACE=900/' "$R/etc/vmm/kvm-ib/kvm-ibrc"

one_ib_network ib-tenant-a >/dev/null
V=$ONE_VM0 # the VM's ID (0 on a front-end of its own)
one_user alice
printf '%s\n' 'NAME = "vm"' 'CPU = "0.1"' 'MEMORY = "128"' \
	'NIC = [ NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin" ]' \
	'SCHED_REQUIREMENTS = "IB_SRIOV = \"YES\" & IB_VFS_FREE > 0"' >"$TEST_TMP/vm.tmpl"
chmod 0644 "$TEST_TMP/vm.tmpl"
as_user alice onevm create "$TEST_TMP/vm.tmpl" >/dev/null || die "onevm create"
one_wait_vm "$V" "^ACTIVE RUNNING$"
one_cloud_agrees "deployed by the old one-ib"
lease=$(one_leases hv1)
devs=$(one_domxml hv1 "$V" | grep -A3 '<hostdev')
assert_match "^$V 0 0000:3b:00\.[1-7] $(guid_of "$V" 0) 0x8100 [0-9]+$" "$lease" "the old one-ib's lease"

# --- the upgrade: the new one-ib on the front-end, then onehost sync
one_install_frontend
assert_ok "the front-end's remotes are the new ones" -- cmp "$TOP/build/bin/oneib-vf" "$R/ib/bin/oneib-vf"
assert_match '^ONEIB_RECONCILE_GRACE=900$' "$(cat "$R/etc/vmm/kvm-ib/kvm-ibrc")" "the operator's kvm-ibrc kept"
assert_ok "oneadmin: onehost sync --force" -- as_oneadmin onehost sync --force
synced() { on hv1 cmp -s "$R/ib/bin/oneib-vf" /var/tmp/one/ib/bin/oneib-vf; }
wait_for 60 synced || say "the host's oneib-vf is still the old one"
# every file one-ib installs, and the stock files its links stand for
# (rsync -L: links arrive as files), as the front-end has them
for d in ib vmm/kvm-ib vnm/ib im/kvm-ib-probes.d im/kvm-ib.d etc/vmm/kvm-ib etc/vnm/ib hooks; do
	assert_ok "hv1 runs the front-end's $d" -- on hv1 diff -r "$R/$d" "/var/tmp/one/$d"
done
assert_fail "no longer the old oneib-vf" -- on hv1 cmp -s "$ONE_IB_OLD/build/bin/oneib-vf" /var/tmp/one/ib/bin/oneib-vf

# --- the VM kept its VF
assert_eq "ACTIVE RUNNING" "$(one_vm_state "$V")" "the VM still runs"
assert_eq "$devs" "$(one_domxml hv1 "$V" | grep -A3 '<hostdev')" "with the same hostdev"
assert_eq "$lease" "$(one_leases hv1)" "and the same lease (VF, GUID, P_Key, time)"
one_cloud_agrees "after the sync"

# --- the new one-ib takes over
assert_ok "alice: poweroff" -- as_user alice onevm poweroff "$V"
one_wait_vm "$V" "^POWEROFF LCM_INIT$"
one_cloud_agrees "poweroff after the upgrade"
assert_eq "" "$(one_leases hv1)" "the new one-ib freed the old lease"
assert_ok "alice: resume" -- as_user alice onevm resume "$V"
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq 1 "$(one_leases hv1 | wc -l)" "resumed with a VF"
one_cloud_agrees "resume after the upgrade"
assert_ok "alice: terminate" -- as_user alice onevm terminate "$V"
one_wait_vm "$V" "^DONE "
one_cloud_agrees "terminate after the upgrade"
assert_eq "" "$(one_leases hv1)" "terminated: nothing left"
test_done
