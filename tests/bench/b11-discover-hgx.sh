#!/bin/bash
# oneib-discover on hgx-big (8 ConnectX-7 PFs x 127 VFs = 1016 VFs, 8
# GPUs, 4 PCIe switches): median wall time and peak RSS of repeated runs,
# the rails, PCIe switches and passthrough devices included (design
# decision 15). Goal: < 20 ms, < 8 MB.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host hgx-big

out=$("$IBBIN/oneib-discover" --format=json)
assert_eq "1016 8 8" "$(jq '[.hcas[].vfs[]] | length' <<<"$out") $(jq '.rails | length' <<<"$out") $(jq '[.pci_devices[] | select(.near == "switch")] | length' <<<"$out")" \
	"hgx-big: 1016 VFs, 8 rails, 8 GPUs beside their rails"
t=$("$TOP/build/bench/runstat" 50 /bin/true | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
for f in json one one-monitor; do
	res=$("$TOP/build/bench/runstat" 50 "$IBBIN/oneib-discover" --format=$f)
	m=$(echo "$res" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
	echo "bench: oneib-discover --format=$f, hgx-big (1016 VFs, 8 GPUs): $res (goal: median < 20 ms, rss < 8192 kB)" \
		"= $(awk -v a="$m" -v b="$t" 'BEGIN { printf "%.1f", a / b }')x /bin/true (median_ms=$t)"
done
test_done
