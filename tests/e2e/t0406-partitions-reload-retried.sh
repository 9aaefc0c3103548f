#!/bin/bash
# Finding 5: a reload of opensm that failed is remembered and retried. The
# new file is installed but opensm is not told (a stale --pid-file): the
# installer says so, exit 1, and leaves partitions.conf.reload-pending;
# opensm still programs the old partitions (verify: drift). The next run,
# with the very same text, tells opensm anyway, and the fabric follows;
# the run after that has nothing to do and signals nobody.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

cloud_start_fabric
PENDING=$SIM_PARTITIONS.reload-pending

# VM 14 terminated; telling opensm fails (the pid is not opensm's).
cloud_listing "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM13" \
	"$CLOUD_VM15" >"$TEST_TMP/c1.xml"
"$PART" render "$TEST_TMP/c1.xml" >"$TEST_TMP/c1.conf" || die "cannot render"
sleep 300 &
other=$!
echo "$other" >"$TEST_TMP/stale.pid"
sweeps=$(sim_opensm_sweeps)
assert_fail "installed, opensm not told" -- "$INST" --output "$SIM_PARTITIONS" \
	--pid-file "$TEST_TMP/stale.pid" "$TEST_TMP/c1.conf"
kill "$other"
assert_eq 1 "$LAST_RC" "exit status 1"
assert_match "installed, but opensm was not told: .*process $other is not the subnet manager: it runs /usr/bin/sleep, not /usr/sbin/opensm; the next run retries$" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, retried next time"
assert_file_eq "$TEST_TMP/c1.conf" "$SIM_PARTITIONS" "the new file is in place"
assert_ok "the failed reload is remembered beside the file" -- test -f "$PENDING"
assert_eq "$sweeps" "$(sim_opensm_sweeps)" "opensm did not sweep"
assert_eq "0x7fff 0x8101" "$(cloud_pkeys node04-vf1)" "VM 14's port still holds tenant a"
assert_fail "verify: drift" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_match '^drift: port 0x02000000000e0000 \(VM 14 NIC 0; ' "$(cat "$LAST_OUT")" "VM 14's port"

# The same text again: unchanged, yet opensm is told now.
n=$(sim_opensm_sweeps)
assert_ok "the same text again" -- "$INST" --output "$SIM_PARTITIONS" \
	--pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/c1.conf"
assert_match "^$SIM_PARTITIONS: unchanged \(2 partitions, 7 members\); opensm was not told after the last install: telling it now$" \
	"$(cat "$LAST_OUT")" "says it retries"
assert_match "^opensm $(cat "$SIM_OPENSM_PID_FILE"): SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" "and signals opensm"
sim_opensm_wait_sweep "$n"
assert_ok "nothing pending any more" -- test ! -e "$PENDING"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf1)" "VM 14's port left tenant a"
assert_ok "verify: no drift" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"

# And then nothing to do: nobody signalled.
n=$(sim_opensm_sweeps)
assert_ok "once more" -- "$INST" --output "$SIM_PARTITIONS" \
	--reload-cmd "touch $TEST_TMP/reloaded" "$TEST_TMP/c1.conf"
assert_eq "$SIM_PARTITIONS: unchanged (2 partitions, 7 members)" "$(cat "$LAST_OUT")" "just unchanged"
assert_ok "no reload" -- test ! -e "$TEST_TMP/reloaded"
assert_eq "$n" "$(sim_opensm_sweeps)" "no sweep"
test_done
