#!/bin/bash
# The front-end hook keeps only what oned's later listings say of a VM it
# asked for again (issue 33, design decision 12), seen from outside as
# onehem runs it, against the stand-in of oned's XML-RPC API
# (tests/lib/standin/oned-rpc): VM 44 is purged from oned (onedb
# purge-done, `onevm recover --delete-db`) after a run that listed it; its
# state hook's run asks oned for it, gets nothing, and VM 44 leaves its
# partition, and neither the next event's run nor a full one brings it
# back. Only what oned was asked and what partitions.conf holds are looked
# at, so the test holds for any way of keeping the listing.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

hook_sandbox
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
# VM 44 NIC 0 (SHUTDOWN_POWEROFF: its VF still held) in tenant-a
VM44=0x02000000002c0000

# a VM state hook's event: base64 of the VM's XML, as oned's hook gives it
vm_event() { printf '<VM>\n  <ID>%s</ID>\n  <UID>0</UID><NAME>x</NAME></VM>' "$1" | base64 -w0; }

assert_ok "a run without an event" -- "$HOOK"
assert_file_eq "$DATA/expected.conf" "$CONF" "the expected partitions"
assert_match "^	$VM44=full" "$(cat "$CONF")" "VM 44 is a member of tenant-a"
hook_listed >/dev/null

# --- purged: oned lists VM 44 no more, by ID or otherwise
sed -i '/<VM><ID>44<\/ID>/,/<\/VM>/d' "$TEST_TMP/vms.xml"
assert_eq "" "$(grep '<ID>44</ID>' "$TEST_TMP/vms.xml")" "VM 44 gone from oned's pool"
assert_ok "VM 44's state hook" -- "$HOOK" vm-state "$(vm_event 44)"
calls=$(hook_listed)
assert_match "^one.vmpool.infoset ([0-9]+,)*44(,[0-9]+)* " "$calls" "VM 44 asked for by ID"
assert_eq "" "$(grep '^one.vmpool.infoextended -2 -1 -1 -1$' <<<"$calls")" \
	"and not every VM listed: what the run kept is what it renders from"
assert_eq "" "$(grep "$VM44" "$CONF")" "VM 44 left tenant-a"
assert_match "^	0x02000000002a0000=full" "$(cat "$CONF")" "VM 42 stayed"

# --- and stays out
assert_ok "VM 43's state hook" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "" "$(grep '^one.vmpool.infoextended -2 -1 -1 -1$' <<<"$(hook_listed)")" \
	"VM 43 read by itself"
assert_eq "" "$(grep "$VM44" "$CONF")" "VM 44 not back after the next event"
cp "$CONF" "$TEST_TMP/after-events.conf"
assert_ok "a run without an event" -- "$HOOK"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"
assert_file_eq "$TEST_TMP/after-events.conf" "$CONF" \
	"the events' runs rendered what the full listing renders"
test_done
