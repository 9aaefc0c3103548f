#!/bin/bash
# opensm's QoS policy reaches opensm only as the renderer writes it
# (root/qospolicy.h; design decision 13), on the real opensm over ibsim:
# - opensm drops a policy with any error silently and falls back (measured
#   here: a policy without `default` gets ERR AC10 and AC04 in its log, and
#   nothing else says so), which is why the root installer
#   (oneib-partitions-install --qos-policy) takes only the exact text:
#   an `ipoib, pkey` rule (opensm drops the whole policy when that
#   partition has fewer than two full members present), no default,
#   sections one-ib never writes (qos-levels, port-groups, sl2vl-tables),
#   an SL 16, a partitions.conf, CRLF, a comment of someone's, trailing
#   text: each refused with one line, the installed policy untouched
#   (same bytes, same inode) and opensm not signalled; opensm told about
#   it as about partitions.conf (the units' main process or --pid-file,
#   never by name; not told: installed, exit 1, retried by the next run);
# - the front-end hook renders the policy and installs it through
#   ONEIB_QOS_POLICY_CMD before the partitions (each step named in order),
#   then opensm's SA answers the planned SLs; a second run changes
#   nothing; a policy step that fails fails the run with one line, and the
#   partitions still follow the cloud with the SLs in force (t0433);
#   ONEIB_SLS="" plans no SL.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/slplan.sh"
sim_host none

sl_fabric
sl_listing "$TEST_TMP/cloud.xml"
sl_render_install "$TEST_TMP/cloud.xml"
assert_eq 1 "$(sl_path vm14-nic0 vm15-nic0 0x8103)" "c's SL 1 in force"
cp "$SL_POLICY" "$TEST_TMP/good-policy"

# --- what opensm does with a broken policy ----------------------------------
head -n 3 "$TEST_TMP/good-policy" >"$SL_POLICY"
sed -n '5,$p' "$TEST_TMP/good-policy" >>"$SL_POLICY" # no default line
sim_opensm_reread
assert_match "ERR AC10: Default qos-level \(default\) not defined" "$(cat "$SIM_OPENSM_LOG")" \
	"opensm: no default, policy dropped (AC10)..."
assert_match "ERR AC04: Error\(s\) in QoS policy file" "$(cat "$SIM_OPENSM_LOG")" "... AC04, and it carries on"
n=$(sim_opensm_sweeps)
assert_ok "the installer replaces it with the renderer's" -- \
	"$INST" --qos-policy "$SL_POLICY" --pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/good-policy"
assert_match "^$SL_POLICY: installed \(3 partitions with an SL, default SL 0\), previous file kept as $SL_POLICY.bak$" \
	"$(cat "$LAST_OUT")" "says what it installed"
assert_match "^opensm $(cat "$SIM_OPENSM_PID_FILE"): SIGHUP, re-reading $SL_POLICY$" "$(cat "$LAST_OUT")" \
	"and told opensm, by its pid file"
sim_opensm_wait_sweep "$n" # its sweep over before the refusals count them

# --- the installer refuses everything else ------------------------------------
state() { stat -c '%i %s %Y' "$SL_POLICY"; cat "$SL_POLICY"; sim_opensm_sweeps; }
good_head=$(head -n 4 "$TEST_TMP/good-policy")
refuse() { # NAME TEXT REGEX
	printf '%b' "$2" >"$TEST_TMP/bad"
	assert_refused --state state "$1" \
		"^oneib-partitions-install: $SL_POLICY: qos-policy.conf.*$3.*; nothing installed$" -- \
		"$INST" --qos-policy "$SL_POLICY" --pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/bad"
}
refuse "an ipoib rule" "$good_head\n\tipoib, pkey 0x0101 : 2\nend-qos-ulps\n" 'only "any, pkey" rules'
refuse "no default" "$(head -n 3 "$TEST_TMP/good-policy")\n\tany, pkey 0x0101 : 2\nend-qos-ulps\n" \
	'not "default : <SL 0..15>"'
