#!/bin/bash
# A storage network (design decision 11): VNET 9 "storage", IB_MEMBERSHIP
# limited, IB_SERVICE_PARTITION storage (the operator's partition of the
# two storage servers). VM 10 (tenant a) and VM 11 (tenant b) on node02,
# VM 12 (tenant a) on node03, each with a second NIC on it. On the real
# opensm over the ibsim fabric (data/fabric-shared.net), the SA gives a
# path from each tenant's VM to each storage server, none between the two
# tenants' VMs, none between two VMs of one tenant, in that partition or
# any other; the VMs' NICs hold the key as limited members, the servers as
# full ones, the ConnectX-3 host of the cluster as a limited one (its VFs
# are mapped to what it holds). Endpoints given by GUID instead
# (IB_SERVICE_GUIDS) are the only full members then. verify finds the
# fabric as rendered.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

shared_start
assert_ok "list" -- "$PART" list "$SIM_PARTITIONS"
list=$(sed -n '/^vnet9_storage /,/^[a-z]/p' "$LAST_OUT")
assert_match "^vnet9_storage 0x8109 \(ipoib\): 6 members$" "$list" "the storage network's partition"
assert_match "^    0x02000000000a0001  VM 10 NIC 1 \(limited\)$" "$list" "VM 10's NIC: a limited member"
assert_match "^    0x0002c903000a0001  -$" "$list" "stor1: a full member"

declare -A want=(
	[vm10-nic1]="0x0109 0x7fff" [vm11-nic1]="0x0109 0x7fff" [vm12-nic1]="0x0109 0x7fff"
	[stor1]="0x7fff 0x8105 0x8109 0x8200" [stor2]="0x7fff 0x8105 0x8109 0x8200"
	[node01]="0x0109 0x7fff 0x8101 0x8102 0x8105"
)
for node in "${!want[@]}"; do
	assert_eq "${want[$node]}" "$(shared_pkeys "$node")" "$node holds ${want[$node]}"
done

# both tenants reach both servers
for vm in vm10-nic1 vm11-nic1 vm12-nic1; do
	for s in stor1 stor2; do
		assert_eq 0x8109 "$(shared_path "$vm" "$s" 0x8109)" "$vm -> $s in the storage partition"
	done
	assert_eq 0x109 "$(shared_path "$vm" stor1)" "$vm -> stor1, no P_Key asked: the storage partition (its own, limited entry: saquery prints 0x109)"
done
assert_eq 0x8109 "$(shared_path stor2 vm11-nic1)" "and the servers reach them"
# the tenants never reach each other, nor a tenant itself, through it
for pair in vm10-nic1:vm11-nic1 vm11-nic1:vm12-nic1 vm10-nic1:vm12-nic1; do
	IFS=: read -r a b <<<"$pair"
	assert_eq "" "$(shared_path "$a" "$b" 0x8109)" "no path $a -> $b in the storage partition"
	assert_eq "" "$(shared_path "$a" "$b")" "nor in any other"
done
assert_eq "" "$(shared_path vm10-nic1 vm11-nic0)" "nor to the other tenant's own NIC"
assert_eq 0x8101 "$(shared_path vm10-nic0 vm12-nic0)" "tenant a still reaches itself on its own network"

assert_ok "verify" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" \
	--opensm-conf "$TEST_TMP/fabric/opensm.conf"
assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "no drift: limited members as rendered"

# endpoints by GUID: stor2 alone
shared_listing "$TEST_TMP/cloud.xml"
sed -i 's|<IB_SERVICE_PARTITION><!\[CDATA\[storage\]\]></IB_SERVICE_PARTITION>|<IB_SERVICE_GUIDS><![CDATA[0x0002c903000b0001]]></IB_SERVICE_GUIDS>|' \
	"$TEST_TMP/cloud.xml"
shared_render_install "$TEST_TMP/cloud.xml"
assert_eq 0x8109 "$(shared_path vm10-nic1 stor2 0x8109)" "IB_SERVICE_GUIDS: stor2 reached"
assert_eq "" "$(shared_path vm10-nic1 stor1 0x8109)" "stor1 no longer in it"
assert_eq "" "$(shared_path vm10-nic1 vm11-nic1 0x8109)" "the tenants still apart"
test_done
