#!/bin/bash
# Reconfiguration takes away exactly what oneib-context created and is no
# longer wanted: a NIC gone from the context loses its addresses and
# routes, a changed address is replaced, and what someone else set (an
# address the admin added, a route of the stock scripts) stays. METHOD
# skip leaves a NIC as it is.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-two
ctx=$TEST_TMP/context.sh
nic1="ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0"

# shellcheck disable=SC2086 # the NICs are words on purpose
ctx_write "$ctx" VMID=42 $nic1 ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=10.12.0.7 \
	ETH2_MASK=255.255.0.0 ETH2_GATEWAY=10.12.0.1 'ETH2_ROUTES=10.99.0.0/16 via 10.12.0.254'
assert_ok "both NICs" -- guest_ctx "$ctx"
assert_eq "10.11.0.5/24|10.12.0.7/16" "$(g_addrs ib0)|$(g_addrs ib1)" "configured"
# the admin's own, on both links
ip addr add 10.77.0.1/24 dev ib1 || die "admin address"
ip route add 10.78.0.0/16 via 10.77.0.254 dev ib1 proto static || die "admin route"
ip addr add 10.11.0.200/24 dev ib0 || die "admin address on ib0"

# NIC 2 detached: its context is gone
# shellcheck disable=SC2086
ctx_write "$ctx" VMID=42 $nic1
assert_ok "NIC 2 left the context" -- guest_ctx "$ctx"
assert_eq "ETH2 ib1: removed route 10.99.0.0/16 via 10.12.0.254 (the NIC left the context)
ETH2 ib1: removed route 0.0.0.0/0 via 10.12.0.1 (the NIC left the context)
ETH2 ib1: removed 10.12.0.7/16 (the NIC left the context)
ETH1 ib0: unchanged (P_Key 0x8011, datagram, 10.11.0.5/24)" "$(cat "$LAST_OUT")" \
	"one line per thing taken away, ETH1 unchanged"
assert_eq "10.77.0.1/24" "$(g_addrs ib1)" "ETH2's address gone, the admin's kept"
assert_eq "10.78.0.0/16 via 10.77.0.254 dev ib1" "$(g_routes -4)" \
	"ETH2's routes gone, the admin's kept"
assert_eq "10.11.0.5/24 10.11.0.200/24" "$(g_addrs ib0)" "ib0 as it was"

# NIC 1 renumbered
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.6 ETH1_MASK=255.255.255.0
assert_ok "NIC 1 renumbered" -- guest_ctx "$ctx"
assert_eq "10.11.0.200/24 10.11.0.6/24" "$(g_addrs ib0)" "old address replaced, the admin's kept"
assert_match '^ETH1 ib0: removed 10.11.0.5/24 \(no longer in its settings\)$' "$(cat "$LAST_OUT")" \
	"says what it removed"

# the admin's address is in the context now: used, never taken
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.200 ETH1_MASK=255.255.255.0
assert_ok "the admin's address becomes the NIC's" -- guest_ctx "$ctx"
ctx_write "$ctx" VMID=42
assert_ok "then the NIC goes" -- guest_ctx "$ctx"
assert_eq "10.11.0.200/24" "$(g_addrs ib0)" "the address it did not create stays"

# skip: left as it is, whatever the other values say
# shellcheck disable=SC2086
ctx_write "$ctx" VMID=42 $nic1
assert_ok "NIC 1 again" -- guest_ctx "$ctx"
before=$(g_snapshot)
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_METHOD=skip ETH1_IP=10.11.0.9 ETH1_MTU=big
assert_ok "skip" -- guest_ctx "$ctx"
assert_eq "ETH1 ib0: skipped: ETH1_METHOD skip" "$(cat "$LAST_OUT")" "reported"
assert_eq "$before" "$(g_snapshot)" "nothing changed"
assert_ok "skip, dry run" -- guest_ctx "$ctx" --dry-run
assert_eq "ETH1 ib0 guid 0x02000000002a0001 skip ETH1_METHOD skip" "$(cat "$LAST_OUT")" "its plan line"
test_done
