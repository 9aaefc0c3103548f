#!/bin/bash
# The port-ready rule (host/hca.h) is one rule for the monitor and for
# deploy: on a host that programs VF GUIDs, a ConnectX-4+ port without
# MLNX_OFED and without its IPoIB netdev (ib_ipoib not loaded) can give
# no VF its GUID, so the host/monitor probe counts none of its VFs free
# and deploy never picks one. Here PF B (0000:af:00.0) loses ib1: the
# probe's IB_VFS_FREE is exactly the number of VMs deploy then places
# (all on PF A), a VM pinned to PF B is refused with the reason, and
# nothing is leased on PF B.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5 # PF A 0000:3b:00.0 has MLNX_OFED's files, PF B only ib1
sim_libvirtd
kvm_ib_host
kvm_ib_pkey # the host programs GUIDs: the rule applies
probes=$R/im/kvm-ib-probes.d

rm -rf /sys/bus/pci/devices/0000:af:00.0/net/ib1 /sys/class/net/ib1
run_probes "$probes/host/monitor" kvm-ib 3 node3 >"$TEST_TMP/mon"
free=$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)
assert_eq 7 "$free" "the monitor probe: PF A's 7 VFs free (VF 7 is the host's)"
assert_eq "ADDRESS=0000:af:00.0|PORT=1|IB_VFS_FREE=0" \
	"$(tmpl_vectors "$TEST_TMP/mon" IB_PF_FREE | grep af:00.0)" "PF B: none free"

one_deploy 100 "ib/0/02:00:0a:05:01:00/0x8101/0000:af:00.0" >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "a VM pinned to PF B is refused"
assert_match "VM 100 NIC 0: mlx5_1 port 1 \(0000:af:00\.0\) is not ready: no IPoIB netdev, .*ib_ipoib" \
	"$(cat "$TEST_TMP/err")" "saying which port and why"

placed=0
for i in $(seq 1 9); do
	one_deploy "$i" "ib/0/02:00:0a:05:00:0$i/0x8101" >/dev/null 2>"$TEST_TMP/err.$i" || break
	placed=$i
done
assert_eq "$free" "$placed" "deploy places exactly as many VMs as the probe counted free VFs"
assert_match "no free VF on 0000:3b:00.0 port 1 for VM 8 \(7 of 7 leased\)" \
	"$(cat "$TEST_TMP/err.8")" "the next one is refused, PF B not counted"
assert_eq "" "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.pf == "0000:af:00.0") | .vf')" \
	"nothing leased on PF B"
assert_eq 7 "$(grep -c '^map 0000:3b:' "$PKEY_CALLS")" "every VF placed was programmed, all on PF A"
run_probes "$probes/host/monitor" kvm-ib 3 node3 >"$TEST_TMP/mon"
assert_eq 0 "$(tmpl_value "$TEST_TMP/mon" IB_VFS_FREE)" "and the probe now counts none free"
test_done
