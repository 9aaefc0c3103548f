#!/bin/bash
# The guest sees each GPU beside its VF (design decision 15): deploy puts
# every GPU of the deployment (OpenNebula's PCI hostdevs) and the VFs
# paired with it under an emulated PCIe switch of their own (root port ->
# upstream port -> downstream ports), with one downstream port left free
# for a VF hot-plugged beside it later; on OpenNebula 7.0's q35 NUMA layout
# the root port sits on the PCIe expander bus of the guest NUMA node whose
# memory is on the GPU's host node (guest node 0 on host node 1 here), on
# 6.10's flat q35 on pcie-root. libvirt's real QEMU driver accepts every
# such deployment (define), and in what it made of it: GPU and VF on two
# downstream ports of one upstream port, that switch alone theirs. With 8
# GPUs guest node 0's expander needs more bus numbers than OpenNebula left
# it (0x20-0x3f): deploy raises the next expander's busNr just enough, and
# QEMU's driver still accepts it (t0227 boots such a guest). On the hgx
# host (rails 2s, 2s+1 beside GPUs 2s, 2s+1).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
sim_host hgx
sim_libvirtd
kvm_ib_host
numa_two_nodes || die "cannot fake the NUMA nodes"
sim_qemu_libvirtd

# deploy VMID LAYOUT "GPU@NODE..." N: N IB NICs on one network
deploy() {
	local vmid=$1 layout=$2 gpus=$3 n=$4 i specs=() macs=() a
	for ((i = 0; i < n; i++)); do
		printf -v a '02:00:0b:%02x:00:%02x' "$vmid" $i
		specs+=("ib/$i/$a/0x8101/////20")
		macs+=("$a")
	done
	mkdir -p "$DS/$vmid"
	VM_XML_PCI=$(for a in $gpus; do printf '%s ' "${a%@*}"; done) vm_xml "$vmid" "${specs[@]}" >"$DS/$vmid/vm.xml"
	DOMAIN_XML_Q35_PCI=$gpus domain_xml_q35 "$vmid" "$layout" "${macs[@]}" |
		"$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 "$vmid" node1 >/dev/null
}
validate() { # VMID
	local xml=$TEST_TMP/one-$1.xml
	if qemu_virsh domcapabilities --virttype kvm >/dev/null 2>&1; then
		cp "$DS/$1/deployment.0" "$xml"
	else
		qemu_kvm_to_qemu "$DS/$1/deployment.0" "$xml" || return 1
	fi
	qemu_virsh define "$xml" >/dev/null
}
xval() { # DOMAIN XPATH: one attribute's or leaf's value
	qemu_virsh dumpxml "$1" --xpath "$2" 2>/dev/null | sed -E '/^[[:space:]]*$/d; s/^[[:space:]]+//' |
		sed -E "s/^[a-zA-Z]+=[\"'](.*)[\"']\$/\1/; s/^<[^>]*>([^<]*)<.*/\1/" | head -n 1
}
ctl() { xval "$1" "//devices/controller[@type='pci'][@index='$2']$3"; } # DOM INDEX TAIL
# the guest bus (controller index) of the hostdev of host function ADDR
bus_of() { # DOM ADDR
	local b=${2#*:} s f
	s=${b#*:} b=${b%%:*} f=${s#*.} s=${s%.*}
	echo $(($(xval "$1" "//devices/hostdev[source/address[@bus='0x$b'][@slot='0x$s'][@function='0x$f']]/address/@bus")))
}
vf_of() { "$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1 and .nic == $2) | .vf"; }
# chain DOM BUS: "model index" from BUS up to the root, e.g.
# "pcie-switch-downstream-port 50 < pcie-switch-upstream-port 49 < pcie-root-port 48 < pcie-expander-bus/1 34 < pcie-root 0"
chain() {
	local bus=$2 m out='' n=0
	while [ $n -lt 8 ]; do
		m=$(ctl "$1" "$bus" /@model)
		[ "$m" = pcie-expander-bus ] && m="$m/$(ctl "$1" "$bus" /target/node)"
		out+="${out:+ < }$m $bus"
		[ "$bus" = 0 ] && break
		bus=$(($(ctl "$1" "$bus" /address/@bus)))
		n=$((n + 1))
	done
	echo "$out"
}
# pair DOM GPU VF: both on downstream ports of one upstream port; prints
# that upstream port's chain from the root port up
pair() {
	local g v gu vu
	g=$(bus_of "$1" "$2") v=$(bus_of "$1" "$3")
	[ "$(ctl "$1" "$g" /@model)" = pcie-switch-downstream-port ] || { echo "GPU on $(ctl "$1" "$g" /@model)"; return; }
	[ "$(ctl "$1" "$v" /@model)" = pcie-switch-downstream-port ] || { echo "VF on $(ctl "$1" "$v" /@model)"; return; }
	gu=$(($(ctl "$1" "$g" /address/@bus))) vu=$(($(ctl "$1" "$v" /address/@bus)))
	[ "$gu" = "$vu" ] || { echo "GPU under $gu, VF under $vu"; return; }
	chain "$1" "$gu" | sed 's/ [0-9]* </ </g; s/ [0-9]*$//'
}
# the downstream ports of the switch above GPU's port with no device: "1"
free_ports() { # DOM GPU
	local g up i n=0 b
	g=$(bus_of "$1" "$2")
	up=$(($(ctl "$1" "$g" /address/@bus)))
	for i in $(qemu_virsh dumpxml "$1" --xpath "//devices/controller[@model='pcie-switch-downstream-port']/@index" |
		sed -E "s/.*index=[\"']([0-9]+)[\"'].*/\1/"); do
		[ "$(($(ctl "$1" "$i" /address/@bus)))" = "$up" ] || continue
		b=$(printf '0x%02x' "$i")
		[ -z "$(qemu_virsh dumpxml "$1" --xpath "//devices/*[address[@bus='$b']]" 2>/dev/null | sed '/^$/d')" ] &&
			n=$((n + 1))
	done
	echo $n
}

# --- 7.0's q35 NUMA layout: 4 GPUs, 2 per host node, 4 NICs
g4="0000:17:00.0@0 0000:3b:00.0@0 0000:97:00.0@1 0000:bb:00.0@1"
assert_ok "deploy of VM 5 (7.0 layout, 4 GPUs, 4 NICs)" -- deploy 5 numa "$g4" 4
if assert_ok "virsh -c qemu:///system define accepts it" -- validate 5; then
	k=0
	for g in $g4; do
		n=${g#*@} g=${g%@*}
		cell=$((1 - n)) # host node 0 is guest node 1's memory
		assert_eq "pcie-switch-upstream-port < pcie-root-port < pcie-expander-bus/$cell < pcie-root" \
			"$(pair one-5 "$g" "$(vf_of 5 $k)")" \
			"GPU $g and NIC $k's VF: one switch, on guest node $cell's expander"
		assert_eq 1 "$(free_ports one-5 "$g")" "GPU $g: one downstream port free beside it"
		k=$((k + 1))
	done
	gu=()
	for g in $g4; do gu+=("$(($(ctl one-5 "$(bus_of one-5 "${g%@*}")" /address/@bus)))"); done
	assert_eq 4 "$(printf '%s\n' "${gu[@]}" | sort -u | wc -l)" "four switches, one per GPU"
	qemu_virsh undefine one-5 >/dev/null
fi

# --- 6.10's flat q35: the switches on pcie-root
assert_ok "deploy of VM 6 (6.10 layout, 2 GPUs, 2 NICs)" -- deploy 6 flat "0000:18:00.0@0 0000:98:00.0@1" 2
if assert_ok "define accepts it" -- validate 6; then
	assert_eq "pcie-switch-upstream-port < pcie-root-port < pcie-root" "$(pair one-6 0000:18:00.0 "$(vf_of 6 0)")" \
		"GPU 0000:18:00.0 and NIC 0's VF: one switch, on pcie-root"
	assert_eq "pcie-switch-upstream-port < pcie-root-port < pcie-root" "$(pair one-6 0000:98:00.0 "$(vf_of 6 1)")" \
		"GPU 0000:98:00.0 and NIC 1's VF likewise"
	qemu_virsh undefine one-6 >/dev/null
fi

# --- 8 GPUs x 8 NICs on 7.0's layout: guest node 0's expander (busNr
# 0x20) now needs more buses than 0x20-0x3f; node 1's moves up
g8="0000:17:00.0@0 0000:18:00.0@0 0000:3b:00.0@0 0000:3c:00.0@0 0000:97:00.0@1 0000:98:00.0@1 0000:bb:00.0@1 0000:bc:00.0@1"
assert_ok "deploy of VM 7 (8 GPUs, 8 NICs)" -- deploy 7 numa "$g8" 8
if assert_ok "define accepts it" -- validate 7; then
	k=0 ok=0
	for g in $g8; do
		[ "$(pair one-7 "${g%@*}" "$(vf_of 7 $k)")" = "pcie-switch-upstream-port < pcie-root-port < pcie-expander-bus/$((1 - ${g#*@})) < pcie-root" ] &&
			ok=$((ok + 1))
		k=$((k + 1))
	done
	assert_eq 8 "$ok" "all 8 pairs under switches of their own, on their guest nodes"
	assert_eq "32 $((32 + 1 + 14 + 4 * 5))" "$(($(ctl one-7 20 /target/@busNr))) $(($(ctl one-7 34 /target/@busNr)))" \
		"node 0's expander keeps busNr 0x20, node 1's moves past its 1 + 14 + 4 x 5 buses"
	qemu_virsh undefine one-7 >/dev/null
fi
test_done
