#!/bin/bash
# Releasing one NIC's VF (nic-detach, a failed nic-attach, `oneib-vf
# release --nic N` or `--vm-xml FILE --mac MAC`) takes that NIC of that VM
# only, never another VM's NIC with the same NIC ID or the same MAC (two
# networks on one address range hand out the same MACs) on the same host.
# That other VM's VF stays leased and programmed: release does not read the
# domains whose VFs the ledger vouches for, so a wrong match would go
# unnoticed by libvirt, and the next deploy could hand that VF out again
# while its domain holds it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
VF=/var/tmp/one/ib/bin/oneib-vf

ledger() { on hv1 cat /var/lib/one/ib/leases; }

# VM 42: NICs 0 and 1; VM 44: NICs 0, 1 and 2, its NIC 2 with the MAC of
# VM 42's NIC 0 (another network, the same address range).
one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
one_vm_new 44 0/02:00:c0:a8:01:07/5 1/02:00:c0:a8:02:07/7 2/02:00:c0:a8:01:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 on hv1"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 44 hv1)" "deploy of VM 44 on hv1"
cloud_agrees "deployed"

# --- oneib-vf release by NIC ID: VM 42's NIC 2 is no NIC of it (VM 44's is)
before=$(ledger)
assert_ok "release --vm 42 --nic 2" -- on hv1 "$VF" release --vm 42 --nic 2
assert_eq "VM 42: no VF leased, nothing to release" "$(cat "$LAST_OUT")" "VM 42 has none"
assert_eq "$before" "$(ledger)" "the ledger is as it was"
cloud_agrees "release of a NIC ID only VM 44 has"

# --- by MAC, in VM 42's XML: its own NIC 0, whose MAC VM 44's NIC 2 shares
action_xml 42 >"$TEST_TMP/a42.xml"
assert_ok "hostdevs --vm 42 --mac (NIC 0's)" -- on hv1 "$VF" hostdevs --vm 42 --vm-xml "$TEST_TMP/a42.xml" --mac 02:00:c0:a8:01:05
assert_eq 1 "$(grep -c '' "$LAST_OUT")" "one VF: VM 42's NIC 0"
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 0)" "nic-detach of VM 42's NIC 0"
cloud_agrees "VM 42's NIC 0 detached"
assert_match " vm=44 nic=2 mac=02:00:c0:a8:01:05 " "$(ledger)" "VM 44's NIC 2, same MAC, keeps its lease"

# --- by NIC ID: VM 42's NIC 1, which VM 44 has too
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "nic-detach of VM 42's NIC 1"
cloud_agrees "VM 42's NIC 1 detached"
assert_match " vm=44 nic=1 " "$(ledger)" "VM 44's NIC 1 keeps its lease"
assert_ok "release --vm 42 --nic 1 again" -- on hv1 "$VF" release --vm 42 --nic 1
assert_eq "VM 42: no VF leased, nothing to release" "$(cat "$LAST_OUT")" "nothing of VM 42's left"
cloud_agrees "release of VM 42's NIC 1 again"

# --- a nic-attach of VM 42 that libvirt refuses: the undo releases by MAC
inject attach-fails
assert_match "^ATTACHNIC FAILURE" "$(one_attach_nic 42 2/02:00:c0:a8:02:07/5)" \
	"VM 42 attaches NIC 2 with VM 44's NIC 1's MAC, refused"
uninject attach-fails
cloud_agrees "failed attach of VM 42's NIC 2"
assert_match " vm=44 nic=1 mac=02:00:c0:a8:02:07 " "$(ledger)" "VM 44's NIC 1 still leased"
assert_match " vm=44 nic=2 " "$(ledger)" "and its NIC 2"
test_done
