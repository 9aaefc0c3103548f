#!/bin/bash
# How oneib-partitions-install tells opensm: SIGHUP to the subnet manager
# it is configured for, never to a process found by its name: the main
# process systemd records for the units of --service (default
# opensm@*.service, Debian 12's opensm), or the pid in --pid-file; and only
# when that process is root's and runs /usr/sbin/opensm (its
# /proc/<pid>/exe is that file). A local user's process named opensm is
# never signalled, and when opensm cannot be told the new file stays
# installed and the exit status and message say so. Or --reload-cmd.
#
# No systemd runs here: for --service a stand-in for /usr/bin/systemctl
# (bind-mounted in the test's own mount namespace) prints what `systemctl
# show --property=Id,MainPID -- UNITS` prints, for the units the test says.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install
n_render=0

# next_conf: a rendered file that differs from the last one, in $CONF
next_conf() {
	n_render=$((n_render + 1))
	case $((n_render % 3)) in
	0) cloud_listing "$CLOUD_VM10" ;;
	1) cloud_listing "$CLOUD_VM10" "$CLOUD_VM12" ;;
	2) cloud_listing "$CLOUD_VM12" ;;
	esac >"$TEST_TMP/c$n_render.xml"
	CONF=$TEST_TMP/c$n_render.conf
	"$PART" render "$TEST_TMP/c$n_render.xml" >"$CONF" || die "cannot render"
}

cloud_fabric
sm_pid=$(pgrep -x opensm)
assert_match '^[0-9]+$' "$sm_pid" "one opensm in this test's pid namespace"

# A local user, eve, runs a program she named opensm (any user can).
chmod 0711 "$TEST_TMP"
mkdir -m 0755 "$TEST_TMP/eve"
cp /bin/sleep "$TEST_TMP/eve/opensm"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TEST_TMP/eve/opensm" 600 &
eve=$!
eve_alive() { kill -0 "$eve" 2>/dev/null && [ "$(cat "/proc/$eve/comm" 2>/dev/null)" = opensm ]; }
wait_for 5 eve_alive || die "eve's opensm did not start"

# --- the default, Debian's opensm@*.service: here no systemd answers.
next_conf
assert_fail "no systemd to ask: installed, not told" -- "$INST" --output "$SIM_PARTITIONS" "$CONF"
assert_match "^oneib-partitions-install: $SIM_PARTITIONS installed, but opensm was not told: /usr/bin/systemctl show opensm@\*\.service (exited with [0-9]+|killed by signal [0-9]+)(: .*)?; the next run retries$" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, why"
assert_eq 1 "$(grep -c '' "$LAST_ERR")" "and only that line"
assert_file_eq "$CONF" "$SIM_PARTITIONS" "the new file is in place"
assert_ok "a reload is pending for the next run" -- test -e "$SIM_PARTITIONS.reload-pending"
assert_ok "eve's opensm was not signalled" -- eve_alive

# --- a stand-in systemctl: what systemd would say for the units.
cat >"$TEST_TMP/systemctl" <<EOS
#!/bin/sh
# stand-in: \`systemctl show --property=Id,MainPID -- UNITS\`, the records
# the test wrote in systemctl.units ("UNIT MAINPID" lines)
[ "\$1 \$2 \$3" = "show --property=Id,MainPID --" ] || { echo "unexpected: \$*" >&2; exit 2; }
echo "\$*" >>"$TEST_TMP/systemctl.calls"
first=1
while read -r unit pid; do
	[ -n "\$first" ] || echo
	first=
	printf 'MainPID=%s\\nId=%s\\n' "\$pid" "\$unit"
done <"$TEST_TMP/systemctl.units"
EOS
chmod 0755 "$TEST_TMP/systemctl"
mount --bind "$TEST_TMP/systemctl" /usr/bin/systemctl || die "cannot put the systemctl stand-in in place"
units() { printf '%s\n' "$@" >"$TEST_TMP/systemctl.units"; }

# The unit's main process is the subnet manager: signalled, and it sweeps.
units "opensm@0x0002c9030000aaaa.service $sm_pid" "opensm@0x0002c9030000bbbb.service 0"
n=$(sim_opensm_sweeps)
next_conf
assert_ok "--service (default): the unit's opensm" -- "$INST" --output "$SIM_PARTITIONS" "$CONF"
assert_match "^opensm $sm_pid \(opensm@\*\.service\): SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" \
	"says which opensm, of which units"
assert_eq "show --property=Id,MainPID -- opensm@*.service" "$(tail -n 1 "$TEST_TMP/systemctl.calls")" \
	"asked systemd for the main processes of opensm@*.service"
sim_opensm_wait_sweep "$n"
assert_ok "nothing pending any more" -- test ! -e "$SIM_PARTITIONS.reload-pending"
assert_ok "eve's opensm was not signalled" -- eve_alive

# A unit whose main process is eve's program: nobody is signalled.
units "opensm@0x0002c9030000aaaa.service $sm_pid" "opensm@0x0002c9030000bbbb.service $eve"
next_conf
assert_fail "a unit's main process is no subnet manager" -- "$INST" --output "$SIM_PARTITIONS" --service 'opensm@*' "$CONF"
assert_eq "oneib-partitions-install: $SIM_PARTITIONS installed, but opensm was not told: opensm@0x0002c9030000bbbb.service: main process $eve is not the subnet manager: it runs $TEST_TMP/eve/opensm, not /usr/sbin/opensm; the next run retries" \
	"$(cat "$LAST_ERR")" "one line naming the unit, the process and why"
