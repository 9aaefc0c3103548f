#!/bin/bash
# One InfiniBand NIC (ConnectX-3 VF: the host mapped the tenant key to
# index 0, so the parent carries it) next to an Ethernet NIC: --dry-run
# prints the plan and changes nothing; the run puts addresses, gateway,
# routes, MTU and link state on ib0 (read back over rtnetlink), leaves
# eth0 to the stock scripts; a second run changes nothing. The context's
# ONEIB_TOPOLOGY becomes the topology file, a malformed one none.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-mlx4
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=42 NETWORK=YES \
	ETH0_MAC=02:00:c0:a8:00:2a ETH0_IP=192.168.0.42 ETH0_MASK=255.255.255.0 \
	ETH0_GATEWAY=192.168.0.1 \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 \
	ETH1_GATEWAY=10.11.0.1 ETH1_METRIC=100 ETH1_MTU=2044 \
	ETH1_ROUTES='10.12.0.0/16 via 10.11.0.254, 10.13.0.0/16 via 10.11.0.253' \
	ETH1_IP6=fd00:11::5 ETH1_IP6_PREFIX_LENGTH=64 ETH1_IP6_GATEWAY=fd00:11::1 \
	ETH1_DNS=10.11.0.2 ETH1_VLAN_ID='' ETH1_IP6_ULA='' ETH1_EXTERNAL=''

before=$(g_snapshot)
assert_ok "dry run" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH0 - stock no IPoIB netdev carries the GUID of VM 42 NIC 0
ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0 mode datagram mtu 2044 ip 10.11.0.5/24 gw 10.11.0.1 metric 100 ip6 fd00:11::5/64 gw6 fd00:11::1 metric6 100 route 10.12.0.0/16 via 10.11.0.254 route 10.13.0.0/16 via 10.11.0.253" \
	"$(cat "$LAST_OUT")" "the plan, one line per NIC"
assert_match '^oneib-context: ETH1 ib0: libibverbs: no device mlx4_0: read from sysfs$' \
	"$(cat "$LAST_ERR")" "says where the port's facts came from"
assert_eq "$before" "$(g_snapshot)" "dry run changed nothing"
assert_fail "dry run wrote no state" -- test -e "$GUEST_STATE/state"

assert_ok "configure" -- guest_ctx "$ctx"
assert_eq "ETH0: left to one-context: no IPoIB netdev carries the GUID of VM 42 NIC 0
ETH1 ib0: configured (P_Key 0x8011, datagram, mtu 2044, 10.11.0.5/24, gw 10.11.0.1, fd00:11::5/64, 2 routes)" \
	"$(cat "$LAST_OUT")" "one line per NIC"
assert_eq "10.11.0.5/24 fd00:11::5/64" "$(g_addrs ib0)" "addresses on ib0"
assert_eq 2044 "$(g_mtu ib0)" "MTU on ib0"
assert_eq up "$(g_up ib0)" "ib0 up"
assert_eq "10.12.0.0/16 via 10.11.0.254 dev ib0
10.13.0.0/16 via 10.11.0.253 dev ib0
default via 10.11.0.1 dev ib0 metric 100" "$(g_routes -4)" "IPv4 routes"
assert_eq "default via fd00:11::1 dev ib0 metric 100 pref medium" "$(g_routes -6)" \
	"IPv6 default route, METRIC as one-context gives IP6_METRIC"
assert_eq datagram "$(cat /sys/class/net/ib0/mode)" "mode file says datagram"
assert_eq "" "$(g_addrs eth0)" "eth0 left alone: no address"
assert_eq down "$(g_up eth0)" "eth0 left alone: down"

state=$(cat "$GUEST_STATE/state")
after=$(g_snapshot)
assert_ok "second run" -- guest_ctx "$ctx"
assert_match '^ETH1 ib0: unchanged ' "$(cat "$LAST_OUT")" "says unchanged"
assert_eq "$after" "$(g_snapshot)" "second run changed nothing in the kernel"
assert_eq "$state" "$(cat "$GUEST_STATE/state")" "nor in its record"

# The cluster's leaf map (ONEIB_TOPOLOGY, written by the front-end before
# the VM was placed) becomes the topology file; none or a malformed one:
# no file (a malformed one also fails the run with one line), the NICs
# configured all the same.
topo=$GUEST_STATE/topology
assert_fail "no map in the context: no topology file" -- test -e "$topo"
ctx_map() { # ONEIB_TOPOLOGY
	ctx_write "$ctx" VMID=42 NETWORK=YES ETH1_MAC=02:00:0a:0b:00:05 \
		ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 "ONEIB_TOPOLOGY=$1"
}
ctx_map "0x0002c90200000a00=10.11.0.5,10.11.0.6 0x0002c90200000b00=10.11.0.7"
assert_ok "a map" -- guest_ctx "$ctx"
assert_eq "# oneib-context: the leaf switch of each VM of this virtual cluster
# (ONEIB_TOPOLOGY of the context): IPv4 address, leaf switch GUID
10.11.0.5 0x0002c90200000a00
10.11.0.6 0x0002c90200000a00
10.11.0.7 0x0002c90200000b00" "$(cat "$topo")" "the topology file: each VM's address and leaf"
assert_eq 644 "$(stat -c %a "$topo")" "readable by every user (the MPI launcher)"
ctx_map "0x0002c90200000a00=10.11.0.5,10.11.0.999"
assert_fail "a malformed map" -- guest_ctx "$ctx"
assert_eq "oneib-context: ONEIB_TOPOLOGY: '10.11.0.999' is not an IPv4 address" "$(grep -v libibverbs "$LAST_ERR")" \
	"one line naming the bad part"
assert_fail "the old file removed" -- test -e "$topo"
assert_eq "10.11.0.5/24" "$(g_addrs ib0)" "the NIC still configured"
test_done
