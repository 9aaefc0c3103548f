#!/bin/bash
# oneib-pkey, the part that runs as root, under valgrind (memcheck: no
# invalid access, no definite leak) and in its ASan+UBSan build, on mlx5
# (cx5: OFED files; PF B's rtnetlink scan meets no IPoIB netdev): map,
# which scans every GUID the host carries, refused maps (GUID in use,
# host-bound VF), show, unmap.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host cx5
PKEY=$TOP/build/bin/oneib-pkey
[ -x "$PKEY" ] || die "oneib-pkey not built"
# In a private network namespace: the fixture's ifindexes name nothing.
MC_ON=(unshare -n --)

mc_check 0 "map (mlx5, OFED)" "$PKEY" map 0000:3b:00.3 0x0200000000010001 0x8101
mc_check 1 "map refused: GUID in use" "$PKEY" map 0000:3b:00.4 0x0200000000010001 0x8101
assert_match "already in use on this host" "$(cat "$TEST_TMP/vg.err")" "map refused: GUID in use: the reason"
mc_check 1 "map refused: host-bound VF" "$PKEY" map 0000:3b:01.0 0x0200000000020001 0x8101
assert_match "held by the host's mlx5_core" "$(cat "$TEST_TMP/vg.err")" "map refused: host-bound VF: the reason"
mc_check 1 "map refused: rtnetlink PF without its netdev" "$PKEY" map 0000:af:00.1 0x0200000000030001 0x8101
assert_match "IPoIB netdev ib1 .*No such device" "$(cat "$TEST_TMP/vg.err")" "map refused: rtnetlink PF without its netdev: the reason"
mc_check 0 "show" "$PKEY" show 0000:3b:00.3
mc_check 0 "unmap" "$PKEY" unmap 0000:3b:00.3
test_done
