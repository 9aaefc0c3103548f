#!/bin/bash
# oneib-discover --format=json on cx7-big (4 PFs x 127 VFs = 508 VFs):
# median wall time and peak RSS of repeated runs. Goal: < 20 ms, < 8 MB.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx7-big

n=$("$IBBIN/oneib-discover" --format=json | jq '[.hcas[].vfs[]] | length')
assert_eq 508 "$n" "cx7-big has 508 VFs"
"$IBBIN/oneib-discover" --format=json >/dev/null # warm the page cache
res=$("$TOP/build/bench/runstat" 50 "$IBBIN/oneib-discover" --format=json)
echo "bench: oneib-discover --format=json, cx7-big (508 VFs): $res (goal: median < 20 ms, rss < 8192 kB)"
res=$("$TOP/build/bench/runstat" 50 "$IBBIN/oneib-discover" --format=one)
echo "bench: oneib-discover --format=one,  cx7-big (508 VFs): $res"
test_done
