#!/bin/bash
# A change no event told of reaches the partitions within
# ONEIB_PARTITIONS_FULL_EVERY whatever the clock does (issue 33, design
# decision 12), seen from outside as onehem runs the front-end hook,
# against the stand-in of oned's XML-RPC API (tests/lib/standin/oned-rpc):
# a run lists every VM while the clock is an hour ahead (faketime, for the
# hook and all it runs); the clock set right, VM 42 powers off and only
# VM 43's events come; the partitions lose VM 42 within
# ONEIB_PARTITIONS_FULL_EVERY (3 s here) of the clock going back, though
# the last full listing was taken "an hour from now". Only what oned was
# asked and what partitions.conf holds are looked at, so the test holds for
# any way of keeping the listing and its time.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

command -v faketime >/dev/null || die "faketime is not installed (make deps)"
hook_sandbox
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
VM42=0x02000000002a000 # NICs 0 and 2

vm_event() { printf '<VM>\n  <ID>%s</ID>\n  <UID>0</UID><NAME>x</NAME></VM>' "$1" | base64 -w0; }
full_listings() { grep -c '^one.vmpool.infoextended -2 -1 -1 -1$' "$TEST_TMP/calls.onevm"; }

# --- the clock an hour ahead: a full listing, "taken an hour from now"
ahead=$(faketime -f '+1h' date +%s)
assert_eq 1 "$(( ahead - $(date +%s) >= 3590 ))" "faketime sets the hook's clock an hour ahead"
assert_ok "a run without an event, the clock an hour ahead" -- \
	env NO_FAKE_STAT=1 faketime -f '+1h' "$HOOK"
assert_file_eq "$DATA/expected.conf" "$CONF" "the expected partitions"
assert_ok "an event's run, the clock still ahead" -- \
	env NO_FAKE_STAT=1 faketime -f '+1h' "$HOOK" vm-state "$(vm_event 43)"
assert_eq 1 "$(full_listings)" "reads VM 43 alone: the listing kept is fresh"

# --- the clock back; VM 42 powered off, told by no event
sed -i 's|<ID>42</ID><NAME>run</NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE>|<ID>42</ID><NAME>run</NAME><STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	"$TEST_TMP/vms.xml"
export ONEIB_PARTITIONS_FULL_EVERY=3
start=$(date +%s)
runs=0
while :; do
	assert_ok "VM 43's event, the clock an hour behind the listing" -- \
		"$HOOK" vm-state "$(vm_event 43)" || break
	runs=$((runs + 1))
	grep -q "$VM42" "$CONF" || break
	[ $(($(date +%s) - start)) -le $((ONEIB_PARTITIONS_FULL_EVERY + 2)) ] || break
	sleep 1
done
say "$runs event runs, $(($(date +%s) - start)) s"
assert_eq "" "$(grep "$VM42" "$CONF")" \
	"VM 42 left its partitions within ONEIB_PARTITIONS_FULL_EVERY of the clock going back"
assert_eq 1 "$(( $(full_listings) > 1 ))" "every VM was listed again"
test_done
