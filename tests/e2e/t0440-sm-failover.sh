#!/bin/bash
# Every subnet manager of the fabric enforces the same partitions, through
# failover (issue 32, design decision 17), with two real opensm on one
# ibsim fabric (tests/lib/sms.sh): the master on sm (sm_priority 10), the
# standby on sm2 (sm_priority 5), each on a host of its own that the
# front-end reaches through ONEIB_SM_SSH, ibrc naming both in ONEIB_SMS
# (the standby first: which SM is master does not matter to the install).
# - the hook installs the QoS policy and the partitions on both, each
#   through the root installer; verify says which SM masters the fabric
#   (SMInfo) and that both hold the partitions verified;
# - a standby that is down during a run: the master still gets the new
#   file (a VM made meanwhile), the run fails with one line naming sm2 and
#   ssh's reason; verify names sm2's file as differing, at that VM's
#   partition; the next run, sm2 up, installs it there;
# - a standby that hangs on the install is bounded (ONEIB_PARTITIONS_TIMEOUT)
#   and never holds the master back: the master's file is in place at
#   once, while the run waits out sm2's time;
# - a standby given a stale (older) or a broken file by hand is reported by
#   verify before any failover; the next run replaces the stale one, and
#   refuses the broken one (design decision 11: one-ib replaces only a file
#   it can read), on every SM, until it is gone; a partition one-ib did not
#   write on the standby alone stops the install on both until it is in
#   the static file; another QoS policy on the standby is found the same
#   way (P_Key by P_Key) and put back by the next run;
# - kill -9 of the master: the standby takes over (its SUBNET UP; the time
#   is printed) and every port holds exactly the P_Keys it held before,
#   but for SELF=full following the new master; the SA's path records
#   within and across tenants are the same, asked from the master's node
#   before and the new master's node after.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
. "$TOP/tests/lib/sms.sh"
sim_host none

sms_fabric
sms_hook
sed -i 's/^ONEIB_SMS=.*/ONEIB_SMS="sm2 sm"/' "$IBRC"
SM=${SMS_DIR[sm]} SM2=${SMS_DIR[sm2]}
assert_eq "SMINFO_MASTER SMINFO_STANDBY" "$(sms_state sm) $(sms_state sm2)" \
	"sm masters the fabric, sm2 stands by"

