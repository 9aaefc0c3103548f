#!/bin/bash
# No action writes to a fixed name in a shared directory, where a local
# user could plant a symlink that turns the write onto the lease ledger
# (one-ib 1.x wrote oneib-vf's errors to /tmp/ib_release.<pid>: a symlink
# planted there turned the ledger into one error line during a save). Here
# another user (nobody) plants symlinks to the ledger at every name such a
# write could use: /tmp/ib_release.<pid> and /tmp/migrate.<pid> for the
# next pids, and the host's shared view of libvirt in /dev/shm
# (oneib-view-*, whose name is known: oneib-vf opens it without following
# links and believes only its own). Then save, restore, live migration,
# NIC hot-plug and shutdown run: each succeeds, the ledger is whole and
# agrees with oned, and every planted link is still a link, its target
# untouched. Run where symlinks in sticky directories are followed
# (fs.protected_symlinks=0), as in the attack; with 1 the kernel refuses
# the write instead, and the test says so.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
say "fs.protected_symlinks=$(cat /proc/sys/fs/protected_symlinks)"

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# nobody's links in /tmp at the old names
links() {
	find /tmp -maxdepth 1 \( -name 'ib_release.*' -o -name 'migrate.*' \) -type l -user nobody | wc -l
}
ledgers() { # both hosts' ledgers, byte for byte
	on hv1 cat /var/lib/one/ib/leases 2>/dev/null
	on hv2 cat /var/lib/one/ib/leases 2>/dev/null
}

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 on hv1"
one_vm_new 43 0/02:00:c0:a8:01:06/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 43 hv2)" "deploy of VM 43 on hv2"
cloud_agrees "deployed"

# --- nobody plants the links. The pids the actions will get are the next
# ones of this test's pid namespace: a few thousand cover them all.
planted=$TEST_TMP/planted
: >"$planted"
# gone with the test, however it ends (the harness's exit handler after)
trap 'rc=$?; xargs -r rm -f <"$planted"; (exit $rc); _tl_on_exit' EXIT
last=$(cat /proc/sys/kernel/ns_last_pid)
for ((p = last + 1; p <= last + 4000; p++)); do
	echo "/tmp/ib_release.$p"
	echo "/tmp/migrate.$p"
done >"$TEST_TMP/names"
n=0
while read -r f; do
	[ -e "$f" ] || [ -L "$f" ] && continue
	echo "$f" >>"$planted"
	n=$((n + 1))
done <"$TEST_TMP/names"
# one process (perl-base, in every Debian) makes them all: the next pids
# stay for the actions
# shellcheck disable=SC2016 # perl's
as_nobody perl -e 'while (<STDIN>) { chomp; symlink("/var/lib/one/ib/leases", $_) or die "$_: $!\n" }' <"$planted"
assert_eq "$n" "$(links)" "nobody planted $n links in /tmp to the ledger"
for h in hv1 hv2; do
	view=$(on "$h" sh -c 'ls /dev/shm/oneib-view-* 2>/dev/null' | head -n 1)
	[ -n "$view" ] || die "$h has no shared view to replace"
	on "$h" rm -f "$view"
	on "$h" setpriv --reuid=65534 --regid=65534 --clear-groups ln -s /var/lib/one/ib/leases "$view" ||
		die "$h: nobody cannot plant a link in /dev/shm"
	assert_ok "$h: nobody's link at its view's name $view" -- on "$h" test -L "$view"
	echo "$h $view" >>"$TEST_TMP/views"
done

# --- every kind of action, with the links in place
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
cloud_agrees "suspended"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv2)" "resume on hv2"
cloud_agrees "resumed on hv2"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv1)" "live migration to hv1"
cloud_agrees "migrated"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 2/02:00:c0:a8:01:09/5)" "NIC attach"
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 2)" "NIC detach"
cloud_agrees "NIC attached and detached"
inject attach-fails
assert_match "^ATTACHNIC FAILURE" "$(one_attach_nic 42 2/02:00:c0:a8:01:09/5)" "a NIC attach that fails (its errors written somewhere)"
uninject attach-fails
cloud_agrees "failed attach"
assert_eq "SHUTDOWN SUCCESS" "$(one_shutdown 43)" "poweroff of VM 43"
cloud_agrees "powered off"

# --- what the links point to was never written through them
assert_eq "$n" "$(links)" "every link in /tmp is still nobody's link"
while read -r h view; do
	assert_ok "$h: the link at its view's name is still there" -- on "$h" test -L "$view"
done <"$TEST_TMP/views"
before=$(ledgers)
assert_ok "hv1's ledger reads" -- on hv1 /var/tmp/one/ib/bin/oneib-vf list
assert_ok "hv2's ledger reads" -- on hv2 /var/tmp/one/ib/bin/oneib-vf list
assert_match "^vf=0000:3b:00\.. .* vm=42 nic=0 " "$(on hv1 cat /var/lib/one/ib/leases)" "hv1's ledger holds VM 42's leases"
assert_eq "$before" "$(ledgers)" "and nothing wrote to them since"
test_done
