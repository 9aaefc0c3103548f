#!/bin/bash
# Malformed contexts: each oddity is one precise line (the file, the line
# or the variable, the value), never shell evaluation, and the NICs it does
# not spoil are still configured. A bad value refuses only its own NIC
# (exit 1, because an InfiniBand NIC is then not configured); an oddity
# that does not stop a NIC (missing MAC, missing mask) is a note (exit 0).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-two
ctx=$TEST_TMP/context.sh
good="VMID=42 ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0"
errs() { grep -v 'read from sysfs' "$LAST_ERR"; }
fresh() { # back to no configuration at all
	ctx_write "$ctx" VMID=42
	guest_ctx "$ctx" >/dev/null 2>&1
	assert_eq "|" "$(g_addrs ib0)|$(g_addrs ib1)" "clean slate"
}

# --- the file itself
# shellcheck disable=SC2086 # good is words on purpose
ctx_write "$ctx" $good ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=10.12.0.7
printf "%s\n" "export PATH='/tmp'" 'rm -rf / #' "ETH2_MASK=\"255.255.0.0\"" \
	"ETH2_MTU='2044' ; reboot" "\$(touch pwned)='x'" >>"$ctx"
printf "ZZ_LAST='never closed\nsecond line\n" >>"$ctx"
# (run from $TEST_TMP: were that line evaluated, pwned would appear there;
# a relative name keeps the quoted line short, whatever TMPDIR is)
cd "$TEST_TMP" || die "cannot cd to $TEST_TMP"
assert_ok "garbage lines and an unterminated quote" -- guest_ctx "$ctx"
cd "$TOP" || die "cannot cd to $TOP"
assert_eq "oneib-context: $ctx: line 8: not NAME='value': 'export PATH='/tmp''
oneib-context: $ctx: line 9: not NAME='value': 'rm -rf / #'
oneib-context: $ctx: line 10: not NAME='value': 'ETH2_MASK=\"255.255.0.0\"'
oneib-context: $ctx: line 11: ETH2_MTU: text after the closing quote: '; reboot'
oneib-context: $ctx: line 12: not NAME='value': '\$(touch pwned)='x''
oneib-context: $ctx: line 13: ZZ_LAST: unterminated quote: the rest of the file is ignored
oneib-context: ETH2 ib1: ETH2_MASK missing: /24, as one-context assumes" "$(errs)" \
	"one line each: where, and what"
assert_eq "10.11.0.5/24|10.12.0.7/24" "$(g_addrs ib0)|$(g_addrs ib1)" \
	"both NICs configured from what parsed"
assert_eq "1500" "$(g_mtu ib1)" "the MTU of the spoiled line was not taken"
assert_fail "nothing was evaluated" -- test -e "$TEST_TMP/pwned"
fresh

# --- missing MAC, IP without mask: notes, configured
# shellcheck disable=SC2086
ctx_write "$ctx" $good ETH2_IP=10.12.0.7
assert_ok "no ETH2_MAC, no ETH2_MASK" -- guest_ctx "$ctx"
assert_eq "oneib-context: ETH2 ib1: no ETH2_MAC in the context: matched by its GUID
oneib-context: ETH2 ib1: ETH2_MASK missing: /24, as one-context assumes" "$(errs)" "two notes"
assert_eq "10.11.0.5/24|10.12.0.7/24" "$(g_addrs ib0)|$(g_addrs ib1)" "both configured"
fresh

# --- bad values: that NIC refused, the other configured
bad() { # VAR=VALUE EXPECTED-LINE
	# shellcheck disable=SC2086
	ctx_write "$ctx" $good ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=10.12.0.7 \
		ETH2_MASK=255.255.0.0 "$1"
	assert_fail "$1 refuses ETH2" -- guest_ctx "$ctx"
	assert_eq "oneib-context: ETH2 ib1: not configured: $2" "$(errs)" "$1: the line"
	assert_eq "10.11.0.5/24|" "$(g_addrs ib0)|$(g_addrs ib1)" "$1: ETH1 still configured"
	assert_eq "1500" "$(g_mtu ib1)" "$1: nothing done on ib1"
	fresh
}
bad ETH2_IP=10.12.0.300 "ETH2_IP '10.12.0.300': not an IPv4 address"
bad ETH2_MASK=255.0.255.0 "ETH2_MASK '255.0.255.0': not a network mask"
bad ETH2_GATEWAY=gw.example "ETH2_GATEWAY 'gw.example': not an IPv4 address"
bad ETH2_MTU=9k "ETH2_MTU '9k': not an MTU (68-65535)"
bad ETH2_MTU=67 "ETH2_MTU '67': not an MTU (68-65535)"
bad 'ETH2_ROUTES=10.99.0.0/16 to 10.12.0.1' \
	"ETH2_ROUTES '10.99.0.0/16 to 10.12.0.1': not DESTINATION via GATEWAY"
