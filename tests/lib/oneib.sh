# shellcheck shell=bash
# one-ib specific test helpers, sourced after test-lib.sh.

# run_probes DIR IM_MAD HOST_ID HOSTNAME: what monitord-client's ProbeRunner
# does for one probe class: every executable file of DIR in sorted order,
# called as <probe> <IM_MAD> <host_id> <hostname> with the monitor
# configuration XML on stdin; stdouts concatenated; any non-zero exit fails
# the whole class (prints "Error executing <probe>" and returns 1).
run_probes() {
	_dir=$1
	shift
	for _p in $(find "$_dir" -maxdepth 1 \( -type f -o -type l \) | sort); do
		[ -x "$_p" ] || continue
		printf '<MONITOR_CONFIGURATION><HOST_ID>%s</HOST_ID></MONITOR_CONFIGURATION>\n' "$2" |
			"$_p" "$@" || { echo "Error executing $_p"; return 1; }
	done
}

# tmpl_value FILE ATTR: value of a simple ATTR=value / ATTR="value" line.
tmpl_value() {
	sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$1"
}

# tmpl_vectors FILE NAME: the vectors NAME=[ ... ] of FILE, one per line,
# as K=V pairs separated by '|' (values unquoted), for grep/assertions.
tmpl_vectors() {
	sed -n "s/^$2=\[ \(.*\) \]\$/\1/p" "$1" | sed 's/", /"|/g; s/"//g'
}

# install_tree DEST: a fresh `make install` into DEST, on top of whatever
# stand-ins for OpenNebula's own remotes the test put there first.
install_tree() {
	sh "$TOP/drivers/install.sh" --destdir "$1"
}

# standin_oned DIR: oned's XML-RPC API as the front-end hook calls it
# (tests/lib/standin/oned-rpc: the pools in DIR/{vms,hosts,vnets}.xml,
# what it was asked recorded in DIR), stopped when the test ends;
# ONE_XMLRPC its endpoint and ONE_AUTH DIR/one_auth ("oneadmin:stand-in"),
# exported, as oned's hooks get them.
standin_oned() {
	rm -f "$1/oned-rpc.port"
	printf 'oneadmin:stand-in\n' >"$1/one_auth"
	python3 "$TOP/tests/lib/standin/oned-rpc" "$1" "$1/oned-rpc.port" \
		</dev/null >>"$1/oned-rpc.log" 2>&1 &
	_tl_daemon $! oned-rpc
	wait_for 20 test -s "$1/oned-rpc.port" ||
		die "the stand-in oned did not start: $(tail -n 3 "$1/oned-rpc.log")"
	ONE_XMLRPC=http://127.0.0.1:$(cat "$1/oned-rpc.port")/RPC2
	ONE_AUTH=$1/one_auth
	export ONE_XMLRPC ONE_AUTH
}

# hook_sandbox [PREFIX]: the front-end hook, installed under $TEST_TMP/inst
# (R its remotes, HOOK it), against the stand-in oned (standin_oned
# $TEST_TMP) with the listings of DATA (tests/unit/data/partitions) copied
# into $TEST_TMP; ibrc's ONEIB_PARTITIONS_CMD the real root installer
# (INST) writing CONF ($TEST_TMP/etc/partitions.conf), after the shell
# words PREFIX, and ONEIB_PARTITIONS_READ_CMD reading CONF; no SL plan and
# no QoS policy (t0431 runs the hook with both).
hook_sandbox() {
	install_tree "$TEST_TMP/inst" 2>/dev/null
	R=$TEST_TMP/inst/var/lib/one/remotes
	# shellcheck disable=SC2034 # the calling test runs it
	HOOK=$R/hooks/oneib-partitions
	DATA=$TOP/tests/unit/data/partitions
	INST=$TOP/build/bin/oneib-partitions-install
	CONF=$TEST_TMP/etc/partitions.conf
	[ -x "$INST" ] || die "no $INST (make first)"
	mkdir -p "$TEST_TMP/etc"
	cp "$DATA/vms.xml" "$DATA/hosts.xml" "$DATA/vnets.xml" "$TEST_TMP/"
	standin_oned "$TEST_TMP"
	sed -i -e "s|^ONEIB_PARTITIONS_CMD=.*|ONEIB_PARTITIONS_CMD=\"${1:-}$INST --output $CONF --no-reload -\"|" \
		-e "s|^ONEIB_PARTITIONS_READ_CMD=.*|ONEIB_PARTITIONS_READ_CMD=\"test ! -e $CONF \|\| cat $CONF\"|" \
		"$R/etc/vnm/ib/ibrc"
	printf 'ONEIB_SLS=""\nONEIB_QOS_POLICY_CMD=""\n' >>"$R/etc/vnm/ib/ibrc"
}

