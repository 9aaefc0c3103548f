#!/bin/bash
# A VF's guest PCI address on the guest NUMA node of its host node, where
# the domain XML can carry it: OpenNebula 7.0 gives a q35 VM with a NUMA
# topology one pcie-expander-bus per guest NUMA node (<target><node>), with
# root ports and a switch behind each (LibVirtDriverKVM.cc, Q35_NUMA_PCIE,
# default on), and pins each guest node's memory to a host node
# (<numatune><memnode>). Deploy puts each VF on a free port of the
# expander of the guest node whose memory is on the VF's host node; libvirt's
# real QEMU driver accepts the result (define), and in what it made of it
# the VF's port hangs off that expander. 6.10 writes a flat q35 (root ports
# on pcie-root, which belongs to no NUMA node): the VF gets no address, as
# before, and the QEMU driver places it.
#
# The deployment (domain_xml_q35, tests/lib/oneib.sh) is what 7.0 writes
# for a 4-vCPU q35 VM pinned across both host nodes: guest node 0 on host
# node 1 (CPUs 4,5), guest node 1 on host node 0 (CPUs 0,1), so a mix-up of
# guest and host node numbers would show. Its two IB NICs are pinned to one PF each (IB_PF):
# 0000:3b:00.0 on host node 0, 0000:af:00.0 on host node 1.
# Without a usable /dev/kvm the file is validated with type 'qemu' (t0208).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
numa_two_nodes || die "cannot fake the NUMA nodes"

deploy() { # VMID LAYOUT
	mkdir -p "$DS/$1"
	vm_xml "$1" ib/0/02:00:c0:a8:0$1:05/0x8101/0000:3b:00.0 ib/1/02:00:c0:a8:0$1:06/0x8101/0000:af:00.0 >"$DS/$1/vm.xml"
	domain_xml_q35 "$1" "$2" 02:00:c0:a8:0$1:05 02:00:c0:a8:0$1:06 |
		"$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1 >/dev/null
}
leased() { "$IBBIN/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1 and .nic == $2) | .vf"; }
# xval DOMAIN EXPR: virsh dumpxml --xpath of one attribute or one leaf
# element, its value alone ("bus='0x24'" and "<node>1</node>" -> 0x24, 1).
xval() {
	qemu_virsh dumpxml "$1" --xpath "$2" 2>/dev/null | sed -E '/^[[:space:]]*$/d; s/^[[:space:]]+//' |
		sed -E "s/^[a-zA-Z]+=[\"'](.*)[\"']\$/\1/; s/^<[^>]*>([^<]*)<.*/\1/" | head -n 1
}
# The guest bus of the hostdev of VF (0000:af:00.1) in domain DOM's dumpxml.
hostdev_bus() { # DOM VF
	local b=${2#*:} s f
	s=${b#*:} b=${b%%:*} f=${s#*.} s=${s%.*}
	xval "$1" "//devices/hostdev[source/address[@bus='0x$b'][@slot='0x$s'][@function='0x$f']]/address/@bus"
}
ctl() { # DOM INDEX TAIL: of the PCI controller with that index
	xval "$1" "//devices/controller[@type='pci'][@index='$2']$3"
}
# upstream DOM BUS: the controllers from bus BUS up to pcie-root, as the
# QEMU driver has them: "36:pcie-root-port 34:pcie-expander-bus/1 0:pcie-root"
# (an expander with its guest NUMA node).
upstream() {
	local bus=$(($2)) m out='' n=0
	while [ $n -lt 10 ]; do
		m=$(ctl "$1" "$bus" /@model)
		[ "$m" = pcie-expander-bus ] && m="$m/$(ctl "$1" "$bus" /target/node)"
		out+="${out:+ }$bus:$m"
		[ "$bus" = 0 ] && break
		bus=$(($(ctl "$1" "$bus" /address/@bus)))
		n=$((n + 1))
	done
	echo "$out"
}
sim_qemu_libvirtd
validate() { # VMID: the deployment file, through the QEMU driver
	local xml=$TEST_TMP/one-$1.xml
	if qemu_virsh domcapabilities --virttype kvm >/dev/null 2>&1; then
		cp "$DS/$1/deployment.0" "$xml"
	else
		qemu_kvm_to_qemu "$DS/$1/deployment.0" "$xml" || return 1
	fi
	qemu_virsh define "$xml"
}

# --- 7.0: expander buses per guest NUMA node
assert_ok "deploy of VM 5 (7.0 q35 NUMA layout)" -- deploy 5 numa
a=$(leased 5 0) b=$(leased 5 1)
assert_match '^0000:3b:00\.' "$a" "NIC 0: a VF of PF A (host node 0)"
assert_match '^0000:af:00\.' "$b" "NIC 1: a VF of PF B (host node 1)"
dep=$DS/5/deployment.0
assert_match 'bus="0x24" slot="0x00" function="0x0"' "$(grep -A6 "bus=\"0x3b\" slot=\"0x00\" function=\"0x${a##*.}\"" "$dep")" \
	"PF A's VF: on root port 36, behind guest node 1's expander (its memory is on host node 0)"
assert_match 'bus="0x17" slot="0x00" function="0x0"' "$(grep -A6 "bus=\"0xaf\" slot=\"0x00\" function=\"0x${b##*.}\"" "$dep")" \
	"PF B's VF: on root port 23, behind guest node 0's expander (its memory is on host node 1)"
if assert_ok "virsh -c qemu:///system define accepts it" -- validate 5; then
	assert_eq "36:pcie-root-port 34:pcie-expander-bus/1 0:pcie-root" "$(upstream one-5 "$(hostdev_bus one-5 "$a")")" \
		"PF A's VF, as the QEMU driver has it: behind the expander of guest node 1"
	assert_eq "0" "$(xval one-5 "//numatune/memnode[@cellid='1']/@nodeset")" \
		"whose memory is on host node 0, PF A's"
	assert_eq "23:pcie-root-port 20:pcie-expander-bus/0 0:pcie-root" "$(upstream one-5 "$(hostdev_bus one-5 "$b")")" \
		"PF B's VF: behind the expander of guest node 0"
	assert_eq "1" "$(xval one-5 "//numatune/memnode[@cellid='0']/@nodeset")" \
		"whose memory is on host node 1, PF B's"
	assert_ok "undefine" -- qemu_virsh undefine one-5
fi
# control: the QEMU driver does check those addresses (two devices on one port)
sed -E 's/bus="0x17" slot="0x00" function="0x0"/bus="0x24" slot="0x00" function="0x0"/' "$dep" >"$TEST_TMP/dup.xml"
cp "$TEST_TMP/dup.xml" "$DS/5/deployment.0"
assert_fail "control: define refuses both VFs on one port" -- validate 5
assert_match 'double use of PCI Address' "$(cat "$LAST_ERR")" "control: for that reason"

# --- 6.10: flat q35, nothing to put the VF on a guest node with
assert_ok "deploy of VM 6 (6.10 flat q35)" -- deploy 6 flat
assert_eq 0 "$(grep -c '<address type="pci"' "$DS/6/deployment.0")" "no guest address given: libvirt places the VFs"
if assert_ok "define accepts it" -- validate 6; then
	for vf in "$(leased 6 0)" "$(leased 6 1)"; do
		chain=$(upstream one-6 "$(hostdev_bus one-6 "$vf")")
		assert_match ' 0:pcie-root$' "$chain" "VF $vf: placed by the QEMU driver ($chain)"
		assert_eq "" "$(echo "$chain" | grep expander)" "VF $vf: on no guest NUMA node"
	done
	qemu_virsh undefine one-6 >/dev/null
fi
test_done
