#!/bin/bash
# A resume (the restore action) killed with -9 at any point, then retried
# (`onevm recover --retry`, or the user resuming again): the VM runs with
# its VFs, programmed, and its leases; nothing is doubled (one domain, one
# lease per NIC, no VF in two domains) and no checkpoint is left behind.
# The point that used to break it: after `virsh restore` succeeded but
# before the stock restore removed the checkpoint. Whether the VM was
# restored is what the running domain says, not whether the checkpoint is
# gone. On the host it was saved on, and on the other one.
#
# The test driver lacks `restore --xml`: tests/lib/standin/virsh stands in.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
CKPT=$TEST_TMP/shared-ds/0/42/checkpoint

domains() { # HOST: how many one-42 domains run there
	on "$1" virsh list --name | grep -c '^one-42$'
}

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (two IB NICs) on hv1"

for host in hv1 hv2; do
	# --- killed once the domain runs, before the checkpoint is removed
	assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend ($host next)"
	inject crash-after-restore
	assert_match "^RESTORE FAILURE" "$(one_restore 42 "$host")" "resume on $host, killed after virsh restore"
	uninject crash-after-restore
	assert_eq 1 "$(domains "$host")" "the domain runs on $host"
	assert_ok "the checkpoint is still there" -- test -e "$CKPT"
	assert_eq "RESTORE SUCCESS" "$(one_restore 42 "$host")" "resume again on $host: restored already"
	cloud_agrees "restore on $host retried after the kill"
	assert_eq 1 "$(domains "$host")" "one domain"
	assert_ok "no checkpoint left" -- test ! -e "$CKPT"
	assert_eq "" "$(find "$TEST_TMP/shared-ds/0/42" -maxdepth 1 -name 'checkpoint*' ! -name '*.err')" \
		"nor its XML, nor one moved aside (the stand-in's stderr file aside)"
	assert_eq "RESTORE SUCCESS" "$(one_restore 42 "$host")" "and once more: nothing changes"
	cloud_agrees "restore on $host retried twice"

	# --- killed before the domain runs (its VFs leased and programmed)
	assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
	inject crash-in-restore
	assert_match "^RESTORE FAILURE" "$(one_restore 42 "$host")" "resume on $host, killed before virsh restore"
	uninject crash-in-restore
	assert_eq 0 "$(domains "$host")" "no domain"
	assert_eq "RESTORE SUCCESS" "$(one_restore 42 "$host")" "resume again on $host"
	cloud_agrees "restore on $host retried after the early kill"
done
test_done
