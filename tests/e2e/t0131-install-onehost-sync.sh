#!/bin/bash
# After `onehost sync` (rsync -L of the remotes to /var/tmp/one on a host:
# symlinks become files) the probes still find the helper and the stock
# probes still sit at the depth their relative paths expect.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst"
host=$TEST_TMP/host-var-tmp-one
cp -RL "$inst/var/lib/one/remotes" "$host"
assert_eq "" "$(find "$host" -type l)" "no symlink survives the sync"

run_probes "$host/im/kvm-ib-probes.d/host/system" kvm-ib 0 node0 >"$TEST_TMP/sys"
assert_eq 0 $? "system class runs from the synced copy"
assert_eq YES "$(tmpl_value "$TEST_TMP/sys" IB_SRIOV)" "IB_SRIOV"
assert_eq 2 "$(tmpl_vectors "$TEST_TMP/sys" IB_PF | grep -c 'ADDRESS=0000:03:00.0')" "both ports of the ConnectX-3"
run_probes "$host/im/kvm-ib-probes.d/host/monitor" kvm-ib 0 node0 >"$TEST_TMP/mon"
assert_eq 16 "$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)" "16 free VFs"
test_done
