#!/bin/bash
# The kept VM listing works when the lock's directory and TMPDIR are on
# two filesystems (issue 30 found it: /var/lib/one on disk and a tmpfs
# /tmp, as Debian 13 and many sites have it). A run takes the kept
# listing by a rename beside it and copies it into its scratch directory
# under TMPDIR; a rename from one to the other fails (EXDEV), and every
# run listed every VM, the real front-end scenarios t0700/t0706 saw it
# only as a kept listing a few seconds younger than it should be.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

sim_host none
hook_sandbox
mkdir -p "$TEST_TMP/var" && mount -t tmpfs -o mode=0700 tmpfs "$TEST_TMP/var" ||
	die "cannot mount a tmpfs on $TEST_TMP/var"
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/var/lock
KEPT=$TEST_TMP/var/lock.vms
assert_eq "two" "$([ "$(stat -c %d "$TEST_TMP/var")" != "$(stat -c %d "${TMPDIR:-/tmp}")" ] && echo two)" \
	"the lock's directory and TMPDIR are two filesystems"

vm_event() { printf '<VM>\n  <ID>%s</ID>\n  <UID>0</UID><NAME>x</NAME></VM>' "$1" | base64 -w0; }

assert_ok "first run, no event" -- "$HOOK"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"
assert_eq "<!-- next VM ID: 45 -->" "$(head -n 1 "$KEPT" 2>/dev/null)" "the listing kept beside the lock"
touch -d '-5 minutes' "$KEPT"
stamp=$(stat -c %Y "$KEPT")

sed -i 's|<ID>44</ID><NAME>off</NAME><STATE>3</STATE>|<ID>44</ID><NAME>off</NAME><STATE>6</STATE>|' "$TEST_TMP/vms.xml"
assert_ok "VM 44 terminated: its state hook" -- "$HOOK" vm-state "$(vm_event 44)"
assert_eq "one.vmpool.infoextended -2 45 -1 -1
one.vmpool.infoset 43,44 True" "$(hook_listed)" "only the event's VMs read, across the two filesystems"
assert_eq "" "$(grep 0x02000000002c0000 "$CONF")" "VM 44 (DONE) left its partition"
assert_eq "$stamp" "$(stat -c %Y "$KEPT")" "the kept listing keeps the time of its last full listing"
assert_eq "" "$(grep '<ID>44</ID>' "$KEPT")" "and no longer holds the DONE VM"
assert_eq "lock lock.events lock.next lock.vms" "$(cd "$TEST_TMP/var" && ls -A | tr '\n' ' ' | sed 's/ $//')" \
	"nothing else left beside the lock"
assert_eq "600" "$(stat -c %a "$KEPT")" "the kept listing is the owner's alone"

umount "$TEST_TMP/var"
test_done
