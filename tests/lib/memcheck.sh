# shellcheck shell=bash
# Memory checks for the helpers, sourced after test-lib.sh: a run under
# valgrind (memcheck: no invalid access, no definite leak) and a run of the
# ASan+UBSan build (make asan-build: $TOP/build/asan/bin) must each exit as
# wanted and report nothing.
#
#   mc_check WANT LABEL PROG ARGS...
#                      PROG ARGS under valgrind, then the ASan+UBSan build
#                      of PROG ($TOP/build/asan/bin/<its name>) with ARGS;
#                      each starts from the state the other left
#   mc_valgrind WANT LABEL CMD ARGS...   only the valgrind run
#   mc_asan WANT LABEL CMD ARGS...       only the sanitizer run (CMD is an
#                                        ASan+UBSan build)
#
# Each run's stdin is the caller's; its output is left in $TEST_TMP/vg.out
# and vg.err (valgrind) or asan.out and asan.err (sanitizers), for checks
# after the call. Checks: valgrind's exit status (99 = memcheck error, its
# log shown); the sanitizer build's exit status, no error report, no
# sanitizer message at all.
#
# Parameters (shell variables, arrays, set by the test):
#   MC_ON=(CMD...)         put before every run, e.g. (unshare -n --) for a
#                          private network namespace, (sim_client sm) for a
#                          client of the simulated fabric
#   MC_VALGRIND_OPTS=(...) more valgrind options (e.g. --suppressions=FILE)
#   MC_ASAN_OPTS=(...)     more ASAN_OPTIONS entries (e.g. suppressions=FILE)

MC_ON=() MC_VALGRIND_OPTS=() MC_ASAN_OPTS=()
MC_ASAN_BIN=$TOP/build/asan/bin

mc_valgrind() { # WANT LABEL CMD ARGS...
	local want=$1 label=$2 rc
	shift 2
	command -v valgrind >/dev/null || die "valgrind not installed"
	"${MC_ON[@]}" valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "${MC_VALGRIND_OPTS[@]}" \
		--log-file="$TEST_TMP/vg.log" "$@" >"$TEST_TMP/vg.out" 2>"$TEST_TMP/vg.err"
	rc=$?
	assert_eq "$want" "$rc" "valgrind: $label (exit status; 99 = memcheck error)" && return 0
	_tl_show "$TEST_TMP/vg.log" 40 "valgrind log"
	_tl_show "$TEST_TMP/vg.err" 15 stderr
	return 0
}

mc_asan() { # WANT LABEL CMD ARGS...
	local want=$1 label=$2 rc opts=detect_leaks=1 o
	shift 2
	command -v -- "$1" >/dev/null || die "ASan build missing: $1: run make check (or make asan-build)"
	for o in "${MC_ASAN_OPTS[@]}"; do
		opts+=":$o"
	done
	ASAN_OPTIONS=$opts UBSAN_OPTIONS=print_stacktrace=1 "${MC_ON[@]}" "$@" \
		>"$TEST_TMP/asan.out" 2>"$TEST_TMP/asan.err"
	rc=$?
	assert_eq "$want" "$rc" "asan+ubsan: $label (exit status)" ||
		_tl_show "$TEST_TMP/asan.err" 15 stderr
	assert_eq "" "$(grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$TEST_TMP/asan.err")" \
		"asan+ubsan: $label: no report"
	assert_eq "" "$(grep -E '^==[0-9]+==' "$TEST_TMP/asan.err")" \
		"asan+ubsan: $label: no sanitizer message at all"
	return 0
}

mc_check() { # WANT LABEL PROG ARGS...
	local want=$1 label=$2 prog=$3
	shift 3
	mc_valgrind "$want" "$label" "$prog" "$@"
	mc_asan "$want" "$label" "$MC_ASAN_BIN/${prog##*/}" "$@"
}
