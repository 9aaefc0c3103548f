#!/bin/bash
# oneib-partitions render on large synthetic clouds (tests/bench/genpools.sh):
# wall time (p50, p99 over the runs) and peak RSS of
#   oneib-partitions render --output F vms.xml hosts.xml vnets.xml
# for a first render (F absent before every run) and for an unchanged
# re-render (F already holds the text: nothing is written), and of the
# root step on the SM's host that follows it,
#   oneib-partitions-install --output F2 --no-reload F
# (strict re-parse, re-render, byte compare, then install or "unchanged").
#
# P partitions in the file (P - 1 "ib" networks plus Default) and G member
# lines in all (VF GUIDs of VMs that have a host, plus ConnectX-3 PF GUIDs):
#   P = 1000, 10000, 32767 with G = 100000
#   P = 32767 with G = 25000 and 50000 (growth in G)
#   P = 32767 with G = 5000 (context: the network pool alone large)
# in the `listing` shape (what `onevm list -x`, `onehost list -x` and
# `onevnet list -x` print: 211 MB for the largest), then P = 32767,
# G = 100000 in each shape of B40_EXTRA_SHAPES (default `lean`: only the
# elements the renderer reads, 41 MB, the floor; `extended`, the shape of
# `onevm list -x --extended`, 520 MB: opt in, it takes a few minutes).
# Goal: the largest under 250 ms and 64 MB, an unchanged re-render under
# 50 ms, time growing linearly. Printed, never asserted; the checks are
# only that each render succeeds, holds P partitions and G members, is the
# same file from every shape, and that unchanged re-renders write nothing.
#
# Environment: B40_RUNS (10) runs per figure, fewer (at least 3) when one
# render takes over B40_BUDGET_S / runs seconds (default 30 s per figure);
# ONEIB_PARTITIONS (build/bin/oneib-partitions), ONEIB_PARTITIONS_INSTALL
# (build/bin/oneib-partitions-install); B40_EXTRA_SHAPES ("lean").
. "$(dirname "$0")/../lib/test-lib.sh"

PART=${ONEIB_PARTITIONS:-$TOP/build/bin/oneib-partitions}
INST=${ONEIB_PARTITIONS_INSTALL:-$TOP/build/bin/oneib-partitions-install}
RUNSTAT=$TOP/build/bench/runstat
GEN=$TOP/tests/bench/genpools.sh
RUNS=${B40_RUNS:-10}
BUDGET_S=${B40_BUDGET_S:-30}
EXTRA_SHAPES=${B40_EXTRA_SHAPES-lean}
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"
[ -x "$PART" ] || die "$PART missing (make)"
[ -x "$INST" ] || die "$INST missing (make)"

