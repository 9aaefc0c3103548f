#!/bin/bash
# suspend/stop (the save action) and resume (restore) of a VM with two
# InfiniBand NICs through kvm-ib, run as one_vmm_exec runs them (save, vnm
# clean; vnm pre, restore, vnm post) on a two-host simulated cloud. After
# every step the domain's hostdevs, both ledgers, the VFs' GUID state and
# the partitions model agree with oned's view:
#   save: every VF hot-detached before the stock save, so the checkpoint
#         names none; released (unmapped) once saved; if the save fails the
#         same VFs are attached again;
#   restore: VFs leased and programmed before anything starts (the NICs'
#         own GUIDs, on this host or the other one), then attached; no VF
#         free: one line, checkpoint untouched; attaching refused: the VM
#         goes back into its checkpoint;
#   each again (a retry after it succeeded): succeeds and changes nothing
#         (the stock save would move the checkpoint aside and fail).
# The test driver lacks `restore --xml`: tests/lib/standin/virsh stands in,
# validating the XML with the QEMU driver (define).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
CKPT=$TEST_TMP/shared-ds/0/42/checkpoint

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (two IB NICs) on hv1"
cloud_agrees "deploy"

# --- suspend and resume on the same host
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
cloud_agrees "suspended"
assert_ok "the checkpoint exists" -- test -s "$CKPT"
on hv1 virsh save-image-dumpxml /var/lib/one/datastores/0/42/checkpoint >"$TEST_TMP/ckpt.xml"
assert_match "<name>one-42</name>" "$(cat "$TEST_TMP/ckpt.xml")" "it is VM 42's"
assert_eq 0 "$(grep -c '<hostdev' "$TEST_TMP/ckpt.xml")" "the checkpoint names no VF"
assert_match "validated detach-device .*function=\"0x1\"" "$(cat "$SIM_HOSTS/standin.log")" "NIC 0's VF was hot-detached"
assert_ok "save again (a retry): saved already, succeeds" -- again
assert_ok "the checkpoint is still there" -- test -s "$CKPT"
assert_eq "" "$(find "$TEST_TMP/shared-ds/0/42" -maxdepth 1 -name '*checkpoint.*')" "and was not moved aside"
cloud_agrees "save again"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
cloud_agrees "resumed on hv1"
assert_ok "restore again (a retry): restored already, succeeds" -- again
cloud_agrees "restore again"

# --- stop on hv1, resume on hv2 (the VFs and GUIDs follow)
assert_eq "SAVE SUCCESS" "$(one_save 42 "4 0")" "stop (STOPPED)"
cloud_agrees "stopped"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv2)" "resume on hv2"
cloud_agrees "resumed on hv2"

# --- no VF free on hv1: the restore fails before anything starts
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend on hv2"
sum=$(md5sum <"$CKPT")
occupy hv1 legacy-db 0000:3b:00.1 0000:3b:00.2 0000:3b:00.3 0000:3b:00.4 0000:3b:00.5 0000:3b:00.6 0000:3b:00.7
out=$(one_restore 42 hv1)
assert_match "^RESTORE FAILURE: no free VF on 0000:3b:00.0 port 1 for VM 42 \(7 of 7 leased\)$" "$out" \
	"resume on a host with no free VF: one line"
assert_eq "$sum" "$(md5sum <"$CKPT")" "the checkpoint is untouched"
assert_fail "no domain started" -- on hv1 virsh domstate one-42
on hv1 virsh destroy legacy-db >/dev/null
cloud_agrees "restore refused"

# --- attaching refused after the restore: the VM goes back into its checkpoint
inject attach-fails
out=$(one_restore 42 hv1)
uninject attach-fails
assert_match "^RESTORE FAILURE: VM 42: cannot attach VF" "$out" "restore whose attach libvirt refuses"
assert_fail "no domain left running" -- on hv1 virsh domstate one-42
assert_ok "the checkpoint is back" -- test -s "$CKPT"
cloud_agrees "restore undone"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
cloud_agrees "resumed on hv1 after all"

# --- the save fails: the same VFs go back in, the VM runs on
before=$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 | sort)
rm -f "$CKPT"
mkdir "$CKPT" # virsh save cannot write a directory
out=$(one_save 42)
rmdir "$CKPT"
assert_match "^SAVE FAILURE: Could not save" "$out" "a failing save"
assert_eq "$before" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 --held | sort)" \
	"the same VFs are in the domain again"
cloud_agrees "failed save"
test_done
