#!/bin/bash
# ConnectX-4 and later without MLNX_OFED: a VF gets its GUIDs through
# rtnetlink on the PF's IPoIB netdev, so without ib_ipoib (no netdev) every
# deploy that programs a VF would fail. oneib-discover and the host probes
# say so before any deploy: the table marks the port NOT READY, the system
# probe class (the one whose attributes reach `onehost show` and the
# scheduler) reports IB_NOT_READY and counts none of the port's VFs as
# free, so the scheduler keeps VMs away; a fixed host clears it. A host
# that programs no VF (ONEIB_PKEY empty) needs no netdev.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5 # PF 0000:3b:00.0 has MLNX_OFED's files, 0000:af:00.0 only ib1

inst=$TEST_TMP/inst
stock_remotes "$inst"
install_tree "$inst"
R=$inst/var/lib/one/remotes
probes=$R/im/kvm-ib-probes.d
D=$R/ib/bin/oneib-discover

# --- ready: OFED files on one PF, an IPoIB netdev on the other
assert_ok "table" -- "$D"
assert_match "VF GUIDs: MLNX_OFED sriov files" "$(cat "$LAST_OUT")" "PF A: OFED"
assert_match "VF GUIDs: rtnetlink on ib1" "$(cat "$LAST_OUT")" "PF B: rtnetlink on its IPoIB netdev"
assert_eq "" "$(grep "NOT READY" "$LAST_OUT")" "nothing not ready"
run_probes "$probes/host/system" kvm-ib 3 node3 >"$TEST_TMP/sys"
assert_eq 1 "$(grep -c '^IB_NOT_READY=""$' "$TEST_TMP/sys")" "system probe: IB_NOT_READY empty"
assert_eq 15 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)" "15 free VFs (VF 7 of PF A is the host's)"

# --- ib_ipoib unloaded: PF B's netdev is gone
rm -rf /sys/bus/pci/devices/0000:af:00.0/net/ib1 /sys/class/net/ib1
assert_ok "table without ib1" -- "$D"
assert_match "VF GUIDs: no IPoIB netdev, so VF GUIDs cannot be set: load ib_ipoib" \
	"$(cat "$LAST_OUT")" "PF B: says why and what to do"
assert_eq 1 "$(grep -c "NOT READY" "$LAST_OUT")" "one port not ready"
assert_eq "" "$(cat "$LAST_ERR")" "not a warning: a state of the host"

run_probes "$probes/host/system" kvm-ib 3 node3 >"$TEST_TMP/sys"
assert_eq 0 $? "system class still succeeds"
assert_match "^mlx5_1 port 1 \(0000:af:00\.0\): no IPoIB netdev, .*ib_ipoib" \
	"$(tmpl_value "$TEST_TMP/sys" IB_NOT_READY)" "IB_NOT_READY names the PF port and the fix"
assert_eq YES "$(tmpl_value "$TEST_TMP/sys" IB_SRIOV)" "the hardware is still there"
assert_eq 2 "$(tmpl_vectors "$TEST_TMP/sys" IB_PF | grep -c .)" "both PFs still listed"
assert_eq 7 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)" "only PF A's 7 VFs are free"
assert_eq "ADDRESS=0000:af:00.0|PORT=1|IB_VFS_FREE=0" \
	"$(tmpl_vectors "$TEST_TMP/sys" IB_PF_FREE | grep af:00.0)" "PF B: none free"
run_probes "$probes/host/monitor" kvm-ib 3 node3 >"$TEST_TMP/mon"
assert_eq 7 "$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)" "monitor class: the same count"

# --- a host that programs no VF does not need the netdev
sed -i 's|^ONEIB_PKEY=.*|ONEIB_PKEY=|' "$R/etc/vmm/kvm-ib/kvm-ibrc"
run_probes "$probes/host/system" kvm-ib 3 node3 >"$TEST_TMP/sys"
assert_eq 1 "$(grep -c '^IB_NOT_READY=""$' "$TEST_TMP/sys")" "ONEIB_PKEY empty: ready, IB_NOT_READY cleared"
assert_eq 15 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)" "ONEIB_PKEY empty: all free again"
run_probes "$probes/host/monitor" kvm-ib 3 node3 >"$TEST_TMP/mon"
assert_eq 15 "$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)" "monitor class: the same"
assert_fail "--guids takes on or off" -- "$D" --guids=maybe
assert_match "^oneib-discover: --guids 'maybe': on or off$" "$(cat "$LAST_ERR")" "says so in one line"
test_done
