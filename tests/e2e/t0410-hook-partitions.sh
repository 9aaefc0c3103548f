#!/bin/bash
# The front-end hook oneib-partitions, run from the installed tree against
# a stand-in of oned's XML-RPC API (tests/lib/standin/oned-rpc: it answers
# with the listings of tests/unit/data/partitions and records how it was
# called; the real oned answers in tests/one),
# ONEIB_PARTITIONS_CMD in etc/vnm/ib/ibrc set to the real root installer
# `oneib-partitions-install --output FILE --no-reload -` and
# ONEIB_PARTITIONS_READ_CMD to reading FILE: it renders with the installed
# oneib-partitions and installs exactly the expected partitions.conf,
# lists every user's VMs (the full body, extended: the NICs' IB_PKEY)
# without pagination, with the secret of ONE_AUTH escaped as XML, leaves an unchanged file alone (same inode, same
# mtime), passes a refused network's warning on while installing the rest
# (the refused network keeping its installed partition, read back through
# ONEIB_PARTITIONS_READ_CMD), uses the hosts' ONEIB_CLOUD_ID and
# ONEIB_PARTITIONS_LEGACY_GUIDS, fails with one line naming the failed
# listing or the renderer's refusal and then never touches the file, never
# feeds a failed listing to the renderer, says what to change in an ibrc
# from before the privilege split, bounds a hung command, and coalesces
# runs: a run waiting for the lock lists the cloud only once it has it, and
# an event arriving meanwhile leaves at once.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

# oned: one.*pool.info* print $TEST_TMP/POOL.xml, each call appended to
# $TEST_TMP/calls.CLI (CLI onevm, onehost, onevnet); one.*.update*
# "update|updateconf ID" to order.CLI, "ID --append" and the text to
# updates.CLI (updatesconf.onevm); CLI.fail, CLI.update.fail,
# CLI.updateconf.fail make oned refuse, CLI.hang makes it hang (see
# tests/lib/standin/oned-rpc). The install command, as an operator writes
# it in ibrc, also counts its runs in $TEST_TMP/calls.render; the
# installed file is read back from CONF.
hook_sandbox "echo run >>$TEST_TMP/calls.render; "
assert_ok "hook installed executable" -- test -x "$HOOK"
mkdir -p "$TEST_TMP/bin"
# A secret that needs escaping.
printf '%s\n' 'oneadmin:s&cr<t>' >"$ONE_AUTH"
assert_match "^ONEIB_PARTITIONS_CMD=\"echo run .*--no-reload -\"$" "$(cat "$R/etc/vnm/ib/ibrc")" \
	"ibrc has ONEIB_PARTITIONS_CMD to set"
assert_match "^ONEIB_PARTITIONS_READ_CMD=\"test ! -e .* cat $CONF\"$" "$(cat "$R/etc/vnm/ib/ibrc")" \
	"ibrc has ONEIB_PARTITIONS_READ_CMD to set"

# Which of the renderer's commands each run calls, in $TEST_TMP/used.renderer
# (not a calls.* file: those count what a refused run must not do).
mkdir "$R/ib/bin/real" && mv "$R/ib/bin/oneib-partitions" "$R/ib/bin/real/" || die "no renderer in $R"
printf '#!/bin/sh\necho "$1" >>"%s/used.renderer"\nexec "%s" "$@"\n' \
	"$TEST_TMP" "$R/ib/bin/real/oneib-partitions" >"$R/ib/bin/oneib-partitions"
chmod +x "$R/ib/bin/oneib-partitions"

export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
run_hook() { PATH="$TEST_TMP/bin:$PATH" "$HOOK"; }
calls() { cat "$TEST_TMP"/calls.* 2>/dev/null | wc -l; }
# the VM listings asked of oned so far
vm_listings() { grep -c '^one.vmpool' "$TEST_TMP/calls.onevm" 2>/dev/null; }
# what must not change when nothing is installed: names, inodes, mtimes, sizes
state() { snap "$TEST_TMP/etc"; }

