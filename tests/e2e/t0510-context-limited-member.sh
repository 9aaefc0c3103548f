#!/bin/bash
# A service network's NIC (design decision 11: IB_MEMBERSHIP limited, a
# storage network the tenants reach only the servers of) finds its key in
# the VF's table as a limited member, 0x0104, and no full tenant key.
# ConnectX-3: the host mapped it to index 0, so the parent ib0 carries it,
# configured for real here; ETH1_IB_PKEY as the network writes it (0x8104)
# picks the same key. ConnectX-4 and later: the SM put it at index 1,
# after the default partition, so a P_Key child carries it, named as the
# kernel names its own (ib0.8104: the kernel makes every child a full
# member of its broadcast group's key, ipoib_new_child_link) and asked for
# with the key as the table holds it; no kernel here can make the child
# (tests/lib/guest.sh), so the plan and the one-line refusal are checked.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
: "${T0510_KIND:=mlx4}"
export T0510_KIND MKHOST_GUEST_KIND=$T0510_KIND MKHOST_GUEST_GUID=02000000002a0001
if [ "$T0510_KIND" = mlx4 ]; then
	export MKHOST_GUEST_PKEYS="0104 7fff"
else
	export MKHOST_GUEST_PKEYS="7fff 0104"
fi
sim_guest guest-demo
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.30.0.5 \
	ETH1_MASK=255.255.0.0 ETH1_MTU=2044

if [ "$T0510_KIND" = mlx4 ]; then
	assert_ok "dry run" -- guest_ctx "$ctx" --dry-run
	assert_eq "ETH1 ib0 guid 0x02000000002a0001 pkey 0x0104 via ib0 mode datagram mtu 2044 ip 10.30.0.5/16" \
		"$(cat "$LAST_OUT")" "the limited key at index 0: the parent carries it"
	assert_ok "configure" -- guest_ctx "$ctx"
	assert_eq "ETH1 ib0: configured (P_Key 0x0104, datagram, mtu 2044, 10.30.0.5/16)" \
		"$(cat "$LAST_OUT")" "configured, the key named as the table holds it"
	assert_eq "10.30.0.5/16" "$(g_addrs ib0)" "the address on ib0"
	assert_eq up "$(g_up ib0)" "ib0 up"
	ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.30.0.5 \
		ETH1_MASK=255.255.0.0 ETH1_MTU=2044 ETH1_IB_PKEY=0x8104
	assert_ok "ETH1_IB_PKEY in the network's full form" -- guest_ctx "$ctx"
	assert_match "^ETH1 ib0: unchanged " "$(cat "$LAST_OUT")" "the same key, nothing to change"
	# and ConnectX-4 and later, in a namespace of its own
	assert_ok "the mlx5 case" -- env T0510_KIND=mlx5 bash "$0"
	assert_match "^ok - " "$(tail -n 1 "$LAST_OUT")" "the mlx5 case passed"
	test_done
fi

assert_ok "dry run" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH1 ib0 guid 0x02000000002a0001 pkey 0x0104 via ib0.8104 mode datagram mtu 2044 ip 10.30.0.5/16" \
	"$(cat "$LAST_OUT")" "the limited key at index 1: a child, named with the full-member bit"
before=$(g_snapshot)
assert_fail "the kernel cannot make the child here" -- guest_ctx "$ctx"
assert_match '^oneib-context: ETH1 ib0\.8104: not configured: cannot create ib0\.8104 \(P_Key 0x0104, datagram, on ib0\): .+' \
	"$(cat "$LAST_ERR")" "one line: the child, the key, the kernel's reason"
assert_eq "$before" "$(g_snapshot)" "nothing half done"
test_done