assert_ok "eve's opensm was not signalled" -- eve_alive

# No unit runs one.
units "opensm@0x0002c9030000aaaa.service 0"
assert_fail "no unit runs opensm" -- "$INST" --output "$SIM_PARTITIONS" "$CONF"
assert_match "not told: no unit matching opensm@\*\.service runs opensm; the next run retries$" \
	"$(cat "$LAST_ERR")" "says so"
assert_ok "still pending" -- test -e "$SIM_PARTITIONS.reload-pending"
umount /usr/bin/systemctl

# --- --pid-file naming the subnet manager: signalled.
echo "$sm_pid" >"$TEST_TMP/opensm.pid"
n=$(sim_opensm_sweeps)
next_conf
assert_ok "--pid-file" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$CONF"
assert_match "^opensm $sm_pid: SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" "says which opensm"
sim_opensm_wait_sweep "$n"
assert_eq "0x7fff 0x8101" "$(cloud_pkeys node03-vf0)" "and opensm applied the file"

# A pid file naming eve's opensm (a stale one, or planted): not signalled.
echo "$eve" >"$TEST_TMP/opensm.pid"
next_conf
assert_fail "--pid-file naming a user's program called opensm" -- "$INST" --output "$SIM_PARTITIONS" \
	--pid-file "$TEST_TMP/opensm.pid" "$CONF"
assert_eq "oneib-partitions-install: $SIM_PARTITIONS installed, but opensm was not told: opensm pid file $TEST_TMP/opensm.pid: process $eve is not the subnet manager: it runs $TEST_TMP/eve/opensm, not /usr/sbin/opensm; the next run retries" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, why"
assert_ok "eve's opensm was not signalled" -- eve_alive

# Eve runs the real opensm binary (held at its first openat by strace, so
# that it stays): the right program, but not root's.
setpriv --reuid=65534 --regid=65534 --clear-groups \
	strace -f -o /dev/null -e trace=openat -e inject=openat:delay_enter=300000000 \
	/usr/sbin/opensm -f /dev/null </dev/null >/dev/null 2>&1 &
tracer=$!
disown "$tracer"
wait_for 5 pgrep -P "$tracer" -x opensm >/dev/null || die "eve's /usr/sbin/opensm did not start"
eve_sm=$(pgrep -P "$tracer" -x opensm)
echo "$eve_sm" >"$TEST_TMP/opensm.pid"
assert_fail "--pid-file naming /usr/sbin/opensm run by a user" -- "$INST" --output "$SIM_PARTITIONS" \
	--pid-file "$TEST_TMP/opensm.pid" "$CONF"
assert_match "opensm pid file $TEST_TMP/opensm.pid: process $eve_sm is not the subnet manager: it runs as uid 65534, not root; the next run retries$" \
	"$(cat "$LAST_ERR")" "says why"
kill -KILL "$tracer" "$eve_sm" 2>/dev/null

# A stale pid file: the pid now belongs to something else of root's.
sleep 300 &
other=$!
echo "$other" >"$TEST_TMP/opensm.pid"
assert_fail "stale --pid-file" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$CONF"
assert_match "opensm pid file $TEST_TMP/opensm.pid: process $other is not the subnet manager: it runs /usr/bin/sleep, not /usr/sbin/opensm; the next run retries$" \
	"$(cat "$LAST_ERR")" "one line: installed, not told, why"
assert_ok "the other process was not signalled" -- kill -0 "$other"
kill "$other"
echo nonsense >"$TEST_TMP/opensm.pid"
assert_fail "a pid file without a pid" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/opensm.pid" "$CONF"
assert_match "opensm pid file $TEST_TMP/opensm.pid: not a pid; the next run retries$" "$(cat "$LAST_ERR")" "says so"
assert_fail "a pid file that is not there" -- "$INST" --output "$SIM_PARTITIONS" --pid-file "$TEST_TMP/none.pid" "$CONF"
assert_match "opensm pid file $TEST_TMP/none.pid: No such file or directory; the next run retries$" "$(cat "$LAST_ERR")" "says so"

# --- --reload-cmd: run after the install; its failure is reported.
next_conf
assert_ok "--reload-cmd" -- "$INST" --output "$SIM_PARTITIONS" \
	--reload-cmd "cp $SIM_PARTITIONS $TEST_TMP/seen.conf" "$CONF"
assert_file_eq "$SIM_PARTITIONS" "$TEST_TMP/seen.conf" "the command ran after the file was in place"
next_conf
assert_fail "a failing --reload-cmd" -- "$INST" --output "$SIM_PARTITIONS" --reload-cmd "exit 3" "$CONF"
assert_match "installed, but opensm was not told: reload command 'exit 3' exited with 3; the next run retries$" "$(cat "$LAST_ERR")" "says so"
assert_ok "eve's opensm was never signalled" -- eve_alive
kill "$eve"

# Option mistakes are usage errors, before anything is read or written.
assert_fail "two ways to reload" -- "$INST" --output "$SIM_PARTITIONS" --no-reload --pid-file x "$CONF"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "two ways to reload" -- "$INST" --output "$SIM_PARTITIONS" --service x --pid-file x "$CONF"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "--backup without --output" -- "$INST" --backup x "$CONF"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "--output equal to --backup" -- "$INST" --output "$SIM_PARTITIONS" --backup "$SIM_PARTITIONS" "$CONF"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
test_done
