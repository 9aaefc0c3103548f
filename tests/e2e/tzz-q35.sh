. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
sim_host cx5
sim_qemu_libvirtd
ctl() { # node i
	local i=$1 b=$((20 + $1 * 14)) j
	printf "<controller type='pci' index='%d' model='pcie-expander-bus'><target busNr='0x%04x'><node>%d</node></target></controller>\n" $b $((0x20 + 0x20 * i)) $i
	for j in 0 1 2 3; do
		printf "<controller type='pci' index='%d' model='pcie-root-port'><address type='pci' bus='%d' slot='0' function='%d'%s/></controller>\n" $((b + 1 + j)) $b $j "$([ $j = 0 ] && echo " multifunction='on'")"
	done
	printf "<controller type='pci' index='%d' model='pcie-switch-upstream-port'><address type='pci' bus='%d' slot='0' function='0'/></controller>\n" $((b + 5)) $((b + 1))
	for j in 0 1 2 3 4 5 6 7; do
		printf "<controller type='pci' index='%d' model='pcie-switch-downstream-port'><address type='pci' bus='%d' slot='%d' function='0'/></controller>\n" $((b + 6 + j)) $((b + 5)) $j
	done
}
cat >$TEST_TMP/d.xml <<EOS
<domain type='qemu'>
<name>one-50</name>
<memory>2097152</memory>
<vcpu>4</vcpu>
<cputune><vcpupin vcpu='0' cpuset='0'/><vcpupin vcpu='1' cpuset='1'/><vcpupin vcpu='2' cpuset='2'/><vcpupin vcpu='3' cpuset='3'/></cputune>
<cpu><topology sockets='1' cores='2' threads='2'/><numa><cell id='0' memory='1048576' cpus='0-1'/><cell id='1' memory='1048576' cpus='2-3'/></numa></cpu>
<numatune><memnode cellid='0' mode='strict' nodeset='0'/><memnode cellid='1' mode='strict' nodeset='1'/><memory mode='strict' nodeset='0,1'/></numatune>
<os><type arch='x86_64' machine='q35'>hvm</type></os>
<devices><emulator>/usr/bin/qemu-system-x86_64</emulator>
<interface type='bridge'><source bridge='br0'/><mac address='02:00:00:00:00:01'/><model type='virtio'/></interface>
<hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0xaf' slot='0x00' function='0x1'/></source><address type='pci' domain='0x0000' bus='0x31' slot='0x00' function='0x0'/></hostdev>
</devices>
<devices>
<controller index='0' type='pci' model='pcie-root'/>
$(ctl 0)
$(ctl 1)
<controller type='pci' model='pcie-to-pci-bridge'><address type='pci' bus='22' slot='0' function='0'/></controller>
</devices>
</domain>
EOS
qemu_virsh define $TEST_TMP/d.xml; echo rc $?
qemu_virsh dumpxml one-50 | grep -A8 "<hostdev\|<interface" 
qemu_virsh dumpxml one-50 | grep -c controller
test_done
