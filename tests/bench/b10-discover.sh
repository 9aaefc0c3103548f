#!/bin/bash
# oneib-discover --format=json on cx7-big (4 PFs x 127 VFs = 508 VFs):
# median wall time and peak RSS of repeated runs. Goal: < 20 ms, < 8 MB.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx7-big

n=$("$IBBIN/oneib-discover" --format=json | jq '[.hcas[].vfs[]] | length')
assert_eq 508 "$n" "cx7-big has 508 VFs"
"$IBBIN/oneib-discover" --format=json >/dev/null # warm the page cache
t=$("$TOP/build/bench/runstat" 50 /bin/true | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
for f in json one one-monitor; do
	res=$("$TOP/build/bench/runstat" 50 "$IBBIN/oneib-discover" --format=$f)
	m=$(echo "$res" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
	echo "bench: oneib-discover --format=$f, cx7-big (508 VFs): $res (goal: median < 20 ms, rss < 8192 kB)" \
		"= $(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.1f", a / b }')x /bin/true (median_ms=$t)"
done
test_done
