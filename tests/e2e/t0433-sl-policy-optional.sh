#!/bin/bash
# The QoS policy is optional: it never holds back the partitions (issue 35,
# item 3), on the real opensm over ibsim, as an operator upgrading from the
# last release before the SL plan (38b2da6) meets it: ibrc kept as it was
# (no ONEIB_SLS, no ONEIB_QOS_POLICY_CMD), opensm on another host reached
# through ONEIB_PARTITIONS_CMD only, a sudo on the front-end that wants a
# password. Before the fix every run failed on the QoS step's default
# local sudo line and no new VM reached partitions.conf.
# - unset, beside a partitions command of its own: no policy step (the
#   local sudo line is never run), the partitions follow the cloud with the
#   SLs in force (none, as the old release wrote them), one warning, exit 0;
#   verify names the planned SLs as not in force;
# - set, and failing: the partitions still follow, with the SLs in force,
#   and the run fails with one line naming the step and saying so;
# - set, and working: the planned SLs go in, and the SA answers them;
# - installed once, failing again with a new network: the networks keep
#   the SLs the installed policy maps, the new one has none (the policy's
#   default answers it), and verify names its planned SL as not in force.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/slplan.sh"
sim_host none

sl_fabric
install_tree "$TEST_TMP/inst" 2>/dev/null
R=$TEST_TMP/inst/var/lib/one/remotes
HOOK=$R/hooks/oneib-partitions
IBRC=$R/etc/vnm/ib/ibrc
OLD=38b2da6
git -C "$TOP" show "$OLD:remotes/etc/vnm/ib/ibrc" >"$IBRC" 2>/dev/null ||
	die "cannot read $OLD's ibrc (the suite needs the repository's history)"
assert_fail "$OLD's ibrc sets no QoS policy command" -- grep -q 'ONEIB_QOS_POLICY_CMD\|ONEIB_SLS' "$IBRC"
# the operator's edit of that release: opensm elsewhere (here the root
# installer run directly, as ssh to the SM's host would run it)
sed -i -e "s|^ONEIB_PARTITIONS_CMD=.*|ONEIB_PARTITIONS_CMD=\"$INST --output $SIM_PARTITIONS --pid-file $SIM_OPENSM_PID_FILE -\"|" \
	-e "s|^ONEIB_PARTITIONS_READ_CMD=.*|ONEIB_PARTITIONS_READ_CMD=\"cat $SIM_PARTITIONS\"|" "$IBRC"
# the front-end's sudo wants a password, and says who asked
mkdir -p "$TEST_TMP/bin"
cat >"$TEST_TMP/bin/sudo" <<EOF
#!/bin/sh
echo "\$*" >>$TEST_TMP/sudo.calls
echo "sudo: a password is required" >&2
exit 1
EOF
chmod +x "$TEST_TMP/bin/sudo"
export PATH=$TEST_TMP/bin:$PATH
mkdir -p "$TEST_TMP/oned"
standin_oned "$TEST_TMP/oned"
export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
run_hook() {
	local c n
	for c in vms:VM_POOL hosts:HOST_POOL vnets:VNET_POOL; do
		sed -n "/^<${c#*:}>/,/^<\/${c#*:}>/p" "$TEST_TMP/all.xml" >"$TEST_TMP/oned/${c%%:*}.xml"
	done
	n=$(sim_opensm_sweeps)
	"$HOOK"
	local rc=$?
	grep -q 'SIGHUP' "$LAST_OUT" 2>/dev/null && sim_opensm_wait_sweep "$n"
	return $rc
}
verify() {
	sim_client sm "$PART" verify --installed "$SIM_PARTITIONS" --sls 1-7 "$TEST_TMP/all.xml"
}
members() { "$PART" list "$SIM_PARTITIONS" | grep -c 'VM [0-9]* NIC'; }

# the last release's file: the members, no sl=
sl_listing "$TEST_TMP/all.xml"
"$PART" render --installed "$SIM_PARTITIONS" "$TEST_TMP/all.xml" >"$TEST_TMP/old.conf" 2>/dev/null ||
	die "cannot render the old release's file"
"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" - <"$TEST_TMP/old.conf" >/dev/null ||
	die "cannot install it"
rm -f "$SL_POLICY"
sim_opensm_reread

# --- unset: no policy step, the partitions follow -----------------------------
sl_listing "$TEST_TMP/all.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 16/3/5
assert_ok "the upgraded front-end's first event" -- run_hook
assert_eq "" "$(cat "$TEST_TMP/sudo.calls" 2>/dev/null)" "the local sudo line is never tried"
assert_eq "oneib-partitions: warning: no QoS policy installed (ONEIB_QOS_POLICY_CMD is not set in etc/vnm/ib/ibrc, and ONEIB_PARTITIONS_CMD installs elsewhere): the partitions keep the SLs in force and the planned ones wait; set ONEIB_QOS_POLICY_CMD as ONEIB_PARTITIONS_CMD is set, or ONEIB_SLS=\"\" to plan none" \
	"$(cat "$LAST_ERR")" "one warning, naming what to set"
