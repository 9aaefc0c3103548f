#!/bin/bash
# Demo part: isolation across the fabric. Two tenants on a simulated fabric
# (tests/e2e/data/fabric-tenants.net: the SM, four KVM hosts on two
# switches, the VFs of five VMs; node02 runs VMs of both tenants, and VM 10
# of tenant a and VM 11 of tenant b have the same MAC). The cloud's
# listings are rendered by `oneib-partitions render`, unprivileged, and the
# file goes through `oneib-partitions-install`, the one root step, into the
# file the real opensm reads; then the members decoded ("VM 10 NIC 0"), the
# P_Keys opensm programmed on every port, the path records the SA gives
# inside and across tenants, and `verify`. Then tenant b turns hostile
# (IB_RATE 100, no rate there is) while tenant a's VMs come and go: b is
# refused and keeps the partition it had, a follows the cloud.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

cloud_fabric
cloud_listing "${CLOUD_START[@]}" >"$TEST_TMP/cloud.xml"
chmod 644 "$TEST_TMP/cloud.xml"

say "=== the cloud: tenant a = VNET 5 (IB_PKEY 0x8101), tenant b = VNET 7 (0x8102) ==="
say "    VM 10 a @node02, VM 11 b @node02 (the same MAC as VM 10), VM 12 a @node03,"
say "    VM 13 b @node04, VM 14 a @node04, VM 15 b @node01 (ConnectX-3: VF GUID is an alias)"
say "--- rendered as nobody (no root reads the cloud's XML), installed by root:"
n=$(sim_opensm_sweeps)
setpriv --reuid=nobody --regid=nogroup --clear-groups "$PART" render <"$TEST_TMP/cloud.xml" |
	"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" - | sed 's/^/    /'
st="${PIPESTATUS[0]} ${PIPESTATUS[1]}"
assert_eq "0 0" "$st" "rendered and installed"
sim_opensm_wait_sweep "$n"
say "--- the partitions, every member decoded (oneib-partitions list):"
"$PART" list "$SIM_PARTITIONS" | tee "$TEST_TMP/list" | sed 's/^/    /'
assert_match "0x02000000000a0000  VM 10 NIC 0" "$(sed -n '/^vnet5_/,/^vnet7_/p' "$TEST_TMP/list")" \
	"VM 10 NIC 0 in tenant a"
assert_match "0x02000000000b0000  VM 11 NIC 0" "$(sed -n '/^vnet7_/,$p' "$TEST_TMP/list")" \
	"VM 11 NIC 0, same MAC, in tenant b"

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
verdict node02-vf0 node02-vf1 ""     # a and b on the same host, same MAC
verdict node03-vf0 node04-vf0 ""
verdict node02 node03 ""             # hosts share only the limited default
if [ $isolated = yes ]; then
	say "verdict: ISOLATED - paths inside each tenant, none across"
else
	say "verdict: NOT ISOLATED - see the failed checks"
fi

say "=== oneib-partitions verify ==="
sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" | sed 's/^/    /'
assert_eq 0 "${PIPESTATUS[0]}" "verify: no drift"

say "=== tenant b turns hostile: IB_RATE 100 on VNET 7; meanwhile VM 14 (a) is"
say "    terminated and VM 16 (a) deployed, VM 13 (b) terminated ==="
{
	cloud_vms "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM15" \
		16/3/1/node04/02:00:c0:a8:01:10/5
	cloud_hosts
	cloud_vnets | sed 's|<IB_PKEY><!\[CDATA\[0x8102\]\]></IB_PKEY>|&<IB_RATE><![CDATA[100]]></IB_RATE>|'
} >"$TEST_TMP/hostile.xml"
"$PART" render --installed "$SIM_PARTITIONS" "$TEST_TMP/hostile.xml" 2>"$TEST_TMP/warn" >"$TEST_TMP/new.conf"
assert_eq 0 $? "the others are not frozen: rendered"
sed 's/^/    /' "$TEST_TMP/warn"
assert_eq "oneib-partitions: warning: VNET 7 (tenant-b): IB_RATE '100' is not a rate code 2..24 (IBTA: 3 = 10 Gb/s, 7 = 40, 16 = 100, 17 = 200); left out, its installed partition 0x0102 kept" \
	"$(cat "$TEST_TMP/warn")" "one warning names b and the reason"
"$INST" --output "$SIM_PARTITIONS" --no-reload "$TEST_TMP/new.conf" | sed 's/^/    /'
"$PART" list "$SIM_PARTITIONS" | tee "$TEST_TMP/list2" | sed 's/^/    /'
assert_match "VM 16 NIC 0" "$(sed -n '/^vnet5_/,/^vnet7_/p' "$TEST_TMP/list2")" "a follows: VM 16 joined"
assert_eq "" "$(grep 'VM 14 NIC 0' "$TEST_TMP/list2")" "a follows: VM 14 left"
assert_match "VM 13 NIC 0" "$(sed -n '/^vnet7_/,$p' "$TEST_TMP/list2")" "b keeps its partition as installed"
say "--- verify before opensm re-reads the file (installed with --no-reload):"
sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" | tee "$TEST_TMP/v1" | sed 's/^/    /'
assert_match '^drift: port 0x02000000000e0000 \(VM 14 NIC 0; lid [0-9]+, "node04-vf1"\) holds 0x7fff 0x8101, should hold 0x7fff$' \
	"$(cat "$TEST_TMP/v1")" "the drift names VM 14 NIC 0"
sim_opensm_reread
say "--- and after:"
printf '    %-11s %s\n' node04-vf1 "$(cloud_pkeys node04-vf1)" node04-vf0 "$(cloud_pkeys node04-vf0)"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf1)" "VM 14's port left tenant a"
assert_eq "0x7fff 0x8102" "$(cloud_pkeys node04-vf0)" "VM 13's port still in b (its last good partition)"
assert_eq "0x8101" "$(cloud_path_pkey node02-vf0 node03-vf0)" "tenant a still reaches itself"
sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" | tee "$TEST_TMP/v2" | sed 's/^/    /'
assert_eq 1 "${PIPESTATUS[0]}" "verify reports the refused network"
assert_match "; 0 ports differ; 1 left out$" "$(cat "$TEST_TMP/v2")" "no drift, one network left out"
test_done
