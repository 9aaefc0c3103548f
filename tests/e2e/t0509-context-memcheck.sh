#!/bin/bash
# oneib-context under valgrind (memcheck: no invalid access, no definite
# leak) and in its ASan+UBSan build: configure, unchanged, dry run,
# reconfigure (a NIC leaves, one is renumbered), a malformed context with a
# bad value, and a wait for a P_Key that never comes.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-two
command -v valgrind >/dev/null || die "valgrind not installed"
ACTX=$TOP/build/asan/bin/oneib-context
[ -x "$ACTX" ] || die "ASan build missing: run make check (or make asan-build)"
ctx=$TEST_TMP/context.sh

# check LABEL WANT-STATUS: the context as it is now, through both builds;
# each build starts from the state the other left, so both see the change.
check() {
	local label=$1 want=$2 rc
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$TEST_TMP/vg.log" "$IBCTX" --context "$ctx" \
		--state-dir "$GUEST_STATE" --wait 1 "${@:3}" >"$TEST_TMP/vg.out" 2>&1
	rc=$?
	assert_eq "$want" "$rc" "valgrind: $label (exit status; 99 = memcheck error)"
	[ "$rc" = 99 ] && cat "$TEST_TMP/vg.log"
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "$ACTX" \
		--context "$ctx" --state-dir "$GUEST_STATE" --wait 1 "${@:3}" \
		>"$TEST_TMP/asan.out" 2>"$TEST_TMP/asan.err"
	rc=$?
	assert_eq "$want" "$rc" "asan+ubsan: $label"
	assert_eq "" "$(grep -E '^==[0-9]+==|runtime error' "$TEST_TMP/asan.err")" \
		"asan+ubsan: $label: no sanitizer message"
}
nic1="ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0 ETH1_GATEWAY=10.11.0.1"
nic2="ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP6=fd00:12::7 ETH2_IP6_GATEWAY=fd00:12::1 ETH2_MTU=9000"
# shellcheck disable=SC2086
{
ctx_write "$ctx" VMID=42 $nic1 $nic2 'ETH1_ROUTES=10.9.0.0/16 via 10.11.0.254'
check "configure two NICs" 0
check "dry run" 0 --dry-run
ctx_write "$ctx" VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.6
check "one leaves, one renumbered" 0
ctx_write "$ctx" VMID=42 $nic1 ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=300.1.1.1
printf "garbage\nX='unterminated\n" >>"$ctx"
check "a malformed context, a bad value" 1
ctx_write "$ctx" VMID=42 $nic1 ETH2_MAC=02:00:0a:0c:00:07 ETH2_IB_PKEY=0x0033
check "a key that never comes" 1
}
assert_eq "10.11.0.5/24" "$(g_addrs ib0)" "and the work was done"
test_done
