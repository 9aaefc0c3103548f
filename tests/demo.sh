#!/bin/sh
# make demo: the main job on the built-in simulated cloud. Every part checks
# what it shows; the demo exits non-zero if any check fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
failed=0
# The machine may be a hypervisor where one-ib runs: its lease ledger and
# /dev/shm must be byte for byte the same after the demo (every simulated
# host has its own).
. "$top/tests/lib/machine.sh"
before=$(mktemp) || exit 1
trap 'rm -f "$before"' EXIT
machine_state >"$before"
run() {
	bash "$@" </dev/null || failed=$((failed + 1))
}
export DEMO_HOST
DEMO_HOST=cx3 run "$top/tests/demo/10-discover.sh"
DEMO_HOST=cx5 run "$top/tests/demo/10-discover.sh"
run "$top/tests/demo/20-vms.sh"
DEMO_HOST=cx3 run "$top/tests/demo/30-pkey.sh"
DEMO_HOST=cx5 run "$top/tests/demo/30-pkey.sh"
run "$top/tests/demo/40-partitions.sh"
run "$top/tests/demo/45-shared-fabric.sh"
run "$top/tests/demo/47-placement.sh"
run "$top/tests/demo/50-guest.sh"
run "$top/tests/demo/60-lifecycle.sh"
if changes=$(machine_changes "$before"); then
	echo "demo: the machine's /var/lib/one/ib or /dev/shm changed:"
	printf '%s\n' "$changes" | sed 's/^/    /'
	failed=$((failed + 1))
fi
echo
if [ $failed -eq 0 ]; then
	echo "demo: every check passed"
else
	echo "demo: $failed part(s) failed"
	exit 1
fi
