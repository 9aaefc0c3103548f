#!/bin/bash
# oneib-pkey, the part that runs as root, under valgrind (memcheck: no
# invalid access, no definite leak) and in its ASan+UBSan build, on mlx4
# (cx3: iov tables, SMI files): map, which scans every GUID the host
# carries, refused maps (GUID in use, SMI on), show, unmap.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host cx3
PKEY=$TOP/build/bin/oneib-pkey
[ -x "$PKEY" ] || die "oneib-pkey not built"
# In a private network namespace: the fixture's ifindexes name nothing.
MC_ON=(unshare -n --)

mc_check 0 "map (mlx4)" "$PKEY" map 0000:03:00.2 0x0200000000010001 0x8101
mc_check 1 "map refused: GUID in use" "$PKEY" map 0000:03:00.3 0x0200000000010001 0x8101
assert_match "already in use on this host" "$(cat "$TEST_TMP/vg.err")" "map refused: GUID in use: the reason"
printf '1\n' >/sys/class/infiniband/mlx4_0/iov/0000:03:00.4/ports/1/smi_enabled
mc_check 1 "map refused: SMI" "$PKEY" map 0000:03:00.4 0x0200000000040001 0x8101
assert_match "SMI \(QP0\) access" "$(cat "$TEST_TMP/vg.err")" "map refused: SMI: the reason"
mc_check 0 "show" "$PKEY" show 0000:03:00.2
mc_check 0 "unmap" "$PKEY" unmap 0000:03:00.2
test_done