# --- first run: the file opensm will read
assert_ok "first run" -- run_hook
assert_eq "$CONF: installed (2 partitions, 6 members)" "$(cat "$LAST_OUT")" "says what it installed"
assert_eq "" "$(cat "$LAST_ERR")" "nothing on stderr"
assert_file_eq "$DATA/expected.conf" "$CONF" "partitions.conf is exactly the expected one"
assert_eq "sync" "$(cat "$TEST_TMP/used.renderer")" \
	"the hook is one run of oneib-partitions sync: it lists, renders, counts and installs"
assert_eq "3 4" "$(cat "$TEST_TMP"/calls.one* | wc -l) $(cat "$TEST_TMP"/order.* | wc -l)" \
	"oned asked once per listing (3) and once per update (4)"

# every user's VMs but DONE ones (filter -2 "all", IDs -1 -1 every one,
# state -1 not DONE), never paginated, as `onevm list -x --extended all`
assert_eq "one.vmpool.infoextended -2 -1 -1 -1" "$(cat "$TEST_TMP/calls.onevm")" \
	"the VMs listed once: every user's, whole IDs range, all but DONE, full bodies"
assert_eq "one.hostpool.info" "$(cat "$TEST_TMP/calls.onehost")" "the hosts listed once"
assert_eq "one.vnpool.info -2 -1 -1" "$(cat "$TEST_TMP/calls.onevnet")" \
	"every user's networks listed once"
assert_eq "oneadmin:s&cr<t>" "$(sort -u "$TEST_TMP/secrets")" "every call with ONE_AUTH's secret, escaped right"
# the free-VF counters (fabric/vfcount.h): the hosts with IB PFs, none
# counted yet, no IB_VFS_USABLE (a probe from before issue 22): 0 to give
# out; VM 43, PENDING with one IB NIC, gets the requirement's term
term='"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > 0"'
counted="IB_VFS_USED=0
IB_VFS_AVAIL=0
IB_SYNC_VMS=0
IB_SYNC_SUM=0"
assert_eq "0 --append
$counted
1 --append
$counted
2 --append
$counted" "$(cat "$TEST_TMP/updates.onehost")" "each IB host's counters written, --append"
assert_eq "43 --append
SCHED_REQUIREMENTS=$term" "$(cat "$TEST_TMP/updates.onevm")" "VM 43 (PENDING, one IB NIC) given the free-VF term"
rm "$TEST_TMP"/updates.*
# oned refuses the counters: named in one line after the partitions
: >"$TEST_TMP/onehost.update.fail"
assert_fail "a counter update fails" -- run_hook
assert_eq "oneib-partitions: one.host.update 0 failed: oned: [one.host.update] User couldn't be authenticated, aborting call." \
	"$(cat "$LAST_ERR")" "one line naming the update and oned's reason"
assert_eq "$CONF: unchanged (2 partitions, 6 members)" "$(cat "$LAST_OUT")" "the partitions still follow"
assert_eq "43 --append" "$(head -n 1 "$TEST_TMP/updates.onevm")" "the VM's term still written"
rm "$TEST_TMP/onehost.update.fail" "$TEST_TMP"/updates.*

# --- again, nothing changed: not rewritten
before=$(state)
sleep 0.05
assert_ok "second run" -- run_hook
assert_eq "$CONF: unchanged (2 partitions, 6 members)" "$(cat "$LAST_OUT")" "says unchanged"
assert_eq "$before" "$(state)" "unchanged: same file, inode and mtime, nothing else written"
cp "$DATA/vms_shuffled.xml" "$TEST_TMP/vms.xml"
assert_ok "VMs listed in another order" -- run_hook
assert_match ": unchanged " "$(cat "$LAST_OUT")" "the order of the listing does not matter"
assert_eq "$before" "$(state)" "still not rewritten"
cp "$DATA/vms.xml" "$TEST_TMP/vms.xml"

