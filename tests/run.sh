#!/bin/sh
# Runs every test make check knows about and ends with one line
#   N passed, N failed
# counting each cmocka test case, the cppcheck run, and each e2e script.
# Expects `make _check` to have built build/tests, build/asan/tests and
# installed the tree into build/destdir.
#
#   sh tests/run.sh                 everything
#   sh tests/run.sh t0100 t0200     only e2e tests whose names start so
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

note() { printf '%s\n' "$*"; }

count_cmocka() { # binary label
	"$1" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log")
	p=${p:-0} f=${f:-0}
	# A crash (sanitizer report) before the summary is a failure too.
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)) failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		note "not ok - $2"
		sed 's/^/    /' "$log"
	else
		note "ok - $2 ($p cases)"
	fi
}

if [ $# -eq 0 ]; then
	for t in build/tests/test_*; do
		count_cmocka "$t" "unit $(basename "$t")"
	done
	for t in build/asan/tests/test_*; do
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1 \
		count_cmocka "$t" "unit+asan/ubsan $(basename "$t")"
	done
	# Fuzzing, bounded: FUZZ_SECONDS each (10 by default), fixed seed.
	for f in build/fuzz/fuzz_*; do
		[ -x "$f" ] || continue
		if "$f" -seed=1 -max_total_time="${FUZZ_SECONDS:-10}" \
			-rss_limit_mb=1024 >"$log" 2>&1; then
			note "ok - fuzz $(basename "$f") ($(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log") runs)"
			passed=$((passed + 1))
		else
			note "not ok - fuzz $(basename "$f")"
			tail -n 30 "$log" | sed 's/^/    /'
			failed=$((failed + 1))
		fi
	done
	if make --no-print-directory -s cppcheck >"$log" 2>&1; then
		note "ok - cppcheck helpers/"
		passed=$((passed + 1))
	else
		note "not ok - cppcheck helpers/"
		sed 's/^/    /' "$log"
		failed=$((failed + 1))
	fi
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
	bash "$t" >"$log" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		tail -n 1 "$log"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1))
		tail -n 1 "$log"
	else
		failed=$((failed + 1))
		note "not ok - $name (exit $rc)"
		sed 's/^/    /' "$log"
	fi
done

if [ $skipped -gt 0 ]; then
	note "$passed passed, $failed failed, $skipped skipped"
else
	note "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
