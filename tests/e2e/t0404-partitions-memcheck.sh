#!/bin/bash
# oneib-partitions (render, verify, list) and oneib-partitions-install
# under valgrind (memcheck: no invalid access, no definite leak) and in
# their ASan+UBSan build: render, with a network and NICs left out and
# legacy GUIDs, install, unchanged, a failed reload and its retry, a
# refusal, and verify with and without drift on the fabric.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
command -v valgrind >/dev/null || die "valgrind not installed"

cloud_start_vms >"$TEST_TMP/vms.xml"
cloud_hosts >"$TEST_TMP/hosts.xml"
cloud_vnets >"$TEST_TMP/vnets.xml"
sed 's/0x8102/0x8101/' "$TEST_TMP/vnets.xml" >"$TEST_TMP/collision.xml"
cloud_vms "$CLOUD_VM10/0x8102" "$CLOUD_VM11" >"$TEST_TMP/badnic.xml"
cloud_fabric
pools="$TEST_TMP/vms.xml $TEST_TMP/hosts.xml $TEST_TMP/vnets.xml"
"$TOP/build/bin/oneib-partitions" render $pools >"$TEST_TMP/r.conf" || die "cannot render"
sed 's/=full ;$/=full/' "$TEST_TMP/r.conf" >"$TEST_TMP/broken.conf"

# check LABEL WANT-STATUS [sim] TOOL ARGS...: TOOL ARGS (attached to the
# fabric's SM node with "sim") must exit WANT-STATUS with no report.
check() {
	local label=$1 want=$2 rc on=() PK APK
	shift 2
	if [ "$1" = sim ]; then
		on=(sim_client sm)
		shift
	fi
	PK=$TOP/build/bin/$1
	APK=$TOP/build/asan/bin/$1
	[ -x "$APK" ] || die "ASan build missing: run make check (or make asan-build)"
	shift
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
P=oneib-partitions
I=oneib-partitions-install
# shellcheck disable=SC2086
{
check "render to stdout" 0 $P render $pools
check "render, a network and a NIC left out, legacy GUIDs" 0 $P render --legacy-guids \
	--installed "$TEST_TMP/r.conf" "$TEST_TMP/badnic.xml" "$TEST_TMP/hosts.xml" "$TEST_TMP/collision.xml"
check "render refused" 1 $P render "$TEST_TMP/vms.xml" "$TEST_TMP/vnets.xml"
check "list" 0 $P list "$TEST_TMP/r.conf"
check "install" 0 $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/r.conf"
check "unchanged" 0 $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/r.conf"
rm "$TEST_TMP/p.conf"
check "install, reload fails" 1 $I --output "$TEST_TMP/p.conf" --reload-cmd false "$TEST_TMP/r.conf"
check "unchanged, reload retried" 0 $I --output "$TEST_TMP/p.conf" --reload-cmd true "$TEST_TMP/r.conf"
check "install refused" 1 $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/broken.conf"
check "verify, drift" 1 sim $P verify --conf "$TEST_TMP/p.conf"
cp "$TEST_TMP/p.conf" "$SIM_PARTITIONS"
sim_opensm_reread
check "verify from XML, no drift" 0 sim $P verify $pools
}
test_done
