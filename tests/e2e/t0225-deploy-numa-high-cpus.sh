#!/bin/bash
# VF choice on a host with more than 64 CPUs (issue 33): a VM whose vCPUs
# are pinned to CPUs numbered 64 and up gets a VF of the PF on their NUMA
# node, by <vcpu cpuset> and by <vcpupin> alike, through the whole deploy
# (the deployment file, the node cpulists, the choice); CPU 63 is node 0's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

# A 128-CPU host as the kernel shows it: node0 CPUs 0-63, node1 64-127
# (cx5's PFs: 0000:3b:00.0 on node 0, 0000:af:00.0 on node 1).
n=/sys/devices/system/node
{ mount -t tmpfs none "$n" && mkdir "$n/node0" "$n/node1" &&
	echo 0-63 >"$n/node0/cpulist" && echo 64-127 >"$n/node1/cpulist" &&
	echo 0-1 >"$n/online"; } || die "cannot fake the NUMA nodes"

leased_vf() { "$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1) | .vf"; }
deploy_pinned() { # VMID MAC CPUSET
	mkdir -p "$DS/$1"
	vm_xml "$1" "ib/0/$2/0x8101" >"$DS/$1/vm.xml"
	domain_xml "$1" "$2" | sed "s|<vcpu>1</vcpu>|<vcpu cpuset='$3'>1</vcpu>|" |
		"$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1
}

deploy_pinned 1 02:00:0a:05:00:01 64-65 >/dev/null
assert_eq 0000:af:00.1 "$(leased_vf 1)" "vCPUs on CPUs 64-65 (node 1): VF of the PF on node 1"

mkdir -p "$DS/2"
vm_xml 2 ib/0/02:00:0a:05:00:02/0x8101 >"$DS/2/vm.xml"
domain_xml 2 02:00:0a:05:00:02 | sed "s|<shares>1024</shares>|<shares>1024</shares><vcpupin vcpu='0' cpuset='127'/>|" |
	"$R/vmm/kvm-ib/deploy" "$DS/2/deployment.0" node1 2 node1 >/dev/null
assert_eq 0000:af:00.2 "$(leased_vf 2)" "vcpupin on CPU 127 (node 1) too"

deploy_pinned 3 02:00:0a:05:00:03 63 >/dev/null
assert_eq 0000:3b:00.1 "$(leased_vf 3)" "CPU 63 is node 0's"
deploy_pinned 4 02:00:0a:05:00:04 100 >/dev/null
assert_eq 0000:af:00.3 "$(leased_vf 4)" "and CPU 100 node 1's, after a node-0 VM"
test_done
