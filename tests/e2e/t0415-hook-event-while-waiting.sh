#!/bin/bash
# A run of the front-end hook waiting for the lock reads every event that
# arrived while it waited (issue 33, design decisions 7 and 12), seen from
# outside as onehem runs it, against the stand-in of oned's XML-RPC API
# (tests/lib/standin/oned-rpc): while a run holds ONEIB_PARTITIONS_LOCK
# (here: the test), run A (VM 43's event) queues for it; the events of VMs
# 44 and 42, both powered off, arrive meanwhile and leave at once; once
# the lock is free, A's file has neither VM 44 nor VM 42 in a partition.
# Only what oned was asked and what partitions.conf holds are looked at,
# so the test holds for any way of keeping the listing and the events.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

hook_sandbox
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
VM42=0x02000000002a0000 VM44=0x02000000002c0000

calls() { grep -c '^one\.' "$TEST_TMP/calls.onevm" "$TEST_TMP/calls.onehost" \
	"$TEST_TMP/calls.onevnet" 2>/dev/null | awk -F: '{ n += $2 } END { print n + 0 }'; }
vm_event() { printf '<VM>\n  <ID>%s</ID>\n  <UID>0</UID><NAME>x</NAME></VM>' "$1" | base64 -w0; }
# a run blocked on the lock file itself (looked up in /proc/locks: trying
# the lock here would race with the run)
lock_waited() {
	local ino
	ino=$(stat -c %i "$ONEIB_PARTITIONS_LOCK") || return 1
	awk -v i="$ino" '$2 == "->" { n = split($7, f, ":"); if (f[n] == i) x = 1 }
		END { exit !x }' /proc/locks
}

assert_ok "a run without an event" -- "$HOOK"
assert_file_eq "$DATA/expected.conf" "$CONF" "the expected partitions"

# --- a run in progress (the lock held here), A waiting behind it
exec 7>>"$ONEIB_PARTITIONS_LOCK"
flock 7 || die "cannot take the lock"
"$HOOK" vm-state "$(vm_event 43)" >"$TEST_TMP/a.out" 2>"$TEST_TMP/a.err" 7>&- &
a=$!
wait_for 20 lock_waited || die "run A did not wait for the lock"
n=$(calls)

# --- VMs 44 and 42 powered off, their events while A waits
sed -i -e 's|<ID>44</ID><NAME>off</NAME><STATE>3</STATE><LCM_STATE>18</LCM_STATE>|<ID>44</ID><NAME>off</NAME><STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	-e 's|<ID>42</ID><NAME>run</NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE>|<ID>42</ID><NAME>run</NAME><STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	"$TEST_TMP/vms.xml"
assert_eq 2 "$(grep -c '<STATE>8</STATE>' "$TEST_TMP/vms.xml")" "VMs 42 and 44 powered off in oned"
for vm in 44 42; do
	assert_ok "VM $vm's event while A waits: leaves it to A" -- \
		timeout 60 "$HOOK" vm-state "$(vm_event $vm)"
done
assert_eq "$n" "$(calls)" "nothing asked of oned while the lock is held"
assert_eq 0 "$(kill -0 "$a" 2>/dev/null; echo $?)" "A still waits"

# --- the lock free: A runs, with the events that came while it waited
flock -u 7
exec 7>&-
wait "$a"
assert_eq 0 $? "A succeeds once the lock is free"
assert_eq "" "$(grep -e "$VM44" -e "${VM42%0}" "$CONF")" \
	"VMs 44 and 42 left their partitions: A read their events"
assert_match "^	0x0002c90300a1b2c1=full" "$(cat "$CONF")" "the hosts' ports stayed"
cp "$CONF" "$TEST_TMP/a.conf"
assert_ok "a run without an event" -- "$HOOK"
assert_file_eq "$TEST_TMP/a.conf" "$CONF" "A rendered what a full listing renders"
test_done