# --- a listing fails: one line naming it, the renderer never runs
refused() { # WHY REGEX
	assert_refused --rc 1 --state state "$1" "^oneib-partitions: $2" -- run_hook
}
renders=$(wc -l <"$TEST_TMP/calls.render")
: >"$TEST_TMP/onevm.fail"
refused "oned refuses the VM listing" "one.vmpool.infoextended failed: oned: \[one.vmpool.infoextended\] User couldn't be authenticated, aborting call.$"
assert_eq "$renders" "$(wc -l <"$TEST_TMP/calls.render")" "the VMs refused: nothing was piped into the renderer"
rm "$TEST_TMP/onevm.fail"
ONE_XMLRPC=http://127.0.0.1:1/RPC2 refused "oned is away" \
	"one.vmpool.infoextended failed \(exit 7\): curl: \(7\) Failed to connect to 127.0.0.1 port 1"
: >"$TEST_TMP/onevnet.fail"
refused "onevnet fails" "one.vnpool.info failed: oned: \[one.vnpool.info\]"
assert_eq "$renders" "$(wc -l <"$TEST_TMP/calls.render")" "onevnet fails: nothing was piped into the renderer"
rm "$TEST_TMP/onevnet.fail"

# --- the renderer refuses the cloud: its reason, the old file stays
sed 's/0x0002c90300a1b2c1/0x0002c9zz00a1b2c1/' "$DATA/hosts.xml" >"$TEST_TMP/hosts.xml"
rm -f "$TEST_TMP"/updates.*
refused "malformed host GUID" "render: HOST 0 \(node01\): IB_PF PORT_GUID '0x0002c9zz00a1b2c1' is not a GUID$"
assert_eq "$renders" "$(wc -l <"$TEST_TMP/calls.render")" "nothing was installed"
assert_eq "" "$(cat "$TEST_TMP"/updates.* 2>/dev/null)" "a listing that cannot be read: no counter written"
cp "$DATA/hosts.xml" "$TEST_TMP/hosts.xml"

# --- the partitions cannot follow, placement still does: the renderer
# refuses an installed file with a partition one-ib did not write (before
# it parses the listings), or reading the installed file fails, and
# `counters` alone writes them
cp "$CONF" "$TEST_TMP/good.conf"
echo 'lab=0x0300, ipoib : 0x0002c90300000001=full ;' >>"$CONF"
listings=$(vm_listings)
refused "a partition one-ib did not write" "render: the installed partitions.conf holds partitions one-ib did not write: lab \(0x0300\)"
assert_eq "43 --append" "$(head -n 1 "$TEST_TMP/updates.onevm")" "render refused: the VM's term written from its parse"
assert_eq "0 --append" "$(head -n 1 "$TEST_TMP/updates.onehost")" "render refused: the hosts' counters written"
assert_eq $((listings + 1)) "$(vm_listings)" \
	"render refused: the counters from the run's one listing of the VMs"
cp "$TEST_TMP/good.conf" "$CONF"
rm "$TEST_TMP"/updates.*
cp "$R/etc/vnm/ib/ibrc" "$TEST_TMP/ibrc.good"
sed -i 's|^ONEIB_PARTITIONS_READ_CMD=.*|ONEIB_PARTITIONS_READ_CMD="echo the SM host is down >\&2; exit 3"|' "$R/etc/vnm/ib/ibrc"
listings=$(vm_listings)
refused "reading the installed file fails" "echo the SM host is down >&2; exit 3 failed \(exit 3\): the SM host is down$"
assert_eq "43 --append" "$(head -n 1 "$TEST_TMP/updates.onevm")" "no installed file: the VM's term written by counters alone"
assert_eq "0 --append" "$(head -n 1 "$TEST_TMP/updates.onehost")" "no installed file: the hosts' counters written"
assert_eq $((listings + 1)) "$(vm_listings)" \
	"no installed file: the counters from the run's one listing of the VMs"