# hook_listed: the VM listings the hook asked of the stand-in oned
# (hook_sandbox's calls.onevm) since the last call, one per line (how many
# were seen is kept in a file: it runs in $(...)).
hook_listed() {
	local all
	all=$(grep '^one.vmpool' "$TEST_TMP/calls.onevm" 2>/dev/null)
	tail -n +$(($(cat "$TEST_TMP/seen" 2>/dev/null || echo 0) + 1)) <<<"$all"
	grep -c . <<<"$all" >"$TEST_TMP/seen"
}

# stock_remotes DEST: small stand-ins for the stock kvm IM client and
# probes (OpenNebula's own are not ours to copy), with the same layout.
stock_remotes() {
	_r=$1/var/lib/one/remotes/im
	mkdir -p "$_r/common.d" "$_r/kvm.d" "$_r/kvm-probes.d/host/system" \
		"$_r/kvm-probes.d/host/monitor" "$_r/kvm-probes.d/vm/status"
	printf '#!/bin/sh\necho client\n' >"$_r/common.d/monitord-client_control.sh"
	ln -s ../common.d/monitord-client_control.sh "$_r/kvm.d/monitord-client_control.sh"
	printf '#!/bin/sh\necho HYPERVISOR=kvm\n' >"$_r/kvm-probes.d/host/system/linux_host.sh"
	printf '#!/bin/sh\necho FREEMEMORY=1024\n' >"$_r/kvm-probes.d/host/monitor/linux_usage.sh"
	printf '#!/bin/sh\necho VM_STATUS=stub\n' >"$_r/kvm-probes.d/vm/status/state.sh"
	chmod +x "$_r/common.d/"*.sh "$_r"/kvm-probes.d/*/*/*.sh
}

