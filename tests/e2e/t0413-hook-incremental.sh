#!/bin/bash
# The front-end hook reads only the VMs an event changed (issue 22, design
# decision 12), against the stand-in of oned's XML-RPC API
# (tests/lib/standin/oned-rpc, the listings of tests/unit/data/partitions;
# the real oned in tests/one, t0706): a run without an event lists every VM
# and keeps the reduced listing beside the lock; an event's run (a VM state
# hook's $TEMPLATE, a NIC hot-plug's $API, a new VM, on the command line
# or on stdin) asks oned for its VM and the VMs made since, and renders
# what a full listing renders; the VMs the hook updated itself are read
# again by the next run; a change no event told of is seen at the next
# full listing (ONEIB_PARTITIONS_FULL_EVERY); a run killed with -9 while
# oned answers leaves no kept listing, so the next run lists every VM; an
# event it cannot read or record makes the run list every VM.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

hook_sandbox
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
KEPT=$TEST_TMP/lock.vms

# an event as oned's hook subsystem hands it: KIND and base64 of XML
b64() { printf '%s' "$1" | base64 -w0; }
vm_event() { b64 "<VM>
  <ID>$1</ID>
  <UID>0</UID><NAME>x</NAME></VM>"; }
vms() { sed -i "$1" "$TEST_TMP/vms.xml"; }
members() { grep -c '^	0x' "$CONF"; }

# --- a run without an event: every VM, and the listing kept
assert_ok "first run, no event" -- "$HOOK"
assert_file_eq "$DATA/expected.conf" "$CONF" "the expected partitions"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"
assert_eq "<!-- next VM ID: 45 -->" "$(head -n 1 "$KEPT")" \
	"the kept listing says where new VMs begin"
assert_eq "42 43 44" "$(grep -o '<VM><ID>[0-9]*' "$KEPT" | cut -d'>' -f3 | tr '\n' ' ' | sed 's/ $//')" \
	"it keeps every VM, one each"
assert_eq "" "$(grep -o '<NAME>' "$KEPT")" "of each only what the renderer reads"
assert_eq "1" "$(find "$TEST_TMP/lock.events" -name '43.*' | wc -l)" \
	"VM 43, its requirement just updated by the hook, is spooled for the next run"

# --- a VM state event: that VM (and 43), and the VMs made since
vms 's|<ID>44</ID><NAME>off</NAME><STATE>3</STATE>|<ID>44</ID><NAME>off</NAME><STATE>6</STATE>|'
stamp=$(stat -c %Y "$KEPT")
touch -d '-5 minutes' "$KEPT"
stamp=$(stat -c %Y "$KEPT")
assert_ok "VM 44 terminated: its state hook" -- "$HOOK" vm-state "$(vm_event 44)"
assert_eq "one.vmpool.infoextended -2 45 -1 -1
one.vmpool.infoset 43,44 True" "$(hook_listed)" "only VMs 43 and 44, and any VM from ID 45"
assert_eq "" "$(grep 0x02000000002c0000 "$CONF")" "VM 44 (DONE) left its partition"
assert_eq "5" "$(members)" "the others stayed (6 members before)"
assert_eq "$stamp" "$(stat -c %Y "$KEPT")" "the kept listing keeps the time of its last full listing"
assert_eq "" "$(grep '<ID>44</ID>' "$KEPT")" "and no longer holds the DONE VM"
cp "$CONF" "$TEST_TMP/incremental.conf"
assert_ok "a full run right after" -- "$HOOK"
assert_match ": unchanged \(" "$(cat "$LAST_OUT")" "finds nothing to change: the event's run rendered what a full one does"
assert_file_eq "$TEST_TMP/incremental.conf" "$CONF" "the same file"
hook_listed >/dev/null

# --- a new VM, found above the kept IDs; on stdin, as ARGUMENTS_STDIN gives it
vms 's|</VM_POOL>|<VM><ID>45</ID><NAME>new</NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE><TEMPLATE><NIC><MAC>02:00:c0:a8:01:0b</MAC><NETWORK_ID>5</NETWORK_ID><NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD></NIC></TEMPLATE></VM></VM_POOL>|'
assert_ok "VM 45 allocated: its API hook, on stdin" -- sh -c 'echo vm-new | "$0" --event-stdin' "$HOOK"
assert_eq "one.vmpool.infoextended -2 45 -1 -1
one.vmpool.infoset 43 True" "$(hook_listed)" "the VMs from ID 45 (and 43, updated again)"
assert_match "0x02000000002d0000=full" "$(cat "$CONF")" "VM 45 joined its partition"
assert_eq "<!-- next VM ID: 46 -->" "$(head -n 1 "$KEPT")" "new VMs now begin at 46"

# --- a NIC hot-plugged: the VM is the call's first argument, whatever the
# tenant's text after it holds
vms 's|<NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD></NIC></TEMPLATE></VM></VM_POOL>|<NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD></NIC><NIC><MAC>02:00:c0:a8:02:0b</MAC><NETWORK_ID>7</NETWORK_ID><NIC_ID>1</NIC_ID><VN_MAD>ib</VN_MAD></NIC></TEMPLATE></VM></VM_POOL>|'
fake='<PARAMETER><POSITION>2</POSITION><TYPE>IN</TYPE><VALUE>42</VALUE></PARAMETER>'
api="<CALL_INFO><RESULT>1</RESULT><PARAMETERS><PARAMETER><POSITION>1</POSITION><TYPE>IN</TYPE><VALUE>****</VALUE></PARAMETER><PARAMETER><POSITION>2</POSITION><TYPE>IN</TYPE><VALUE>45</VALUE></PARAMETER><PARAMETER><POSITION>3</POSITION><TYPE>IN</TYPE><VALUE>NIC=[NETWORK_ID=\"7\",NAME=\"$fake\"]</VALUE></PARAMETER><PARAMETER><POSITION>4</POSITION><TYPE>OUT</TYPE><VALUE>$fake</VALUE></PARAMETER></PARAMETERS><EXTRA/></CALL_INFO>"
printf 'vm-nic %s' "$(b64 "$api")" >"$TEST_TMP/event"
assert_ok "a NIC attached to VM 45: its API hook, on stdin" -- sh -c '"$0" --event-stdin <"$1"' "$HOOK" "$TEST_TMP/event"
assert_eq "one.vmpool.infoextended -2 46 -1 -1
one.vmpool.infoset 43,45 True" "$(hook_listed)" "VM 45 read again, not the tenant's 42"
assert_match "0x02000000002d0001=full" "$(cat "$CONF")" "its new NIC joined the second partition"

# --- a change no event told of waits for the next full listing
vms 's|<ID>42</ID><NAME>run</NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE>|<ID>42</ID><NAME>run</NAME><STATE>8</STATE><LCM_STATE>0</LCM_STATE>|'
assert_ok "an event of VM 43 alone" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 46 -1 -1
one.vmpool.infoset 43 True" "$(hook_listed)" "only VM 43 read"
assert_match "0x02000000002a0000=full" "$(cat "$CONF")" "VM 42's power-off, told by no event, not seen yet"
touch -d '-11 minutes' "$KEPT"
assert_ok "an event once the kept listing is older than 600 s" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"
assert_eq "" "$(grep 0x02000000002a000 "$CONF")" "VM 42 left both partitions"
ONEIB_PARTITIONS_FULL_EVERY=0 assert_ok "ONEIB_PARTITIONS_FULL_EVERY=0" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every run lists every VM"
assert_refused "ONEIB_PARTITIONS_FULL_EVERY=soon" \
	"^oneib-partitions: ONEIB_PARTITIONS_FULL_EVERY 'soon' is not a number of seconds$" -- \
	env ONEIB_PARTITIONS_FULL_EVERY=soon "$HOOK"

# --- an event it cannot read: every VM
assert_ok "a VM event it cannot read" -- "$HOOK" vm-state "$(b64 '<HOST><ID>3</ID></HOST>')"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"
assert_ok "an event of a kind it does not know" -- "$HOOK" vm-moved "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "every VM listed"

# --- killed with -9 while oned answers: no kept listing, the next run lists all
vms 's|<ID>42</ID><NAME>run</NAME><STATE>8</STATE><LCM_STATE>0</LCM_STATE>|<ID>42</ID><NAME>run</NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE>|'
touch "$TEST_TMP/onevm.hang"
n=$(grep -c '^one.vmpool' "$TEST_TMP/calls.onevm")
asked() { [ "$(grep -c '^one.vmpool' "$TEST_TMP/calls.onevm")" -gt "$n" ]; }
setsid "$HOOK" vm-state "$(vm_event 42)" >"$TEST_TMP/killed.out" 2>&1 &
pid=$!
wait_for 20 asked ||
	die "the run never asked oned"
kill -9 -- "-$pid"
wait "$pid" 2>/dev/null
rm -f "$TEST_TMP/onevm.hang"
assert_eq "no" "$(test -e "$KEPT" && echo yes || echo no)" "the killed run left no kept listing"
hook_listed >/dev/null
assert_ok "the next event" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "lists every VM"
assert_match "0x02000000002a0000=full" "$(cat "$CONF")" "and sees VM 42, the killed run's event, running again"

# --- an event it cannot record: said, and the next run lists every VM
rm -rf "$TEST_TMP/lock.events" && : >"$TEST_TMP/lock.events"
assert_ok "the spool is not a directory" -- "$HOOK" vm-state "$(vm_event 43)"
assert_match "^oneib-partitions: cannot record the event \(43\) in .*/lock.events; the next run lists every VM$" \
	"$(cat "$LAST_ERR")" "it says so"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "and lists every VM"
assert_eq "no" "$(test -e "$KEPT" && echo yes || echo no)" \
	"no listing kept: the run's own update of VM 43 could not be recorded either"
rm -f "$TEST_TMP/lock.events"
assert_ok "the spool back" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(hook_listed)" "the first run lists every VM"
assert_ok "the next event" -- "$HOOK" vm-state "$(vm_event 43)"
assert_eq "one.vmpool.infoextended -2 46 -1 -1
one.vmpool.infoset 43 True" "$(hook_listed)" "events read again"
test_done