cp "$TEST_TMP/ibrc.good" "$R/etc/vnm/ib/ibrc"
rm "$TEST_TMP"/updates.*

# --- one tenant's bad network: the rest is installed, the warning passed on,
# the network keeps the partition read back from the installed file
cp "$CONF" "$TEST_TMP/good.conf"
sed 's|<IB_SL><!\[CDATA\[1\]\]></IB_SL>|<IB_SL><![CDATA[16]]></IB_SL>|' "$DATA/vnets.xml" >"$TEST_TMP/vnets.xml"
cmp -s "$DATA/vnets.xml" "$TEST_TMP/vnets.xml" && die "no IB_SL to change"
sed 's|<STATE>3</STATE><LCM_STATE>18</LCM_STATE>|<STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	"$DATA/vms.xml" >"$TEST_TMP/vms.xml" # VM 44 powered off
assert_ok "IB_SL 16 on tenant-a: the hook still installs" -- run_hook
assert_match ": unchanged \(2 partitions, 6 members, 1 left out\)|: installed \(2 partitions, 6 members, 1 left out\)" \
	"$(cat "$LAST_OUT")" "tenant-a kept as installed (VM 44 still in it)"
assert_match "^oneib-partitions: warning: VNET 5 \(tenant-a\): IB_SL '16' is not a service level 0..15; left out, its installed partition 0x0101 kept$" \
	"$(cat "$LAST_ERR")" "the renderer's warning reaches the hook's log"
assert_eq "$(sed -n '/^vnet5_/,/;$/p' "$TEST_TMP/good.conf")" "$(sed -n '/^vnet5_/,/;$/p' "$CONF")" \
	"tenant-a's partition is the one installed before"
cp "$DATA/vnets.xml" "$TEST_TMP/vnets.xml"
cp "$DATA/vms.xml" "$TEST_TMP/vms.xml"
assert_ok "fixed again" -- run_hook
assert_file_eq "$DATA/expected.conf" "$CONF" "back to the expected file"
renders=$(wc -l <"$TEST_TMP/calls.render")

# --- a real change is installed, the old file kept as the backup
sed 's|<STATE>3</STATE><LCM_STATE>18</LCM_STATE>|<STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	"$DATA/vms.xml" >"$TEST_TMP/vms.xml" # VM 44 powered off
assert_ok "VM 44 powered off" -- run_hook
assert_match ": installed \(2 partitions, 5 members\)" "$(cat "$LAST_OUT")" "one member less"
assert_eq "" "$(grep 0x02000000002c0000 "$CONF")" "VM 44's GUID left tenant-a"
assert_file_eq "$DATA/expected.conf" "$CONF.bak" "the previous file is the backup"

# --- a hung listing is killed; the lock is free again afterwards
: >"$TEST_TMP/onehost.hang"
start=$SECONDS
ONEIB_PARTITIONS_TIMEOUT=1 refused "onehost hangs" "one.hostpool.info timed out after 1 s: no error output$"
assert_eq 1 "$(( SECONDS - start < 10 ))" "onehost hangs: given up within seconds"
rm "$TEST_TMP/onehost.hang"
assert_ok "the next run is not blocked" -- run_hook
assert_match ": unchanged " "$(cat "$LAST_OUT")" "and renders"