refuse "qos-levels" "$good_head\nend-qos-ulps\nqos-levels\n\tqos-level\n\t\tname: DEFAULT\n\t\tsl: 0\n\tend-qos-level\nend-qos-levels\n" \
	'after "end-qos-ulps"'
refuse "port-groups instead" "$(head -n 2 "$TEST_TMP/good-policy")\nport-groups\nend-port-groups\n" 'not "qos-ulps"'
refuse "SL 16" "$good_head\n\tany, pkey 0x0101 : 16\nend-qos-ulps\n" 'SL 0..15'
refuse "sl2vl tables" "$good_head\n\tsl2vl-tables\nend-qos-ulps\n" 'only "any, pkey" rules'
refuse "a partitions.conf" "$(cat "$SIM_PARTITIONS")\n" 'not written by oneib-partitions'
refuse "CRLF" "$good_head\r\nend-qos-ulps\n" "line 4: .*a character opensm's file never holds"
refuse "a comment of someone's" "$good_head\n# ok\n\tany, pkey 0x0101 : 2\nend-qos-ulps\n" 'only "any, pkey" rules'
refuse "text after the end" "$(cat "$TEST_TMP/good-policy")\nany, pkey 0x0101 : 7\n" 'after "end-qos-ulps"'
refuse "out of order" "$good_head\n\tany, pkey 0x0102 : 2\n\tany, pkey 0x0101 : 1\nend-qos-ulps\n" \
	'not as oneib-partitions writes it'
refuse "empty" "" 'not written by oneib-partitions'
assert_eq 1 "$(sl_path vm14-nic0 vm15-nic0 0x8103)" "c's SL still 1"

# --- opensm told about the policy as about partitions.conf (t0405): by
# default the main process of Debian's opensm@*.service units, which no
# systemd answers for here: installed, not told, retried by the next run
rm -f "$SL_POLICY" "$SL_POLICY.bak"
assert_fail "no systemd to ask: the policy installed, opensm not told" -- \
	"$INST" --qos-policy "$SL_POLICY" "$TEST_TMP/good-policy"
assert_match "^oneib-partitions-install: $SL_POLICY installed, but opensm was not told: /usr/bin/systemctl show opensm@\*\.service .*; the next run retries$" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, why"
assert_file_eq "$TEST_TMP/good-policy" "$SL_POLICY" "the policy is in place"
assert_ok "a reload is pending" -- test -e "$SL_POLICY.reload-pending"
n=$(sim_opensm_sweeps)
assert_ok "the next run, told by the pid file" -- \
	"$INST" --qos-policy "$SL_POLICY" --pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/good-policy"
assert_eq "$SL_POLICY: unchanged (3 partitions with an SL, default SL 0); opensm was not told after the last install: telling it now
opensm $(cat "$SIM_OPENSM_PID_FILE"): SIGHUP, re-reading $SL_POLICY" "$(cat "$LAST_OUT")" "tells opensm now"
assert_fail "nothing pending any more" -- test -e "$SL_POLICY.reload-pending"
sim_opensm_wait_sweep "$n"
assert_eq 1 "$(sl_path vm14-nic0 vm15-nic0 0x8103)" "c's SL 1 after the sweep"

