#!/bin/bash
# How oneib-partitions-install tells opensm: the pid in --pid-file (only
# if that process is opensm: a stale pid file never makes root signal
# another process), --reload-cmd, or every process named opensm; when
# telling fails the new file stays installed and the exit status and
# message say opensm was not told.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

# render CLOUD.XML: the rendered file beside it, CLOUD.conf
render() { "$PART" render "$1" >"${1%.xml}.conf" || die "cannot render $1"; }

# No opensm running yet: installed, with a warning, exit 0.
cloud_listing "$CLOUD_VM10" >"$TEST_TMP/c1.xml"
render "$TEST_TMP/c1.xml"
assert_ok "no opensm running: still installed" -- "$INST" --output "$TEST_TMP/p.conf" "$TEST_TMP/c1.conf"
assert_eq "oneib-partitions-install: warning: no opensm is running; it reads $TEST_TMP/p.conf when it starts" \
	"$(cat "$LAST_ERR")" "says opensm will read it at start"
assert_eq "$TEST_TMP/p.conf: installed (2 partitions, 3 members)" "$(cat "$LAST_OUT")" \
	"a first install mentions no backup"

cloud_fabric
sm_pid=$(pgrep -x opensm)
assert_match '^[0-9]+$' "$sm_pid" "one opensm in this test's pid namespace"

# --pid-file naming opensm: signalled.
echo "$sm_pid" >"$TEST_TMP/opensm.pid"
n=$(sim_opensm_sweeps)
cloud_listing "$CLOUD_VM10" "$CLOUD_VM12" >"$TEST_TMP/c2.xml"
render "$TEST_TMP/c2.xml"
assert_ok "--pid-file" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$TEST_TMP/c2.conf"
assert_match "^opensm $sm_pid: SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" "says which opensm"
sim_opensm_wait_sweep "$n"
assert_eq "0x7fff 0x8101" "$(cloud_pkeys node03-vf0)" "and opensm applied the file"

# A stale pid file: the pid now belongs to something else. Not signalled.
sleep 300 &
other=$!
echo "$other" >"$TEST_TMP/opensm.pid"
cloud_listing "$CLOUD_VM10" >"$TEST_TMP/c3.xml"
render "$TEST_TMP/c3.xml"
assert_fail "stale --pid-file" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$TEST_TMP/c3.conf"
assert_eq "oneib-partitions-install: $SIM_PARTITIONS installed, but opensm was not told: opensm pid file $TEST_TMP/opensm.pid: process $other is not opensm (stale pid file?); the next run retries" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, why"
assert_ok "the other process was not signalled" -- kill -0 "$other"
assert_file_eq "$TEST_TMP/c3.conf" "$SIM_PARTITIONS" "the new file is in place"
echo nonsense >"$TEST_TMP/opensm.pid"
cloud_listing "$CLOUD_VM12" >"$TEST_TMP/c4.xml"
render "$TEST_TMP/c4.xml"
assert_fail "a pid file without a pid" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$TEST_TMP/c4.conf"
assert_match "opensm pid file $TEST_TMP/opensm.pid: not a pid; the next run retries$" "$(cat "$LAST_ERR")" "says so"
kill "$other"

# --reload-cmd: run after the install; its failure is reported.
cloud_listing "$CLOUD_VM13" >"$TEST_TMP/c5.xml"
render "$TEST_TMP/c5.xml"
assert_ok "--reload-cmd" -- "$INST" --output "$SIM_PARTITIONS" \
	--reload-cmd "cp $SIM_PARTITIONS $TEST_TMP/seen.conf" "$TEST_TMP/c5.conf"
assert_file_eq "$SIM_PARTITIONS" "$TEST_TMP/seen.conf" "the command ran after the file was in place"
cloud_listing "$CLOUD_VM14" >"$TEST_TMP/c6.xml"
render "$TEST_TMP/c6.xml"
assert_fail "a failing --reload-cmd" -- "$INST" --output "$SIM_PARTITIONS" --reload-cmd "exit 3" "$TEST_TMP/c6.conf"
assert_match "installed, but opensm was not told: reload command 'exit 3' exited with 3; the next run retries$" "$(cat "$LAST_ERR")" "says so"

# Option mistakes are usage errors, before anything is read or written.
assert_fail "two ways to reload" -- "$INST" --output "$SIM_PARTITIONS" --no-reload --pid-file x "$TEST_TMP/c6.conf"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "--backup without --output" -- "$INST" --backup x "$TEST_TMP/c6.conf"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "--output equal to --backup" -- "$INST" --output "$SIM_PARTITIONS" --backup "$SIM_PARTITIONS" "$TEST_TMP/c6.conf"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
test_done