# --- coalescing: A waits for the lock held here; B, arriving meanwhile,
# leaves at once; A lists the cloud only once it has the lock, so it sees
# the change made after B.
# (looked up in /proc/locks: trying the lock here would race with A)
next_taken() {
	local ino
	ino=$(stat -c %i "$ONEIB_PARTITIONS_LOCK.next" 2>/dev/null) || return 1
	awk -v i="$ino" '$2 == "FLOCK" { n = split($6, f, ":"); if (f[n] == i) x = 1 }
		END { exit !x }' /proc/locks
}
exec 7>>"$ONEIB_PARTITIONS_LOCK"
flock 7 || die "cannot take the lock"
n=$(calls)
run_hook >"$TEST_TMP/a.out" 2>"$TEST_TMP/a.err" &
a=$!
wait_for 10 next_taken || die "run A did not queue for the lock"
assert_ok "B while A waits: succeeds" -- run_hook
assert_match "a run is already waiting" "$(cat "$LAST_OUT")" "B: says A will see its change"
assert_eq "$n" "$(calls)" "neither A (waiting) nor B listed or rendered anything"
cp "$DATA/vms.xml" "$TEST_TMP/vms.xml" # VM 44 back to SHUTDOWN_POWEROFF
flock -u 7
exec 7>&-
wait "$a"
assert_eq 0 $? "A succeeds once the lock is free"
assert_match ": installed \(2 partitions, 6 members\)" "$(cat "$TEST_TMP/a.out")" "A saw the newest state"
assert_file_eq "$DATA/expected.conf" "$CONF" "A installed it"

# --- the hosts' cloud id, and the old GUIDs while upgrading
cp "$CONF" "$TEST_TMP/before-id.conf"
echo "ONEIB_CLOUD_ID=3" >>"$R/etc/vmm/kvm-ib/kvm-ibrc"
assert_ok "cloud id 3" -- run_hook
assert_match "0x02030000002a0000=full" "$(cat "$CONF")" "VM 42 NIC 0 in cloud 3"
assert_eq "" "$(grep 0x02000000002a0000 "$CONF")" "not in cloud 0"
sed -i '/^ONEIB_CLOUD_ID=3$/d' "$R/etc/vmm/kvm-ib/kvm-ibrc"
echo "ONEIB_PARTITIONS_LEGACY_GUIDS=yes" >>"$R/etc/vnm/ib/ibrc"
assert_ok "legacy GUIDs" -- run_hook
assert_match "0x0200c0fffea80105=full" "$(cat "$CONF")" "VM 42's old MAC GUID is a member too"
assert_match "0x02000000002a0000=full" "$(cat "$CONF")" "as is its new one"
sed -i 's/^ONEIB_PARTITIONS_LEGACY_GUIDS=yes$/ONEIB_PARTITIONS_LEGACY_GUIDS=maybe/' "$R/etc/vnm/ib/ibrc"
refused "a bad legacy setting" "ONEIB_PARTITIONS_LEGACY_GUIDS 'maybe' is not yes or no$"
sed -i '/^ONEIB_PARTITIONS_LEGACY_GUIDS=maybe$/d' "$R/etc/vnm/ib/ibrc"
assert_ok "back to cloud 0, new GUIDs only" -- run_hook
assert_file_eq "$TEST_TMP/before-id.conf" "$CONF" "the file of before"

# --- an ibrc from before the privilege split (kept by make install)
cp "$R/etc/vnm/ib/ibrc" "$TEST_TMP/ibrc.saved"
sed -i "s|^ONEIB_PARTITIONS_CMD=.*|ONEIB_PARTITIONS_CMD=\"sudo -n /usr/sbin/oneib-pkey partitions --output $CONF -\"|" \
	"$R/etc/vnm/ib/ibrc"
refused "old ibrc" "ONEIB_PARTITIONS_CMD in .* still runs 'oneib-pkey partitions', which is now oneib-partitions-install \(see one-ib-upgrade\(7\)\)$"
cp "$TEST_TMP/ibrc.saved" "$R/etc/vnm/ib/ibrc"

