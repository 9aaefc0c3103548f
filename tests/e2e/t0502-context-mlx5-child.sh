#!/bin/bash
# ConnectX-5 VF: the subnet manager put the default partition at index 0
# and the tenant key 0x8011 after it, so the addresses belong on a P_Key
# child, ib0.8011, made over rtnetlink. No kernel here can make one (no
# ib_ipoib, no IPoIB parent): the plan names it, the kernel's refusal is
# reported in one line, nothing is left half done on ib0, and the exit
# status says so. (The child message itself: tests/unit/test_rtnl.c,
# byte for byte against iproute2's.) Connected mode is not to be had on
# mlx5 (enhanced IPoIB): datagram, with one note. A link of that name that
# is not ib0's child is left alone.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-mlx5
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=42 ETH0_MAC=02:00:c0:a8:00:2a ETH0_IP=192.168.0.42 \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 \
	ETH1_GATEWAY=10.11.0.1 ETH1_MTU=2044

assert_ok "dry run" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0.8011 mode datagram mtu 2044 ip 10.11.0.5/24 gw 10.11.0.1" \
	"$(sed -n 2p "$LAST_OUT")" "the plan: a child for the key at index 1"

before=$(ip addr show; ip route show)
assert_fail "the kernel cannot make the child here" -- guest_ctx "$ctx"
assert_match '^oneib-context: ETH1 ib0\.8011: not configured: cannot create ib0\.8011 \(P_Key 0x8011, datagram, on ib0\): .+' \
	"$(cat "$LAST_ERR")" "one line: what, where, and the kernel's reason"
assert_eq "ETH0: left to one-context: no IPoIB netdev carries the GUID of VM 42 NIC 0" \
	"$(cat "$LAST_OUT")" "the Ethernet NIC still gets its line"
assert_eq "" "$(g_addrs ib0)" "no address landed on the parent"
assert_eq "" "$(g_routes -4)" "no route either"
assert_eq "$before" "$(ip addr show; ip route show)" "no address or route anywhere"
assert_eq "# oneib-context: what it created; undone when its NIC leaves the context" \
	"$(cat "$GUEST_STATE/state")" "nothing recorded as created"

ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 \
	ETH1_IB_MODE=connected ETH1_MTU=65520
assert_ok "dry run, connected mode asked" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0.8011 mode datagram mtu 4092 ip 10.11.0.5/24" \
	"$(cat "$LAST_OUT")" "falls back to datagram, MTU clamped to it"
assert_match '^oneib-context: ETH1 ib0: ib0 cannot do connected mode \(ConnectX-4 and later run enhanced IPoIB, datagram only\): datagram$' \
	"$(cat "$LAST_ERR")" "one note for the fallback"
assert_match '^oneib-context: ETH1 ib0: ETH1_MTU 65520 clamped to 4092 \(datagram: at most 4092, the port MTU is not known without libibverbs\)$' \
	"$(cat "$LAST_ERR")" "one note for the clamp"
assert_match '^oneib-context: ETH1 ib0: ETH1_MASK missing: /24, as one-context assumes$' \
	"$(cat "$LAST_ERR")" "and one for the missing mask"

# someone else's link with the child's name: not touched
ip link add ib0.8011 type veth peer name ib0.8011p || die "veth ib0.8011"
assert_fail "a foreign ib0.8011 is refused" -- guest_ctx "$ctx"
assert_match '^oneib-context: ETH1 ib0\.8011: not configured: ib0\.8011 exists and is not ib0.s IPoIB child for P_Key 0x8011: left alone$' \
	"$(cat "$LAST_ERR")" "says why"
assert_eq "" "$(g_addrs ib0.8011)" "no address on it"
assert_eq 1500 "$(g_mtu ib0.8011)" "its MTU untouched"
test_done
