#!/bin/bash
# Two subnets (issue 32, design decision 17): a cloud whose hosts sit on a
# compute and a storage fabric, two islands of one ibsim with no link
# between them (tests/e2e/data/fabric-2subnets.net), each with its own
# opensm and subnet prefix (sm: 0xfe80000000000001, sm2:
# 0xfe80000000000002), both named in ONEIB_SMS. Every SM gets the one
# rendered file, which names the ports of both subnets: each SM programs
# only its own ports (a GUID it does not see is skipped), so every port of
# each island holds what the file gives it, and verify, run from a port of
# each subnet, reports that subnet alone: its prefix, its SM (master), its
# ports, the other subnet's members counted as not in this fabric. Tenant
# a's VMs on the two subnets share a P_Key but never a path.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
. "$TOP/tests/lib/sms.sh"
sim_host none

SMS_NET=$TOP/tests/e2e/data/fabric-2subnets.net
SMS_CONF_SM="subnet_prefix 0xfe80000000000001" SMS_CONF_SM2="subnet_prefix 0xfe80000000000002" \
	SMS_WAIT2="SUBNET UP" sms_fabric
sms_hook
SM=${SMS_DIR[sm]} SM2=${SMS_DIR[sm2]}
assert_eq SMINFO_MASTER "$(SMS_FROM=sm sms_state sm)" "sm masters the compute subnet"
assert_eq SMINFO_MASTER "$(SMS_FROM=sm2 sms_state sm2)" "sm2 masters the storage subnet"

# VM 10 on node02 (compute) with a storage NIC; 11 (b) on node02; 12 (a)
# on node03 (storage)
SH_HOSTS="node02 node03" sms_listing 10/node02/5,9 11/node02/7 12/node03/5
n1=$(sim_opensm_sweeps) n2=$(grep -c "SUBNET UP" "$SM2/opensm.log")
assert_ok "the hook installs on both subnets' SMs" -- "$HOOK"
assert_match "^sm: /etc/opensm/partitions.conf: installed " "$(cat "$LAST_OUT")" "sm installed"
assert_match "^sm2: /etc/opensm/partitions.conf: installed " "$(cat "$LAST_OUT")" "sm2 installed"
assert_file_eq "$SM/partitions.conf" "$SM2/partitions.conf" "one file for both"
sim_opensm_wait_sweep "$n1"
wait_for 20 eval '[ "$(grep -c "SUBNET UP" "$SM2/opensm.log")" -gt '"$n2"' ]' || die "sm2 did not sweep"

# each SM programmed its own ports, and sees no other
keys() { SMS_FROM=$1 sms_pkeys "$2"; }
assert_eq "0x7fff 0x8105|0x7fff 0x8101|0x7fff 0x8102|0x7fff 0x8105" \
	"$(keys sm node02)|$(keys sm vm10-nic0)|$(keys sm vm11-nic0)|$(keys sm login)" \
	"the compute subnet's ports, by sm"
assert_eq "0x7fff 0x8105|0x0109 0x7fff|0x7fff 0x8101|0x7fff 0x8105 0x8109 0x8200" \
	"$(keys sm2 node03)|$(keys sm2 vm10-nic1)|$(keys sm2 vm12-nic0)|$(keys sm2 stor1)" \
	"the storage subnet's ports, by sm2"
assert_fail "sm does not see the storage subnet's ports" -- keys sm vm12-nic0
assert_fail "sm2 does not see the compute subnet's" -- keys sm2 vm10-nic0
assert_match "GidPrefix:\.*0xfe80000000000001" "$(sim_client vm10-nic0 smpquery -D portinfo 0)" \
	"a compute port's GID prefix"
assert_match "GidPrefix:\.*0xfe80000000000002" "$(sim_client vm10-nic1 smpquery -D portinfo 0)" \
	"a storage port's GID prefix"
assert_eq "0x8101" "$(SMS_FROM=sm2 sms_path vm12-nic0 vm12-nic0 0x8101)" "tenant a in the storage subnet"
assert_eq "" "$(SMS_FROM=sm sms_path vm10-nic0 vm12-nic0)$(SMS_FROM=sm2 sms_path vm10-nic0 vm12-nic0)" \
	"tenant a's VMs on two subnets have no path"
assert_match "^0x0?109$" "$(SMS_FROM=sm2 sms_path vm10-nic1 stor1)" "VM 10's storage NIC reaches the server"

# verify per subnet, from a port of each
verify() {
	sim_client "$1" "$PART" verify --conf "$SM/partitions.conf" --opensm-conf "$SM/opensm.conf" \
		--sm "$2=${SMS_DIR[$2]}/partitions.conf"
}
assert_ok "verify the compute subnet" -- verify vm11-nic0 sm
out=$(cat "$LAST_OUT")
assert_match "^subnet: 0xfe80000000000001 \(GidPrefix of port 0x02000000000b0000, where the walk began\), master SM at lid 1$" \
	"$out" "names its subnet"
assert_match '^sm: port 0x0002c90300000001 \(lid 1, "sm"\): MASTER, priority 10$' "$out" "and its SM"
assert_eq 1 "$(grep -c '^sm: port ' "$LAST_OUT")" "only its own SM"
assert_match "^verify: 5 end ports, 1 switches, 5 partitions; [0-9]+ member ports in the fabric, [1-9][0-9]* not; 0 ports differ; 0 left out$" \
	"$out" "its own ports only, none that differs"
assert_ok "verify the storage subnet" -- verify stor1 sm2
out=$(cat "$LAST_OUT")
assert_match "^subnet: 0xfe80000000000002 \(GidPrefix of port 0x0002c903000a0001, where the walk began\), master SM at lid 1$" \
	"$out" "names its subnet"
assert_match '^sm: port 0x0002c90300000101 \(lid 1, "sm2"\): MASTER, priority 5$' "$out" "and its SM"
assert_match "^sm: sm2: $SM2/partitions.conf: holds the partitions verified$" "$out" "its SM's file"
assert_match "^verify: 5 end ports, 1 switches, " "$out" "its own ports only"

# the storage subnet's SM left behind: verify there names it
touch "$TEST_TMP/sms/sm2.down"
SH_HOSTS="node02 node03" sms_listing 10/node02/5,9 11/node02/7 12/node03/5,9
assert_fail "sm2 down" -- "$HOOK"
assert_match "^oneib-partitions: sm2: .*No route to host; 1 of 2 subnet managers hold the new partitions" \
	"$(cat "$LAST_ERR")" "named"
assert_fail "verify the storage subnet against the new file" -- verify stor1 sm2
assert_match "^sm: sm2: $SM2/partitions.conf: differs: vnet9_storage \(0x0109\): 0x02000000000c0001 \(VM 12 NIC 1\) is a limited member in the verified file, none in sm2's" \
	"$(cat "$LAST_OUT")" "the storage SM's file is behind"
test_done
