#!/bin/bash
# A probe must never fail its class: on a damaged tree it still reports, and
# when oneib-discover cannot run at all it says IB_SRIOV="NO", no free VF
# and why (IB_ERROR), and exits 0.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host damaged

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst"
probes=$inst/var/lib/one/remotes/im/kvm-ib-probes.d

run_probes "$probes/host/system" kvm-ib 3 node3 >"$TEST_TMP/sys" 2>/dev/null
assert_eq 0 $? "damaged tree: class succeeds"
assert_eq 1 "$(tmpl_vectors "$TEST_TMP/sys" IB_PF | grep -c 'ADDRESS=0000:3b:00.0')" "damaged tree: the PF is still reported"

mount -t tmpfs -o mode=000 none /sys
chmod 711 "$TEST_TMP"
chmod -R a+rX "$inst"
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$probes/host/system/oneib-inventory.sh" kvm-ib 3 node3 >"$TEST_TMP/sys2" 2>/dev/null </dev/null
rc1=$?
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$probes/host/monitor/oneib-vfs.sh" kvm-ib 3 node3 >"$TEST_TMP/mon2" 2>/dev/null </dev/null
rc2=$?
umount /sys
assert_eq "0 0" "$rc1 $rc2" "unreadable /sys: probes exit 0"
err='IB_ERROR="oneib-discover failed on this host, see the monitoring log"'
assert_eq "IB_SRIOV=\"NO\"
IB_VFS_FREE=0
IB_VFS_USABLE=0
$err" "$(cat "$TEST_TMP/sys2")" "unreadable /sys: system probe"
assert_eq "IB_VFS_FREE=0
IB_VFS_USABLE=0
$err" "$(cat "$TEST_TMP/mon2")" "unreadable /sys: monitor probe"
test_done
