# shellcheck shell=bash
# tests/lib/test-lib.sh - shell test harness for one-ib end-to-end tests.
#
# Each test is a plain script, runnable alone:
#
#     #!/bin/bash
#     . "$(dirname "$0")/../lib/test-lib.sh"
#     sim_host cx5                  # optional; must come first (re-executes)
#     sim_libvirtd                  # optional
#     assert_eq 0x15b3 "$(cat /sys/bus/pci/devices/0000:3b:00.0/vendor)" "vendor"
#     test_done
#
# Options (any test):  -v  print passing checks too
#                      -d  keep $TEST_TMP when the test fails
#                      -x  trace the test with set -x
# Environment:  ONEIB_DESTDIR   installed tree to test (default $TOP/build/destdir)
#               TEST_TIMEOUT    seconds before a sim_host test is killed (300)
#               SIM_NETNS       set (to 1) before sim_host: a private network
#                               namespace too (guest tests, tests/lib/guest.sh)
#               SIM_MKHOST      fixture generator (tests/fixtures/mkhost.sh)
#               SIM_SM_NODE     fabric node running opensm (first Hca of the net file)
#               SIM_OPENSM_CONF more opensm.conf lines, read at its start (qos_policy_file)
#               SIM_CLIENT_TIMEOUT  seconds before sim_client kills its command (30)
#
# Output: one line per failed check ("FAIL n: ..." plus "#   " detail lines),
# "# " lines for information, and exactly one final line:
#     ok - NAME (N checks)        exit 0
#     not ok - NAME (...)         exit 1
#     ok - NAME # skip REASON     exit 77
#
# Variables:  TOP TEST_NAME TEST_TMP ONEIB_DESTDIR REMOTES IBBIN LAST_RC
#             LAST_OUT LAST_ERR (files: output of the last assert_ok/fail,
#             LAST_RC its exit status;
#             their command runs in a subshell with stdin from /dev/null)
# Assertions: assert_eq EXPECTED ACTUAL MSG     assert_match REGEX STRING MSG
#             assert_ok MSG -- cmd...           assert_fail MSG -- cmd...
#             assert_file_eq FILE1 FILE2 MSG    assert_json_eq FILE1 FILE2 MSG
#             assert_refused [--rc N] [--state CMD] MSG REGEX -- cmd...
#                 bad input refused: a clean failure (exit N if given), one
#                 stderr line matching REGEX, no stdout, and CMD (printing
#                 what must not change) prints the same before and after
#             snap [--content] DIR [EXCLUDE-REGEX]
#                 what is under DIR, for comparisons
# Other:      test_done  skip_all REASON  die MSG  say MSG
#             wait_for SECONDS cmd...   (poll every 0.1 s until cmd succeeds)
#             at_exit cmd...   run cmd when the test ends, however it ends,
#                              after the daemons are stopped
# Checks may be made in subshells and pipelines: results are kept in a file.
#
# Simulation (see the functions below for details):
#   sim_host NAME|none     private mount+pid namespace with its own empty
#                          /var/lib/one and /dev/shm; NAME = fixture from
#                          tests/fixtures/mkhost.sh mounted over /sys.
#                          Exports SIM_HOST_DIR (fixture dir, has expect.json).
#   sim_libvirtd           private libvirtd (test driver only).
#                          Exports LIBVIRT_URI, LIBVIRT_DEFAULT_URI.
#   sim_fabric NETFILE [PARTITIONS_CONF]
#                          ibsim + opensm, their files in SIM_FABRIC
#                          ($SIM_FABRIC_DIR when set, else $TEST_TMP/fabric).
#                          Exports SIM_FABRIC UMAD2SIM IBSIM_SOCKNAME
#                          SIM_PARTITIONS SIM_OPENSM_LOG SIM_IBSIM_LOG
#                          SIM_OPENSM_PID_FILE (opensm's pid, as Debian's
#                          init script writes /run/opensm-<port GUID>).
#   sim_opensm_reread      SIGHUP opensm, wait for the next heavy sweep.
#   sim_opensm_sweeps      print how many heavy sweeps opensm has finished.
#   sim_opensm_wait_sweep N  wait until more than N heavy sweeps finished.
#   sim_opensm_settle      wait until the sweeps asked for are over (count
#                          unchanged for 3 s).
#   sim_client NODE cmd... run an IB client attached to fabric node NODE.
#   sim_lid NODE           print the LID of NODE's port 1.
#   sim_ibsim CMD...       send a command to the ibsim console (e.g. "Unlink \"Hca4\"").

# The harness is bash; "sh tNNNN.sh" runs dash, so switch over first.
if [ -z "$BASH_VERSION" ]; then
	exec bash "$0" "$@"
fi

TEST_PATH=$(realpath "$0")
TEST_NAME=$(basename "$0")
TEST_ARGS=("$@")
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

_tl_verbose='' _tl_debug='' _tl_trace=''
for _tl_arg in "$@"; do
	case $_tl_arg in
	-v|--verbose) _tl_verbose=1 ;;
	-d|--debug) _tl_debug=1 ;;
	-x|--trace) _tl_trace=1 ;;
	*) echo "usage: $0 [-v] [-d] [-x]" >&2; exit 2 ;;
	esac
done

_tl_done='' _tl_daemons=() _tl_daemon_names=() _tl_daemon_waits=() _tl_at_exit=()