assert_match "^$SIM_PARTITIONS: installed \(" "$(cat "$LAST_OUT")" "the partitions installed"
assert_eq 7 "$(members)" "the new VM 16 among the members"
assert_eq "" "$(grep 'sl=' "$SIM_PARTITIONS")" "with the SLs in force: none"
assert_ok "no policy written" -- test ! -e "$SL_POLICY"
assert_eq "0 0" "$(sl_path vm10-nic0 vm16-nic0 0x8101) $(sl_path vm14-nic0 vm15-nic0 0x8103)" \
	"the SA answers VM 16 in its partition, on best effort"
assert_fail "verify: the planned SLs are not in force" -- verify
assert_match "^sl: vnet5_a \(0x0101\) sl=[1-7]: the SA answers SL 0 .*: NOT in force" "$(cat "$LAST_OUT")" \
	"verify names a's planned SL"
assert_ok "again, nothing changed" -- run_hook
assert_match "^$SIM_PARTITIONS: unchanged " "$(cat "$LAST_OUT")" "unchanged"

# --- set, failing: the partitions still follow --------------------------------
echo 'ONEIB_QOS_POLICY_CMD="sudo -n /usr/sbin/oneib-partitions-install --qos-policy /etc/opensm/qos-policy.conf -"' >>"$IBRC"
sl_listing "$TEST_TMP/all.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 16/3/5 17/2/9
assert_fail "a QoS command that fails" -- run_hook
assert_eq "oneib-partitions: sudo -n /usr/sbin/oneib-partitions-install --qos-policy /etc/opensm/qos-policy.conf - failed (exit 1): sudo: a password is required; the partitions went in with the SLs in force" \
	"$(cat "$LAST_ERR")" "one line: the step, why, and that the partitions went in"
assert_eq "-n /usr/sbin/oneib-partitions-install --qos-policy /etc/opensm/qos-policy.conf -" \
	"$(cat "$TEST_TMP/sudo.calls")" "the configured command was tried"
assert_match "^$SIM_PARTITIONS: installed \(" "$(cat "$LAST_OUT")" "the partitions installed"
assert_eq 8 "$(members)" "the new VM 17 among the members"
assert_eq "" "$(grep 'sl=' "$SIM_PARTITIONS")" "still no SL that is not in force"
assert_eq 0 "$(sl_path vm14-nic0 vm17-nic0 0x8103)" "the SA answers VM 17 in c's partition"

# --- set, working: the plan goes in --------------------------------------------
sed -i '$d' "$IBRC"
echo "ONEIB_QOS_POLICY_CMD=\"$INST --qos-policy $SL_POLICY --pid-file $SIM_OPENSM_PID_FILE -\"" >>"$IBRC"
assert_ok "a QoS command that works" -- run_hook
assert_eq "" "$(cat "$LAST_ERR")" "no warning"
assert_match "^$SL_POLICY: installed \(3 partitions with an SL" "$(cat "$LAST_OUT")" "the policy installed"
sim_opensm_settle
sla=$(sl_of "$SIM_PARTITIONS" 5) slc=$(sl_of "$SIM_PARTITIONS" 9)
assert_match "^[1-7] [1-7]$" "$sla $slc" "a and c have SLs of the plan"
assert_eq "$sla $slc" "$(sl_path vm10-nic0 vm16-nic0 0x8101) $(sl_path vm14-nic0 vm17-nic0 0x8103)" \
	"the SA answers them"
assert_ok "verify: in force" -- verify

# --- failing again, with a new network: the SLs the installed policy maps ----
SL_PKEY[11]=0x8104
sed -i '$d' "$IBRC"
echo "ONEIB_QOS_POLICY_CMD=\"echo 'sm1: connection refused' >&2; exit 255\"" >>"$IBRC"
# (VMs 16 and 17 move to d: spans, meets a, b and c)
SL_MORE_VNETS=$(sl_vnet 11 d 0x8104) sl_listing "$TEST_TMP/all.xml" \
	10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 16/3/11 17/2/11
cp "$SL_POLICY" "$TEST_TMP/policy.before"
assert_fail "the QoS command fails again" -- run_hook
assert_match "failed \(exit 255\): sm1: connection refused; the partitions went in with the SLs in force$" \
	"$(cat "$LAST_ERR")" "one line"
assert_file_eq "$TEST_TMP/policy.before" "$SL_POLICY" "the installed policy as it was"
assert_eq "$sla $slc" "$(sl_of "$SIM_PARTITIONS" 5) $(sl_of "$SIM_PARTITIONS" 9)" "a and c keep their installed SLs"
assert_eq "" "$(sl_of "$SIM_PARTITIONS" 11)" "the new d has none"
sim_opensm_settle
assert_eq "$sla $slc 0" "$(sl_path vm10-nic0 vm11-nic0 0x8101) $(sl_path vm14-nic0 vm15-nic0 0x8103) $(sl_path vm16-nic0 vm17-nic0 0x8104)" \
	"the SA: a's and c's SLs, d's from the installed policy's default"
assert_fail "verify: d's planned SL not in force" -- verify
assert_match "^sl: vnet11_d \(0x0104\) sl=[1-7]: the SA answers SL 0 .*: NOT in force" "$(cat "$LAST_OUT")" \
	"verify names d"
test_done