# --- a VM the gate holds gets its cluster's map (fabric/topology.h) in
# its CONTEXT, before the leaf term that lets the scheduler place it
cat >"$TEST_TMP/vnets.xml" <<'EOF'
<VNET_POOL><VNET><ID>5</ID><NAME>tenant</NAME><STATE>1</STATE><CLUSTERS><ID>0</ID></CLUSTERS><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>0x8105</IB_PKEY></TEMPLATE></VNET></VNET_POOL>
EOF
cat >"$TEST_TMP/hosts.xml" <<'EOF'
<HOST_POOL><HOST><ID>1</ID><NAME>hv1</NAME><STATE>2</STATE><CLUSTER_ID>0</CLUSTER_ID><VMS><ID>10</ID></VMS><TEMPLATE><IB_PF><PORT_GUID>0x0c42a10300000001</PORT_GUID><LINK_LAYER>InfiniBand</LINK_LAYER><DRIVER>mlx5_core</DRIVER><LEAF_GUID>0x0002c90200000a00</LEAF_GUID></IB_PF><IB_VFS_USABLE>4</IB_VFS_USABLE><IB_VFS_USED>1</IB_VFS_USED><IB_VFS_AVAIL>3</IB_VFS_AVAIL><IB_SYNC_VMS>1</IB_SYNC_VMS><IB_SYNC_SUM>10</IB_SYNC_SUM></TEMPLATE></HOST></HOST_POOL>
EOF
gate='"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" > 0 & IB_LEAVES = "*,chosen-by-one-ib,*"'
cat >"$TEST_TMP/vms.xml" <<EOF
<VM_POOL><VM><ID>10</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE><TEMPLATE><NIC><NIC_ID>0</NIC_ID><NETWORK_ID>5</NETWORK_ID><MAC>02:00:0a:00:05:0a</MAC><IP>10.0.5.10</IP><VN_MAD>ib</VN_MAD></NIC><CONTEXT><NETWORK>YES</NETWORK></CONTEXT></TEMPLATE><HISTORY_RECORDS><HISTORY><HID>1</HID></HISTORY></HISTORY_RECORDS></VM>
<VM><ID>12</ID><STATE>1</STATE><LCM_STATE>0</LCM_STATE><TEMPLATE><NIC><NIC_ID>0</NIC_ID><NETWORK_ID>5</NETWORK_ID><MAC>02:00:0a:00:05:0c</MAC><IP>10.0.5.12</IP><VN_MAD>ib</VN_MAD></NIC><CONTEXT><NETWORK>YES</NETWORK></CONTEXT></TEMPLATE><USER_TEMPLATE><SCHED_REQUIREMENTS><![CDATA[$gate]]></SCHED_REQUIREMENTS></USER_TEMPLATE></VM></VM_POOL>
EOF
rm -f "$TEST_TMP"/updates* "$TEST_TMP"/order.*
assert_ok "a gated VM" -- run_hook
assert_eq "updateconf 12
update 12" "$(cat "$TEST_TMP/order.onevm")" "VM 12: the map, then the requirement"
assert_eq '12 --append
CONTEXT=[ONEIB_TOPOLOGY="0x0002c90200000a00=10.0.5.10,10.0.5.12"]' "$(cat "$TEST_TMP/updatesconf.onevm")" \
	"the map of its cluster: VM 10 on hv1 and itself, under hv1's leaf"
assert_match 'IB_LEAVES = \\"\*,0x0002c90200000a00,\*\\"' "$(cat "$TEST_TMP/updates.onevm")" "and the leaf term lifts the gate"
rm -f "$TEST_TMP"/updates* "$TEST_TMP"/order.*
: >"$TEST_TMP/onevm.updateconf.fail"
assert_fail "the map refused" -- run_hook
assert_match "^oneib-partitions: one.vm.updateconf 12 failed: oned: \[one.vm.updateconf\]" "$(cat "$LAST_ERR")" \
	"one line naming the updateconf"
assert_eq "" "$(cat "$TEST_TMP"/order.onevm 2>/dev/null)" "the map refused: the gate stays (no leaf term written), tried again at the next run"
rm "$TEST_TMP/onevm.updateconf.fail"

# --- a lock file that cannot be opened
ONEIB_PARTITIONS_LOCK=$TEST_TMP/no/such/dir/lock refused "lock not openable" \
	"cannot open the lock file $TEST_TMP/no/such/dir/lock.next$"
test_done
