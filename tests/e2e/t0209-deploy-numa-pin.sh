#!/bin/bash
# VF choice: a VM whose vCPUs are pinned gets a VF of the PF on their NUMA
# node, falling back to another PF when that one is full; a network can pin
# the PF (IB_PF); unpinned VMs take the lowest free VF of the first PF.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

# The host's NUMA layout as the kernel shows it: node0 CPUs 0-3, node1 4-7
# (cx5's PFs: 0000:3b:00.0 on node 0, 0000:af:00.0 on node 1).
numa_two_nodes || die "cannot fake the NUMA nodes"

leased_vf() { "$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1) | .vf"; }
deploy_pinned() { # VMID MAC CPUSET
	mkdir -p "$DS/$1"
	vm_xml "$1" "ib/0/$2/0x8101" >"$DS/$1/vm.xml"
	domain_xml "$1" "$2" | sed "s|<vcpu>1</vcpu>|<vcpu cpuset='$3'>1</vcpu>|" |
		"$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1
}

one_deploy 1 ib/0/02:00:0a:05:00:01/0x8101 >/dev/null
assert_eq 0000:3b:00.1 "$(leased_vf 1)" "unpinned: lowest free VF of the first PF"

deploy_pinned 2 02:00:0a:05:00:02 4-5 >/dev/null
assert_eq 0000:af:00.1 "$(leased_vf 2)" "vCPUs on node 1: VF of the PF on node 1"

mkdir -p "$DS/3"
vm_xml 3 ib/0/02:00:0a:05:00:03/0x8101 >"$DS/3/vm.xml"
domain_xml 3 02:00:0a:05:00:03 | sed "s|<shares>1024</shares>|<shares>1024</shares><vcpupin vcpu='0' cpuset='6'/>|" |
	"$R/vmm/kvm-ib/deploy" "$DS/3/deployment.0" node1 3 node1 >/dev/null
assert_eq 0000:af:00.2 "$(leased_vf 3)" "vcpupin on node 1 counts too"

for i in $(seq 10 15); do
	one_deploy "$i" "ib/0/02:00:0a:05:00:$i/0x8101/0000:af:00.0" >/dev/null
done
assert_eq 8 "$("$R/ib/bin/oneib-vf" list --format=json | jq '[.leases[] | select(.pf == "0000:af:00.0")] | length')" "IB_PF pins the PF: node 1's PF now full"
one_deploy 16 ib/0/02:00:0a:05:00:16/0x8101/0000:af:00.0 >/dev/null 2>"$TEST_TMP/err"
assert_match "no free VF on 0000:af:00.0 port 1 for VM 16 \(8 of 8 leased\)" "$(cat "$TEST_TMP/err")" "pinned PF full: refused, not moved"
deploy_pinned 4 02:00:0a:05:00:04 4-5 >/dev/null
assert_eq 0000:3b:00.2 "$(leased_vf 4)" "NUMA preference falls back to the other PF"
test_done