# Running the second time, inside the namespaces that sim_host created?
# The marker names this very script, so a test that runs another test
# script does not pass its "inside" state on.
_tl_inside=
if [ -n "$_TL_INSIDE" ] && [ "$_TL_INSIDE" = "$TEST_PATH" ]; then
	_tl_inside=1
	TEST_TMP=$_TL_TEST_TMP
else
	TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/${TEST_NAME%.sh}.XXXXXX") ||
		{ echo "not ok - $TEST_NAME (cannot create TEST_TMP)"; exit 1; }
fi
unset _TL_INSIDE _TL_TEST_TMP

: "${ONEIB_DESTDIR:=$TOP/build/destdir}"
REMOTES=$ONEIB_DESTDIR/var/lib/one/remotes
IBBIN=$REMOTES/ib/bin
LAST_OUT=$TEST_TMP/.last.out
LAST_ERR=$TEST_TMP/.last.err
export TOP TEST_NAME TEST_TMP ONEIB_DESTDIR REMOTES IBBIN

say() { printf '# %s\n' "$*"; }

# Print up to N lines of FILE, indented, for failure details.
_tl_show() { # FILE [N] [LABEL]
	[ -s "$1" ] || return 0
	[ -n "$3" ] && printf '#   --- %s:\n' "$3"
	tail -n "${2:-20}" "$1" | sed 's/^/#   /'
}

# Results go to a file, so that checks made in a subshell (a pipeline,
# $(...)) count too.  One line per check: "p" or "f".
_tl_results=$TEST_TMP/.tl-results
_tl_count() { # [p|f] -> number of checks (of that kind) so far
	local n=0
	[ -f "$_tl_results" ] && n=$(grep -c "^${1:-.}\$" "$_tl_results")
	echo "$n"
}

_tl_pass() {
	echo p >>"$_tl_results"
	[ -n "$_tl_verbose" ] && printf 'ok %d: %s\n' "$(_tl_count)" "$1"
	return 0
}

_tl_fail() { # MSG [DETAIL]
	echo f >>"$_tl_results"
	printf 'FAIL %d: %s\n' "$(_tl_count)" "$1"
	[ -n "$2" ] && printf '%s\n' "$2" | sed 's/^/#   /'
	return 1
}

assert_eq() { # EXPECTED ACTUAL MSG
	if [ "$1" = "$2" ]; then
		_tl_pass "$3"
	else
		_tl_fail "$3" "expected: '$1'
actual:   '$2'"
	fi
}

assert_match() { # REGEX STRING MSG   (grep -E; any line of STRING may match)
	if printf '%s\n' "$2" | grep -Eq -- "$1"; then
		_tl_pass "$3"
	else
		_tl_fail "$3" "no match for /$1/ in:
$(printf '%s\n' "$2" | head -n 20)"
	fi
}

_tl_run() { # MSG -- cmd...  -> runs cmd, sets _tl_rc
	if [ "$2" != "--" ] || [ $# -lt 3 ]; then
		die "usage: ${FUNCNAME[1]} MSG -- command [args...] (got: $*)"
	fi
	shift 2
	# in a subshell that does not exec the command, so that a "Segmentation
	# fault" notice lands in LAST_ERR too
	("$@"; exit $?) >"$LAST_OUT" 2>"$LAST_ERR" </dev/null
	_tl_rc=$?
	# shellcheck disable=SC2034 # read by the tests
	LAST_RC=$_tl_rc
}

_tl_cmd_details() {
	_tl_show "$LAST_OUT" 15 stdout
	_tl_show "$LAST_ERR" 15 stderr
}

assert_ok() { # MSG -- cmd...   (exit status 0 expected)
	local msg=$1
	_tl_run "$@"
	shift 2
	if [ "$_tl_rc" -eq 0 ]; then
		_tl_pass "$msg"
	else
		_tl_fail "$msg" "command failed with exit status $_tl_rc: $*"
		_tl_cmd_details
		return 1
	fi
}

# A clean failure is expected: exit status 1..125.  126/127 (not
# executable / not found) and deaths by signal (>128, e.g. a crash) do
# not count as the expected failure.
assert_fail() { # MSG -- cmd...
	local msg=$1
	_tl_run "$@"
	shift 2
	if [ "$_tl_rc" -ge 1 ] && [ "$_tl_rc" -le 125 ]; then
		_tl_pass "$msg"
	elif [ "$_tl_rc" -eq 0 ]; then
		_tl_fail "$msg" "command succeeded, failure expected: $*"
		_tl_cmd_details
		return 1
	else
		_tl_fail "$msg" "command did not fail cleanly (exit status $_tl_rc): $*"
		_tl_cmd_details
		return 1
	fi
}

# Bad input: refused with one line naming the object and the reason, a
# clean failure (exit status 1..125, or exactly N with --rc), nothing on
# stdout, nothing changed: the output of the --state command (e.g. a
# function around snap) is the same before and after.
assert_refused() { # [--rc N] [--state CMD] MSG REGEX -- cmd...
	local rc='' state='' msg re before='' n
	while :; do
		case $1 in
		--rc) rc=$2 ;;
		--state) state=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	msg=$1 re=$2
	shift 2
	[ -z "$state" ] || before=$($state)
	_tl_run "$msg" "$@"
	shift
	if [ -n "$rc" ] && [ "$_tl_rc" -ne "$rc" ]; then
		_tl_fail "$msg: refused" "exit status $_tl_rc, expected $rc: $*"
		_tl_cmd_details
	elif [ "$_tl_rc" -lt 1 ] || [ "$_tl_rc" -gt 125 ]; then
		_tl_fail "$msg: refused" "not a clean failure (exit status $_tl_rc): $*"
		_tl_cmd_details
	else
		_tl_pass "$msg: refused"
	fi
	n=$(grep -c '' "$LAST_ERR")
	assert_eq 1 "$n" "$msg: one line on stderr" || _tl_show "$LAST_ERR" 5
	assert_match "$re" "$(cat "$LAST_ERR")" "$msg: names the object and the reason"
	assert_eq "" "$(cat "$LAST_OUT")" "$msg: nothing on stdout"
	[ -z "$state" ] || assert_eq "$before" "$($state)" "$msg: nothing changed"
}

