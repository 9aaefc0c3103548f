#!/bin/bash
# The front-end's run on two subnet managers (t0440's fabric and hook,
# tests/lib/sms.sh) under valgrind (memcheck: no invalid access, no
# definite leak) and in its ASan+UBSan build: both SMs installed, one SM
# down (read refused), one that hangs installing (killed at its time), a
# file that does not read (adoption refused), and verify comparing both
# SMs' files and QoS policies and asking each for its SMInfo.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
. "$TOP/tests/lib/sms.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host none

sms_fabric
sms_hook
SM=${SMS_DIR[sm]} SM2=${SMS_DIR[sm2]}
BIN=$TEST_TMP/inst/var/lib/one/remotes/ib/bin
mkdir "$BIN/real" && mv "$BIN/oneib-partitions" "$BIN/real/" || die "no renderer in $BIN"
export ONEIB_PARTITIONS_TIMEOUT=20

# the hook with the installed oneib-partitions run by WRAPPER...
hook_with() {
	printf '#!/bin/sh\nexec %s "$@"\n' "$*" >"$BIN/oneib-partitions"
	chmod +x "$BIN/oneib-partitions"
	"$HOOK"
}
# each case under valgrind (the run's exit status as wanted, nothing in
# its log), then the sanitizer build (mc_asan)
each() { # WANT LABEL
	local want=$1 label=$2 rc
	rm -f "$TEST_TMP"/vg.hook.*
	hook_with valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$TEST_TMP/vg.hook.%p" "$BIN/real/oneib-partitions" >"$TEST_TMP/vg.out" 2>"$TEST_TMP/vg.err"
	rc=$?
	assert_eq "$want" "$rc" "valgrind: $label (exit status; 99 = memcheck error)" ||
		_tl_show "$TEST_TMP/vg.err" 10 stderr
	# (its "--PID--" lines are notes: valgrind 3.19 does not know
	# pidfd_open, so the run waits by looking every 10 ms, core/child.h)
	assert_eq "" "$(grep -h '^==' "$TEST_TMP"/vg.hook.* 2>/dev/null)" "valgrind: $label: nothing reported" ||
		head -n 40 "$TEST_TMP"/vg.hook.* | sed 's/^/#   /'
	mc_asan "$want" "$label" hook_with env ASAN_OPTIONS=detect_leaks=1 "$MC_ASAN_BIN/oneib-partitions"
}

sms_listing 10/node02/5,9 11/node02/7,9
each 0 "both SMs"
sms_listing 10/node02/5,9 11/node02/7,9 12/node03/5,9
touch "$TEST_TMP/sms/sm2.down"
each 1 "sm2 down"
assert_match "sm2: .* No route to host; 1 of 2 " "$(cat "$TEST_TMP/asan.err")" "sm2 named"
rm "$TEST_TMP/sms/sm2.down"
printf '%s\n' '--output' >"$TEST_TMP/sms/sm2.hang"
sms_listing 10/node02/5,9
ONEIB_PARTITIONS_TIMEOUT=2 each 1 "sm2 hangs"
assert_match "sm2: .* timed out after 2 s" "$(cat "$TEST_TMP/asan.err")" "sm2 named"
rm "$TEST_TMP/sms/sm2.hang"
echo 'Default=0x7fff ipoib ALL=full' >"$SM2/partitions.conf"
each 1 "sm2's file does not read"
rm "$SM2/partitions.conf"
each 0 "sm2 again"

MC_VALGRIND_OPTS=(--suppressions="$TOP/tests/e2e/data/umad2sim.supp")
MC_ASAN_OPTS=(verify_asan_link_order=0 suppressions="$TOP/tests/e2e/data/umad2sim.asan-supp")
MC_ON=(sim_client node01)
mc_check 0 "verify, both SMs' files" "$PART" verify --conf "$SM/partitions.conf" \
	--opensm-conf "$SM/opensm.conf" --sm sm="$SM/partitions.conf" --sm sm2="$SM2/partitions.conf"
cp "$SM/partitions.conf.bak" "$SM2/partitions.conf"
echo 'qos-ulps' >"$SM2/qos-policy.conf"
mc_check 1 "verify, sm2's file older, its policy not one-ib's" "$PART" verify --conf "$SM/partitions.conf" \
	--opensm-conf "$SM/opensm.conf" --sm sm2="$SM2/partitions.conf" --sm gone=/nonexistent \
	--sm-qos sm="$SM/qos-policy.conf" --sm-qos sm2="$SM2/qos-policy.conf" --sm-qos gone=/nonexistent
assert_match "^sm: gone: /nonexistent: none " "$(cat "$TEST_TMP/asan.out")" "a missing file said"
test_done
