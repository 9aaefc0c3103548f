#!/bin/bash
# Runs every test make check knows about and ends with one line
#   N passed, N failed
# counting each cmocka test case, each fuzzer, cppcheck, shellcheck, the
# house rules (tests/house-rules.sh), the docs (tests/docs.sh), each e2e
# script, each build of OpenNebula and each real front-end scenario on
# each release (a skipped one adds ", N skipped"), and a last check of its
# own: the machine's lease ledger (/var/lib/one/ib) and /dev/shm are byte
# for byte what they were when the run started (tests/lib/machine.sh;
# every simulated host has its own), since the machine may be a
# hypervisor where one-ib runs.
# Expects `make _check` to have built build/tests, build/asan/tests,
# build/fuzz, build/deb and installed the tree into build/destdir.
#
#   bash tests/run.sh                 everything
#   bash tests/run.sh t0100 t0200     only the jobs whose names start so
#                                     (e2e tests, fuzz_..., unit-..., asan-...,
#                                     cppcheck, shellcheck, house-rules, docs)
#   bash tests/run.sh t07             the real front-end scenarios (tests/one),
#                                     on every release, with their builds
#
# The real OpenNebula front-end (tests/one/t*.sh, tests/lib/one.sh) runs on
# each release of ONE_VERSIONS: one job per release ("one-session@7.0.0"),
# after the job that builds that release (tests/lib/one-build.sh: minutes
# on a fresh machine, a cache look-up after), runs every scenario on one
# front-end started once (tests/lib/one-session.sh), each scenario counted
# and named as it was a job of its own ("t0700-one-vm-lifecycle@7.0.0":
# asked for by that name, its release's session runs it alone). The
# builds start first, one after the other (each uses every core), and a
# session takes a slot once its release is built, so the builds overlap
# the rest of the suite and the first release's scenarios run during the
# second build. Without ../shared/third-party they all skip, saying why.
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
# The tests' temporary files on a tmpfs of the run's own (issue 30: on
# this machine's ext4 the sysfs tree of one simulated host takes 1.2 s of
# system time to write, on tmpfs 0.02 s, and the suite writes hundreds of
# them, front-ends and ledgers besides): a new directory under the
# machine's TMPDIR (/tmp), a tmpfs mounted on it in a mount namespace of
# the run's own, TMPDIR for every job; gone with the run. (Not a tmpfs
# over /tmp itself: the checkout may be there.) ONEIB_RUN_TMP=disk keeps
# the machine's TMPDIR (to look at a test's files after the run, with -d).
if [ -z "${_ONEIB_RUN_TMPFS:-}" ] && [ "${ONEIB_RUN_TMP:-tmpfs}" = tmpfs ] &&
	[ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	d=$(mktemp -d "${TMPDIR:-/tmp}/oneib-run.XXXXXX") || exit 1
	_ONEIB_RUN_TMPFS=$d unshare --mount --propagation private -- sh -c '
		if mount -t tmpfs -o mode=1777 tmpfs "$_ONEIB_RUN_TMPFS"; then
			export TMPDIR="$_ONEIB_RUN_TMPFS"
		else
			echo "tests/run.sh: no tmpfs for the tests'"'"' files; the machine'"'"'s TMPDIR it is" >&2
		fi
		exec bash "$0" "$@"' "$0" "$@"
	rc=$?
	rmdir "$d" 2>/dev/null
	exit $rc
fi
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
ONE_VERSIONS=${ONEIB_ONE_VERSIONS:-6.10.0 7.0.0}

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

# Fuzzing, bounded: FUZZ_SECONDS each (5 by default; `make fuzz`: 300),
# fixed seed.
job_fuzz() { # binary
	local log=$out/$n.raw
	if "$1" -seed=1 -max_total_time="${FUZZ_SECONDS:-5}" \
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

# A test's result line (test_done, skip_all). Not simply its last line: bash
# may report a daemon's death after it (an opensm that segfaulted on SIGTERM
# at teardown, a test that passed), and then that report, not the result,
# would stand in the run's output; it goes on as a comment.
result_line() { # log
	awk 'r { print "    # after the result: " $0 } /^ok - / && !r { print; r = 1 }' "$1"
}

job_e2e() { # script
	local log=$out/$n.raw rc
	bash "$1" >"$log" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 0 ]; then
		result_line "$log"
		echo "1 0 0" >"$out/$n.cnt"
	elif [ $rc -eq 77 ]; then
		result_line "$log"
		echo "0 0 1" >"$out/$n.cnt"
	else
		echo "not ok - $(basename "$1" .sh) (exit $rc)"
		sed 's/^/    /' "$log"
		echo "0 1 0" >"$out/$n.cnt"
	fi
}

# One build of OpenNebula (tests/lib/one-build.sh): built, found in the
# cache, or skipped (no sources).
job_build() { # VERSION
	local log=$out/$n.raw rc t=$SECONDS dir
	dir=$(bash tests/lib/one-build.sh "$1" 2>"$log")
	rc=$?
	if [ $rc -eq 0 ]; then
		if [ $((SECONDS - t)) -gt 5 ]; then
			echo "ok - OpenNebula $1 built in $((SECONDS - t)) s ($dir)"
		else
			echo "ok - OpenNebula $1 built ($dir, cached)"
		fi
		echo "1 0 0" >"$out/$n.cnt"
	elif [ $rc -eq 77 ]; then
		echo "ok - OpenNebula $1 # skip $(tail -n 1 "$log")"
		echo "0 0 1" >"$out/$n.cnt"
	else
		echo "not ok - OpenNebula $1 build"
		sed 's/^/    /' "$log"
		echo "0 1 0" >"$out/$n.cnt"
	fi
}

# The real front-end scenarios SCRIPT... of release VERSION in one session
# (tests/lib/one-session.sh): each scenario's result line, a failed one's
# output below it (indented), each counted; how long the front-end's start
# and each scenario took into $out/N.scen for the report.
job_session() { # VERSION SCRIPT...
	local v=$1 log=$out/$n.raw rc c
	shift
	ONEIB_ONE_VERSION=$v ONEIB_ONE_SCRIPTS="$*" bash tests/lib/one-session.sh >"$log" 2>&1 </dev/null
	rc=$?
	awk '/^(not )?ok - / { print; next } /^session: [0-9]+ passed/ { next }
		/^# session: / { next } { print "    " $0 }' "$log"
	sed -n 's/^# session: \([^ ]*\) took \([0-9]*\) s$/\1 \2/p' "$log" >"$out/$n.scen"
	c=$(sed -n 's/^session: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log")
	if [ $rc -eq 77 ]; then
		echo "0 0 $#" >"$out/$n.cnt"
	elif [ -n "$c" ]; then
		echo "$c" >"$out/$n.cnt"
	else # the session itself failed: what did not pass failed
		echo "not ok - the real front-end session of OpenNebula $v (exit $rc)"
		c=$(grep -c '^ok - ' "$log")
		echo "$c $(($# - c > 0 ? $# - c : 1)) 0" >"$out/$n.cnt"
	fi
}

# --- the list, in the order results are printed -----------------------------
names=() cmds=() deps=()
add() { # NAME FUNCTION ARGS...
	names+=("$1")
	shift
	cmds+=("$(printf '%q ' "$@")")
	deps+=("")
}
wanted() { # NAME: asked for on the command line (or no names given)
	local p
	[ "$nargs" -eq 0 ] && return 0
	for p in "${args[@]}"; do
		case $1 in "$p"*) return 0 ;; esac
	done
	return 1
}
args=("$@") nargs=$#

for t in build/tests/test_*; do
	wanted "unit-$(basename "$t")" && add "unit-$(basename "$t")" job_cmocka "$t" "unit $(basename "$t")"
done
for t in build/asan/tests/test_*; do
	wanted "asan-$(basename "$t")" && add "asan-$(basename "$t")" job_asan "$t" "unit+asan/ubsan $(basename "$t")"
done
for f in build/fuzz/fuzz_*; do
	[ -x "$f" ] && wanted "$(basename "$f")" && add "$(basename "$f")" job_fuzz "$f"
done
wanted cppcheck && add cppcheck job_make cppcheck "cppcheck helpers/"
wanted shellcheck && add shellcheck job_make shellcheck "shellcheck (every shell script)"
wanted house-rules && add house-rules job_make house-rules "house rules (includes and libraries of helpers/)"
wanted docs && add docs job_make docs "docs against the code (settings, pages, messages: tests/docs.sh)"
for t in tests/e2e/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	add "$name" job_e2e "$t"
done
# the real front-end: each release's build, then its session; one build
# at a time (each uses every core), so that the first release's session
# runs while the next one builds
prev=
for v in $ONE_VERSIONS; do
	scripts=()
	for t in tests/one/t[0-9]*.sh; do
		[ -e "$t" ] || continue
		wanted "$(basename "$t" .sh)@$v" || wanted "one-session@$v" || continue
		scripts+=("$t")
	done
	wanted "one-build-$v" || [ ${#scripts[@]} -gt 0 ] || continue
	b=${#names[@]}
	add "one-build-$v" job_build "$v"
	deps[b]=$prev
	prev=$b
	[ ${#scripts[@]} -gt 0 ] || continue
	add "one-session@$v" job_session "$v" "${scripts[@]}"
	deps[${#names[@]} - 1]=$b
done
total=${#names[@]}

# Start order: the OpenNebula builds first, then longest first by the last
# run's times, unknown ones first; a job with a dependency waits for it.
order=$(
	for ((i = 0; i < total; i++)); do
		case ${names[i]} in
		one-build-*) s=99999 ;;
		*) s=$(awk -v n="${names[i]}" '$1 == n { print $2 }' "$times" 2>/dev/null) ;;
		esac
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
# The first job of the order whose dependency (if any) is done; none: 1.
next_job() {
	local k d
	for k in "${!pending[@]}"; do
		d=${deps[${pending[k]}]}
		[ -z "$d" ] || [ -e "$out/$d.count" ] || continue
		nxt=${pending[k]}
		unset 'pending[k]'
		return 0
	done
	return 1
}
# shellcheck disable=SC2206 # indices, one per line
pending=($order)
while [ ${#pending[@]} -gt 0 ]; do
	if [ $running -ge "$jobs" ] || ! next_job; then
		wait -n
		running=$((running - 1))
		flush
		continue
	fi
	n=$nxt
	(
		TIMEFORMAT="${names[n]} %R %U %S" # wall, user and system seconds
		echo "$SECONDS" >"$out/$n.start"
		{ time eval "${cmds[n]}" >"$out/$n.log"; } 2>"$out/$n.time"
		echo "$SECONDS" >"$out/$n.end"
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
[ "$nargs" -gt 0 ] || cp "$times.last" "$times"

# Where the time went: the setup make check timed (ONEIB_CHECK_PHASES),
# each group of jobs (how many, from the first start to the last end, the
# wall seconds of its jobs added up, their CPU), the slowest ten jobs.
group_of() { # NAME
	case $1 in
	unit-*) echo "unit" ;;
	asan-*) echo "unit+asan" ;;
	fuzz_*) echo "fuzz" ;;
	cppcheck | shellcheck | house-rules | docs) echo "static checks" ;;
	one-build-*) echo "OpenNebula builds" ;;
	*@*) echo "real front-end ${1#*@}" ;;
	t00*) echo "e2e harness (t00)" ;;
	t01*) echo "e2e discovery (t01)" ;;
	t02*) echo "e2e deploy (t02)" ;;
	t03*) echo "e2e pkey, vnet (t03)" ;;
	t04*) echo "e2e partitions (t04)" ;;
	t05*) echo "e2e guest (t05)" ;;
	t06*) echo "e2e life cycle (t06)" ;;
	*) echo "other" ;;
	esac
}
{
	echo "# where the time went: the run $SECONDS s on $(nproc) cores"
	if [ -r "${ONEIB_CHECK_PHASES:-}" ]; then
		echo "#   setup: $(awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), ($1 == "deps" ? "Debian packages" : "the build"), $2 }' "$ONEIB_CHECK_PHASES")"
	fi
	for ((i = 0; i < total; i++)); do
		[ -e "$out/$i.time" ] || continue
		read -r _ w u sy < <(tail -n 1 "$out/$i.time")
		printf '%s\t%s\t%s\t%s\t%s\n' "$(group_of "${names[i]}")" \
			"$(cat "$out/$i.start" 2>/dev/null || echo 0)" \
			"$(cat "$out/$i.end" 2>/dev/null || echo 0)" "$w" "$(echo "$u + $sy" | bc)"
	done | awk -F'\t' '
		{ g = $1; n[g]++; w[g] += $4; c[g] += $5
		  if (!(g in s) || $2 < s[g]) s[g] = $2; if ($3 > e[g]) e[g] = $3 }
		END { for (g in n) printf "#   %-26s %5d %7d %8.1f %8.1f\n", g, n[g], e[g] - s[g], w[g], c[g] }' |
		sort -k2,2 | { printf '#   %-26s %5s %7s %8s %8s\n' group jobs "span s" "wall s" "CPU s"; cat; }
	printf '#   slowest: %s\n' "$(tail -qn 1 "$out"/*.time 2>/dev/null | sort -k2,2nr | head -n 10 |
		awk '{ printf "%s%s %.0f s", (NR > 1 ? ", " : ""), $1, $2 }')"
	for f in "$out"/*.scen; do
		[ -s "$f" ] || continue
		printf '#   %s: %s\n' "${names[$(basename "$f" .scen)]}" \
			"$(awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $2 }' "$f")"
	done
}
if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
