#!/bin/bash
# The SL plan (design decision 13) on synthetic clouds (tests/bench/genpools.sh,
# VMs spread over hosts in ID order, 18 hosts under each leaf: nearly every
# network spans leaves, the crowded case):
#   - the plan's own time: sl_plan_make over the networks and hosts the
#     renderer hands it (tests/bench/slplanbench.c), a first plan (no SL
#     installed) and a re-plan (every SL installed: the steady state);
#   - what it adds to the fabric model (partitions_desired with and
#     without --sls), and to the whole command as the hook runs it
#     (`oneib-partitions render` with and without --sls 1-7, XML included);
#   - `oneib-partitions plan --sls 1-7` as an operator runs it.
# At 1,000 networks and 10,000 VMs with a host (the issue's figure, the
# `listing` shape), then 10x the VMs and 10x the networks as well (the
# `lean` shape: the plan is the same from every shape, checked at the
# first size; only the XML is smaller).
# Goal: the plan under 50 ms at 1,000 networks / 10,000 VMs, growing with
# how much the networks share hosts, not with networks squared. Printed,
# never asserted; the checks are only that the plans succeed and are whole.
#
# Environment: B41_RUNS (10) runs per figure; ONEIB_PARTITIONS
# (build/bin/oneib-partitions); SLPLANBENCH (build/bench/slplanbench).
. "$(dirname "$0")/../lib/test-lib.sh"

PART=${ONEIB_PARTITIONS:-$TOP/build/bin/oneib-partitions}
PLANB=${SLPLANBENCH:-$TOP/build/bench/slplanbench}
RUNSTAT=$TOP/build/bench/runstat
GEN=$TOP/tests/bench/genpools.sh
RUNS=${B41_RUNS:-10}
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"
[ -x "$PLANB" ] || die "$PLANB missing (make build/bench/slplanbench)"
[ -x "$PART" ] || die "$PART missing (make)"

# the value of KEY=... in a line of KEY=VALUE words
field() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# bench NETS MEMBERS SHAPE: generate, check the plan, time it.
# genpools -n 1000 -g 15640: vms=11639 member_vms=10005 hosts=391.
bench() {
	local n=$1 g=$2 shape=$3 d gen pb plan rn rs
	d=$TEST_TMP/n$n-g$g-$shape
	assert_ok "N=$n G=$g $shape: genpools.sh" -- \
		bash "$GEN" -n "$n" -g "$g" -f "$shape" "$d/xml" || return
	gen=$(cat "$LAST_OUT")
	set -- "$d/xml/vms.xml" "$d/xml/hosts.xml" "$d/xml/vnets.xml"

	assert_ok "N=$n G=$g $shape: oneib-partitions plan --sls 1-7 succeeds" -- \
		"$PART" plan --sls 1-7 "$@" || return
	plan=$d/plan.out
	cp "$LAST_OUT" "$plan"
	assert_eq "$n" "$(grep -c '^VNET [0-9]* .* 0x[0-9a-f]\{4\}: ' "$plan")" \
		"N=$n G=$g $shape: one line per network"
	assert_eq "" "$(grep '^VNET .*: -, ' "$plan" | grep -v ': -, no VMs: ' | head -n 3)" \
		"N=$n G=$g $shape: only a network without VMs has no SL"
	if [ -f "$TEST_TMP/plan-$n-$g" ]; then
		assert_file_eq "$TEST_TMP/plan-$n-$g" "$plan" "N=$n G=$g $shape: the same plan as from the other shape"
	else
		cp "$plan" "$TEST_TMP/plan-$n-$g"
	fi

	assert_ok "N=$n G=$g $shape: slplanbench" -- "$PLANB" "$RUNS" 1-7 "$@" || return
	pb=$(cat "$LAST_OUT")
	assert_ok "N=$n G=$g $shape: timed renders without --sls" -- \
		"$RUNSTAT" "$RUNS" "$PART" render --output "$d/a.conf" "$@" || return
	rn=$(cat "$LAST_OUT")
	assert_ok "N=$n G=$g $shape: timed renders with --sls 1-7" -- \
		"$RUNSTAT" "$RUNS" "$PART" render --sls 1-7 --output "$d/b.conf" "$@" || return
	rs=$(cat "$LAST_OUT")
	assert_eq "$(grep -c '^VNET .*: SL [0-9]*, ' "$plan")" "$(grep -c ', sl=[0-9]' "$d/b.conf")" \
		"N=$n G=$g $shape: render --sls gives each network the plan gives an SL its sl="
	assert_ok "N=$n G=$g $shape: timed plans" -- \
		"$RUNSTAT" "$RUNS" "$PART" plan --sls 1-7 "$@" || return

	echo "bench: SL plan, $n networks, $(field member_vms "$gen") VMs with a host" \
		"($(field nics "$pb") member NICs), $(field hosts "$pb") hosts under" \
		"$(field leaves "$pb") leaves, $shape shape: SLs 1-7, $(field shared "$pb") networks" \
		"on best effort, $(field clashes "$pb") clashes (pinned IB_SLs)"
	echo "bench:   sl_plan_make, first plan: runs=$RUNS p50_ms=$(field plan_p50_ms "$pb")" \
		"p99_ms=$(field plan_p99_ms "$pb") (goal at 1,000 networks / 10,000 VMs: < 50 ms)"
	echo "bench:   sl_plan_make, every SL installed: runs=$RUNS p50_ms=$(field replan_p50_ms "$pb")" \
		"p99_ms=$(field replan_p99_ms "$pb")"
	echo "bench:   fabric model (partitions_desired) without / with the plan:" \
		"p50_ms=$(field partitions_p50_ms "$pb") / $(field partitions_sls_p50_ms "$pb")"
	echo "bench:   oneib-partitions render, XML included, without / with --sls 1-7:" \
		"p50_ms=$(field median_ms "$rn") / $(field median_ms "$rs")" \
		"max_rss_kb=$(field max_rss_kb "$rn") / $(field max_rss_kb "$rs")"
	echo "bench:   oneib-partitions plan --sls 1-7: $(cat "$LAST_OUT")"
	rm -rf "$d"
}

bench 1000 15640 listing
bench 1000 15640 lean
bench 1000 156400 lean
bench 10000 156400 lean
test_done
