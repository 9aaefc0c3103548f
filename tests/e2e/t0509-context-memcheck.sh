#!/bin/bash
# oneib-context under valgrind (memcheck: no invalid access, no definite
# leak) and in its ASan+UBSan build: configure, unchanged, dry run,
# reconfigure (a NIC leaves, one is renumbered), a malformed context with a
# bad value, and a wait for a P_Key that never comes.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_guest guest-two
ctx=$TEST_TMP/context.sh

# check WANT-STATUS LABEL [ARGS]: the context as it is now, through both
# builds; each starts from the state the other left, so both see the change.
check() {
	mc_check "$1" "$2" "$IBCTX" --context "$ctx" --state-dir "$GUEST_STATE" --wait 1 "${@:3}"
}
nic1="ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 ETH1_GATEWAY=10.11.0.1"
nic2="ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP6=fd00:12::7 ETH2_IP6_GATEWAY=fd00:12::1 ETH2_MTU=9000"
# shellcheck disable=SC2086
{
ctx_write "$ctx" VMID=42 $nic1 $nic2 'ETH1_ROUTES=10.9.0.0/16 via 10.11.0.254'
check 0 "configure two NICs"
check 0 "dry run" --dry-run
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.6
check 0 "one leaves, one renumbered"
ctx_write "$ctx" VMID=42 $nic1 ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=300.1.1.1
printf "garbage\nX='unterminated\n" >>"$ctx"
check 1 "a malformed context, a bad value"
ctx_write "$ctx" VMID=42 $nic1 ETH2_MAC=02:00:0a:0c:00:07 ETH2_IB_PKEY=0x0033
check 1 "a key that never comes"
}
assert_eq "10.11.0.5/24" "$(g_addrs ib0)" "and the work was done"
test_done
