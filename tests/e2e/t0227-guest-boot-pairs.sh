#!/bin/bash
# A real guest sees each GPU beside its VF (design decision 15): deploy on
# the hgx host writes the deployment (OpenNebula 7.0's q35 NUMA layout,
# and 6.10's flat q35), libvirt's QEMU driver makes the QEMU command line
# of it, and a Debian kernel boots under QEMU (TCG) with emulated devices
# in exactly the slots the deployment gives the GPUs (virtio-rng,
# 1af4:1044) and their VFs (qemu-xhci, 1b36:000d). The guest's own /sys
# says, for every GPU:
# - one VF stand-in shares its upstream port: both hang off downstream
#   ports of one switch (the grandparent of each in its device path), and
#   nothing else does;
# - the switch has one more downstream port, free, for a hot-plugged VF;
# - GPU and VF are on the guest NUMA node whose memory is on the GPU's
#   host node (7.0: the expander's node; 6.10: no node, -1);
# and with 8 GPUs every switch is still there: the expanders' bus numbers
# deploy raised leave QEMU's firmware room to number every bus. The guest's
# SMBIOS OEM strings carry each NIC's rail (what oneib-context orders
# NCCL's NICs by).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
. "$TOP/tests/lib/guestboot.sh"
guest_boot_ready
sim_host hgx
sim_libvirtd
kvm_ib_host
numa_two_nodes || die "cannot fake the NUMA nodes"
sim_qemu_libvirtd
guest_initramfs || die "cannot build the initramfs"

deploy() { # VMID LAYOUT "GPU@NODE..." N: N IB NICs on one network
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
boot() { # VMID "GPU@NODE...": the guest's PCI lines into $TEST_TMP/pci.VMID
	local g gpus=''
	for g in $2; do gpus+="${g%@*} "; done
	guest_standins "$DS/$1/deployment.0" "$TEST_TMP/boot-$1.xml" "$gpus" &&
		guest_run "$TEST_TMP/boot-$1.xml" && guest_pci >"$TEST_TMP/pci.$1"
}
# In the guest's lines (addr id class numa path), for each GPU stand-in:
# "<numa> <VF stand-ins under its upstream port> <downstream ports of it>
# <those without a device>", sorted: e.g. "0 1 3 1" four times.
pairs() { # VMID
	awk '
	{ id[$5] = $2; numa[$5] = $4; path[NR] = $5 }
	function up(p, n) { while (n-- > 0) sub("/[^/]*$", "", p); return p }
	END {
		for (i = 1; i <= NR; i++) {
			p = path[i]
			if (id[p] != "0x1af4:0x1044") continue
			u = up(p, 2); vfs = 0; dsp = 0; empty = 0
			for (j = 1; j <= NR; j++) {
				q = path[j]
				if (id[q] == "0x1b36:0x000d" && up(q, 2) == u) { vfs++; vfnuma = numa[q] }
				if (up(q, 1) == u) {
					dsp++; has = 0
					for (k = 1; k <= NR; k++) if (up(path[k], 1) == q) has = 1
					if (!has) empty++
				}
			}
			print numa[p] "/" vfnuma, vfs, dsp, empty
		}
	}' "$TEST_TMP/pci.$1" | sort
}

# --- 7.0's q35 NUMA layout: 4 GPUs, two on each host node
g4="0000:17:00.0@0 0000:3b:00.0@0 0000:97:00.0@1 0000:bb:00.0@1"
assert_ok "deploy of VM 5 (7.0 layout, 4 GPUs, 4 NICs)" -- deploy 5 numa "$g4" 4
if assert_ok "the guest boots (QEMU TCG) and lists its PCI functions" -- boot 5 "$g4"; then
	assert_eq "4" "$(grep -c ' 0x1af4:0x1044 ' "$TEST_TMP/pci.5")" "the guest sees the 4 GPU stand-ins"
	assert_eq "0/0 1 3 1
0/0 1 3 1
1/1 1 3 1
1/1 1 3 1" "$(pairs 5)" \
		"each GPU with one VF under its own switch, one downstream port free, on its guest node (host node 1's GPUs on guest node 0)"
	guest_oem >"$TEST_TMP/oem.5"
	assert_eq "one-ib rails 0=0,1=2,2=4,3=6" "$(grep '^one-ib rails ' "$TEST_TMP/oem.5")" \
		"the guest's SMBIOS OEM strings: each NIC's rail (beside GPUs of switches 0, 1, 2, 3)"
fi

# --- 6.10's flat q35: the switches on pcie-root, no guest NUMA node
g2="0000:18:00.0@0 0000:98:00.0@1"
assert_ok "deploy of VM 6 (6.10 layout, 2 GPUs, 2 NICs)" -- deploy 6 flat "$g2" 2
if assert_ok "the guest boots" -- boot 6 "$g2"; then
	assert_eq "-1/-1 1 3 1
-1/-1 1 3 1" "$(pairs 6)" "each GPU with one VF under its own switch, one port free"
fi

# --- 8 GPUs x 8 NICs: guest node 0's expander got more bus numbers
g8="0000:17:00.0@0 0000:18:00.0@0 0000:3b:00.0@0 0000:3c:00.0@0 0000:97:00.0@1 0000:98:00.0@1 0000:bb:00.0@1 0000:bc:00.0@1"
assert_ok "deploy of VM 7 (8 GPUs, 8 NICs)" -- deploy 7 numa "$g8" 8
if assert_ok "the guest boots" -- boot 7 "$g8"; then
	assert_eq 8 "$(pairs 7 | grep -c '^\([01]\)/\1 1 3 1$')" \
		"all 8 GPUs with their VF under a switch of their own, on their guest node"
	assert_eq "4 4" "$(pairs 7 | grep -c '^0/0 ') $(pairs 7 | grep -c '^1/1 ')" "four on each guest node"
fi
test_done
