#!/bin/bash
# oneib-pkey, the part that runs as root, under valgrind (memcheck: no
# invalid access, no definite leak) and in its ASan+UBSan build, on mlx4
# (cx3: iov tables, SMI files): map, which scans every GUID the host
# carries, refused maps (GUID in use, SMI on), show, unmap.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx3
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

vg 0 "map (mlx4)" map 0000:03:00.2 0x0200000000010001 0x8101
vg 1 "map refused: GUID in use" map 0000:03:00.3 0x0200000000010001 0x8101
assert_match "already in use on this host" "$(cat "$TEST_TMP/vg.err")" "map refused: GUID in use: the reason"
printf '1\n' >/sys/class/infiniband/mlx4_0/iov/0000:03:00.4/ports/1/smi_enabled
vg 1 "map refused: SMI" map 0000:03:00.4 0x0200000000040001 0x8101
assert_match "SMI \(QP0\) access" "$(cat "$TEST_TMP/vg.err")" "map refused: SMI: the reason"
vg 0 "show" show 0000:03:00.2
vg 0 "unmap" unmap 0000:03:00.2
test_done
