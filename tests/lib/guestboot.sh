# shellcheck shell=bash
# tests/lib/guestboot.sh - boot a real guest with QEMU (TCG) in the PCIe
# layout a deployment file gives it, and read the guest's own /sys.
# Sourced after test-lib.sh and qemu.sh, with sim_qemu_libvirtd running.
#
#   guest_boot_ready        skip_all unless a Debian kernel
#                           (linux-image-amd64: /boot/vmlinuz-*) and
#                           busybox-static are installed
#   guest_initramfs         $GUEST_INITRD: a gzipped cpio of busybox and an /init that
#                           prints one line per PCI function of the guest,
#                             PCI <addr> <vendor>:<device> <class> <numa_node> <device path>
#                           and one line per SMBIOS OEM string, OEM <string>,
#                           between ONEIB-BEGIN and ONEIB-END, then reboots
#                           (QEMU runs with -no-reboot: it ends)
#   guest_standins IN OUT "GPU..."
#                           the deployment IN as a bootable test domain OUT:
#                           each PCI <hostdev> replaced, at its own guest
#                           <address>, by an emulated device standing in for
#                           it, a GPU (host address in the list) by
#                           virtio-rng (1af4:1044, class 0x00ff), any other
#                           (a VF) by a qemu-xhci USB controller (1b36:000d);
#                           type qemu (TCG), the host pinning (cputune,
#                           numatune), interfaces and disks left out, the
#                           kernel, $GUEST_INITRD and a serial console,
#                           $GUEST_CONSOLE, put in
#   guest_run XML           the QEMU command line libvirt's QEMU driver makes
#                           of XML (domxml-to-native), run without libvirt's
#                           monitor and paused start, with -no-reboot; 0 when
#                           the guest printed ONEIB-END on $GUEST_CONSOLE
#   guest_pci               its PCI lines, "PCI " cut off
#   guest_oem               its OEM strings
#
# The guest's PCI tree is QEMU's, built by libvirt from the same XML it
# would start: so the slots, switches and expander buses the guest sees
# are the deployment's. With /dev/kvm unusable here (this machine is a VM),
# TCG boots a q35 guest in seconds.

GUEST_KERNEL=${GUEST_KERNEL:-}
GUEST_INITRD=$TEST_TMP/initramfs.gz
GUEST_CONSOLE=$TEST_TMP/console.log

guest_boot_ready() {
	local k
	[ -n "$GUEST_KERNEL" ] || for k in /boot/vmlinuz-*; do [ -r "$k" ] && GUEST_KERNEL=$k; done
	[ -n "$GUEST_KERNEL" ] || skip_all "no guest kernel (apt-get install linux-image-amd64)"
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
		skip_all "no static busybox (apt-get install busybox-static)"
	command -v cpio >/dev/null || skip_all "no cpio"
	command -v python3 >/dev/null || skip_all "no python3"
}

guest_initramfs() {
	local d=$TEST_TMP/initramfs
	mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev" || return 1
	cp /bin/busybox "$d/bin/busybox" || return 1
	cat >"$d/init" <<-'EOF'
	#!/bin/busybox sh
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	echo ONEIB-BEGIN
	for d in /sys/bus/pci/devices/*; do
		echo "PCI ${d##*/} $(cat "$d/vendor"):$(cat "$d/device") $(cat "$d/class") $(cat "$d/numa_node") $(readlink -f "$d")"
	done
	for d in /sys/firmware/dmi/entries/11-*; do
		[ -r "$d/raw" ] || continue
		tail -c +6 "$d/raw" | tr '\000' '\n' | sed -n 's/^/OEM /p'
	done
	echo ONEIB-END
	reboot -f
	EOF
	chmod +x "$d/init"
	(cd "$d" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$GUEST_INITRD"
}

guest_standins() { # IN OUT "GPU..."
	python3 - "$1" "$2" "$3" "$GUEST_KERNEL" "$GUEST_INITRD" "$GUEST_CONSOLE" <<-'EOF'
	import sys
	import xml.etree.ElementTree as ET
	src, out, gpus, kernel, initrd, console = sys.argv[1:7]
	gpus = set(gpus.split())
	tree = ET.parse(src)
	dom = tree.getroot()
	dom.set('type', 'qemu')
	for tag in ('cputune', 'numatune', 'memoryBacking'):
	    for e in dom.findall(tag):
	        dom.remove(e)
	vcpu = dom.find('vcpu')
	if vcpu is not None:
	    vcpu.attrib.pop('cpuset', None)
	os_ = dom.find('os')
	for tag, text in (('kernel', kernel), ('initrd', initrd),
	                  ('cmdline', 'console=ttyS0 quiet panic=-1')):
	    ET.SubElement(os_, tag).text = text
	usb = 1
	first = None
	for devs in dom.findall('devices'):
	    first = first if first is not None else devs
	    for e in list(devs):
	        if e.tag in ('interface', 'disk', 'graphics'):
	            devs.remove(e)
	            continue
	        if e.tag != 'hostdev':
	            continue
	        a = e.find('source/address')
	        host = '%04x:%02x:%02x.%x' % tuple(int(a.get(k, '0'), 0) for k in
	                                           ('domain', 'bus', 'slot', 'function'))
	        guest = e.find('address')
	        if host in gpus:
	            n = ET.Element('rng', model='virtio')
	            ET.SubElement(n, 'backend', model='random').text = '/dev/urandom'
	        else:
	            n = ET.Element('controller', type='usb', model='qemu-xhci', index=str(usb))
	            usb += 1
	        if guest is not None:
	            n.append(guest)
	        devs.insert(list(devs).index(e), n)
	        devs.remove(e)
	s = ET.SubElement(first, 'serial', type='file')
	ET.SubElement(s, 'source', path=console)
	tree.write(out)
	EOF
}

guest_run() { # XML
	local line args=() keep=() i skip=0
	line=$(qemu_virsh domxml-to-native qemu-argv --xml "$1") || return 1
	eval "args=($line)"
	for ((i = 0; i < ${#args[@]}; i++)); do
		if [ $skip -gt 0 ]; then
			skip=$((skip - 1))
			continue
		fi
		case ${args[i]} in
		*=* ) [ ${#keep[@]} -eq 0 ] && continue ;; # the environment before the binary
		-S | -no-shutdown) continue ;;
		-sandbox) skip=1 && continue ;;
		-mon) skip=1 && continue ;;
		-object | -chardev)
			case ${args[i + 1]} in
			*masterKey0* | *charmonitor*) skip=1 && continue ;;
			esac
			;;
		esac
		keep+=("${args[i]}")
	done
	: >"$GUEST_CONSOLE"
	timeout -k 5 "$(bound_seconds "${GUEST_BOOT_TIMEOUT:-180}")" "${keep[@]}" -no-reboot >"$GUEST_CONSOLE.qemu" 2>&1
	grep -aq ONEIB-END "$GUEST_CONSOLE"
}

guest_pci() {
	tr -d '\r' <"$GUEST_CONSOLE" | sed -n 's/^PCI //p'
}

guest_oem() {
	tr -d '\r' <"$GUEST_CONSOLE" | sed -n 's/^OEM //p' | sed '/^$/d'
}