# --- the hook ----------------------------------------------------------------
install_tree "$TEST_TMP/inst" 2>/dev/null
R=$TEST_TMP/inst/var/lib/one/remotes
HOOK=$R/hooks/oneib-partitions
mkdir -p "$TEST_TMP/oned"
sl_listing "$TEST_TMP/all.xml"
# oned's XML-RPC API (tests/lib/standin/oned-rpc) answering with the pools
# of all.xml, as it stands at each run
standin_oned "$TEST_TMP/oned"
cat >>"$R/etc/vnm/ib/ibrc" <<EOF
ONEIB_PARTITIONS_CMD="echo partitions >>$TEST_TMP/order; $INST --output $SIM_PARTITIONS --pid-file $SIM_OPENSM_PID_FILE -"
ONEIB_PARTITIONS_READ_CMD="cat $SIM_PARTITIONS"
ONEIB_QOS_POLICY_CMD="echo policy >>$TEST_TMP/order; $INST --qos-policy $SL_POLICY --pid-file $SIM_OPENSM_PID_FILE -"
EOF
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
run_hook() {
	local c
	for c in vms:VM_POOL hosts:HOST_POOL vnets:VNET_POOL; do
		sed -n "/^<${c#*:}>/,/^<\/${c#*:}>/p" "$TEST_TMP/all.xml" >"$TEST_TMP/oned/${c%%:*}.xml"
	done
	"$HOOK"
}
# a fresh start: nothing installed, opensm with one-ib's default partition
cp "$TEST_TMP/default-only.conf" "$SIM_PARTITIONS"
rm -f "$SL_POLICY"
sim_opensm_reread
n=$(sim_opensm_sweeps)
assert_ok "the hook" -- run_hook
osm=$(cat "$SIM_OPENSM_PID_FILE")
assert_eq "$SL_POLICY: installed (3 partitions with an SL, default SL 0)
opensm $osm: SIGHUP, re-reading $SL_POLICY
$SIM_PARTITIONS: installed (3 partitions, 6 members), previous file kept as $SIM_PARTITIONS.bak
opensm $osm: SIGHUP, re-reading $SIM_PARTITIONS" "$(cat "$LAST_OUT")" "the policy, then the partitions"
assert_eq "" "$(cat "$LAST_ERR")" "no warning"
assert_eq "policy partitions" "$(tr '\n' ' ' <"$TEST_TMP/order" | sed 's/ $//')" "in that order"
assert_file_eq "$TEST_TMP/good-policy" "$SL_POLICY" "the policy the renderer writes"
# two SIGHUPs: opensm sweeps once or twice (one that arrives while the
# sweeper has not taken the other is the same sweep); read the SA once
# every sweep asked for is over
sim_opensm_wait_sweep "$n"
sim_opensm_settle
assert_eq "2 2 1" "$(sl_path vm10-nic0 vm11-nic0 0x8101) $(sl_path vm12-nic0 vm13-nic0 0x8102) $(sl_path vm14-nic0 vm15-nic0 0x8103)" \
	"the SA answers the planned SLs"
assert_ok "again" -- run_hook
assert_match "^$SL_POLICY: unchanged \(3 partitions with an SL, default SL 0\)$" "$(cat "$LAST_OUT")" "policy unchanged"
assert_match "^$SIM_PARTITIONS: unchanged " "$(cat "$LAST_OUT")" "partitions unchanged"

# a VM more: the hook installs both, the SLs stay
sl_listing "$TEST_TMP/all.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 17/2/9
assert_ok "a VM added" -- run_hook
assert_match "^$SIM_PARTITIONS: installed " "$(cat "$LAST_OUT")" "partitions installed"
assert_match "^$SL_POLICY: unchanged" "$(cat "$LAST_OUT")" "the policy did not change: no SL did"

# the policy installed but opensm not told (no --pid-file: the default,
# systemd's opensm@*.service, which nothing answers for here): the
# partitions still follow, and their install tells opensm, which then
# reads both; the run fails naming the policy step. A new network d (VMs
# 16 on hv3 and 17 on hv2: spans, meets a, b and c) gets SL 3, which the SA
# answers only from the new policy (the old one's default, 0, would win
# over d's sl=)
sed -i "s|^ONEIB_QOS_POLICY_CMD=.*|ONEIB_QOS_POLICY_CMD=\"$INST --qos-policy $SL_POLICY -\"|" \
	"$R/etc/vnm/ib/ibrc"
SL_PKEY[11]=0x8104
SL_MORE_VNETS=$(sl_vnet 11 d 0x8104) sl_listing "$TEST_TMP/all.xml" \
	10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 16/3/11 17/2/11