# Every file, link and directory under DIR (one file system, DIR itself
# left out), sorted, as "TYPE INODE SIZE MTIME LINK-TARGET PATH"; lines
# matching EXCLUDE-REGEX dropped. Equal snaps: nothing was created,
# removed, replaced or written under DIR (a write sets the mtime, even of
# the same bytes), without reading any file. --content: "TYPE LINK-TARGET
# PATH" and "MD5 PATH" lines instead, for "as before" after a rollback that
# rewrites what it had changed.
snap() { # [--content] DIR [EXCLUDE-REGEX]
	if [ "$1" = --content ]; then
		shift
		(
			cd "$1" || exit 1
			find . -xdev -mindepth 1 -printf '%y %l %p\n'
			find . -xdev -mindepth 1 -type f -print0 | xargs -0 md5sum
		) | grep -Ev -- "${2:-^$}" | sort
		return
	fi
	(cd "$1" && find . -xdev -mindepth 1 -printf '%y %i %s %T@ %l %p\n') |
		grep -Ev -- "${2:-^$}" | sort
}

assert_file_eq() { # FILE1 FILE2 MSG
	local f
	for f in "$1" "$2"; do
		[ -f "$f" ] || { _tl_fail "$3" "no such file: $f"; return 1; }
	done
	if cmp -s "$1" "$2"; then
		_tl_pass "$3"
	else
		_tl_fail "$3" "files differ: $1 $2
$(diff -u "$1" "$2" | head -n 40)"
	fi
}

assert_json_eq() { # FILE1 FILE2 MSG   (compared after jq -S .)
	local f i=0
	command -v jq >/dev/null || die "jq is not installed (apt-get install -y jq)"
	for f in "$1" "$2"; do
		i=$((i + 1))
		if ! jq -S . "$f" >"$TEST_TMP/.json$i" 2>"$TEST_TMP/.jsonerr"; then
			_tl_fail "$3" "not valid JSON: $f
$(cat "$TEST_TMP/.jsonerr")"
			return 1
		fi
	done
	if cmp -s "$TEST_TMP/.json1" "$TEST_TMP/.json2"; then
		_tl_pass "$3"
	else
		_tl_fail "$3" "JSON differs: $1 $2
$(diff -u "$TEST_TMP/.json1" "$TEST_TMP/.json2" | tail -n +3 | head -n 40)"
	fi
}

