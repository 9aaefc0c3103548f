#!/bin/bash
# Two InfiniBand NICs on two networks (two VFs, partitions 0x8011 and
# 0x8012) and an Ethernet NIC: each IB NIC is found by its own GUID (VM 42
# NIC 1, VM 42 NIC 2) whatever the netdev is called, gets its own settings,
# and the Ethernet NIC is left to the stock scripts. The second IB NIC is
# IPv6 only.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-two
ctx=$TEST_TMP/context.sh
# NIC 2 first in the template: netdev order says nothing
ctx_write "$ctx" VMID=42 NETWORK=YES \
	ETH0_MAC=02:00:c0:a8:00:2a ETH0_IP=192.168.0.42 ETH0_MASK=255.255.255.0 \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 \
	ETH1_MTU=4092 \
	ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP6=fd00:12::7 ETH2_IP6_PREFIX_LENGTH=48 \
	ETH2_IP6_GATEWAY=fd00:12::1 ETH2_IP6_METHOD=static

assert_ok "dry run" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH0 - stock no IPoIB netdev carries the GUID of VM 42 NIC 0
ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0 mode datagram mtu 4092 ip 10.11.0.5/24
ETH2 ib1 guid 0x02000000002a0002 pkey 0x8012 via ib1 mode datagram mtu - ip6 fd00:12::7/48 gw6 fd00:12::1" \
	"$(cat "$LAST_OUT")" "one plan line per NIC, each on its own VF"
assert_ok "configure" -- guest_ctx "$ctx"
assert_eq "10.11.0.5/24" "$(g_addrs ib0)" "ETH1's address on ib0 (VM 42 NIC 1's GUID)"
assert_eq "fd00:12::7/48" "$(g_addrs ib1)" "ETH2's on ib1, IPv6 only"
assert_eq 4092 "$(g_mtu ib0)" "ETH1's MTU"
assert_eq 1500 "$(g_mtu ib1)" "ETH2 has no MTU: left as it was"
assert_eq "up up" "$(g_up ib0) $(g_up ib1)" "both up"
assert_eq "" "$(g_routes -4)" "no IPv4 route: neither NIC has an IPv4 gateway"
assert_eq "default via fd00:12::1 dev ib1 metric 1024 pref medium" "$(g_routes -6)" \
	"ETH2's IPv6 gateway"
assert_eq "" "$(g_addrs eth0)" "eth0 left to the stock scripts"
assert_eq "ETH0: left to one-context: no IPoIB netdev carries the GUID of VM 42 NIC 0
ETH1 ib0: configured (P_Key 0x8011, datagram, mtu 4092, 10.11.0.5/24)
ETH2 ib1: configured (P_Key 0x8012, datagram, fd00:12::7/48)" "$(cat "$LAST_OUT")" "a line each"

# the GUIDs decide, not the names: swap what the netdevs are called
ctx_write "$TEST_TMP/other" VMID=43 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.9
assert_ok "a context of another VM" -- guest_ctx "$TEST_TMP/other" --dry-run
assert_eq "ETH1 - stock no IPoIB netdev carries the GUID of VM 43 NIC 1" "$(cat "$LAST_OUT")" \
	"VM 43's context matches none of VM 42's VFs"
assert_match '^oneib-context: ib0: its GUID is VM 42 NIC 1.s, this is VM 43: left alone$' \
	"$(cat "$LAST_ERR")" "and says whose VFs these are"
test_done
