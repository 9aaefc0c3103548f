#!/bin/bash
# The partitions follow the cloud: a VM terminated, a VM moved to another
# host, a VM just deployed (PROLOG, its VF not up yet), a ConnectX-3 host
# deleted. After each change the rendered file is installed without
# telling opensm (--no-reload), `verify` reports exactly the ports that
# differ, each named with the VM and NIC its GUID belongs to, and once
# opensm has re-read the file it reports none.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install
all_vms=("${CLOUD_START[@]}")

cloud_start_fabric
assert_ok "the fabric starts in the desired state" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"

# render CLOUD.XML and install it: INSTALLER-OPTIONS... (default --no-reload)
install_cloud() { # MSG CLOUD.XML [OPTION...]
	local msg=$1 xml=$2
	shift 2
	"$PART" render "$xml" >"$TEST_TMP/r.conf" || die "$msg: cannot render"
	assert_ok "$msg: installed" -- "$INST" --output "$SIM_PARTITIONS" "${@:---no-reload}" "$TEST_TMP/r.conf"
}
install_quiet() { install_cloud "$1" "$2"; }

# --- VM 14 (tenant a, node04) terminated: no longer in the listing.
cloud_listing "${all_vms[@]:0:4}" "$CLOUD_VM15" >"$TEST_TMP/c1.xml"
install_quiet "VM 14 terminated" "$TEST_TMP/c1.xml"
assert_fail "verify: drift while opensm has not re-read the file" -- \
	sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_eq 'drift: port 0x02000000000e0000 (VM 14 NIC 0; lid '"$(sim_lid node04-vf1)"', "node04-vf1") holds 0x7fff 0x8101, should hold 0x7fff' \
	"$(grep '^drift' "$LAST_OUT")" "the one port that differs, named with its VM and NIC, what it holds and should hold"
assert_match "1 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "one port"
drift=$(grep '^drift' "$LAST_OUT")
assert_fail "verify against the cloud's XML: drift too" -- sim_client sm "$PART" verify "$TEST_TMP/c1.xml"
assert_eq "$drift" "$(grep '^drift' "$LAST_OUT")" "the same drift"
sim_opensm_reread
assert_ok "verify: no drift once opensm re-read the file" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf1)" "VM 14's port lost tenant a"
assert_eq "" "$(cloud_path_pkey node04-vf1 node02-vf0)" "VM 14's port no longer reaches tenant a"
assert_eq "0x8101" "$(cloud_path_pkey node03-vf0 node02-vf0)" "the rest of tenant a still does"

# --- VM 12 (tenant a) migrated from node03 (Switch2) to node02 (Switch1):
# its VF GUID comes from its VM and NIC ID, so the file is the same; the
# port appears where the VM now runs and keeps its partition.
cloud_listing "${all_vms[0]}" "${all_vms[1]}" "12/3/3/node02/02:00:c0:a8:01:0b/5" \
	"${all_vms[3]}" "$CLOUD_VM15" >"$TEST_TMP/c2.xml"
install_cloud "VM 12 moved" "$TEST_TMP/c2.xml" --reload-cmd "touch $TEST_TMP/reloaded"
assert_match ": unchanged " "$(cat "$LAST_OUT")" "the move changes no partition"
assert_ok "nobody was signalled" -- test ! -e "$TEST_TMP/reloaded"
old_lid=$(sim_lid node03-vf0)
sim_ibsim 'Unlink "node03-vf0"[1]'
sim_ibsim 'Link "node03-vf0"[1] "Switch1"[6]'
sim_opensm_reread # opensm's own sweep after the link change
assert_eq "0x7fff 0x8101" "$(cloud_pkeys node03-vf0)" "at its new place VM 12's port holds tenant a"
assert_eq "0x8101" "$(cloud_path_pkey node03-vf0 node02-vf0)" "and reaches tenant a on the same switch now"
assert_eq "" "$(cloud_path_pkey node03-vf0 node02-vf1)" "but not tenant b beside it"
assert_ok "verify: no drift after the move" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
say "VM 12's port: lid $old_lid before the move, $(sim_lid node03-vf0) after"

# --- VM 16 (tenant b) deployed on node03, in PROLOG: a member before its VF
# is up, and a member that is not (yet) a port is not drift.
cloud_listing "${all_vms[0]}" "${all_vms[1]}" "12/3/3/node02/02:00:c0:a8:01:0b/5" \
	"${all_vms[3]}" "$CLOUD_VM15" "16/3/1/node03/02:00:c0:a8:01:10/7" >"$TEST_TMP/c3.xml"
install_quiet "VM 16 in PROLOG" "$TEST_TMP/c3.xml"
assert_match '0x0200000000100000=full' "$(cat "$SIM_PARTITIONS")" "VM 16's GUID is a member already"
assert_ok "verify: a member the fabric does not have yet is no drift" -- \
	sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_match "in the fabric, 2 not; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "counted as not in the fabric"

# --- node01 (ConnectX-3, pre-provisioned with both keys) deleted.
CLOUD_HOSTS="node02 node03 node04" cloud_listing "${all_vms[0]}" "${all_vms[1]}" \
	"12/3/3/node02/02:00:c0:a8:01:0b/5" "${all_vms[3]}" \
	"16/3/1/node03/02:00:c0:a8:01:10/7" >"$TEST_TMP/c4.xml"
install_quiet "node01 deleted" "$TEST_TMP/c4.xml"
assert_fail "verify: node01's port still holds both keys" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_match '^drift: port 0x0002c90300001001 .*"node01"\) holds 0x7fff 0x8101 0x8102, should hold 0x7fff$' \
	"$(cat "$LAST_OUT")" "node01's port is the drift"
sim_opensm_reread
assert_eq "0x7fff" "$(cloud_pkeys node01)" "node01's port lost both tenants"
assert_ok "verify: no drift" -- sim_client sm "$PART" verify "$TEST_TMP/c4.xml"
test_done
