#!/bin/bash
# Harness: whatever way a sim_host test ends (failed check, timeout,
# SIGTERM), the daemons it started are gone and nothing stays mounted.
. "$(dirname "$0")/../lib/test-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (the child tests use sim_host)"

# PIDs + names of the processes whose environment has TEST_TMP=$1, i.e.
# everything the child test with that TEST_TMP started.
procs_of() {
	local p
	for p in /proc/[0-9]*; do
		grep -qzxF "TEST_TMP=$1" "$p/environ" 2>/dev/null &&
			echo "${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
	done
}
mounts_of() { grep -F "$1" /proc/self/mountinfo; }

# child NAME BODY: write a test script that starts libvirtd, ibsim and
# opensm, reports its TEST_TMP, says "ready", then runs BODY.
child() {
	mkdir -p "$TEST_TMP/$1.ctl"
	cat >"$TEST_TMP/$1.sh" <<-EOF
	#!/bin/bash
	. "$TOP/tests/lib/test-lib.sh"
	sim_host none
	sim_libvirtd
	sim_fabric "$TOP/tests/e2e/data/fabric-2sw-4hca.net"
	echo "\$TEST_TMP" >"$TEST_TMP/$1.ctl/tmp"
	: >"$TEST_TMP/$1.ctl/ready"
	$2
	EOF
}

run_child() { # NAME [ENV=VAL...]: start it in the background, wait for "ready"
	local name=$1
	shift
	env "$@" bash "$TEST_TMP/$name.sh" >"$TEST_TMP/$name.out" 2>&1 &
	child_pid=$!
	if wait_for 30 test -e "$TEST_TMP/$name.ctl/ready"; then
		child_tmp=$(cat "$TEST_TMP/$name.ctl/tmp")
	else
		child_tmp=/nonexistent
		cat "$TEST_TMP/$name.out"
	fi
	local running
	running=$(procs_of "$child_tmp")
	for d in libvirtd ibsim opensm; do
		assert_match " $d\$" "$running" "$name: $d is running in the child and can be found"
	done
}

check_gone() { # NAME: the child has finished; check what it left behind
	assert_eq "" "$(procs_of "$child_tmp")" "$1: no process of the child survives"
	assert_eq "" "$(mounts_of "$child_tmp")" "$1: nothing mounted under the child's TEST_TMP"
	assert_eq "$run_libvirt_before" "$(findmnt -n /run/libvirt)" \
		"$1: /run/libvirt is as before out here"
	assert_fail "$1: the child's TEST_TMP was removed" -- test -e "$child_tmp"
}
run_libvirt_before=$(findmnt -n /run/libvirt)

# 1. a failing check
child fail 'wait_for 30 test -e "'"$TEST_TMP"'/fail.ctl/go"
assert_eq expected actual "deliberate failure"
test_done'
run_child fail
: >"$TEST_TMP/fail.ctl/go"
wait "$child_pid"
assert_eq 1 $? "fail: exit status 1"
assert_match '^FAIL 1: deliberate failure$' "$(cat "$TEST_TMP/fail.out")" "fail: the failed check is shown"
assert_match '^not ok - fail.sh \(1 of 1 checks failed\)$' "$(tail -n 1 "$TEST_TMP/fail.out")" \
	"fail: final line"
check_gone fail

# 2. a test that hangs until TEST_TIMEOUT
child hang 'sleep 600
test_done'
SECONDS=0
run_child hang TEST_TIMEOUT=8
wait "$child_pid"
assert_eq 1 $? "hang: exit status 1"
# a bound that scales with the load: 8 s idle, at most 4 x 8 s busy,
# then the stacks (gdb) and the cleanup
assert_eq yes "$([ "$SECONDS" -ge 8 ] && [ "$SECONDS" -le 48 ] && echo yes || echo "$SECONDS s")" \
	"hang: killed after TEST_TIMEOUT=8 s of the load-scaled bound (and the stacks below)"
assert_match '^not ok - hang.sh \(timed out after 8 s; 0 of 0 checks failed\)$' "$(tail -n 1 "$TEST_TMP/hang.out")" \
	"hang: final line"
assert_match '^#   .* sleep 600$' "$(cat "$TEST_TMP/hang.out")" "hang: what hung is shown (the processes when the watchdog fired)"
assert_match '^#   +1 libvirtd [0-9]+: .* < virNetDaemonRun < main$' "$(cat "$TEST_TMP/hang.out")" \
	"hang: where its libvirtd waits is shown (the threads of its daemons, by gdb)"
check_gone hang

# 3. the test is sent SIGTERM (e.g. by a runner)
child term 'sleep 600
test_done'
run_child term
SECONDS=0
kill -TERM "$child_pid"
wait "$child_pid"
assert_eq 1 $? "term: exit status 1"
assert_match '^[0-2]$' "$SECONDS" "term: exits promptly"
assert_match '^not ok - term.sh \(aborted' "$(tail -n 1 "$TEST_TMP/term.out")" "term: final line"
check_gone term

test_done
