#!/bin/bash
# Finding 3, decision 7: one tenant's bad data never freezes the others.
# Tenant b's network asks for IB_SL 16 (no service level) while the cloud
# changes for both tenants: VM 14 (a) terminated, VM 16 (a) deployed, VM 13
# (b) terminated, VM 17 (b) deployed. The renderer names b in one warning
# and keeps b's partition exactly as installed (VM 13 still in, VM 17 not),
# tenant a follows the cloud; the file carries the refusal, verify reports
# it (exit 1, no port differs); opensm applies it. The same for b taking
# a's P_Key: a, which held it, keeps it. Once b is fixed, b follows too.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

cloud_start_fabric
assert_ok "the fabric starts in the desired state" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
b_before=$(sed -n '/^vnet7_tenant-b=/,/;$/p' "$SIM_PARTITIONS")
assert_match "0x02000000000d0000=full" "$b_before" "VM 13 is in tenant b"

VM16=16/3/3/node04/02:00:c0:a8:01:10/5
VM17=17/3/3/node03/02:00:c0:a8:01:11/7
now_vms() { cloud_vms "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM15" "$VM16" "$VM17"; }

# render and install: the renderer's stderr in $TEST_TMP/warn
step() { # MSG CLOUD.XML
	local n
	assert_ok "$1: rendered (the others are not frozen)" -- "$PART" render \
		--installed "$SIM_PARTITIONS" "$2"
	cp "$LAST_OUT" "$TEST_TMP/new.conf"
	cp "$LAST_ERR" "$TEST_TMP/warn"
	n=$(sim_opensm_sweeps)
	assert_ok "$1: installed" -- "$INST" --output "$SIM_PARTITIONS" \
		--pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/new.conf"
	sim_opensm_wait_sweep "$n"
	assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "$1: opensm parsed the file"
}

# --- b asks for IB_SL 16
{ now_vms; cloud_hosts; cloud_vnets | sed 's|<IB_PKEY><!\[CDATA\[0x8102\]\]></IB_PKEY>|&<IB_SL><![CDATA[16]]></IB_SL>|'; } >"$TEST_TMP/sl.xml"
grep -q '<IB_SL>' "$TEST_TMP/sl.xml" || die "no IB_SL in the listing"
step "IB_SL 16" "$TEST_TMP/sl.xml"
assert_eq "oneib-partitions: warning: VNET 7 (tenant-b): IB_SL '16' is not a service level 0..15; left out, its installed partition 0x0102 kept" \
	"$(cat "$TEST_TMP/warn")" "one warning, naming b, the reason and the outcome"
assert_eq "$b_before" "$(sed -n '/^vnet7_tenant-b=/,/;$/p' "$SIM_PARTITIONS")" "b's partition is exactly as installed"
assert_match "0x0200000000100000=full" "$(sed -n '/^vnet5_tenant-a=/,/;$/p' "$SIM_PARTITIONS")" "a follows: VM 16 joined"
assert_eq "" "$(grep 0x02000000000e0000 "$SIM_PARTITIONS")" "a follows: VM 14 left"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf1)" "VM 14's port lost tenant a"
assert_eq "0x7fff 0x8102" "$(cloud_pkeys node04-vf0)" "VM 13's port keeps b, as installed"
assert_fail "verify reports it" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_eq 1 "$LAST_RC" "verify: exit 1"
assert_match "^refused: VNET 7 \(tenant-b\): IB_SL '16' is not a service level 0..15; left out, its installed partition 0x0102 kept$" \
	"$(cat "$LAST_OUT")" "verify names b"
assert_match "; 0 ports differ; 1 left out$" "$(cat "$LAST_OUT")" "no port differs, one thing left out"

# --- b takes a's P_Key: a held it, so a keeps it
cloud_vms "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM15" "$VM16" "$VM17" \
	"18/3/3/node04/02:00:c0:a8:01:12/5" >"$TEST_TMP/vms18.xml"
{ cat "$TEST_TMP/vms18.xml"; cloud_hosts; cloud_vnets | sed 's|0x8102|0x8101|'; } >"$TEST_TMP/steal.xml"
step "b claims 0x8101" "$TEST_TMP/steal.xml"
assert_eq "oneib-partitions: warning: VNET 7 (tenant-b): IB_PKEY 0x8101 is partition 0x0101, held by VNET 5 (tenant-a); left out, its installed partition 0x0102 kept" \
	"$(cat "$TEST_TMP/warn")" "one warning: b"
assert_match "0x0200000000120000=full" "$(sed -n '/^vnet5_tenant-a=/,/;$/p' "$SIM_PARTITIONS")" "a keeps its partition and follows: VM 18 joined"
assert_eq "$b_before" "$(sed -n '/^vnet7_tenant-b=/,/;$/p' "$SIM_PARTITIONS")" "b as installed"
assert_eq "" "$(cloud_path_pkey node02-vf1 node02-vf0)" "b's VM 11 does not reach a's VM 10"
assert_eq "0x8101" "$(cloud_path_pkey node03-vf0 node02-vf0)" "a's VMs still reach each other"

# --- b fixed: b follows the cloud again, nothing left out
{ now_vms; cloud_hosts; cloud_vnets; } >"$TEST_TMP/fixed.xml"
step "b fixed" "$TEST_TMP/fixed.xml"
assert_eq "" "$(cat "$TEST_TMP/warn")" "no warning"
assert_eq "" "$(grep 0x02000000000d0000 "$SIM_PARTITIONS")" "VM 13 left b"
assert_match "0x0200000000110000=full" "$(sed -n '/^vnet7_tenant-b=/,/;$/p' "$SIM_PARTITIONS")" "VM 17 joined b"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf0)" "VM 13's port lost b"
assert_ok "verify: nothing left out, no drift" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
test_done
