#!/bin/bash
# Demo part: VMs with InfiniBand NICs through the kvm-ib driver on a
# simulated ConnectX-5 host (15 assignable VFs: one of the 16 is held by the
# host's own mlx5_core), with a real libvirtd: who holds which VF, the clean
# refusal when none is left, and every VF free again after shutdown.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
vf=$R/ib/bin/oneib-vf
free() { "$R/ib/bin/oneib-discover" --format=one-monitor | sed -n 's/^IB_VFS_FREE=//p'; }

say "=== kvm-ib deploy: VM 10 (IB + ordinary NIC), VM 11 (two IB NICs), VM 12 ==="
declare -A uuid
uuid[10]=$(one_deploy 10 ib/0/02:00:c0:a8:0a:01/0x8101 bridge/1/02:00:c0:a8:0a:02)
uuid[11]=$(one_deploy 11 ib/0/02:00:c0:a8:0b:01/0x8102 ib/1/02:00:c0:a8:0b:02/0x8102)
uuid[12]=$(one_deploy 12 ib/0/02:00:c0:a8:0c:01/0x8101)
virsh list | sed 's/^/  /'
say "=== oneib-vf list: the host's lease ledger ==="
"$vf" list | sed 's/^/  /'
say "=== VM 11's domain: its two IB NICs are PCI hostdevs ==="
virsh dumpxml one-11 | grep -A2 '<hostdev' | grep address | sed 's/^ */  /'
assert_eq 4 "$("$vf" list --format=json | jq '.leases | length')" "4 VFs leased"
assert_eq 11 "$(free)" "11 VFs left (IB_VFS_FREE)"

say "=== filling the host: VMs 20.. until no VF is left ==="
i=20
while one_deploy "$i" "ib/0/02:00:c0:a8:14:$(printf %02x "$i")/0x8101" >"$TEST_TMP/uuid.$i" 2>"$TEST_TMP/err"; do
	uuid[$i]=$(cat "$TEST_TMP/uuid.$i")
	i=$((i + 1))
done
say "VM $i refused: $(cat "$TEST_TMP/err")"
assert_match "^no free VF on 2 PFs for VM $i \(15 of 15 leased\)$" "$(cat "$TEST_TMP/err")" "clean refusal when the host is full"
assert_fail "the refused VM did not boot without InfiniBand" -- virsh domuuid "one-$i"
assert_eq 0 "$(free)" "IB_VFS_FREE=0: the scheduler stops sending IB VMs here"
"$R/ib/bin/oneib-discover" | sed 's/^/  /'

say "=== shutdown of every VM ==="
for id in "${!uuid[@]}"; do
	"$R/vmm/kvm-ib/shutdown" "${uuid[$id]}" node1 "$id" node1 || echo "shutdown of VM $id failed"
done
"$vf" list | sed 's/^/  /'
assert_eq 0 "$("$vf" list --format=json | jq '.leases | length')" "ledger empty"
assert_eq 15 "$(free)" "all 15 VFs free again"
test_done
