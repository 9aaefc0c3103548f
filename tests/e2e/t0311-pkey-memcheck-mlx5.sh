#!/bin/bash
# oneib-pkey, the part that runs as root, under valgrind (memcheck: no
# invalid access, no definite leak) and in its ASan+UBSan build, on mlx5
# (cx5: OFED files; PF B's rtnetlink scan meets no IPoIB netdev): map,
# which scans every GUID the host carries, refused maps (GUID in use,
# host-bound VF), show, unmap.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx5
command -v valgrind >/dev/null || die "valgrind not installed"
PKEY=$TOP/build/bin/oneib-pkey
APKEY=$TOP/build/asan/bin/oneib-pkey
[ -x "$PKEY" ] || die "oneib-pkey not built"
[ -x "$APKEY" ] || die "ASan build missing: run make check (or make asan-build)"

# In a private network namespace: the fixture's ifindexes name nothing.
vg() { # WANT-EXIT LABEL args...
	local want=$1 label=$2
	shift 2
	unshare -n -- valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --log-file="$TEST_TMP/vg.log" \
		"$PKEY" "$@" >/dev/null 2>"$TEST_TMP/vg.err"
	local rc=$?
	assert_eq "$want" "$rc" "valgrind: $label (exit status; 99 = memcheck error)"
	[ "$rc" = 99 ] && cat "$TEST_TMP/vg.log"
	ASAN_OPTIONS=detect_leaks=1 unshare -n -- "$APKEY" "$@" >/dev/null 2>"$TEST_TMP/asan.err"
	assert_eq "$want" $? "asan+ubsan: $label (exit status)"
	assert_eq "" "$(grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$TEST_TMP/asan.err")" "asan+ubsan: $label: no report"
}

vg 0 "map (mlx5, OFED)" map 0000:3b:00.3 0x0200000000010001 0x8101
vg 1 "map refused: GUID in use" map 0000:3b:00.4 0x0200000000010001 0x8101
assert_match "already in use on this host" "$(cat "$TEST_TMP/vg.err")" "map refused: GUID in use: the reason"
vg 1 "map refused: host-bound VF" map 0000:3b:01.0 0x0200000000020001 0x8101
assert_match "held by the host's mlx5_core" "$(cat "$TEST_TMP/vg.err")" "map refused: host-bound VF: the reason"
vg 1 "map refused: rtnetlink PF without its netdev" map 0000:af:00.1 0x0200000000030001 0x8101
assert_match "IPoIB netdev ib1 .*No such device" "$(cat "$TEST_TMP/vg.err")" "map refused: rtnetlink PF without its netdev: the reason"
vg 0 "show" show 0000:3b:00.3
vg 0 "unmap" unmap 0000:3b:00.3
test_done