# Bounds that scale with the machine's load (issue 30: a daemon's event
# comes later on a machine the suite and others keep busy, and a fixed
# bound then fails a test that was right): a bound of N seconds is N
# seconds of a machine no busier than its cores; a second while the load
# average is k times the cores counts 1/k of one (k at most 4: a bound
# still ends).
#   bound_start VAR SECONDS   VAR (an array) holds a new bound
#   bound_over VAR            has its time run out? (counts the time since
#                             the last call)
_tl_ncpu=$(nproc 2>/dev/null || echo 1)
_tl_ms() { # the time in ms into _tl_now (no fork: a poll may call it often)
	local t=${EPOCHREALTIME/[.,]/}
	_tl_now=$((10#${t:0:-3}))
}
bound_start() { # VAR SECONDS
	# shellcheck disable=SC2178 # a name for the caller's array
	local -n _tl_bref=$1
	_tl_ms
	_tl_bref=($(($2 * 1000)) 0 "$_tl_now")
}
bound_over() { # VAR
	# shellcheck disable=SC2178 # a name for the caller's array
	local -n _tl_bref=$1
	local l k
	_tl_ms
	read -r l _ </proc/loadavg
	# the load per core in hundredths, 100 (idle to busy) to 400
	l=${l/./}
	k=$((10#$l / _tl_ncpu))
	[ "$k" -ge 100 ] || k=100
	[ "$k" -le 400 ] || k=400
	_tl_bref[1]=$((_tl_bref[1] + (_tl_now - _tl_bref[2]) * 100 / k))
	_tl_bref[2]=$_tl_now
	[ "${_tl_bref[1]}" -ge "${_tl_bref[0]}" ]
}

# SECONDS as a bound for a command that takes a fixed one (timeout(1),
# a daemon's option): scaled by the load now, as bound_over counts.
bound_seconds() { # SECONDS
	local l k
	read -r l _ </proc/loadavg
	l=${l/./}
	k=$((10#$l / _tl_ncpu))
	[ "$k" -ge 100 ] || k=100
	[ "$k" -le 400 ] || k=400
	echo $(($1 * k / 100))
}

# Poll until cmd succeeds; 1 if it did not within SECONDS (a bound that
# scales with the load, above).
wait_for() { # SECONDS cmd...
	local b
	bound_start b "$1"
	shift
	while :; do
		"$@" && return 0
		bound_over b && return 1
		sleep 0.1
	done
}

_tl_say_keep() { [ -z "$_tl_debug" ] || say "keeping TEST_TMP=$TEST_TMP"; }

# The final line.  In a subshell (e.g. die in $(...)) only leave it.
test_done() {
	[ "$BASHPID" = "$$" ] || exit 1
	local checks failed
	checks=$(_tl_count) failed=$(_tl_count f)
	_tl_done=1
	: >"$TEST_TMP/.tl-done"
	if [ "$checks" -eq 0 ]; then
		_tl_say_keep
		echo "not ok - $TEST_NAME (no checks were run)"
		exit 1
	elif [ "$failed" -eq 0 ]; then
		echo "ok - $TEST_NAME ($checks checks)"
		exit 0
	else
		_tl_say_keep
		echo "not ok - $TEST_NAME ($failed of $checks checks failed)"
		exit 1
	fi
}

skip_all() { # REASON
	[ "$BASHPID" = "$$" ] || exit 1
	_tl_done=1
	: >"$TEST_TMP/.tl-done"
	echo "ok - $TEST_NAME # skip $*"
	exit 77
}

# The harness itself cannot go on: record a failure and finish the test.
die() {
	_tl_fail "error: $*"
	test_done
}

# ---------------------------------------------------------------------------
# Daemons and cleanup

_tl_daemon() { # PID NAME [SECONDS] -- remember a background daemon to stop at exit
	_tl_daemons+=("$1")
	_tl_daemon_names+=("$2")
	_tl_daemon_waits+=("${3:-3}") # how long it may take to end on SIGTERM
}

at_exit() { # cmd...
	_tl_at_exit+=("$(printf '%q ' "$@")")
}

# Is PID running (a zombie is not)?
_tl_running() {
	local state
	state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# Stop daemons in reverse start order: SIGTERM, up to 3 s (or the SECONDS
# given to _tl_daemon), then SIGKILL.
_tl_stop_daemons() {
	local i pid
	for ((i = ${#_tl_daemons[@]} - 1; i >= 0; i--)); do
		pid=${_tl_daemons[i]}
		kill -TERM "$pid" 2>/dev/null || continue
		for _ in $(seq $((${_tl_daemon_waits[i]:-3} * 10))); do
			_tl_running "$pid" || break
			sleep 0.1
		done
		_tl_running "$pid" && say "${_tl_daemon_names[i]} (pid $pid) ignored SIGTERM, killing it"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	_tl_daemons=() _tl_daemon_names=() _tl_daemon_waits=()
}

# Anything mounted under $TEST_TMP (seen from this mount namespace)?
_tl_mounts_under() { # DIR
	awk -v d="$1" 'index($5, d "/") == 1 || $5 == d { print $5 }' /proc/self/mountinfo
}

_tl_remove_tmp() {
	if [ -n "$(_tl_mounts_under "$TEST_TMP")" ]; then
		echo "# NOT removing $TEST_TMP: still has mounts:" >&2
		_tl_mounts_under "$TEST_TMP" >&2
		return
	fi
	rm -rf --one-file-system "$TEST_TMP"
}

_tl_on_exit() {
	local rc=$?
	trap - EXIT
	trap '' PIPE
	set +x
	if [ -n "$_tl_sim_child" ]; then # interrupted while the namespace runs
		kill -KILL "$_tl_sim_child" 2>/dev/null
		wait "$_tl_sim_child" 2>/dev/null
	fi
	_tl_stop_daemons
	for _tl_cmd in "${_tl_at_exit[@]}"; do
		eval "$_tl_cmd"
	done
	if [ -n "$_tl_timed_out" ]; then
		_tl_say_keep
		if [ -s "$TEST_TMP/.tl-timeout.ps" ]; then
			echo "# the processes when the watchdog fired:" >&2
			cut -c1-200 "$TEST_TMP/.tl-timeout.ps" | head -n 120 | sed 's/^/#   /' >&2
		fi
		if [ -s "$TEST_TMP/.tl-timeout.stacks" ]; then
			echo "# their daemons' threads (count, process, innermost frame first):" >&2
			cut -c1-400 "$TEST_TMP/.tl-timeout.stacks" | head -n 60 | sed 's/^/#   /' >&2
		fi
		echo "not ok - $TEST_NAME (timed out after ${TEST_TIMEOUT:-300} s; $(_tl_count f) of $(_tl_count) checks failed)"
		: >"$TEST_TMP/.tl-done"
		rc=1
	elif [ -z "$_tl_done" ]; then
		_tl_say_keep
		echo "not ok - $TEST_NAME (aborted with exit status $rc before test_done; $(_tl_count f) of $(_tl_count) checks failed)"
		: >"$TEST_TMP/.tl-done"
		rc=1
	fi
	if [ -z "$_tl_inside" ]; then
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || [ -z "$_tl_debug" ]; then
			_tl_remove_tmp
		fi
	fi
	exit "$rc"
}
trap _tl_on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
trap 'exit 141' PIPE

# ---------------------------------------------------------------------------
# sim_host NAME|none
#
# First run (outside): build the fixture with tests/fixtures/mkhost.sh NAME
# $TEST_TMP/host, then run this same script again, with the same arguments,
# inside "unshare --mount --pid --fork --mount-proc --propagation private"
# and exit with its status.  Second run (inside): an empty tmpfs over
# /var/lib/one (where the lease ledger lives) and /dev/shm (oneib-vf's
# shared views), so that no test reads or writes the machine's own; then
# the fixture over /sys, with the real /sys/fs, /sys/devices/system,
# /sys/kernel/mm, ... grafted back wherever the fixture leaves them out.
# Everything started in the namespace dies with it, and nothing stays
# mounted.
# Call it first: the part of the test before it runs twice.

_TL_SYS_GRAFTS="fs devices/system bus/node kernel/mm kernel/security kernel/debug kernel/tracing firmware power hypervisor"

sim_host() {
	local name=${1:?sim_host: NAME or none}
	if [ -n "$_tl_inside" ]; then
		_tl_sim_host_inside "$name"
		return
	fi
	[ "$(id -u)" = 0 ] || skip_all "sim_host needs root (mount and pid namespaces)"
	command -v unshare >/dev/null || die "unshare not found (util-linux)"
	if [ "$name" != none ]; then
		local mk=${SIM_MKHOST:-$TOP/tests/fixtures/mkhost.sh}
		[ -f "$mk" ] || die "fixture generator missing: $mk"
		if ! bash "$mk" "$name" "$TEST_TMP/host" >"$TEST_TMP/mkhost.log" 2>&1; then
			_tl_show "$TEST_TMP/mkhost.log" 20 "mkhost.sh $name"
			die "mkhost.sh $name failed"
		fi
		[ -d "$TEST_TMP/host/sys" ] || die "mkhost.sh $name made no $TEST_TMP/host/sys"
	fi
	rm -f "$_tl_results" # the checks are made (again) inside
	_TL_INSIDE=$TEST_PATH _TL_TEST_TMP=$TEST_TMP _TL_SIM_HOST=$name \
		_TL_KEEP_VARLIB=${SIM_KEEP_VARLIB:-} \
		unshare --mount --pid --fork --kill-child --mount-proc \
		${SIM_NETNS:+--net} --propagation private -- \
		bash "$TEST_PATH" "${TEST_ARGS[@]}" &
	_tl_sim_child=$!
	local rc
	wait "$_tl_sim_child"
	rc=$?
	_tl_sim_child=
	_tl_done=1
	if [ ! -e "$TEST_TMP/.tl-done" ]; then
		_tl_say_keep
		echo "not ok - $TEST_NAME (namespace died with status $rc)"
		rc=1
	fi
	exit "$rc"
}

# _tl_mount_sys FIXTURE_SYS SCRATCH_DIR: in the current mount namespace,
# FIXTURE_SYS over /sys, with the real /sys/fs, /sys/devices/system, ...
# grafted back wherever the fixture leaves them out (SCRATCH_DIR holds the
# real /sys meanwhile). Also run by tests/lib/hosts.sh in each host's
# namespace. Messages on stderr, 1 on failure.
_tl_mount_sys() {
	local fix=$1 real=$2 rel grafts=()
	mkdir -p "$real" || return 1
	mount --rbind /sys "$real" || { echo "cannot rbind /sys" >&2; return 1; }
	for rel in $_TL_SYS_GRAFTS; do
		[ -e "$real/$rel" ] || continue
		[ -L "$fix/$rel" ] && continue
		# a fixture that has something there wins
		[ -d "$fix/$rel" ] && [ -n "$(ls -A "$fix/$rel")" ] && continue
		mkdir -p "$fix/$rel" && grafts+=("$rel")
	done
	mount --bind "$fix" /sys || { echo "cannot bind $fix over /sys" >&2; return 1; }
	for rel in "${grafts[@]}"; do
		mount --rbind "$real/$rel" "/sys/$rel" || { echo "cannot graft /sys/$rel" >&2; return 1; }
	done
	umount -l "$real" || { echo "cannot detach $real" >&2; return 1; }
}

_tl_sim_host_inside() {
	local name=$1
	[ "$name" = "$_TL_SIM_HOST" ] || die "sim_host called twice ($_TL_SIM_HOST, $name)"
	[ "$$" = 1 ] || die "sim_host: expected to be pid 1 of the new namespace"
	# The machine may be a hypervisor where one-ib runs: its lease ledger
	# (/var/lib/one/ib) and the views oneib-vf shares (/dev/shm) are
	# production state. Every simulated host has its own, empty.
	# (SIM_KEEP_VARLIB: the namespace this one is made in has its own
	# already, a real front-end's, oneadmin's home there: a scenario of
	# tests/lib/one-session.sh)
	if [ -z "${_TL_KEEP_VARLIB:-}" ]; then
		mkdir -p /var/lib/one &&
			mount -t tmpfs -o mode=0755 tmpfs /var/lib/one ||
			die "sim_host: cannot give the namespace its own /var/lib/one"
	fi
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm ||
		die "sim_host: cannot give the namespace its own /dev/shm"
	unset _TL_KEEP_VARLIB
	if [ "$name" != none ]; then
		SIM_HOST_DIR=$TEST_TMP/host
		export SIM_HOST_DIR
		_tl_mount_sys "$SIM_HOST_DIR/sys" "$TEST_TMP/.realsys" || die "cannot mount the fixture over /sys"
	fi
	unset _TL_SIM_HOST

	# Watchdog, inside the namespace so that it cannot outlive the test:
	# after TEST_TIMEOUT (a bound that scales with the load, as every
	# other: a QEMU guest boot at a load of 7 per core ran past a fixed
	# 300 s), tell this shell (pid 1) to stop and kill every other
	# process of the namespace (kill -1 spares pid 1 and the caller).
	trap '_tl_timed_out=1; exit 1' USR1
	(
		trap - EXIT INT TERM HUP PIPE USR1
		bound_start _tl_wd "${TEST_TIMEOUT:-300}"
		until bound_over _tl_wd; do sleep 2; done
		[ "$$" = 1 ] || exit 0 # never outside a namespace of our own
		# what hangs, for the report (_tl_on_exit prints it)
		ps -eo pid,ppid,stat,etimes,wchan:24,args >"$TEST_TMP/.tl-timeout.ps" 2>&1
		_tl_stacks >"$TEST_TMP/.tl-timeout.stacks" 2>&1
		kill -USR1 1
		kill -KILL -1
	) </dev/null >/dev/null 2>&1 &
	return 0
}

# The threads of every libvirtd and virsh of the namespace when the watchdog
# fires, one line per kind of thread (gdb's backtrace, innermost first), so
# that a daemon that stopped answering shows where it waits.
_tl_stacks() {
	local pid
	command -v gdb >/dev/null || return 0
	for pid in $(pgrep -x 'libvirtd|virsh'); do
		timeout 30 gdb -p "$pid" -batch -nx -ex 'thread apply all bt 12' 2>/dev/null |
			awk -v p="$pid" -v c="$(cat "/proc/$pid/comm" 2>/dev/null)" '
				/^Thread / { if (t != "") print c " " p ": " t; t = ""; next }
				/^#[0-9]/ { f = ($3 == "in") ? $4 : $2; t = (t == "") ? f : t " < " f }
				END { if (t != "") print c " " p ": " t }' | sort | uniq -c
	done
}

_tl_require_inside() {
	[ -n "$_tl_inside" ] || die "$1 needs sim_host (NAME or none) to be called first"
}

# ---------------------------------------------------------------------------
# sim_libvirtd: a private libvirtd with only the built-in test driver.
# tmpfs over /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt,
# log in $TEST_TMP/libvirt/libvirtd.log.  One virsh connection is kept open
# for the test's lifetime so test-driver domains persist between commands.

sim_libvirtd() {
	_tl_require_inside sim_libvirtd
	command -v libvirtd >/dev/null || die "libvirtd not found (apt-get install libvirt-daemon)"
	command -v virsh >/dev/null || die "virsh not found (apt-get install libvirt-clients)"
	local d=$TEST_TMP/libvirt dir pid
	mkdir -p "$d/drivers"
	for dir in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do
		mkdir -p "$dir" || die "cannot create $dir"
		mount -t tmpfs -o mode=0755 tmpfs "$dir" || die "cannot mount tmpfs on $dir"
	done
	cat >"$d/libvirtd.conf" <<-EOF
	unix_sock_dir = "/run/libvirt"
	auth_unix_rw = "none"
	auth_unix_ro = "none"
	log_outputs = "2:file:$d/libvirtd.log"
	EOF
	(cd "$d" && LIBVIRT_DRIVER_DIR=$d/drivers exec libvirtd -f "$d/libvirtd.conf" \
		-p "$d/libvirtd.pid") </dev/null >"$d/libvirtd.out" 2>&1 &
	pid=$!
	_tl_daemon "$pid" libvirtd
	if ! _tl_wait_daemon 10 "$pid" test -S /run/libvirt/libvirt-sock; then
		_tl_show "$d/libvirtd.out" 10 libvirtd.out
		_tl_show "$d/libvirtd.log" 20 libvirtd.log
		die "libvirtd did not come up within 10 s"
	fi
	export LIBVIRT_URI='test+unix:///default?socket=/run/libvirt/libvirt-sock'
	export LIBVIRT_DEFAULT_URI=$LIBVIRT_URI
	virsh -c "$LIBVIRT_URI" event --all --loop </dev/null >/dev/null 2>"$d/holder.err" &
	_tl_daemon $! virsh-event
	if ! _tl_wait_daemon 10 "$pid" _tl_libvirt_has_client; then
		_tl_show "$d/holder.err" 10 "virsh event"
		_tl_show "$d/libvirtd.log" 20 libvirtd.log
		die "the virsh connection holder did not connect within 10 s"
	fi
}

# Wait until cmd succeeds: 0; 1 when SECONDS pass or daemon PID exits first.
_tl_wait_daemon() { # SECONDS PID cmd...
	local b pid=$2
	bound_start b "$1"
	shift 2
	while :; do
		"$@" && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			say "daemon (pid $pid) exited during startup"
			return 1
		fi
		bound_over b && return 1
		sleep 0.1
	done
}

_tl_libvirt_has_client() {
	virt-admin -c 'libvirtd:///system?socket=/run/libvirt/libvirt-admin-sock' \
		client-list libvirtd 2>/dev/null | grep -q unix
}

# ---------------------------------------------------------------------------
# sim_fabric NETFILE [PARTITIONS_CONF]: ibsim with NETFILE and opensm on the
# first Hca of NETFILE (or $SIM_SM_NODE); waits for "SUBNET UP".
# Files under SIM_FABRIC ($SIM_FABRIC_DIR, default $TEST_TMP/fabric): fabric.net ibsim.log opensm.conf opensm.log
# partitions.conf (= $SIM_PARTITIONS; without PARTITIONS_CONF it holds only
# the default partition).  Rewrite $SIM_PARTITIONS, then sim_opensm_reread.

_tl_find_umad2sim() {
	local f
	for f in /usr/lib/*/umad2sim/libumad2sim.so /usr/lib*/umad2sim/libumad2sim.so \
		/usr/local/lib*/umad2sim/libumad2sim.so; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

sim_fabric() { # NETFILE [PARTITIONS_CONF]
	_tl_require_inside sim_fabric
	local net=${1:?sim_fabric: NETFILE} parts=$2 d=${SIM_FABRIC_DIR:-$TEST_TMP/fabric} pid sm
	[ -f "$net" ] || die "sim_fabric: no such net file: $net"
	[ -z "$parts" ] || [ -f "$parts" ] || die "sim_fabric: no such partitions file: $parts"
	command -v ibsim >/dev/null || die "ibsim not found (apt-get install ibsim-utils)"
	command -v opensm >/dev/null || die "opensm not found (apt-get install opensm)"
	UMAD2SIM=$(_tl_find_umad2sim) || die "libumad2sim.so not found (apt-get install ibsim-utils)"
	# ibsim's sockets are abstract unix sockets: shared by every test on
	# this network namespace, so each test needs its own name.
	IBSIM_SOCKNAME=ibsim-${TEST_TMP##*/}
	SIM_FABRIC=$d
	SIM_PARTITIONS=$d/partitions.conf
	SIM_OPENSM_LOG=$d/opensm.log
	SIM_IBSIM_LOG=$d/ibsim.log
	export SIM_FABRIC UMAD2SIM IBSIM_SOCKNAME SIM_PARTITIONS SIM_OPENSM_LOG SIM_IBSIM_LOG
	mkdir -p "$d/osm" "$d/cache" "$d/client"
	rm -f "$d/ibsim.console"
	cp "$net" "$d/fabric.net"
	if [ -n "$parts" ]; then
		cp "$parts" "$SIM_PARTITIONS"
	else
		echo 'Default=0x7fff, ipoib : ALL=full;' >"$SIM_PARTITIONS"
	fi

	# ibsim has a console on stdin; feed it from a fifo we keep open
	# (read-write, so neither side ever sees EOF).
	mkfifo "$d/ibsim.console"
	exec {_tl_ibsim_fd}<>"$d/ibsim.console"
	(cd "$d" && exec ibsim -s "$d/fabric.net") <"$d/ibsim.console" >"$SIM_IBSIM_LOG" 2>&1 &
	pid=$!
	_tl_daemon "$pid" ibsim
	if ! _tl_wait_daemon 10 "$pid" grep -q "@$IBSIM_SOCKNAME:ctl" /proc/net/unix; then
		_tl_show "$SIM_IBSIM_LOG" 20 ibsim.log
		die "ibsim did not come up within 10 s"
	fi

	sm=${SIM_SM_NODE:-$(awk '/^(Hca|Ca)[ \t]/ { match($0, /"[^"]*"/);
		print substr($0, RSTART + 1, RLENGTH - 2); exit }' "$d/fabric.net")}
	[ -n "$sm" ] || die "sim_fabric: no Hca in $net for the SM"
	cat >"$d/opensm.conf" <<-EOF
	log_file $SIM_OPENSM_LOG
	force_log_flush TRUE
	dump_files_dir $d/
	partition_config_file $SIM_PARTITIONS
	per_module_logging_file $d/none
	qos_policy_file $d/none
	prefix_routes_file $d/none
	EOF
	# more lines (a later line wins): what opensm reads only at start
	[ -z "${SIM_OPENSM_CONF:-}" ] || printf '%s\n' "$SIM_OPENSM_CONF" >>"$d/opensm.conf"
	(cd "$d/osm" && LD_PRELOAD=$UMAD2SIM SIM_HOST=$sm OSM_CACHE_DIR=$d/cache \
		OSM_TMP_DIR=$d exec opensm -F "$d/opensm.conf" -f "$SIM_OPENSM_LOG" \
		-P "$SIM_PARTITIONS") </dev/null >"$d/opensm.out" 2>&1 &
	_tl_opensm_pid=$!
	_tl_daemon "$_tl_opensm_pid" opensm
	SIM_OPENSM_PID_FILE=$d/opensm.pid
	echo "$_tl_opensm_pid" >"$SIM_OPENSM_PID_FILE"
	export SIM_OPENSM_PID_FILE
	if ! _tl_wait_daemon 20 "$_tl_opensm_pid" grep -qs "SUBNET UP" "$SIM_OPENSM_LOG"; then
		_tl_show "$d/opensm.out" 10 opensm.out
		_tl_show "$SIM_OPENSM_LOG" 20 opensm.log
		_tl_show "$SIM_IBSIM_LOG" 10 ibsim.log
		die "opensm did not report SUBNET UP within 20 s"
	fi
}

_tl_subnet_ups() { grep -c "SUBNET UP" "$SIM_OPENSM_LOG"; }
_tl_subnet_ups_gt() { [ "$(_tl_subnet_ups)" -gt "$1" ]; }
sim_opensm_sweeps() { _tl_subnet_ups; }

# Wait (30 s at most) until opensm has finished the heavy sweeps it was
# asked for, whoever asked: its count of finished sweeps the same for 3 s
# running. For a test about to count sweeps after runs that may or may not
# have signalled it.
sim_opensm_settle() {
	# shellcheck disable=SC2034 # b: bound_start's and bound_over's
	local last now same=0 b
	bound_start b 30
	last=$(_tl_subnet_ups)
	while ! bound_over b; do
		sleep 1
		now=$(_tl_subnet_ups)
		if [ "$now" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -lt 3 ] || return 0
		else
			same=0 last=$now
		fi
	done
	die "opensm kept sweeping for 30 s"
}

# Wait until opensm has finished more than N heavy sweeps (after something
# else, e.g. the code under test, sent it SIGHUP).
sim_opensm_wait_sweep() { # N
	if ! wait_for 20 _tl_subnet_ups_gt "${1:?sim_opensm_wait_sweep: N}"; then
		_tl_show "$SIM_OPENSM_LOG" 20 opensm.log
		die "opensm did not finish a sweep within 20 s"
	fi
}

# Make opensm re-read its config (partitions) and wait until the heavy
# sweep this triggers has completed (each heavy sweep logs "SUBNET UP").
# (A sweep already past its partition step when SIGHUP comes would be
# counted instead; opensm then sweeps again.  A quiet simulated fabric
# has no sweep in progress.)
sim_opensm_reread() {
	[ -n "$_tl_opensm_pid" ] || die "sim_opensm_reread: no sim_fabric"
	local n
	n=$(_tl_subnet_ups)
	kill -HUP "$_tl_opensm_pid" || die "opensm is not running"
	if ! wait_for 20 _tl_subnet_ups_gt "$n"; then
		_tl_show "$SIM_OPENSM_LOG" 20 opensm.log
		die "opensm did not finish a sweep within 20 s of SIGHUP"
	fi
}

# kill -9 the master SM (MASTER_PID) as a standby (STANDBY_PIDs) sees it on
# a real fabric, without two artefacts of ibsim (reference/sm-redundancy.md,
# simulator limit 1: a MAD nobody answers never times out), either of which
# leaves a standby's SMInfo poll outstanding forever, and opensm's takeover
# sweep waits for every outstanding MAD (seen: "Entering DISCOVERING
# state", then nothing):
#   - a poll the master had read but not answered when it died: so the
#     standbys are stopped and the master given a load-scaled second to
#     answer what it holds before the kill;
#   - the first MAD ibsim forwards to a client that died: its write fails
#     and ibsim drops the MAD without an answer (ibsim.log: "client 0 seems
#     to be dead - disconnecting", "write failed: Connection refused - pkt
#     dropped"). On a host the kernel closes a dead process's umad port at
#     once; here the dead master's client is disconnected through ibsim's
#     console (X <client>) before the standbys go on.
# SIM_SM_KILLED_AT: the time of the kill (date +%s.%N).
sim_kill_master_sm() { # MASTER_PID STANDBY_PID...
	local m=${1:?sim_kill_master_sm: MASTER_PID} p c
	shift
	[ -n "$_tl_ibsim_fd" ] || die "sim_kill_master_sm: no sim_fabric"
	for p; do kill -STOP "$p" || die "standby SM $p is not running"; done
	sleep "$(bound_seconds 1)"
	c=$(_tl_ibsim_client_of "$m") || die "ibsim lists no client of the master SM (pid $m)"
	disown "$m" 2>/dev/null # no "Killed" notice from the shell that started it
	kill -9 "$m" || die "the master SM $m is not running"
	# shellcheck disable=SC2034 # the caller's, for its takeover time
	SIM_SM_KILLED_AT=$(date +%s.%N)
	wait_for 10 eval '! _tl_running "$m"' || die "the master SM $m did not die"
	sim_ibsim "X $c"
	wait_for 10 eval '! _tl_ibsim_client_of "$m" >/dev/null' ||
		die "ibsim did not disconnect the master SM's client $c"
	for p; do kill -CONT "$p"; done
}

# ibsim's number for the client of process PID, from its console's
# "Attached" list ("Client 0: pid 123 connected at ..."), read back up to
# a comment sent after it (ibsim echoes comments); 1 when none.
_tl_ibsim_client_of() { # PID
	local n mark c
	n=$(wc -c <"$SIM_IBSIM_LOG")
	mark="# attached $1 $n $RANDOM"
	sim_ibsim Attached
	sim_ibsim "$mark"
	wait_for 10 eval 'tail -c +"$((n + 1))" "$SIM_IBSIM_LOG" | grep -qF "$mark"' ||
		die "ibsim's console did not answer 'Attached'"
	c=$(tail -c +"$((n + 1))" "$SIM_IBSIM_LOG" | sed -n "s/^Client \([0-9]*\): pid $1 connected .*/\1/p" | head -n 1)
	[ -n "$c" ] && echo "$c"
}

# Run an IB client (smpquery, saquery, ibaddr, ...; an executable, not a
# shell function) attached to fabric node NODE, killed after
# $SIM_CLIENT_TIMEOUT (30) s.  Note: under umad2sim the client sees the
# simulated device "ibsim0" in /sys/class/infiniband, not the fixture's.
sim_client() { # NODE cmd...
	[ -n "$UMAD2SIM" ] || die "sim_client: no sim_fabric"
	local node=$1
	shift
	(cd "$SIM_FABRIC/client" && LD_PRELOAD=$UMAD2SIM SIM_HOST=$node \
		exec timeout --foreground -k 2 "${SIM_CLIENT_TIMEOUT:-30}" "$@")
}

# Print the (decimal) LID of port 1 of fabric node NODE.
sim_lid() { # NODE
	local out
	out=$(sim_client "$1" ibaddr) || return 1
	out=$(printf '%s\n' "$out" | sed -n 's/.*LID start \(0x[0-9a-fA-F]*\).*/\1/p')
	[ -n "$out" ] || return 1
	echo $((out))
}

# Send a console command to ibsim (its answer goes to $SIM_IBSIM_LOG).
sim_ibsim() { # CMD...
	[ -n "$_tl_ibsim_fd" ] || die "sim_ibsim: no sim_fabric"
	printf '%s\n' "$*" >&"$_tl_ibsim_fd"
}

[ -n "$_tl_trace" ] && set -x