bad 'ETH2_ROUTES=10.99.0.1/16 via 10.12.0.1' \
	"ETH2_ROUTES '10.99.0.1/16 via 10.12.0.1': the destination has host bits set"
bad 'ETH2_ROUTES=10.99.0.0/16 via fd00::1' \
	"ETH2_ROUTES '10.99.0.0/16 via fd00::1': the gateway is not an address of the destination's family"
bad ETH2_IP6=fd00::zz "ETH2_IP6 'fd00::zz': not an IPv6 address"
bad ETH2_METHOD=manual "ETH2_METHOD 'manual': expected static, dhcp or skip"
bad ETH2_METHOD=dhcp "ETH2_METHOD dhcp: not supported on IPoIB yet"
bad ETH2_IB_PKEY=0x7fff "ETH2: IB_PKEY '0x7fff' is the default partition, never a tenant's"
bad "ETH2_IP=$(printf '10.12.0.7\nETH9_IP=1.2.3.4')" \
	"ETH2_IP '10.12.0.7?ETH9_IP=1.2.3.4': not an IPv4 address"

# --- 1 MB: a large value and many garbage lines
# shellcheck disable=SC2086
ctx_write "$ctx" $good ETH2_MAC=02:00:0a:0c:00:07 ETH2_IP=10.12.0.7 ETH2_MASK=255.255.0.0
{
	printf "START_SCRIPT_BASE64='%s'\n" "$(head -c 700000 /dev/zero | tr '\0' 'A')"
	for i in $(seq 20000); do echo "garbage line $i"; done
} >>"$ctx"
assert_ok "a 1 MB context" -- guest_ctx "$ctx"
assert_eq 8 "$(errs | grep -c 'not NAME=')" "eight garbage lines quoted"
assert_match "^oneib-context: $ctx: line 10: not NAME='value': 'garbage line 1'$" "$(errs)" \
	"the first with its line number"
assert_match "^oneib-context: $ctx: 19992 more malformed lines skipped$" "$(errs)" "the rest counted"
ctx_is_1mb() { [ "$(stat -c %s "$ctx")" -ge $((1 << 20)) ]; }
assert_ok "the context was 1 MB" -- ctx_is_1mb
assert_eq "10.11.0.5/24|10.12.0.7/16" "$(g_addrs ib0)|$(g_addrs ib1)" "both configured"
fresh

# --- what stops everything: one line, exit 1, nothing done
head -c $((17 << 20)) /dev/zero | tr '\0' '#' >"$ctx"
assert_fail "17 MiB" -- guest_ctx "$ctx"
assert_eq "oneib-context: $ctx: larger than 16 MiB: not a context" "$(errs)" "refused whole"
assert_fail "no such file" -- guest_ctx "$TEST_TMP/nothing"
assert_eq "oneib-context: $TEST_TMP/nothing: No such file or directory" "$(errs)" "named"
ctx_write "$ctx" ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5
assert_fail "no VMID" -- guest_ctx "$ctx"
assert_eq "oneib-context: $ctx: no VMID: ib0 carries the GUID of VM 42 NIC 1, but without VMID=\"\$VMID\" in the template's CONTEXT no NIC can be matched to it" \
	"$(errs)" "says how to fix the template"
ctx_write "$ctx" VMID=forty-two ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5
assert_fail "a VMID that is no number" -- guest_ctx "$ctx"
assert_eq "oneib-context: VMID 'forty-two': not a VM ID" "$(errs)" "named"
assert_eq "|" "$(g_addrs ib0)|$(g_addrs ib1)" "nothing configured by these"
assert_fail "usage" -- guest_ctx "$ctx" --wait=-1
assert_eq "oneib-context: --wait '-1': not a number of seconds (0-3600)" "$(errs)" "usage error named"
test_done
