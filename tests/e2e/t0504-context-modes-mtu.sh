#!/bin/bash
# IPoIB mode and MTU on a ConnectX-3 VF (connected mode possible: address
# flag 0x80): ETH1_IB_MODE=connected switches the parent's mode file and
# takes MTU 65520; datagram with MTU 9000 is clamped to the datagram limit
# (4092 when the port MTU is unknown, as without libibverbs) with a note,
# and the mode goes back to datagram. An MTU above what the mode allows is
# never set.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-mlx4
ctx=$TEST_TMP/context.sh
base="VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0"

# shellcheck disable=SC2086 # base is words on purpose
ctx_write "$ctx" $base ETH1_IB_MODE=connected ETH1_MTU=65520
assert_ok "connected, MTU 65520" -- guest_ctx "$ctx"
assert_eq connected "$(cat /sys/class/net/ib0/mode)" "the mode file says connected"
assert_eq 65520 "$(g_mtu ib0)" "MTU 65520"
assert_eq "ETH1 ib0: configured (P_Key 0x8011, connected, mtu 65520, 10.11.0.5/24)" \
	"$(cat "$LAST_OUT")" "reported"
assert_eq "" "$(grep -v 'read from sysfs' "$LAST_ERR")" "no note: nothing clamped"

# shellcheck disable=SC2086
ctx_write "$ctx" $base ETH1_IB_MODE=datagram ETH1_MTU=9000
assert_ok "datagram, MTU 9000" -- guest_ctx "$ctx"
assert_eq datagram "$(cat /sys/class/net/ib0/mode)" "back to datagram"
assert_eq 4092 "$(g_mtu ib0)" "MTU clamped to 4092"
assert_match '^oneib-context: ETH1 ib0: ETH1_MTU 9000 clamped to 4092 \(datagram: at most 4092, the port MTU is not known without libibverbs\)$' \
	"$(cat "$LAST_ERR")" "the clamp is reported"

# shellcheck disable=SC2086
ctx_write "$ctx" $base ETH1_IB_MODE=connected ETH1_MTU=65535
assert_ok "connected, MTU 65535" -- guest_ctx "$ctx"
assert_eq 65520 "$(g_mtu ib0)" "clamped to 65520"
assert_match '^oneib-context: ETH1 ib0: ETH1_MTU 65535 clamped to 65520 \(connected: at most 65520\)$' \
	"$(cat "$LAST_ERR")" "reported"

# shellcheck disable=SC2086
ctx_write "$ctx" $base ETH1_IB_MODE=bulk
assert_fail "an unknown mode" -- guest_ctx "$ctx"
assert_eq "oneib-context: ETH1 ib0: not configured: ETH1: IB_MODE 'bulk' is not datagram or connected" \
	"$(grep -v 'read from sysfs' "$LAST_ERR")" "is refused in one line"
test_done
