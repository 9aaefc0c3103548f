#!/bin/bash
# oneib-pkey partitions and verify under valgrind (memcheck: no invalid
# access, no definite leak) and in their ASan+UBSan build: render, install,
# unchanged, a refusal, and verify with and without drift on the fabric.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
command -v valgrind >/dev/null || die "valgrind not installed"
PK=$TOP/build/bin/oneib-pkey
APK=$TOP/build/asan/bin/oneib-pkey
[ -x "$APK" ] || die "ASan build missing: run make check (or make asan-build)"

cloud_start_vms >"$TEST_TMP/vms.xml"
cloud_hosts >"$TEST_TMP/hosts.xml"
cloud_vnets >"$TEST_TMP/vnets.xml"
sed 's/0x8102/0x8101/' "$TEST_TMP/vnets.xml" >"$TEST_TMP/collision.xml"
cloud_fabric
pools="$TEST_TMP/vms.xml $TEST_TMP/hosts.xml $TEST_TMP/vnets.xml"

# check LABEL WANT-STATUS [sim] ARGS...: oneib-pkey ARGS (attached to the
# fabric's SM node with "sim") must exit WANT-STATUS with no report.
check() {
	local label=$1 want=$2 rc on=()
	shift 2
	if [ "$1" = sim ]; then
		on=(sim_client sm)
		shift
	fi
	"${on[@]}" valgrind -q --error-exitcode=99 --suppressions="$TOP/tests/e2e/data/umad2sim.supp" --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$TEST_TMP/vg.log" "$PK" "$@" >"$TEST_TMP/vg.out" 2>/dev/null
	rc=$?
	assert_eq "$want" "$rc" "valgrind: $label (exit status; 99 = memcheck error)"
	[ "$rc" = 99 ] && cat "$TEST_TMP/vg.log"
	[ "$rc" = "$want" ] || cat "$TEST_TMP/asan.out" "$TEST_TMP/vg.out" 2>/dev/null
	ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0:suppressions=$TOP/tests/e2e/data/umad2sim.asan-supp "${on[@]}" "$APK" "$@" >"$TEST_TMP/asan.out" 2>"$TEST_TMP/asan.err"
	rc=$?
	# (umad2sim is preloaded before the ASan runtime: link-order check off)
	assert_eq "$want" $rc "asan+ubsan: $label"
	assert_eq "" "$(grep -E '^==[0-9]+==' "$TEST_TMP/asan.err")" \
		"asan+ubsan: $label: no sanitizer message at all"
	[ "$rc" = "$want" ] || cat "$TEST_TMP/asan.out" "$TEST_TMP/asan.err"
	assert_eq "" "$(grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$TEST_TMP/asan.err")" \
		"asan+ubsan: $label: no report"
}
# shellcheck disable=SC2086
{
check "partitions to stdout" 0 partitions $pools
check "partitions install" 0 partitions --output "$TEST_TMP/p.conf" --no-reload $pools
check "partitions unchanged" 0 partitions --output "$TEST_TMP/p.conf" $pools
check "partitions refused" 1 partitions --output "$TEST_TMP/p.conf" "$TEST_TMP/vms.xml" \
	"$TEST_TMP/hosts.xml" "$TEST_TMP/collision.xml"
check "verify, drift" 1 sim verify --conf "$TEST_TMP/p.conf"
cp "$TEST_TMP/p.conf" "$SIM_PARTITIONS"
sim_opensm_reread
check "verify from XML, no drift" 0 sim verify $pools
}
test_done
