#!/bin/bash
# The subnet manager has not programmed the VF's port yet: its P_Key table
# holds only the default partition. oneib-context waits (bounded, --wait),
# reading the table again, and goes on as soon as the tenant key is there;
# when it never comes, it stops at the bound with one line saying what is
# missing. Here the fixture's pkeys/1 file is written to stand in for the
# subnet manager. This is a ConnectX-5 VF, so what follows the key is a
# P_Key child, which no kernel here can make (see t0502): seeing the run
# plan ib0.8011 for 0x8011 is seeing it past the wait.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-nokey
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=42 ETH0_MAC=02:00:c0:a8:00:2a \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_IP=10.11.0.5 ETH1_MASK=255.255.255.0
port=/sys/class/infiniband/mlx5_0/ports/1

assert_fail "dry run does not wait (exit 1: the NIC would not be configured)" -- \
	guest_ctx "$ctx" --dry-run --wait 600
assert_eq "ETH1 ib0 guid 0x02000000002a0001 wait mlx5_0 port 1: no tenant P_Key in the table yet" \
	"$(sed -n 2p "$LAST_OUT")" "the plan line says what it waits for"

assert_fail "never comes: stops at the bound" -- guest_ctx "$ctx" --wait 1
assert_match '^oneib-context: ETH1 ib0: waiting up to 1 s for the subnet manager: mlx5_0 port 1: no tenant P_Key in the table yet$' \
	"$(cat "$LAST_ERR")" "says it waits, and for what"
assert_match '^oneib-context: ETH1 ib0: not configured: mlx5_0 port 1: no tenant P_Key in the table yet$' \
	"$(cat "$LAST_ERR")" "then what is missing"
assert_match '^oneib-context: ETH1 ib0: mlx5_0 port 1 is INIT: the link comes up when the subnet manager activates it$' \
	"$(cat "$LAST_ERR")" "and the port state"
assert_eq "ETH0: left to one-context: no IPoIB netdev carries the GUID of VM 42 NIC 0" \
	"$(cat "$LAST_OUT")" "the other NIC still gets its line"

# late: the key arrives while it waits
guest_ctx "$ctx" --wait 120 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
pid=$!
wait_for 60 grep -q 'waiting up to 120 s' "$TEST_TMP/err" || die "it never said it waits"
echo '0x8011' >"$port/pkeys/1"
echo '4: ACTIVE' >"$port/state"
wait "$pid"
assert_eq 1 "$?" "exit 1: the kernel here cannot make the child"
assert_match '^oneib-context: ETH1 ib0\.8011: not configured: cannot create ib0\.8011 \(P_Key 0x8011, datagram, on ib0\): ' \
	"$(cat "$TEST_TMP/err")" "went on with the key that arrived: ib0.8011 for 0x8011"
assert_eq "" "$(grep -e 'not configured: mlx5_0' -e 'is INIT' "$TEST_TMP/err")" \
	"no longer waiting, port ACTIVE"
test_done