n=$(sim_opensm_sweeps)
assert_fail "the policy installed, opensm not told" -- run_hook
assert_match "^oneib-partitions: $INST --qos-policy $SL_POLICY - failed \(exit 1\): oneib-partitions-install: $SL_POLICY installed, but opensm was not told: .*; the next run retries$" \
	"$(cat "$LAST_ERR")" "one line naming the policy step"
assert_eq 1 "$(wc -l <"$LAST_ERR")" "one line"
assert_match "^$SL_POLICY: installed \(4 partitions with an SL, default SL 0\)" "$(cat "$LAST_OUT")" \
	"the policy is in place"
assert_match "^$SIM_PARTITIONS: installed " "$(cat "$LAST_OUT")" "the partitions followed it"
assert_match "^opensm $osm: SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" \
	"and told opensm"
sim_opensm_wait_sweep "$n"
assert_eq "3" "$(sl_path vm16-nic0 vm17-nic0 0x8104)" "the SA answers d's SL 3: opensm read the new policy"
assert_eq "2 2 1" "$(sl_path vm10-nic0 vm11-nic0 0x8101) $(sl_path vm12-nic0 vm13-nic0 0x8102) $(sl_path vm14-nic0 vm15-nic0 0x8103)" \
	"a, b and c keep theirs"
sed -i "s|^ONEIB_QOS_POLICY_CMD=.*|ONEIB_QOS_POLICY_CMD=\"$INST --qos-policy $SL_POLICY --pid-file $SIM_OPENSM_PID_FILE -\"|" \
	"$R/etc/vnm/ib/ibrc"
assert_ok "the next run" -- run_hook
assert_match "^$SL_POLICY: unchanged \(4 partitions with an SL, default SL 0\); opensm was not told after the last install: telling it now$" \
	"$(cat "$LAST_OUT")" "tells opensm about the policy"

# the policy step fails: the partitions still follow the cloud, with the
# SLs in force (t0433 has the rest)
sed -i "s|^ONEIB_QOS_POLICY_CMD=.*|ONEIB_QOS_POLICY_CMD=\"$INST --qos-policy /nonexistent/dir/qos-policy.conf --pid-file $SIM_OPENSM_PID_FILE -\"|" \
	"$R/etc/vnm/ib/ibrc"
sl_listing "$TEST_TMP/all.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9
cp "$SIM_PARTITIONS" "$TEST_TMP/before"
assert_fail "the policy cannot be installed" -- run_hook
assert_match "^oneib-partitions: $INST --qos-policy /nonexistent/dir/qos-policy.conf --pid-file $SIM_OPENSM_PID_FILE - failed \(exit 1\): .*; the partitions went in with the SLs in force$" \
	"$(cat "$LAST_ERR")" "one line naming the step"
assert_eq 1 "$(wc -l <"$LAST_ERR")" "one line"
assert_match "^$SIM_PARTITIONS: installed " "$(cat "$LAST_OUT")" "the partitions followed the cloud"
assert_eq "" "$("$PART" list "$SIM_PARTITIONS" | grep 'VM 1[5-7] NIC')" "VMs 15 to 17 gone from them"
assert_eq "$(sl_of "$TEST_TMP/before" 5) $(sl_of "$TEST_TMP/before" 7) $(sl_of "$TEST_TMP/before" 9)" \
	"$(sl_of "$SIM_PARTITIONS" 5) $(sl_of "$SIM_PARTITIONS" 7) $(sl_of "$SIM_PARTITIONS" 9)" \
	"a, b and c keep the SLs in force"

# no plan: ONEIB_SLS="", no policy step
printf 'ONEIB_SLS=""\nONEIB_QOS_POLICY_CMD=""\n' >>"$R/etc/vnm/ib/ibrc"
assert_ok "without the plan" -- run_hook
assert_eq "" "$(grep -c 'sl=' "$SIM_PARTITIONS" | grep -v '^0$')" "no sl= at all"
assert_match "^$SIM_PARTITIONS: installed " "$(cat "$LAST_OUT")" "the partitions alone"
test_done
