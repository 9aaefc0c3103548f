#!/bin/bash
# Demo part: the fabric is shared (design decision 11). Beside the cloud,
# the fabric carries two storage servers and a login node, and the site
# runs partitions of its own, written in opensm's grammar in the static
# file one-ib carries into every partitions.conf it renders: infra (the
# hypervisors' PF ports, added by ONEIB_HOSTS_PARTITION, the servers, the
# login node) and storage (the two servers). Tenant a (VMs 10, 12) and
# tenant b (VM 11) each have a second NIC on the storage network, a
# service network whose VMs are limited members and whose servers are
# full ones. The real opensm's SA shows: a storage server reachable from
# both tenants, who cannot reach each other through it; infrastructure
# reaching itself, no tenant reaching it. Then an SL taking effect:
# tenant a's IB_SL 3 is SL 0 on the wire until opensm.conf says qos TRUE,
# and verify says which.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

SH_VNETS_A='<IB_SL><![CDATA[3]]></IB_SL>' shared_start
say "=== the operator's static file (ONEIB_PARTITIONS_STATIC) ==="
sed 's/^/    /' "$TEST_TMP/static.conf"
say "=== the cloud: tenant a = VNET 5 (0x8101), tenant b = VNET 7 (0x8102),"
say "    storage = VNET 9 (0x8109, IB_MEMBERSHIP limited, IB_SERVICE_PARTITION storage, IB_SL 3 on tenant a)"
say "    VM 10 a+storage @node02, VM 11 b+storage @node02, VM 12 a+storage @node03, VM 13 b @node03 ==="
say "--- rendered with --static and --hosts-partition infra, installed by root:"
"$PART" list "$SIM_PARTITIONS" | sed 's/^/    /'

say "=== a storage server reachable from two tenants that cannot reach each other ==="
ok=yes
path() { # A B PKEY EXPECTED
	local got
	got=$(shared_path "$1" "$2" "$3")
	[ "$got" = "$4" ] || ok=no
	printf '    %-10s -> %-10s in %-6s %s\n' "$1" "$2" "${3:-any}" "${got:-no path}"
	assert_eq "$4" "$got" "$1 -> $2 in ${3:-any partition}: ${4:-no path}"
}
path vm10-nic1 stor1 0x8109 0x8109 # tenant a
path vm11-nic1 stor1 0x8109 0x8109 # tenant b
path vm12-nic1 stor2 0x8109 0x8109
path vm10-nic1 vm11-nic1 0x8109 "" # a and b, through storage
path vm10-nic1 vm11-nic1 "" ""     # nor any other way
path vm10-nic1 vm12-nic1 0x8109 "" # two VMs of a, through storage
path vm10-nic0 vm11-nic0 "" ""     # a and b, their own networks
path node02 node03 "" 0x8105       # infrastructure
path login stor2 "" 0x8105
path vm10-nic0 node02 "" ""        # no tenant reaches the hypervisors
path vm11-nic0 login "" ""
if [ $ok = yes ]; then
	say "verdict: SHARED - the servers serve both tenants, who stay apart; infrastructure stays its own"
else
	say "verdict: NOT AS DESIGNED - see the failed checks"
fi

say "=== an SL taking effect: IB_SL 3 on tenant a ==="
OSMCONF=$TEST_TMP/fabric/opensm.conf
verify() { sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" --opensm-conf "$OSMCONF"; }
say "--- opensm.conf without qos TRUE: verify"
verify | sed 's/^/    /'
assert_eq 1 "${PIPESTATUS[0]}" "verify fails: the SL is not in force"
echo "qos TRUE" >>"$OSMCONF"
sim_opensm_reread
say "--- \"qos TRUE\" added to opensm.conf, opensm told (SIGHUP): verify"
verify | tee "$TEST_TMP/v2" | sed 's/^/    /'
assert_eq 0 "${PIPESTATUS[0]}" "verify passes"
assert_match "sl=3: the SA answers SL 3 .*: in force$" "$(cat "$TEST_TMP/v2")" "the SA answers SL 3"
test_done
