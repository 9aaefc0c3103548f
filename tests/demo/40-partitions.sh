#!/bin/bash
# Demo part: isolation across the fabric. Two tenants on a simulated fabric
# (tests/e2e/data/fabric-tenants.net: the SM, four KVM hosts on two
# switches, the VFs of five VMs; node02 runs VMs of both tenants). The
# cloud's listings go through `oneib-pkey partitions` into the file the
# real opensm reads; then the P_Keys opensm programmed on every port, the
# path records the SA gives inside and across tenants, and `verify`.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PK=$TOP/build/bin/oneib-pkey

cloud_fabric
cloud_listing "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM13" \
	"$CLOUD_VM14" "$CLOUD_VM15" >"$TEST_TMP/cloud.xml"

say "=== the cloud: tenant a = VNET 5 (IB_PKEY 0x8101), tenant b = VNET 7 (0x8102) ==="
say "    VM 10 a @node02, VM 11 b @node02, VM 12 a @node03, VM 13 b @node04,"
say "    VM 14 a @node04, VM 15 b @node01 (ConnectX-3: VF GUID is an alias)"
n=$(sim_opensm_sweeps)
"$PK" partitions --output "$SIM_PARTITIONS" "$TEST_TMP/cloud.xml" | sed 's/^/    /'
sim_opensm_wait_sweep "$n"
say "--- partitions.conf as installed:"
sed 's/^/    /' "$SIM_PARTITIONS"

say "=== P_Keys opensm programmed, per port ==="
declare -A want=(
	[sm]="0xffff" [node01]="0x7fff 0x8101 0x8102" [node02]="0x7fff"
	[node03]="0x7fff" [node04]="0x7fff"
	[node02-vf0]="0x7fff 0x8101" [node02-vf1]="0x7fff 0x8102"
	[node03-vf0]="0x7fff 0x8101" [node04-vf0]="0x7fff 0x8102"
	[node04-vf1]="0x7fff 0x8101"
)
for node in sm node01 node02 node03 node04 node02-vf0 node02-vf1 node03-vf0 node04-vf0 node04-vf1; do
	got=$(cloud_pkeys "$node")
	printf '    %-11s lid %-3s %s\n' "$node" "$(sim_lid "$node")" "$got"
	assert_eq "${want[$node]}" "$got" "$node holds ${want[$node]}"
done

say "=== isolation verdict (SA path records) ==="
isolated=yes
verdict() { # A B EXPECTED(pkey or empty)
	local got
	got=$(cloud_path_pkey "$1" "$2")
	[ "$got" = "$3" ] || isolated=no
	printf '    %-11s -> %-11s %s\n' "$1" "$2" "${got:-no path}"
	assert_eq "$3" "$got" "$1 -> $2: ${3:-no path}"
}
verdict node02-vf0 node03-vf0 0x8101 # tenant a, across the switches
verdict node02-vf0 node04-vf1 0x8101
verdict node02-vf1 node04-vf0 0x8102 # tenant b
verdict node02-vf0 node02-vf1 ""     # a and b on the same host
verdict node03-vf0 node04-vf0 ""
verdict node02 node03 ""             # hosts share only the limited default
if [ $isolated = yes ]; then
	say "verdict: ISOLATED - paths inside each tenant, none across"
else
	say "verdict: NOT ISOLATED - see the failed checks"
fi

say "=== oneib-pkey verify ==="
sim_client sm "$PK" verify --conf "$SIM_PARTITIONS" | sed 's/^/    /'
assert_eq 0 "${PIPESTATUS[0]}" "verify: no drift"
test_done