# stats FILE: "p50_ms=.. p99_ms=.. min_ms=.." of the numbers in FILE, one
# a line (same ranks as runstat: n/2 and n*99/100).
stats() {
	sort -g "$1" | awk '{ v[NR - 1] = $1 } END {
		n = NR; p = int(n * 99 / 100); if (p > n - 1) p = n - 1
		printf "p50_ms=%.1f p99_ms=%.1f min_ms=%.1f", v[int(n / 2)], v[p], v[0] }'
}
# the value of KEY=... in a line of KEY=VALUE words
field() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# bench P G SHAPE: generate, check one render, time both paths.
p50_of=()
bench() {
	local p=$1 g=$2 shape=$3 d out gen in_b runs t1 i bad='' r rss1 rss2 fs us ino inst ri
	d=$TEST_TMP/p$p-g$g-$shape
	out=$d/partitions.conf
	assert_ok "P=$p G=$g $shape: genpools.sh" -- \
		bash "$GEN" -n $((p - 1)) -g "$g" -f "$shape" "$d/xml" || return
	gen=$(cat "$LAST_OUT")
	set -- "$d/xml/vms.xml" "$d/xml/hosts.xml" "$d/xml/vnets.xml"
	in_b=$(($(field bytes_vms "$gen") + $(field bytes_hosts "$gen") + $(field bytes_vnets "$gen")))

	# One render to check (and warm the page cache), timed to size the runs.
	t1=$EPOCHREALTIME
	assert_ok "P=$p G=$g $shape: first render succeeds" -- \
		"$PART" render --output "$out" "$@" || return
	t1=$(awk -v a="$t1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
	assert_eq "$p $g" "$(grep -c '^[A-Za-z_][A-Za-z0-9_-]*=0x[0-9a-f]\{4\}' "$out") $(($(grep -c '=full' "$out") - 1))" \
		"P=$p G=$g $shape: the file holds $p partitions and $g members" || return
	cp "$out" "$d/want.conf"
	# Every shape of one cloud gives the same file.
	if [ -f "$TEST_TMP/ref-$p-$g.conf" ]; then
		assert_file_eq "$TEST_TMP/ref-$p-$g.conf" "$out" "P=$p G=$g $shape: the same file as from the other shapes"
	else
		cp "$out" "$TEST_TMP/ref-$p-$g.conf"
	fi
	runs=$(awk -v r="$RUNS" -v t="$t1" -v b="$BUDGET_S" 'BEGIN {
		n = t > 0 ? int(b / t) : r; if (n > r) n = r; if (n < 3) n = 3; print n }')

	# First render: F removed before every run.
	: >"$d/first.raw"
	for i in $(seq "$runs"); do
		rm -f "$out"
		"$RUNSTAT" 1 "$PART" render --output "$out" "$@" >>"$d/first.raw" ||
			{ bad="first render, run $i"; break; }
	done
	assert_eq "" "$bad" "P=$p G=$g $shape: every timed first render succeeds" || return
	assert_file_eq "$d/want.conf" "$out" "P=$p G=$g $shape: the same file each time"
	# Unchanged: F is current, every run only reads and compares; the same
	# inode afterwards shows that none renamed a new file over it.
	ino=$(stat -c %i "$out")
	assert_ok "P=$p G=$g $shape: every timed unchanged re-render succeeds" -- \
		"$RUNSTAT" "$runs" "$PART" render --output "$out" "$@" || return
	r=$(cat "$LAST_OUT")
	assert_eq "$ino" "$(stat -c %i "$out")" "P=$p G=$g $shape: unchanged re-renders write nothing"
	# The root step: a first install into F2, then timed unchanged ones.
	inst=$d/installed.conf
	assert_ok "P=$p G=$g $shape: the installer takes the rendered file" -- \
		"$INST" --output "$inst" --no-reload "$out" || return
	assert_ok "P=$p G=$g $shape: every timed install of the same file succeeds" -- \
		"$RUNSTAT" "$runs" "$INST" --output "$inst" --no-reload "$out" || return
	ri=$(cat "$LAST_OUT")

	# The parse floor: libxml2 reading the same input with a SAX handler
	# that does nothing (xmllint --sax --noout), runs interleaved with
	# renders so that both see the same machine.
	: >"$d/floor.raw"
	: >"$d/first2.raw"
	for i in $(seq "$runs"); do
		"$RUNSTAT" 1 xmllint --sax --noout "$@" >>"$d/floor.raw" ||
			{ bad="xmllint, run $i"; break; }
		rm -f "$out"
		"$RUNSTAT" 1 "$PART" render --output "$out" "$@" >>"$d/first2.raw" ||
			{ bad="first render beside xmllint, run $i"; break; }
	done
	assert_eq "" "$bad" "P=$p G=$g $shape: xmllint --sax --noout reads the input too" || return
	sed -n 's/.* median_ms=\([0-9.]*\) .*/\1/p' "$d/floor.raw" >"$d/floor"
	sed -n 's/.* median_ms=\([0-9.]*\) .*/\1/p' "$d/first2.raw" >"$d/first2"
	sed -n 's/.* median_ms=\([0-9.]*\) .*/\1/p' "$d/first.raw" >"$d/first"
	rss1=$(sed -n 's/.* max_rss_kb=\([0-9]*\).*/\1/p' "$d/first.raw" | sort -n | tail -n 1)
	rss2=$(field max_rss_kb "$r")
	fs=$(stats "$d/first")
	us=$(awk -v a="$(field median_ms "$r")" -v b="$(field p99_ms "$r")" -v c="$(field min_ms "$r")" \
		'BEGIN { printf "p50_ms=%.1f p99_ms=%.1f min_ms=%.1f", a, b, c }')
	p50_of+=("$p $g $shape $(field p50_ms "$fs") $(field p50_ms "$us") $in_b")
	echo "bench: oneib-partitions render P=$p ($((p - 1)) networks + Default) G=$g members, $shape shape:" \
		"$(field vms "$gen") VMs ($(field member_vms "$gen") with a host, $(field ib_nics "$gen") IB NICs)," \
		"$(field hosts "$gen") hosts ($(field mlx4_hosts "$gen") mlx4); input $(mb "$in_b") MB" \
		"(vms $(mb "$(field bytes_vms "$gen")"), hosts $(mb "$(field bytes_hosts "$gen")")," \
		"vnets $(mb "$(field bytes_vnets "$gen")")), output $(mb "$(wc -c <"$out")") MB"
	echo "bench:   first render:        runs=$runs $fs max_rss_kb=$rss1 (goal for P=32767 G=100000: < 250 ms, < 65536 kB)"
	fl=$(field p50_ms "$(stats "$d/floor")") f2=$(field p50_ms "$(stats "$d/first2")")
	echo "bench:   parse floor, xmllint --sax --noout of the same input: runs=$runs p50_ms=$fl;" \
		"first render beside it p50_ms=$f2 = $(awk -v a="$f2" -v b="$fl" 'BEGIN { printf "%.2f", a / b }')x the floor (goal for P=32767 G=100000: <= 1.5x)"
	echo "bench:   unchanged re-render: runs=$runs $us max_rss_kb=$rss2 (goal: < 50 ms)"
	echo "bench:   install, unchanged:  runs=$runs p50_ms=$(field median_ms "$ri") p99_ms=$(field p99_ms "$ri") max_rss_kb=$(field max_rss_kb "$ri") (root: re-parse, re-render, compare)"
	rm -rf "$d" # hundreds of MB for the big shapes
}

bench 1000 100000 listing
bench 10000 100000 listing
bench 32767 100000 listing
bench 32767 50000 listing
bench 32767 25000 listing
bench 32767 5000 listing
for s in $EXTRA_SHAPES; do
	bench 32767 100000 "$s"
done

# Growth: p50 per member and per MB of input; linear = constant columns.
echo "bench: growth (p50 of first render / unchanged):"
for row in "${p50_of[@]}"; do
	read -r p g shape f u b <<<"$row"
	awk -v p="$p" -v g="$g" -v s="$shape" -v f="$f" -v u="$u" -v b="$b" 'BEGIN {
		printf "bench:   P=%-5d G=%-6d %-8s %9.1f / %9.1f ms  %6.2f / %6.2f us per member  %6.1f / %6.1f ms per 10 MB of input\n",
			p, g, s, f, u, f * 1000 / g, u * 1000 / g, f * 1e7 / b, u * 1e7 / b }'
done
test_done
