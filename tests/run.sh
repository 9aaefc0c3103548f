#!/bin/bash
# Runs every test make check knows about and ends with one line
#   N passed, N failed
# counting each cmocka test case, each fuzzer, cppcheck, shellcheck, the
# house rules (tests/house-rules.sh), each e2e script (a skipped one
# adds ", N skipped"), and a last check of its own: the machine's lease
# ledger (/var/lib/one/ib) and /dev/shm are byte for byte what they were
# when the run started (tests/lib/machine.sh; every simulated host has its
# own), since the machine may be a hypervisor where one-ib runs.
# Expects `make _check` to have built build/tests, build/asan/tests,
# build/fuzz, build/deb and installed the tree into build/destdir.
#
#   bash tests/run.sh                 everything
#   bash tests/run.sh t0100 t0200     only e2e tests whose names start so
#
# Jobs run side by side (ONEIB_TEST_JOBS at a time, 2 per core by default):
# each e2e script lives in namespaces of its own, and most of their time is
# spent waiting (daemons, sweeps), not computing. Results are printed in
# the usual order as they come in; the slowest jobs of the last run
# (build/test-times) start first, so the run ends sooner.
# `sh tests/run.sh` works too: dash hands over to bash.
if [ -z "$BASH_VERSION" ]; then
	exec bash "$0" "$@"
fi
set -u
# Every job runs as from a plain shell: no jobserver of the make above us.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
. tests/lib/machine.sh
machine_state >"$out/machine.before"
times=build/test-times
jobs=${ONEIB_TEST_JOBS:-$(($(nproc) * 2))}

# --- jobs: each prints its report and writes "passed failed skipped" to
# $out/N.cnt (N: its place in the list).

job_cmocka() { # binary label
	local log=$out/$n.raw p f rc
	"$1" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log")
	p=${p:-0} f=${f:-0}
	# A crash (sanitizer report) before the summary is a failure too.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	if [ "$f" -ne 0 ]; then
		echo "not ok - $2"
		sed 's/^/    /' "$log"
	else
		echo "ok - $2 ($p cases)"
	fi
	echo "$p $f 0" >"$out/$n.cnt"
}

job_asan() { # binary label
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1 job_cmocka "$@"
}

# Fuzzing, bounded: FUZZ_SECONDS each (10 by default), fixed seed.
job_fuzz() { # binary
	local log=$out/$n.raw
	if "$1" -seed=1 -max_total_time="${FUZZ_SECONDS:-10}" \
		-rss_limit_mb=1024 >"$log" 2>&1; then
		echo "ok - fuzz $(basename "$1") ($(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log") runs)"
		echo "1 0 0" >"$out/$n.cnt"
	else
		echo "not ok - fuzz $(basename "$1")"
		tail -n 30 "$log" | sed 's/^/    /'
		echo "0 1 0" >"$out/$n.cnt"
	fi
}

job_make() { # target label
	local log=$out/$n.raw
	if make --no-print-directory -s "$1" >"$log" 2>&1; then
		echo "ok - $2"
		echo "1 0 0" >"$out/$n.cnt"
	else
		echo "not ok - $2"
		sed 's/^/    /' "$log"
		echo "0 1 0" >"$out/$n.cnt"
	fi
}

job_e2e() { # script
	local log=$out/$n.raw rc
	bash "$1" >"$log" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		tail -n 1 "$log"
		echo "1 0 0" >"$out/$n.cnt"
	elif [ $rc -eq 77 ]; then
		tail -n 1 "$log"
		echo "0 0 1" >"$out/$n.cnt"
	else
		echo "not ok - $(basename "$1" .sh) (exit $rc)"
		sed 's/^/    /' "$log"
		echo "0 1 0" >"$out/$n.cnt"
	fi
}

# --- the list, in the order results are printed -----------------------------
names=() cmds=()
add() { # NAME FUNCTION ARGS...
	names+=("$1")
	shift
	cmds+=("$(printf '%q ' "$@")")
}

if [ $# -eq 0 ]; then
	for t in build/tests/test_*; do
		add "unit-$(basename "$t")" job_cmocka "$t" "unit $(basename "$t")"
	done
	for t in build/asan/tests/test_*; do
		add "asan-$(basename "$t")" job_asan "$t" "unit+asan/ubsan $(basename "$t")"
	done
	for f in build/fuzz/fuzz_*; do
		[ -x "$f" ] && add "$(basename "$f")" job_fuzz "$f"
	done
	add cppcheck job_make cppcheck "cppcheck helpers/"
	add shellcheck job_make shellcheck "shellcheck (every shell script)"
	add house-rules job_make house-rules "house rules (includes and libraries of helpers/)"
fi
for t in tests/e2e/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		want=0
		for p in "$@"; do
			case $name in "$p"*) want=1 ;; esac
		done
		[ $want = 1 ] || continue
	fi
	add "$name" job_e2e "$t"
done
total=${#names[@]}

# Start order: longest first by the last run's times, unknown ones first.
order=$(
	for ((i = 0; i < total; i++)); do
		s=$(awk -v n="${names[i]}" '$1 == n { print $2 }' "$times" 2>/dev/null)
		echo "${s:-9999} $i"
	done | sort -k1,1nr -k2,2n | cut -d' ' -f2
)

running=0 printed=0
flush() { # print finished jobs in list order, as far as they go
	while [ $printed -lt "$total" ] && [ -e "$out/$printed.count" ]; do
		cat "$out/$printed.log"
		printed=$((printed + 1))
	done
}
for i in $order; do
	while [ $running -ge "$jobs" ]; do
		wait -n
		running=$((running - 1))
		flush
	done
	n=$i
	(
		TIMEFORMAT="${names[i]} %R %U %S" # wall, user and system seconds
		{ time eval "${cmds[i]}" >"$out/$n.log"; } 2>"$out/$n.time"
		[ -s "$out/$n.cnt" ] || echo "0 1 0" >"$out/$n.cnt"
		mv "$out/$n.cnt" "$out/$n.count" # done: flush may print it
	) &
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	wait -n
	running=$((running - 1))
	flush
done
flush

passed=0 failed=0 skipped=0
# The machine's ledger and shared memory, untouched by the whole run.
if machine_changes "$out/machine.before" >"$out/machine.diff"; then
	echo "not ok - the run changed the machine's /var/lib/one/ib or /dev/shm"
	sed 's/^/    /' "$out/machine.diff"
	failed=$((failed + 1))
else
	echo "ok - the machine's /var/lib/one/ib and /dev/shm as they were before the run"
	passed=$((passed + 1))
fi
for ((i = 0; i < total; i++)); do
	if [ ! -e "$out/$i.count" ]; then
		echo "not ok - ${names[i]} (no result)"
		failed=$((failed + 1))
		continue
	fi
	read -r p f s <"$out/$i.count"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
# Seconds each job took (wall, user, system), slowest first: the next full
# run's start order.
mkdir -p build
tail -qn 1 "$out"/*.time 2>/dev/null | sort -k2,2nr >"$times.last"
[ $# -gt 0 ] || cp "$times.last" "$times"

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
