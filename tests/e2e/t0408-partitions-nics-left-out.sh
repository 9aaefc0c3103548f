#!/bin/bash
# Finding 4 and 8 on the real opensm. In the full listing (onevm list -x
# --extended) a NIC carries its own IB_PKEY: VM 12's is tenant b's key
# although its network is a's (a NIC key oneadmin's group may write), VM
# 14's the limited form of a's. Both are left out, each named in one
# warning and in verify; VM 10, whose key is its network's, stays in, and
# so does the rest of the cloud. Tenant a's network has a 60-character
# name: every partition name stays within the 31 characters opensm keeps,
# ID first, and opensm takes the file.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

long=tenant-a-research-group-with-a-rather-long-network-name-xxxx
cloud_fabric
{
	cloud_vms "$CLOUD_VM10/0x8101" "$CLOUD_VM11" "$CLOUD_VM12/0x8102" \
		"$CLOUD_VM13" "$CLOUD_VM14/0x0101" "$CLOUD_VM15"
	cloud_hosts
	cloud_vnets | sed "s/tenant-a/$long/"
} >"$TEST_TMP/cloud.xml"
assert_eq 60 "${#long}" "a 60-character network name"
assert_ok "rendered" -- "$PART" render "$TEST_TMP/cloud.xml"
cp "$LAST_OUT" "$TEST_TMP/new.conf"
assert_eq 2 "$(wc -l <"$LAST_ERR")" "two warnings"
assert_match "^oneib-partitions: warning: VM 12 NIC 0: IB_PKEY 0x8102 is not its network's 0x8101; left out of VNET 5 \($long\)$" \
	"$(cat "$LAST_ERR")" "VM 12: the key and its network's"
assert_match "^oneib-partitions: warning: VM 14 NIC 0: IB_PKEY '0x0101' is a limited-member key \(write 0x8101: .*\); left out of VNET 5 \($long\)$" \
	"$(cat "$LAST_ERR")" "VM 14: a limited key is not read as full"

n=$(sim_opensm_sweeps)
assert_ok "installed" -- "$INST" --output "$SIM_PARTITIONS" \
		--pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/new.conf"
sim_opensm_wait_sweep "$n"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm parsed the file"
names=$(sed -n 's/^\([A-Za-z][A-Za-z0-9_-]*\)=0x.*/\1/p' "$SIM_PARTITIONS")
assert_eq "Default vnet5_tenant-a-research-group-w vnet7_tenant-b" "$(echo $names)" "names: the ID first, cut to fit"
for name in $names; do
	assert_eq 1 "$(( ${#name} <= 31 ))" "$name: within opensm's 31 characters"
done

assert_eq "0x7fff 0x8101" "$(cloud_pkeys node02-vf0)" "VM 10, its network's key: in tenant a"
assert_eq "0x7fff" "$(cloud_pkeys node03-vf0)" "VM 12: in neither tenant"
assert_eq "0x7fff" "$(cloud_pkeys node04-vf1)" "VM 14: in neither tenant"
assert_eq "0x7fff 0x8102" "$(cloud_pkeys node04-vf0)" "tenant b as the cloud has it"
assert_eq "" "$(cloud_path_pkey node03-vf0 node04-vf0)" "VM 12 does not reach tenant b"

assert_fail "verify reports both" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_eq 2 "$(grep -c '^refused: VM 1[24] NIC 0: ' "$LAST_OUT")" "one refused: line each"
assert_match "; 0 ports differ; 2 left out$" "$(cat "$LAST_OUT")" "and counts them"
test_done