run_hook() {
	local n rc
	n=$(sim_opensm_sweeps)
	"$HOOK"
	rc=$?
	# the master sweeps when it was signalled (the standby does not)
	grep -q '^sm: opensm [0-9]*: SIGHUP' "$LAST_OUT" 2>/dev/null && sim_opensm_wait_sweep "$n"
	return $rc
}
# verify from NODE against the master's file, both SMs' files given
verify() { # [NODE [ARGS...]]
	local node=${1:-node01}
	shift $(($# > 0))
	sim_client "$node" "$PART" verify --conf "$SM/partitions.conf" \
		--opensm-conf "$SM/opensm.conf" --sm sm="$SM/partitions.conf" \
		--sm sm2="$SM2/partitions.conf" "$@"
}
has() { grep -c "$2" "$1/partitions.conf"; }
VM13=0x02000000000d0000 VM12=0x02000000000c0000

# --- both SMs get the files ---------------------------------------------------
sms_listing 10/node02/5,9 11/node02/7,9 12/node03/5,9
assert_ok "the hook" -- run_hook
out=$(cat "$LAST_OUT")
assert_match "^sm2: /etc/opensm/qos-policy.conf: installed \(0 partitions with an SL, default SL 0\)$" "$out" \
	"sm2's policy installed"
assert_match "^sm2: /etc/opensm/partitions.conf: installed \(5 partitions, 19 members\), previous file kept" "$out" \
	"sm2's partitions installed"
assert_match "^sm2: opensm $(cat "$SM2/opensm.pid"): SIGHUP, re-reading /etc/opensm/partitions.conf$" "$out" \
	"sm2's opensm told (harmless on a standby)"
assert_match "^sm: /etc/opensm/partitions.conf: installed \(5 partitions, 19 members\)" "$out" "sm's installed"
assert_eq "" "$(cat "$LAST_ERR")" "nothing on stderr"
assert_file_eq "$SM/partitions.conf" "$SM2/partitions.conf" "both SMs hold the same partitions.conf"
assert_file_eq "$SM/qos-policy.conf" "$SM2/qos-policy.conf" "and the same QoS policy"
assert_ok "verify: both hold the partitions" -- verify
out=$(cat "$LAST_OUT")
assert_match '^sm: port 0x0002c90300000001 \(lid [0-9]+, "sm"\): MASTER, priority 10$' "$out" "verify: sm is the master"
assert_match '^sm: port 0x0002c90300000101 \(lid [0-9]+, "sm2"\): STANDBY, priority 5$' "$out" "verify: sm2 stands by"
assert_match "^sm: sm2: $SM2/partitions.conf: holds the partitions verified$" "$out" "verify: sm2's file"
assert_match "^verify: .*; 0 ports differ; 0 left out$" "$out" "nothing differs"

# --- the standby down: the master still follows the cloud ----------------------
touch "$TEST_TMP/sms/sm2.down"
sms_listing 10/node02/5,9 11/node02/7,9 12/node03/5,9 13/node03/7
assert_fail "VM 13 made while sm2 is down" -- run_hook
assert_eq "oneib-partitions: sm2: test ! -e /etc/opensm/partitions.conf || cat /etc/opensm/partitions.conf failed (exit 255): ssh: connect to host sm2 port 22: No route to host; 1 of 2 subnet managers hold the new partitions, the next run tries the others again" \
	"$(cat "$LAST_ERR")" "one line naming sm2, why, and that the other has the file"
assert_match "^sm: /etc/opensm/partitions.conf: installed \(5 partitions, 20 members\)" "$(cat "$LAST_OUT")" \
	"the master got the new file"
assert_eq "" "$(grep '^sm2:' "$LAST_OUT")" "nothing installed on sm2"
assert_eq "1 0" "$(has "$SM" $VM13) $(has "$SM2" $VM13)" "VM 13 on sm's file, not on sm2's"
assert_eq "0x7fff 0x8102" "$(sms_pkeys vm13-nic0)" "the master programmed VM 13's port"
assert_fail "verify names sm2's file while it is stale" -- verify
assert_match "^sm: sm2: $SM2/partitions.conf: differs: vnet7_tenant-b \(0x0102\): $VM13 \(VM 13 NIC 0\) is a full member in the verified file, none in sm2's: a failover to sm2 changes the partitions$" \
	"$(cat "$LAST_OUT")" "at VM 13's partition"
assert_match "; 1 subnet manager's file differs$" "$(cat "$LAST_OUT")" "counted"
rm "$TEST_TMP/sms/sm2.down"
assert_ok "sm2 back: the next run" -- run_hook
assert_match "^sm2: /etc/opensm/partitions.conf: installed \(5 partitions, 20 members\)" "$(cat "$LAST_OUT")" \
	"sm2 gets the file it missed"
assert_match "^sm: /etc/opensm/partitions.conf: unchanged " "$(cat "$LAST_OUT")" "sm had it"
assert_file_eq "$SM/partitions.conf" "$SM2/partitions.conf" "the same file on both again"
assert_ok "verify: both hold it" -- verify

# --- the standby hangs on the install: bounded, the master not held back -------
printf '%s\n' '--output' >"$TEST_TMP/sms/sm2.hang"
sms_listing 10/node02/5,9 11/node02/7,9 13/node03/7
start=$(date +%s.%N)
ONEIB_PARTITIONS_TIMEOUT=3 assert_fail "sm2 hangs installing the partitions" -- run_hook
took=$(echo "$(date +%s.%N) - $start" | bc)
master=$(echo "$(stat -c %.9Y "$SM/partitions.conf") - $start" | bc)
say "the run took $took s, the master's file was in place $master s after its start"
assert_match "^oneib-partitions: sm2: $INST --output /etc/opensm/partitions.conf --pid-file /etc/opensm/opensm.pid - timed out after 3 s: no error output; 1 of 2 " \
	"$(cat "$LAST_ERR")" "sm2 named: timed out"
assert_eq "1 1" "$(echo "$took >= 3 && $took < 15" | bc) $(echo "$master < 2.5" | bc)" \
	"the run waited sm2's time out, the master's file went in at once"
assert_eq "0 1" "$(has "$SM" $VM12) $(has "$SM2" $VM12)" "VM 12 left the master's file, sm2 still has it"
rm "$TEST_TMP/sms/sm2.hang"
sms_listing 10/node02/5,9 11/node02/7,9 12/node03/5,9 13/node03/7
assert_ok "VM 12 back, sm2 answers" -- run_hook
assert_file_eq "$SM/partitions.conf" "$SM2/partitions.conf" "the same file on both"

# --- a stale or broken file on the standby, found before any failover ---------
cp "$SM/partitions.conf.bak" "$SM2/partitions.conf"
assert_fail "verify: an older file on the standby" -- verify
assert_match "^sm: sm2: $SM2/partitions.conf: differs: vnet5_tenant-a \(0x0101\): $VM12 \(VM 12 NIC 0\) is a full member in the verified file, none in sm2's" \
	"$(cat "$LAST_OUT")" "names sm2 and the first partition that differs"
assert_ok "the next run replaces it" -- run_hook
assert_match "^sm2: /etc/opensm/partitions.conf: installed " "$(cat "$LAST_OUT")" "installed on sm2"
assert_ok "verify: both hold it" -- verify

echo 'Default=0x7fff ipoib ALL=full' >"$SM2/partitions.conf"
assert_fail "verify: a broken file on the standby" -- verify
assert_match "^sm: sm2: $SM2/partitions.conf: does not read \(partitions.conf line 1: .*\): at a failover to sm2 opensm applies what it can of it, or puts every port in the default partition as a full member$" \
	"$(cat "$LAST_OUT")" "names sm2 and why it matters"
cp "$SM/partitions.conf" "$TEST_TMP/sm.before"
assert_fail "the run refuses a file it cannot read" -- run_hook
assert_match "^oneib-partitions: render: sm2: the installed partitions.conf line 1: .*one-ib replaces only a file it can read" \
	"$(cat "$LAST_ERR")" "one line naming sm2"
assert_file_eq "$TEST_TMP/sm.before" "$SM/partitions.conf" "nothing installed on sm either"
rm "$SM2/partitions.conf"
assert_fail "verify: no file on the standby" -- verify
assert_match "^sm: sm2: $SM2/partitions.conf: none \(No such file or directory\): at a failover to sm2 opensm puts every port in the default partition as a full member$" \
	"$(cat "$LAST_OUT")" "named"
assert_ok "the broken file removed: the next run" -- run_hook
assert_match "^sm2: /etc/opensm/partitions.conf: installed " "$(cat "$LAST_OUT")" "sm2 has it again"

# --- the standby's QoS policy: another one is found before any failover ---------
qverify() { verify node01 --sm-qos sm="$SM/qos-policy.conf" --sm-qos sm2="$SM2/qos-policy.conf"; }
assert_ok "verify: both SMs hold the QoS policy" -- qverify
assert_match "^sm: sm2: $SM2/qos-policy.conf: holds the QoS policy verified$" "$(cat "$LAST_OUT")" "sm2's policy"
"$PART" render --sls 1-7 --static "$TEST_TMP/static.conf" --hosts-partition infra \
	--qos-policy "$TEST_TMP/other-policy.conf" "$TEST_TMP/cloud.xml" >/dev/null 2>&1 ||
	die "cannot render another policy"
cp "$TEST_TMP/other-policy.conf" "$SM2/qos-policy.conf"
assert_fail "verify: another QoS policy on the standby" -- qverify
assert_match "^sm: sm2: $SM2/qos-policy.conf: QoS policy differs: P_Key 0x0101: SL 0 \(its default\) in the verified policy, SL [1-7] in sm2's: a failover to sm2 changes the SLs$" \
	"$(cat "$LAST_OUT")" "names sm2 and the first P_Key whose SL differs"
assert_ok "the next run puts the policy back" -- run_hook
assert_match "^sm2: /etc/opensm/qos-policy.conf: installed " "$(cat "$LAST_OUT")" "sm2's policy installed"
assert_ok "verify: the same policy again" -- qverify

# --- adoption on every SM: a partition one-ib did not write, on sm2 alone -------
echo 'lab=0x0300, ipoib : 0x0002c903000c0001=full ;' >>"$SM2/partitions.conf"
sms_listing 10/node02/5,9 11/node02/7,9 12/node03/5,9 13/node03/7
assert_fail "a partition of somebody else's on the standby" -- run_hook
assert_match "^oneib-partitions: render: sm2: the installed partitions.conf holds partitions one-ib did not write: lab \(0x0300\); move them into the static file" \
	"$(cat "$LAST_ERR")" "stops the install, naming sm2"
assert_file_eq "$TEST_TMP/sm.before" "$SM/partitions.conf" "sm's file untouched"
echo 'lab=0x0300, ipoib : 0x0002c903000c0001=full ;' >>"$TEST_TMP/static.conf"
assert_ok "moved into the static file" -- run_hook
assert_eq "1 1" "$(has "$SM" '^lab=0x0300') $(has "$SM2" '^lab=0x0300')" "carried into both SMs' files"
assert_file_eq "$SM/partitions.conf" "$SM2/partitions.conf" "the same file on both"
assert_ok "verify before the failover" -- verify sm
assert_eq "0x7fff 0x8105 0x8300" "$(sms_pkeys login)" "the login node in lab"

# --- kill -9 of the master: the standby takes over with the same partitions ----
pairs="vm10-nic0:vm12-nic0 vm11-nic0:vm13-nic0 vm10-nic0:vm11-nic0 vm12-nic0:vm13-nic0
	vm10-nic1:stor1 vm12-nic1:stor2 vm10-nic1:vm11-nic1 vm10-nic0:stor1 node01:stor1 login:stor2"
paths() {
	local p
	for p in $pairs; do printf '%s %s\n' "$p" "$(sms_path "${p%%:*}" "${p#*:}")"; done
}
sms_tables >"$TEST_TMP/tables.before"
paths >"$TEST_TMP/paths.before"
assert_eq "0x8101 0x8102" "$(sms_path vm10-nic0 vm12-nic0) $(sms_path vm11-nic0 vm13-nic0)" \
	"paths within each tenant (VM 13 made while sm2 was down)"
assert_eq "" "$(sms_path vm10-nic0 vm11-nic0)$(sms_path vm12-nic0 vm13-nic0)$(sms_path vm10-nic1 vm11-nic1)" \
	"none across tenants, nor between two storage clients"
assert_match "^vm10-nic1:stor1 0x[08]?109$" "$(cat "$TEST_TMP/paths.before")" "a storage client reaches its server"
sms_kill_master
say "the standby took over $SMS_TAKEOVER s after kill -9 of the master"
assert_eq 1 "$(echo "$SMS_TAKEOVER < 15" | bc)" "takeover within seconds (1 s polls, 2 retries)"
assert_eq SMINFO_MASTER "$(sms_state sm2)" "sm2 masters the fabric"
sms_tables >"$TEST_TMP/tables.after"
sed -e 's/^sm 0xffff$/sm 0x7fff/' -e 's/^sm2 0x7fff$/sm2 0xffff/' "$TEST_TMP/tables.before" >"$TEST_TMP/tables.expected"
assert_file_eq "$TEST_TMP/tables.expected" "$TEST_TMP/tables.after" \
	"every port holds the P_Keys it held, SELF=full now on sm2"
paths >"$TEST_TMP/paths.after"
assert_file_eq "$TEST_TMP/paths.before" "$TEST_TMP/paths.after" "the same path records within and across tenants"
assert_eq "" "$(grep 'Partition configuration in error\|PARSE ERROR' "$SM2/opensm.log")" "sm2 read its file"
assert_ok "verify from the new master" -- verify sm2
assert_match '^sm: port 0x0002c90300000101 \(lid [0-9]+, "sm2"\): MASTER, priority 5$' "$(cat "$LAST_OUT")" \
	"verify: sm2 is the master now"
assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "no port differs"
test_done
