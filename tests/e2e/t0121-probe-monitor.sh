#!/bin/bash
# The host/monitor class: IB_VFS_FREE for the host and per PF port. On cx5
# one VF of the first PF is held by the host driver, so 7 + 8 are free.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst"
probes=$inst/var/lib/one/remotes/im/kvm-ib-probes.d

run_probes "$probes/host/monitor" kvm-ib 3 node3 >"$TEST_TMP/mon"
assert_eq 0 $? "class succeeds"
assert_eq 1024 "$(tmpl_value "$TEST_TMP/mon" FREEMEMORY)" "stock probe ran in the same class"
assert_eq 15 "$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)" "host total"
assert_eq "ADDRESS=0000:3b:00.0|PORT=1|IB_VFS_FREE=7
ADDRESS=0000:af:00.0|PORT=1|IB_VFS_FREE=8" "$(tmpl_vectors "$TEST_TMP/mon" IB_PF_FREE)" "per PF port"
test_done