# stock_vmm DEST: stand-ins for OpenNebula's own vmm/kvm scripts,
# scripts_common.sh and kvmrc, with the stock contract (deploy: write stdin
# to $1, virsh create, print the UUID; shutdown, cancel, reboot, reset with
# '<deploy_id>' '<host>' <vmid> <host>). kvm-ib must reach them the way it
# does in production: ../kvm/<action> beside vmm/kvm-ib.
stock_vmm() {
	_r=$1/var/lib/one/remotes
	mkdir -p "$_r/vmm/kvm" "$_r/etc/vmm/kvm"
	cat >"$_r/scripts_common.sh" <<'EOS'
# stand-in for OpenNebula's scripts_common.sh (the functions kvm-ib uses)
log_error() { echo "ERROR: $(basename "$0"): $*" >&2; }
log() { echo "INFO: $(basename "$0"): $*" >&2; }
error_message() { echo "$*" >&2; }
EOS
	cat >"$_r/etc/vmm/kvm/kvmrc" <<'EOS'
export LIBVIRT_URI=${LIBVIRT_URI:-qemu:///system}
EOS
	cat >"$_r/vmm/kvm/deploy" <<'EOS'
#!/bin/bash
source "$(dirname "$0")/../../scripts_common.sh"
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
mkdir -p "$(dirname "$1")"
cat >"$1"
# a test holds the deploy here, between the lease and the domain, while
# the file $SIM_DEPLOY_GATE exists
while [ -n "${SIM_DEPLOY_GATE:-}" ] && [ -e "$SIM_DEPLOY_GATE" ]; do sleep 0.05; done
# or kills it there, with the kvm-ib deploy that runs it (perhaps from a
# command substitution's subshell), as a crash would
if [ -e "${SIM_HOSTS:-/nonexistent}/inject/crash-in-deploy" ]; then
	p=$PPID g=$(ps -o ppid= -p "$PPID" | tr -d " ")
	# a subshell has its parent's command line
	tr '\0' ' ' <"/proc/$g/cmdline" | grep -q kvm-ib/deploy && p="$p $g"
	# shellcheck disable=SC2086 # one pid a word
	kill -9 $p $$
fi
name=$(sed -n 's:.*<name>\(.*\)</name>.*:\1:p' "$1" | head -n 1)
virsh --connect "$LIBVIRT_URI" create "$1" >/dev/null 2>"$1.err" ||
	{ error_message "Could not create domain from $1: $(cat "$1.err")"; exit 1; }
virsh --connect "$LIBVIRT_URI" domuuid "$name" | sed '/^$/d'
EOS
	# Like the stock scripts, shutdown and cancel succeed when the domain
	# is already gone (dominfo fails): the VM crashed or was destroyed.
	for _a in shutdown:shutdown cancel:destroy reboot:reboot reset:reset; do
		{
			echo '#!/bin/bash'
			echo 'source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"'
			case $_a in shutdown:* | cancel:*)
				echo 'virsh --connect "$LIBVIRT_URI" dominfo "$1" >/dev/null 2>&1 || exit 0' ;;
			esac
			echo "virsh --connect \"\$LIBVIRT_URI\" ${_a#*:} \"\$1\" >/dev/null || exit 1"
		} >"$_r/vmm/kvm/${_a%%:*}"
	done
	# An action kvm-ib leaves to the stock driver, saying it ran.
	printf '#!/bin/bash\necho "stock $(basename "$0") $*"\n' >"$_r/vmm/kvm/resize"
	# The actions that save, restore, move a domain or hot-plug a NIC, with
	# the stock contract (OpenNebula 6.10 src/vmm_mad/remotes/kvm/*): the
	# '<quoted>' arguments plus <vmid> <host>, the action data on stdin
	# (read to the end, as the stock scripts read it), libvirt through
	# virsh. Where the test driver lacks the call (restore --xml,
	# migration, hot-plug) tests/lib/standin/virsh stands in for it. A test
	# makes save, restore or migrate crash with the kvm-ib script that runs
	# it ($SIM_HOSTS/inject/crash-in-<action>, tests/lib/hosts.sh).
	cat >"$_r/vmm/kvm/save" <<'EOS'
#!/bin/bash
# save '<deploy_id>' '<checkpoint>' '<host>' <vmid> <host>: virsh save;
# an older checkpoint is moved aside first.
source "$(dirname "$0")/../../scripts_common.sh"
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
cat >/dev/null
[ -e "${SIM_HOSTS:-/nonexistent}/inject/crash-in-save" ] && kill -9 $PPID $$
[ -x "${SIM_HOSTS:-/nonexistent}/inject/run-in-save" ] && "$SIM_HOSTS/inject/run-in-save" "$@"
[ -f "$2" ] && mv "$2" "$2.$(date +%s)"
virsh --connect "$LIBVIRT_URI" save "$1" "$2" >/dev/null 2>"$2.err" ||
	{ error_message "Could not save $1 to $2: $(cat "$2.err")"; rm -f "$2.err"; exit 1; }
rm -f "$2.err"
EOS
	cat >"$_r/vmm/kvm/restore" <<'EOS'
#!/bin/bash
# restore '<checkpoint>' '<host>' '<deploy_id>' <vmid> <host>: the domain
# XML from the checkpoint (save-image-dumpxml), virsh restore --xml, the
# checkpoint removed.
source "$(dirname "$0")/../../scripts_common.sh"
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
cat >/dev/null
[ -e "${SIM_HOSTS:-/nonexistent}/inject/crash-in-restore" ] && kill -9 $PPID $$
virsh --connect "$LIBVIRT_URI" save-image-dumpxml "$1" >"$1.xml" 2>"$1.err" &&
	virsh --connect "$LIBVIRT_URI" restore "$1" --xml "$1.xml" >/dev/null 2>"$1.err" ||
	{ error_message "Could not restore from $1: $(cat "$1.err")"; rm -f "$1.err"; exit 1; }
# a crash once the domain runs, before the checkpoint is removed
[ -e "${SIM_HOSTS:-/nonexistent}/inject/crash-after-restore" ] && kill -9 $PPID $$
rm -f "$1" "$1.xml" "$1.err"
EOS
	cat >"$_r/vmm/kvm/migrate" <<'EOS'
#!/bin/bash
# migrate '<deploy_id>' '<dest>' '<src>' <vmid> <src>, on the source: virsh
# migrate --live to qemu+ssh://<dest>/system (shared datastore); on failure
# the domain is destroyed and undefined on the destination.
source "$(dirname "$0")/../../scripts_common.sh"
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
cat >/dev/null
[ -e "${SIM_HOSTS:-/nonexistent}/inject/crash-in-migrate" ] && kill -9 $PPID $$
err=$(mktemp) || exit 1
if ! virsh --connect "$LIBVIRT_URI" migrate --live "$1" "qemu+ssh://$2/system" 2>"$err"; then
	ssh "$2" "virsh destroy $1; virsh undefine $1" >/dev/null 2>&1
	error_message "Error mirgating VM $1 to host $2: $(cat "$err")"
	rm -f "$err"
	exit 1
fi
rm -f "$err"
EOS
	cat >"$_r/vmm/kvm/migrate_local" <<'EOS'
#!/bin/bash
# migrate_local '<deploy_id>' '<dest>' '<src>' <vmid> <src>, on the
# front-end (Base64 action data on stdin): virsh migrate --live from
# qemu+ssh://<src>/system to qemu+ssh://<dest>/system.
source "$(dirname "$0")/../../scripts_common.sh"
cat >/dev/null
if ! virsh --connect "qemu+ssh://$3/system" migrate --live "$1" "qemu+ssh://$2/system"; then
	virsh --connect "qemu+ssh://$2/system" destroy "$1" >/dev/null 2>&1
	error_message "Could not migrate $1 to $2"
	exit 1
fi
EOS
	cat >"$_r/vmm/kvm/attach_nic" <<'EOS'
#!/bin/bash
# attach_nic '<deploy_id>' '<mac>' '<bridge>' '<model>' '<vn_mad>' '<target>'
# <vmid> <host>: virsh attach-device of an <interface> on the bridge.
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
cat >/dev/null
f=$(mktemp)
model=
[ "$4" != - ] && model="<model type='$4'/>"
echo "<interface type='bridge'><source bridge='$3'/><mac address='$2'/><target dev='$6'/>$model</interface>" >"$f"
virsh --connect "$LIBVIRT_URI" attach-device "$1" "$f" >/dev/null 2>"$f.err" ||
	{ echo "Could not attach NIC to $1: $(cat "$f.err")" >&2; rm -f "$f" "$f.err"; exit 1; }
rm -f "$f" "$f.err"
EOS
	cat >"$_r/vmm/kvm/detach_nic" <<'EOS'
#!/bin/bash
# detach_nic '<deploy_id>' '<mac>' <vmid> <host>: virsh detach-interface by
# MAC; success when the MAC is not attached (the stock script's loop ends
# as soon as domiflist no longer lists it).
source "$(dirname "$0")/../../etc/vmm/kvm/kvmrc"
cat >/dev/null
virsh --connect "$LIBVIRT_URI" domiflist "$1" 2>/dev/null | grep -qi "$2" || exit 0
virsh --connect "$LIBVIRT_URI" detach-interface --domain "$1" --type bridge --mac "$2" >/dev/null ||
	{ echo "Error detaching interface ($2)" >&2; exit 1; }
EOS
	# prereconfigure/reconfigure eject and insert the context CD
	# (virsh change-media, which the test driver lacks): they only say they
	# ran, and fail when the test asks ($SIM_HOSTS/inject/<action>-fails).
	for _a in prereconfigure reconfigure; do
		cat >"$_r/vmm/kvm/$_a" <<'EOS'
#!/bin/bash
cat >/dev/null
[ -e "${SIM_HOSTS:-/nonexistent}/inject/$(basename "$0")-fails" ] &&
	{ echo "Could not $(basename "$0") $1 $2" >&2; exit 1; }
echo "stock $(basename "$0") $*" >&2
EOS
	done
	chmod +x "$_r"/vmm/kvm/*
}

# vm_xml VMID NIC...: the <VM> OpenNebula writes as vm.xml; each NIC is
# TYPE/ID/MAC[/PKEY[/IB_PF[/IB_PORT[/IB_RAILS[/IB_AFFINITY[/NETWORK_ID]]]]]]
# with TYPE ib or bridge, e.g. ib/0/02:00:c0:a8:01:05/0x8101 (NETWORK_ID
# ID+10 unless given: each NIC on a network of its own). VM_XML_PCI="A B"
# adds a TEMPLATE/PCI with ADDRESS per host address (0000:17:00.0), as
# oned assigns them and writes them ("0000:17:00:0").
vm_xml() {
	local vmid=$1 n t id mac pkey pf port rails aff net a i=0
	shift
	printf '<VM><ID>%s</ID><NAME><![CDATA[vm-%s]]></NAME><TEMPLATE>\n' "$vmid" "$vmid"
	for a in ${VM_XML_PCI:-}; do
		a=${a%.*}:${a##*.} # oned's form: 0000:17:00:0
		printf '<PCI><ADDRESS><![CDATA[%s]]></ADDRESS><CLASS><![CDATA[0302]]></CLASS><PCI_ID><![CDATA[%d]]></PCI_ID></PCI>\n' "$a" $i
		i=$((i + 1))
	done
	for n in "$@"; do
		IFS=/ read -r t id mac pkey pf port rails aff net <<<"$n"
		printf '<NIC><NIC_ID><![CDATA[%s]]></NIC_ID><MAC><![CDATA[%s]]></MAC><NETWORK_ID><![CDATA[%s]]></NETWORK_ID><TARGET><![CDATA[one-%s-%s]]></TARGET>' \
			"$id" "$mac" "${net:-$((id + 10))}" "$vmid" "$id"
		if [ "$t" = ib ]; then
			printf '<VN_MAD><![CDATA[ib]]></VN_MAD><IB_PKEY><![CDATA[%s]]></IB_PKEY>' "${pkey:-0x8101}"
			[ -n "$pf" ] && printf '<IB_PF><![CDATA[%s]]></IB_PF>' "$pf"
			[ -n "$port" ] && printf '<IB_PORT><![CDATA[%s]]></IB_PORT>' "$port"
			[ -n "$rails" ] && printf '<IB_RAILS><![CDATA[%s]]></IB_RAILS>' "$rails"
			[ -n "$aff" ] && printf '<IB_AFFINITY><![CDATA[%s]]></IB_AFFINITY>' "$aff"
		else
			printf '<VN_MAD><![CDATA[bridge]]></VN_MAD><BRIDGE><![CDATA[br0]]></BRIDGE>'
		fi
		printf '</NIC>\n'
	done
	printf '</TEMPLATE></VM>\n'
}

# domain_xml VMID MAC...: an OpenNebula-shaped KVM deployment file with one
# bridge <interface> per MAC (NIC ids in order), and after them one PCI
# <hostdev> per host address of DOMAIN_XML_PCI="A B" (OpenNebula's
# PCI=[...] passthrough, LibVirtDriverKVM.cc: managed, the source address).
domain_xml() {
	local vmid=$1 i=0 mac a b
	shift
	cat <<EOS
<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
	<name>one-$vmid</name>
	<cputune><shares>1024</shares></cputune>
	<memory>1048576</memory>
	<vcpu>1</vcpu>
	<os><type arch='x86_64'>hvm</type></os>
	<devices>
		<emulator><![CDATA[/usr/bin/qemu-system-x86_64]]></emulator>
EOS
	for mac in "$@"; do
		cat <<EOS
		<interface type='bridge'>
			<source bridge='br0'/>
			<mac address='$mac'/>
			<target dev='one-$vmid-$i'/>
			<model type='virtio'/>
		</interface>
EOS
		i=$((i + 1))
	done
	for a in ${DOMAIN_XML_PCI:-}; do
		b=${a#*:} # 0000:17:00.0 -> 17:00.0
		printf "\t\t<hostdev mode='subsystem' type='pci' managed='yes'>\n\t\t\t<source>\n"
		printf "\t\t\t\t<address domain='0x%s' bus='0x%s' slot='0x%s' function='0x%s'/>\n" \
			"${a%%:*}" "${b%%:*}" "${b:3:2}" "${b:6:1}"
		printf "\t\t\t</source>\n\t\t</hostdev>\n"
	done
	cat <<EOS
	</devices>
	<metadata>
		<one:vm xmlns:one="http://opennebula.org/xmlns/libvirt/1.0">
			<one:system_datastore><![CDATA[/var/lib/one//datastores/0/$vmid]]></one:system_datastore>
			<one:name><![CDATA[vm-$vmid]]></one:name>
		</one:vm>
	</metadata>
</domain>
EOS
}

# DOMAIN_XML_Q35_PCI="ADDR@NODE ...": domain_xml_q35 adds one PCI hostdev
# per host address (NODE: the device's host NUMA node), where OpenNebula
# puts its PCI devices (HostSharePCI.cc, set_pci_address): numa, the next
# free downstream port of the switch of expander 20 + 14 NODE (index
# 20 + 14 NODE + 6 + k); flat, root port PCI_ID + 1.
_q35_hostdevs() { # LAYOUT
	local a n b i=0 used0=0 used1=0 bus
	for a in ${DOMAIN_XML_Q35_PCI:-}; do
		n=${a#*@} a=${a%@*} b=${a#*:}
		if [ "$1" = flat ]; then
			bus=$((i + 1))
		elif [ "$n" = 0 ]; then
			bus=$((20 + 6 + used0)) used0=$((used0 + 1))
		else
			bus=$((34 + 6 + used1)) used1=$((used1 + 1))
		fi
		printf "\t\t<hostdev mode='subsystem' type='pci' managed='yes'>\n\t\t\t<source>\n"
		printf "\t\t\t\t<address domain='0x%s' bus='0x%s' slot='0x%s' function='0x%s'/>\n" \
			"${a%%:*}" "${b%%:*}" "${b:3:2}" "${b:6:1}"
		printf "\t\t\t</source>\n\t\t\t<address type='pci' domain='0x0000' bus='%d' slot='0' function='0'/>\n\t\t</hostdev>\n" "$bus"
		i=$((i + 1))
	done
}

# domain_xml_q35 VMID LAYOUT MAC...: OpenNebula's deployment of a q35 VM
# with 4 vCPUs and two guest NUMA nodes, pinned: guest node 0 on host node
# 1 (CPUs 4,5), guest node 1 on host node 0 (CPUs 0,1); one bridge
# <interface> per MAC. LAYOUT: numa, as 7.0 writes it (LibVirtDriverKVM.cc,
# Q35_NUMA_PCIE: per guest node a pcie-expander-bus, index 20 + 14 n, with 4
# root ports, the first holding an 8-port switch, and node 0's second the
# pcie-to-pci bridge), or flat, as 6.10 writes it (16 root ports and the
# bridge on pcie-root). The controllers come in a second <devices>, as
# OpenNebula writes them.
domain_xml_q35() {
	local vmid=$1 layout=$2 i=0 j b mac
	shift 2
	cat <<EOS
<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
	<name>one-$vmid</name>
	<cputune>
		<shares>4096</shares>
		<vcpupin vcpu='0' cpuset='4'/>
		<vcpupin vcpu='1' cpuset='5'/>
		<vcpupin vcpu='2' cpuset='0'/>
		<vcpupin vcpu='3' cpuset='1'/>
		<emulatorpin cpuset='4,5,0,1'/>
	</cputune>
	<memory>524288</memory>
	<os>
		<type arch='x86_64' machine='q35'>hvm</type>
	</os>
	<features>
		<acpi/>
	</features>
	<cpu>
		<topology sockets='1' cores='2' threads='2'/>
		<numa>
			<cell id='0' memory='262144' cpus='0-1'/>
			<cell id='1' memory='262144' cpus='2-3'/>
		</numa>
	</cpu>
	<numatune>
		<memnode cellid='0' mode='strict' nodeset='1'/>
		<memnode cellid='1' mode='strict' nodeset='0'/>
		<memory mode='strict' nodeset='1,0'/>
	</numatune>
	<vcpu>4</vcpu>
	<devices>
		<emulator><![CDATA[/usr/bin/qemu-system-x86_64]]></emulator>
EOS
	for mac in "$@"; do
		printf "\t\t<interface type='bridge'>\n\t\t\t<source bridge='br0'/>\n\t\t\t<mac address='%s'/>\n" "$mac"
		printf "\t\t\t<target dev='one-%s-%d'/>\n\t\t\t<model type='virtio'/>\n\t\t</interface>\n" "$vmid" $i
		i=$((i + 1))
	done
	_q35_hostdevs "$layout"
	printf "\t</devices>\n\t<devices>\n\t\t<controller index='0' type='pci' model='pcie-root'/>\n"
	if [ "$layout" = flat ]; then
		for j in $(seq 16); do printf "\t\t<controller type='pci' model='pcie-root-port'/>\n"; done
		printf "\t\t<controller type='pci' model='pcie-to-pci-bridge'/>\n"
	else
		for i in 0 1; do
			b=$((20 + i * 14))
			printf "\t\t<controller type='pci' index='%d' model='pcie-expander-bus'>\n\t\t\t<target busNr='0x%04x'>\n\t\t\t\t<node>%d</node>\n\t\t\t</target>\n\t\t</controller>\n" \
				$b $((0x20 + 0x20 * i)) $i
			for j in 0 1 2 3; do
				printf "\t\t<controller type='pci' index='%d' model='pcie-root-port'>\n\t\t\t<address type='pci' bus='%d' slot='0' function='%d'%s/>\n\t\t</controller>\n" \
					$((b + 1 + j)) $b $j "$([ $j = 0 ] && echo " multifunction='on'")"
			done
			printf "\t\t<controller type='pci' index='%d' model='pcie-switch-upstream-port'>\n\t\t\t<address type='pci' bus='%d' slot='0' function='0'/>\t\t</controller>" \
				$((b + 5)) $((b + 1))
			for j in 0 1 2 3 4 5 6 7; do
				printf "\t\t<controller type='pci' index='%d' model='pcie-switch-downstream-port'>\n\t\t\t<address type='pci' bus='%d' slot='%d' function='0'/>\n\t\t</controller>\n" \
					$((b + 6 + j)) $((b + 5)) $j
			done
		done
		printf "\t\t<controller type='pci' model='pcie-to-pci-bridge'>\n\t\t\t<address type='pci' bus='22' slot='0' function='0'/>\n\t\t</controller>\n"
	fi
	printf "\t</devices>\n</domain>\n"
}
# numa_two_nodes: the host's NUMA layout as the kernel shows it, two nodes,
# node0 CPUs 0-3 and node1 CPUs 4-7 (the fixtures' PFs: cx5's 0000:3b:00.0 on
# node 0, 0000:af:00.0 on node 1), on a tmpfs over /sys/devices/system/node
# of the namespace it runs in (on a simulated host: `on HOST bash -c
# numa_two_nodes` after `export -f numa_two_nodes`).
numa_two_nodes() {
	local n=/sys/devices/system/node
	mount -t tmpfs none "$n" && mkdir "$n/node0" "$n/node1" &&
		echo 0-3 >"$n/node0/cpulist" && echo 4-7 >"$n/node1/cpulist" &&
		echo 0-1 >"$n/online"
}

# kvm_ib_host: inside sim_host, with sim_libvirtd running: the installed
# remotes on top of the stock stand-ins (the ledger in /var/lib/one/ib and
# the views of libvirt oneib-vf shares in /dev/shm are the namespace's own:
# sim_host). Sets R (remotes dir) and DS (system datastore dir).
kvm_ib_host() {
	stock_remotes "$TEST_TMP/inst"
	stock_vmm "$TEST_TMP/inst"
	install_tree "$TEST_TMP/inst" 2>/dev/null
	R=$TEST_TMP/inst/var/lib/one/remotes
	# GUID/P_Key programming has its own tests (t03xx): here only leases.
	sed -i 's|^ONEIB_PKEY=.*|ONEIB_PKEY=|' "$R/etc/vmm/kvm-ib/kvm-ibrc"
	DS=/var/lib/one/datastores/0
	mkdir -p "$DS"
}

# one_deploy VMID NIC...: what one_vmm_exec does for a deploy: vm.xml
# beside the deployment file, then the driver's deploy with the domain XML
# on stdin. Prints the deploy's stdout (the UUID).
one_deploy() {
	local vmid=$1 n macs=()
	shift
	mkdir -p "$DS/$vmid"
	vm_xml "$vmid" "$@" >"$DS/$vmid/vm.xml"
	for n in "$@"; do
		macs+=("$(echo "$n" | cut -d/ -f3)")
	done
	domain_xml "$vmid" "${macs[@]}" |
		"$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 "$vmid" node1
}

# kvm_ib_pkey: after kvm_ib_host, GUIDs and P_Keys programmed for real:
# kvm-ibrc's ONEIB_PKEY runs the installed oneib-pkey (production runs it
# through "sudo -n"; the test is root already) through a wrapper that
# appends each call, "map VF GUID PKEY --port N" or "unmap VF --port N", to
# $PKEY_CALLS ($TEST_TMP/pkey.calls). Sets PKEY_BIN.
kvm_ib_pkey() {
	PKEY_BIN=$TEST_TMP/inst/usr/sbin/oneib-pkey
	PKEY_CALLS=$TEST_TMP/pkey.calls
	[ -x "$PKEY_BIN" ] || die "oneib-pkey not installed: $PKEY_BIN"
	printf '#!/bin/sh\necho "$*" >>"%s"\nexec "%s" "$@"\n' "$PKEY_CALLS" "$PKEY_BIN" \
		>"$TEST_TMP/oneib-pkey-logged"
	chmod +x "$TEST_TMP/oneib-pkey-logged"
	sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-logged\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
}

# ledger_age [--wall] [DIR]: every lease of the ledger in DIR
# (/var/lib/one/ib) as if taken long ago: since (the wall clock) and up
# (the boot clock) set to 0, under the ledger's lock; owners stay. With a
# grace of 1 s, reconcile then takes what no domain holds and no live
# action owns. --wall: since only, as a clock stepped forward leaves it.
ledger_age() {
	local expr='s/ since=[0-9]+/ since=0/; s/ up=[0-9]+/ up=0/' dir
	if [ "${1:-}" = --wall ]; then
		expr='s/ since=[0-9]+/ since=0/'
		shift
	fi
	dir=${1:-/var/lib/one/ib}
	[ -e "$dir/leases" ] || return 0
	flock "$dir/leases.lock" sed -i -E "$expr" "$dir/leases"
}

# vm_lease_count VMID: how many leases the host's ledger holds for VMID.
vm_lease_count() {
	"$R/ib/bin/oneib-vf" list --format=json | jq "[.leases[] | select(.vm == $1)] | length"
}
