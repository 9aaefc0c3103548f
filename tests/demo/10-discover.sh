#!/bin/bash
# Demo part: one simulated host (fixture NAME given as $1): what
# oneib-discover sees, and what the kvm-ib monitoring probes tell
# OpenNebula, run the way monitord runs them.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
host=${DEMO_HOST:?DEMO_HOST=fixture name}
sim_host "$host"

say "=== host '$host': oneib-discover ==="
"$IBBIN/oneib-discover" | sed 's/^/  /'
"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/out.json"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/out.json" "$host: discovery matches the hardware"

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst" 2>/dev/null
probes=$inst/var/lib/one/remotes/im/kvm-ib-probes.d
say "=== host '$host': kvm-ib probes (host/system, host/monitor) ==="
run_probes "$probes/host/system" kvm-ib 0 "$host" | grep '^IB_' | sed 's/^/  /'
run_probes "$probes/host/monitor" kvm-ib 0 "$host" | grep '^IB_' | sed 's/^/  /'
run_probes "$probes/host/system" kvm-ib 0 "$host" >"$TEST_TMP/sys"
assert_eq YES "$(tmpl_value "$TEST_TMP/sys" IB_SRIOV)" "$host: OpenNebula is told IB_SRIOV=YES"
test_done
