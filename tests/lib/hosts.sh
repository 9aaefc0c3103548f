# shellcheck shell=bash
# tests/lib/hosts.sh - several simulated hypervisor hosts in one test, the
# front-end that drives them as OpenNebula's one_vmm_exec does, and the
# stand-ins that join them. Sourced after test-lib.sh; it brings oneib.sh,
# qemu.sh and cloud.sh along:
#
#   . "$(dirname "$0")/../lib/test-lib.sh"
#   . "$TOP/tests/lib/hosts.sh"
#   sim_two_hvs cx5
#
#   sim_host none             first, as in every test: the test's own pid and
#                             mount namespace; the test script itself plays
#                             the front-end
#   sim_qemu_libvirtd         libvirt's QEMU driver, which validates every XML
#                             the stand-ins receive (qemu.sh)
#   sim_cloud                 the installed remotes tree (stock stand-ins +
#                             make install), the stand-ins on PATH
#   sim_hv NAME FIXTURE       hypervisor NAME with the sysfs tree FIXTURE
#                             (tests/fixtures/mkhost.sh): see below
#   sim_two_hvs FIXTURE       all of the above at once, as the life-cycle
#                             tests want it: hosts hv1 and hv2 on FIXTURE
#   on NAME cmd...            run cmd on host NAME
#   inject WHAT | uninject WHAT   make a stand-in fail (see standin/virsh,
#                             and crash-in-<action> for the stock deploy, save,
#                             restore and migrate: they kill the kvm-ib
#                             script that runs them, as a crash would;
#                             crash-after-restore: once the domain runs,
#                             before the checkpoint is removed); or run
#                             an executable $SIM_HOSTS/inject/run-in-save
#                             (on the host, before the stock save's virsh
#                             save) or run-in-migration (standin/virsh)
#
# The QEMU driver checks a PCI hostdev's device in sysfs: the validator
# (sim_qemu_libvirtd) must see the same fixture as the hosts, so call
# sim_host with the hosts' fixture (every host of a test has the same one).
#
# A host is a mount namespace nested in the test's (one pid namespace for
# all, so everything dies with the test): the fixture over /sys, tmpfs over
# libvirt's directories, /var/lib/one (the lease ledger), /dev/shm (the
# views of libvirt oneib-vf shares) and /var/tmp (the remotes, copied in as
# `onehost sync` does), and its own libvirtd (test
# driver) on the usual socket, so the same URI names each host's own
# libvirt, as qemu:///system does on real hosts. /var/lib/one/datastores is
# one directory shared by every host: a shared system datastore, the setup
# live migration needs. A process of the host holds the namespace
# ($SIM_HOSTS/NAME/pid); `on` and the ssh stand-in enter it with nsenter.
#
# Stand-ins (tests/lib/standin/, first on PATH):
#   ssh    "ssh HOST CMD" runs CMD with bash -c on HOST (its namespace), as
#          the real ssh between hypervisors would; unknown hosts: exit 255
#   virsh  libvirt 9.0's test driver has no device hot-plug, no
#          `restore --xml` and no migration: for exactly those commands the
#          stand-in validates the XML with the QEMU driver and applies it to
#          the test driver's domain; everything else is the real virsh

. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
. "$TOP/tests/lib/cloud.sh"

SIM_HOSTS=$TEST_TMP/hosts
SIM_STEP_DIR=${SIM_STEP_DIR:-$TEST_TMP}
SIM_BIN=$TOP/tests/lib/standin
SIM_TOP=$TOP
# The test driver of each host, on the default socket of that host.
SIM_HV_URI='test+unix:///default?socket=/run/libvirt/libvirt-sock'
export SIM_HOSTS SIM_BIN SIM_TOP SIM_HV_URI

_hv_pid() { # NAME
	cat "$SIM_HOSTS/$1/pid" 2>/dev/null
}

# Run cmd on host NAME: its mount namespace, its libvirt, the stand-ins.
on() { # NAME cmd...
	local pid
	pid=$(_hv_pid "$1") || die "on: no host $1"
	shift
	nsenter --mount="/proc/$pid/ns/mnt" --uts="/proc/$pid/ns/uts" --wd="$PWD" -- \
		env LIBVIRT_URI="$SIM_HV_URI" LIBVIRT_DEFAULT_URI="$SIM_HV_URI" "$@"
}

inject() { : >"$SIM_HOSTS/inject/$1"; }
uninject() { rm -f "$SIM_HOSTS/inject/$1"; }

# sim_cloud: the remotes tree every host gets (stock stand-ins, then
# make install on top, as on a real front-end), in $SIM_REMOTES; GUIDs and
# P_Keys programmed through the installed oneib-pkey (root already, no
# sudo); the stand-ins first on PATH.
sim_two_hvs() { # FIXTURE
	sim_host "$1"
	sim_qemu_libvirtd
	sim_cloud
	sim_hv hv1 "$1"
	sim_hv hv2 "$1"
}

sim_cloud() {
	_tl_require_inside sim_cloud
	[ -n "$SIM_QEMU_LIBVIRTD_PID" ] || die "sim_cloud: start sim_qemu_libvirtd first (the stand-ins validate with it)"
	local inst=$TEST_TMP/inst
	mkdir -p "$SIM_HOSTS/inject" "$TEST_TMP/shared-ds"
	: >"$SIM_HOSTS/standin.log"
	stock_remotes "$inst"
	stock_vmm "$inst"
	install_tree "$inst" 2>/dev/null
	SIM_REMOTES=$inst/var/lib/one/remotes
	[ -x "$SIM_REMOTES/vmm/kvm-ib/deploy" ] || die "sim_cloud: make install did not install vmm/kvm-ib"
	sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$inst/usr/sbin/oneib-pkey\"|" \
		"$SIM_REMOTES/etc/vmm/kvm-ib/kvm-ibrc"
	# what kvmrc sets on the hosts: each host's own libvirt
	sed -i "s|^export LIBVIRT_URI=.*|export LIBVIRT_URI='$SIM_HV_URI'|" \
		"$SIM_REMOTES/etc/vmm/kvm/kvmrc"
	SIM_PKEY=$inst/usr/sbin/oneib-pkey
	export SIM_REMOTES SIM_PKEY PATH="$SIM_BIN:$PATH"
}

# sim_hv NAME FIXTURE: hypervisor NAME (see the top of this file). Its
# libvirtd log: $SIM_HOSTS/NAME/libvirt/libvirtd.log.
#
# With SIM_HV_ONE=USER (tests/lib/one.sh: the real OpenNebula front-end)
# the host is one that OpenNebula itself drives, over ssh, as USER
# (oneadmin): nothing is copied in (oned syncs /var/tmp/one itself, and
# /var/tmp is everyone's, as on a real host), /var/lib/one is USER's (the
# node package's home of oneadmin, where the lease ledger goes), the
# libvirtd socket is open to USER (the node package puts oneadmin in the
# libvirt group), and the libvirtd loads libvirt's QEMU driver as well:
# OpenNebula's stock host probes ask qemu:///system for the host's
# capabilities, and the stand-in virsh validates there (SIM_QEMU_URI)
# what the test driver, which runs the VMs, takes without checking. The
# QEMU driver reads /etc/libvirt and runs as libvirt-qemu: the host gets a
# private /etc/libvirt ($SIM_HOSTS/NAME/libvirt/etc, the qemu.conf of
# tests/lib/qemu.sh), and the test provides the user (one.sh does). The
# test driver's sample domain "test" is destroyed (OpenNebula would list
# it as a wild VM). Hosts of one test may then have different fixtures. The
# host has its own host name too (a UTS namespace: OpenNebula's probes
# report HOSTNAME), which `on` enters with the mount namespace.
sim_hv() { # NAME FIXTURE
	_tl_require_inside sim_hv
	local name=$1 fixture=$2 d=$SIM_HOSTS/$1 pid mk=${SIM_MKHOST:-$TOP/tests/fixtures/mkhost.sh}
	local owner=${SIM_HV_ONE:-} drv
	[ -n "$SIM_REMOTES" ] || [ -n "$owner" ] || die "sim_hv: call sim_cloud first"
	[ ! -e "$d/pid" ] || die "sim_hv: host $name exists already"
	mkdir -p "$d/libvirt/drivers" "$d/libvirt/etc"
	bash "$mk" "$fixture" "$d/host" >"$d/mkhost.log" 2>&1 ||
		{ _tl_show "$d/mkhost.log" 20; die "mkhost.sh $fixture failed"; }
	if [ -n "$owner" ]; then
		drv=$(_qemu_find_driver) ||
			die "libvirt_driver_qemu.so not found (apt-get install libvirt-daemon-driver-qemu)"
		ln -s "$drv" "$d/libvirt/drivers/libvirt_driver_qemu.so"
		_qemu_conf >"$d/libvirt/etc/qemu.conf"
	fi
	export -f _tl_mount_sys
	export _TL_SYS_GRAFTS
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount ${owner:+--uts} --propagation private -- bash -c '
		d=$1 remotes=$2 ds=$3 owner=$4 name=$5
		_tl_mount_sys "$d/host/sys" "$d/.realsys" || exit 1
		[ -z "$owner" ] || hostname "$name" || exit 1
		for dir in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt \
			/var/lib/one /var/tmp; do
			mkdir -p "$dir" && mount -t tmpfs -o mode=0755 tmpfs "$dir" || exit 1
		done
		mount -t tmpfs -o mode=1777 tmpfs /dev/shm || exit 1
		if [ -n "$owner" ]; then
			chmod 1777 /var/tmp && chown "$owner:" /var/lib/one &&
				mount --bind "$d/libvirt/etc" /etc/libvirt || exit 1
		else
			mkdir -p /var/lib/one/datastores /var/tmp/one &&
				mount --bind "$ds" /var/lib/one/datastores &&
				cp -rL "$remotes/." /var/tmp/one/ || exit 1
		fi
		: >"$d/ready"
		exec sleep infinity
	' sim-hv "$d" "${SIM_REMOTES:-}" "$TEST_TMP/shared-ds" "$owner" "$name" </dev/null >"$d/holder.out" 2>&1 &
	pid=$!
	_tl_daemon "$pid" "host $name"
	if ! _tl_wait_daemon 20 "$pid" test -e "$d/ready"; then
		_tl_show "$d/holder.out" 10 "host $name"
		die "host $name: namespace not ready within 20 s"
	fi
	[ -n "$owner" ] || [ "$(ls "$d/host/sys/bus/pci/devices")" = "$(ls /sys/bus/pci/devices)" ] ||
		die "sim_hv $name: call sim_host $fixture: the QEMU validator must see the hosts' PCI devices"
	echo "$pid" >"$d/pid"
	case $fixture in cx3) echo mlx4 ;; *) echo mlx5 ;; esac >"$d/kind"
	cat >"$d/libvirt/libvirtd.conf" <<-EOF
	unix_sock_dir = "/run/libvirt"
	auth_unix_rw = "none"
	auth_unix_ro = "none"
	log_outputs = "2:file:$d/libvirt/libvirtd.log"
	EOF
	[ -z "$owner" ] || echo 'unix_sock_rw_perms = "0777"' >>"$d/libvirt/libvirtd.conf"
	(cd "$d/libvirt" && LIBVIRT_DRIVER_DIR=$d/libvirt/drivers exec nsenter \
		--mount="/proc/$pid/ns/mnt" -- libvirtd -f "$d/libvirt/libvirtd.conf" \
		-p /run/libvirt/libvirtd.pid) </dev/null >"$d/libvirt/libvirtd.out" 2>&1 &
	_tl_daemon $! "libvirtd of $name"
	if ! _tl_wait_daemon 10 $! on "$name" test -S /run/libvirt/libvirt-sock; then
		_tl_show "$d/libvirt/libvirtd.log" 20 "libvirtd of $name"
		die "host $name: libvirtd did not come up within 10 s"
	fi
	# the QEMU driver answers once its state driver is up (tests/lib/qemu.sh)
	if [ -n "$owner" ] && ! _tl_wait_daemon 30 $! _hv_qemu_ready "$name"; then
		_tl_show "$d/libvirt/libvirtd.log" 20 "libvirtd of $name"
		die "host $name: libvirtd did not answer as qemu:///system within 30 s"
	fi
	# the test driver forgets its domains with its last client
	on "$name" virsh -c "$SIM_HV_URI" event --all --loop </dev/null >/dev/null 2>"$d/libvirt/holder.err" &
	_tl_daemon $! "virsh event on $name"
	if ! _tl_wait_daemon 10 $! _hv_has_client "$name"; then
		_tl_show "$d/libvirt/holder.err" 10 "virsh event on $name"
		die "host $name: the virsh connection holder did not connect within 10 s"
	fi
	if [ -n "$owner" ]; then
		on "$name" virsh -q -c "$SIM_HV_URI" destroy test >/dev/null ||
			die "host $name: cannot destroy the test driver's sample domain"
	fi
}

_hv_qemu_ready() { # NAME
	[ "$(on "$1" virsh -c qemu:///system uri 2>/dev/null | sed '/^$/d')" = qemu:///system ]
}

_hv_has_client() { # NAME
	on "$1" virt-admin -c 'libvirtd:///system?socket=/run/libvirt/libvirt-admin-sock' \
		client-list libvirtd 2>/dev/null | grep -q unix
}

# ---------------------------------------------------------------------------
# The front-end: VMs as oned knows them, and each driver action as
# one_vmm_exec runs it (OpenNebula 6.10 / 7.0, src/vmm_mad/exec/
# one_vmm_exec.rb): its VMM and VNM steps in order, each on its host with
# OpenNebula's arguments ('quoted', then <vmid> <host> for VMM steps) and
# stdin (the VMM_DRIVER_ACTION_DATA for VMM steps, the reduced VM XML
# Base64-encoded for VNM steps), through `ssh HOST "cat << 'EOT' | ..."`.
# TM steps (context, premigrate, postmigrate) are not part of one-ib and are
# left out; prereconfigure/reconfigure are the stock stand-ins (the context
# CD), kept because a failed prereconfigure makes one_vmm_exec detach the
# NIC again.
#
# A VM: $TEST_TMP/vms/<ID>/{nics,host,deploy_id,state[,pin,q35]}. nics holds
# one line per NIC, "NIC_ID MAC VNET [ATTACH]": InfiniBand NICs on the
# tenant networks of tests/lib/cloud.sh (VNET 5 IB_PKEY 0x8101, VNET 7
# 0x8102), pinned to $SIM_IB_PF when set. state is oned's "STATE
# LCM_STATE". pin (vm_pin) is "NODE CPUS": oned pinned the vCPUs to host
# CPUS of NUMA node NODE (TOPOLOGY PIN_POLICY and NUMA_NODE in the VM XML,
# <vcpupin> in the deployment, as LibVirtDriverKVM writes it).
#
# Every action prints "<ACTION> SUCCESS" or "<ACTION> FAILURE: <error>" on
# stdout (what one_vmm_exec tells oned), returns 0 or 1, and updates the VM
# as oned would on that answer. $TEST_TMP/steps.log lists every step run.
# The files of the step in progress ($SIM_STEP_DIR: step.out, step.err,
# the action data, what `again` repeats) are $TEST_TMP's unless a caller
# running actions side by side gives each its own directory.

_vmd() { echo "$TEST_TMP/vms/$1"; }
vm_host() { cat "$(_vmd "$1")/host"; }
vm_deploy_id() { cat "$(_vmd "$1")/deploy_id" 2>/dev/null; }
vm_state() { cat "$(_vmd "$1")/state"; }
_vm_set() { printf '%s\n' "$3" >"$(_vmd "$1")/$2"; }
_pkey_of_vnet() {
	if [ -e "$TEST_TMP/vnet-pkey.$1" ]; then
		cat "$TEST_TMP/vnet-pkey.$1"
		return
	fi
	case $1 in 5) echo 0x8101 ;; 7) echo 0x8102 ;; *) echo 0x81ff ;; esac
}

# vnet_pkey NET PKEY: the network's IB_PKEY changed by the administrator
# (onevnet update): in the NICs oned sends from now on (inherited) and in
# its pool listing.
vnet_pkey() { echo "$2" >"$TEST_TMP/vnet-pkey.$1"; }

# hosts_cloud_id N: this cloud's id (ONEIB_CLOUD_ID) on every host, and in
# what the test expects (guid_of) and renders (partition_vm_members).
hosts_cloud_id() {
	local h
	SIM_CLOUD_ID=$1
	export SIM_CLOUD_ID
	for h in "$SIM_HOSTS"/*/kind; do
		h=$(dirname "$h")
		on "${h##*/}" sed -i "s/^ONEIB_CLOUD_ID=.*/ONEIB_CLOUD_ID=$1/" \
			/var/tmp/one/etc/vmm/kvm-ib/kvm-ibrc
	done
}

# NICs of VM ID in oned's XML (CDATA values, as `onevm show -x`).
_nics_xml() { # VMID
	local vmid=$1 id mac net att
	while read -r id mac net att; do
		printf '<NIC><BRIDGE><![CDATA[]]></BRIDGE><BRIDGE_TYPE><![CDATA[none]]></BRIDGE_TYPE>'
		printf '<IB_PKEY><![CDATA[%s]]></IB_PKEY>' "$(_pkey_of_vnet "$net")"
		[ -n "${SIM_IB_PF:-}" ] && printf '<IB_PF><![CDATA[%s]]></IB_PF>' "$SIM_IB_PF"
		printf '<MAC><![CDATA[%s]]></MAC><NETWORK><![CDATA[tenant-%s]]></NETWORK>' "$mac" "$net"
		printf '<NETWORK_ID><![CDATA[%s]]></NETWORK_ID><NIC_ID><![CDATA[%s]]></NIC_ID>' "$net" "$id"
		printf '<TARGET><![CDATA[one-%s-%s]]></TARGET><VN_MAD><![CDATA[ib]]></VN_MAD>' "$vmid" "$id"
		[ "$att" = ATTACH ] && printf '<ATTACH><![CDATA[YES]]></ATTACH>'
		printf '</NIC>\n'
	done <"$(_vmd "$vmid")/nics"
}

_history_xml() { # HOST
	printf '<HISTORY_RECORDS><HISTORY><HOSTNAME><![CDATA[%s]]></HOSTNAME><HID>%s</HID>' "$1" "${1//[!0-9]/}"
	printf '<DS_ID>0</DS_ID><VM_MAD><![CDATA[kvm-ib]]></VM_MAD></HISTORY></HISTORY_RECORDS>'
}

# vm_pin VMID NODE CPUS: oned pinned VM VMID's vCPUs to CPUS ("4,5") of
# host NUMA node NODE (PIN_POLICY CORE, one virtual node).
vm_pin() { _vm_set "$1" pin "$2 $3"; }
# vm_gpus VMID "ADDR@NODE ...": OpenNebula's PCI devices of the VM (GPUs),
# host address and host NUMA node each: TEMPLATE/PCI ADDRESS in its XML,
# PCI hostdevs in its q35 deployment where oned puts them (oneib.sh,
# DOMAIN_XML_Q35_PCI)
vm_gpus() { _vm_set "$1" gpus "$2"; }
# vm_q35 VMID: its deployment is domain_xml_q35's 7.0 layout (oneib.sh), a
# q35 VM with two guest NUMA nodes, one PCIe expander bus each.
vm_q35() { _vm_set "$1" q35 numa; }

# The <VM> of VM ID as oned writes it (vm.xml, and inside the action data).
_vm_xml() { # VMID
	local vmid=$1 node cpus
	printf '<VM><ID>%s</ID><UID>2</UID><NAME><![CDATA[vm-%s]]></NAME><DEPLOY_ID>%s</DEPLOY_ID>' \
		"$vmid" "$vmid" "$(vm_deploy_id "$vmid")"
	# shellcheck disable=SC2046,SC2183 # vm_state prints "STATE LCM_STATE"
	printf '<STATE>%s</STATE><LCM_STATE>%s</LCM_STATE><TEMPLATE>\n' $(vm_state "$vmid")
	if [ -r "$(_vmd "$vmid")/pin" ] && read -r node cpus <"$(_vmd "$vmid")/pin"; then
		printf '<TOPOLOGY><PIN_POLICY><![CDATA[CORE]]></PIN_POLICY><SOCKETS><![CDATA[1]]></SOCKETS></TOPOLOGY>'
		printf '<NUMA_NODE><CPUS><![CDATA[%s]]></CPUS><MEMORY><![CDATA[1048576]]></MEMORY>' "$cpus"
		printf '<MEMORY_NODE_ID><![CDATA[%s]]></MEMORY_NODE_ID><NODE_ID><![CDATA[%s]]></NODE_ID>' "$node" "$node"
		printf '<TOTAL_CPUS><![CDATA[1]]></TOTAL_CPUS></NUMA_NODE>\n'
	fi
	if [ -r "$(_vmd "$vmid")/gpus" ]; then
		for node in $(cat "$(_vmd "$vmid")/gpus"); do
			node=${node%@*}
			printf '<PCI><ADDRESS><![CDATA[%s]]></ADDRESS><CLASS><![CDATA[0302]]></CLASS></PCI>\n' \
				"${node%.*}:${node##*.}"
		done
	fi
	_nics_xml "$vmid"
	printf '<CONTEXT><NETWORK><![CDATA[YES]]></NETWORK><TARGET><![CDATA[hda]]></TARGET></CONTEXT></TEMPLATE>'
	printf '<USER_TEMPLATE><IB_PKEY><![CDATA[0x7fff]]></IB_PKEY></USER_TEMPLATE>'
	_history_xml "$(vm_host "$vmid")"
	printf '</VM>\n'
}

# The <VMM_DRIVER_ACTION_DATA> oned sends with an action on VM ID (HOST its
# host, MIGR_HOST the destination of a migration).
action_xml() { # VMID [MIGR_HOST]
	local vmid=$1 dir=/var/lib/one/datastores/0/$1
	printf '<VMM_DRIVER_ACTION_DATA><HOST>%s</HOST><MIGR_HOST>%s</MIGR_HOST>' "$(vm_host "$vmid")" "${2:-}"
	printf '<DEPLOY_ID>%s</DEPLOY_ID><LOCAL_DEPLOYMENT_FILE/><REMOTE_DEPLOYMENT_FILE>%s/deployment.0</REMOTE_DEPLOYMENT_FILE>' \
		"$(vm_deploy_id "$vmid")" "$dir"
	printf '<CHECKPOINT_FILE>%s/checkpoint</CHECKPOINT_FILE><TM_COMMAND/><TM_COMMAND_ROLLBACK/>' "$dir"
	printf '<DISK_TARGET_PATH>%s</DISK_TARGET_PATH>\n' "$dir"
	_vm_xml "$vmid"
	printf '<DATASTORE><ID>0</ID><NAME><![CDATA[system]]></NAME><TM_MAD><![CDATA[shared]]></TM_MAD>'
	printf '<TEMPLATE><SHARED><![CDATA[YES]]></SHARED></TEMPLATE></DATASTORE></VMM_DRIVER_ACTION_DATA>\n'
}

# What one_vmm_exec's get_vnm_drivers sends the VNM: ID, DEPLOY_ID, the
# context, the NICs with a VN_MAD, the history.
_vnm_xml() { # VMID HOST
	printf '<VM><ID>%s</ID><DEPLOY_ID>%s</DEPLOY_ID><TEMPLATE>' "$1" "$(vm_deploy_id "$1")"
	printf '<CONTEXT><NETWORK><![CDATA[YES]]></NETWORK></CONTEXT>'
	_nics_xml "$1"
	printf '</TEMPLATE><USER_TEMPLATE><IB_PKEY><![CDATA[0x7fff]]></IB_PKEY></USER_TEMPLATE>'
	_history_xml "$2"
	printf '</VM>'
}

# One remote step: "ssh HOST" the command line one_vmm_exec sends, stdin in
# a heredoc. stdout/stderr of the step in $TEST_TMP/step.{out,err}.
_step() { # HOST STDIN_FILE PATH ARGS...
	local host=$1 in=$2 path=$3 q='' a rc
	shift 3
	for a in "$@"; do
		q="$q $a"
	done
	ssh "$host" "cat << 'EOT' | $path$q
$(cat "$in")
EOT
" >"$SIM_STEP_DIR/step.out" 2>"$SIM_STEP_DIR/step.err"
	rc=$?
	printf '%s: %s%s -> %d\n' "$host" "${path#/var/tmp/one/}" "$q" "$rc" >>"$TEST_TMP/steps.log"
	return $rc
}

_vmm() { # HOST ACTION VMID ARGS...: a VMM step ('quoted' ARGS, then vmid host)
	local host=$1 action=$2 vmid=$3 q=() a
	shift 3
	for a in "$@"; do
		q+=("'$a'")
	done
	action_xml "$vmid" "${SIM_MIGR_HOST:-}" >"$SIM_STEP_DIR/action.xml"
	cp "$SIM_STEP_DIR/action.xml" "$SIM_STEP_DIR/last-action.xml"
	printf '%s\n' "$host" "/var/tmp/one/vmm/kvm-ib/$action" "${q[@]}" "$vmid" "$host" \
		>"$SIM_STEP_DIR/last-vmm"
	_step "$host" "$SIM_STEP_DIR/action.xml" "/var/tmp/one/vmm/kvm-ib/$action" "${q[@]}" "$vmid" "$host"
}

# again: the last VMM step once more, exactly (a driver retry, or `onevm
# recover --retry` of an action whose first run got that far); its status.
again() {
	local step=()
	mapfile -t step <"$SIM_STEP_DIR/last-vmm" 2>/dev/null || die "again: no VMM step ran yet"
	cp "$SIM_STEP_DIR/last-action.xml" "$SIM_STEP_DIR/again.xml"
	_step "${step[0]}" "$SIM_STEP_DIR/again.xml" "${step[@]:1}"
}

# occupy HOST NAME VF...: a domain outside OpenNebula (not one-<id>) holding
# those VFs, running on HOST.
occupy() {
	local h=$1 n=$2 vf f=$TEST_TMP/occupy.$2.xml
	shift 2
	{
		echo "<domain type='kvm'><name>$n</name><memory>65536</memory>"
		echo "<os><type arch='x86_64'>hvm</type></os><devices>"
		for vf in "$@"; do
			printf "<hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x%s' bus='0x%s' slot='0x%s' function='0x%s'/></source></hostdev>\n" \
				"${vf%%:*}" "$(echo "$vf" | cut -d: -f2)" "$(echo "$vf" | cut -d: -f3 | cut -d. -f1)" "${vf##*.}"
		done
		echo "</devices></domain>"
	} >"$f"
	on "$h" virsh create "$f" >/dev/null || die "occupy: cannot create $n on $h"
}

_vnm() { # HOST ACTION VMID ARGS...: a VNM step (Base64 reduced XML, 'quoted' ARGS)
	local host=$1 action=$2 vmid=$3 q=() a
	shift 3
	for a in "$@"; do
		q+=("'$a'")
	done
	_vnm_xml "$vmid" "$(vm_host "$vmid")" | base64 -w0 >"$SIM_STEP_DIR/vnm.b64"
	_step "$host" "$SIM_STEP_DIR/vnm.b64" "/var/tmp/one/vnm/ib/$action" "${q[@]}"
}

# The error one_vmm_exec reports: the failed step's stderr, one line.
_one_fail() { # ACTION
	echo "$1 FAILURE: $(tr '\n' ' ' <"$SIM_STEP_DIR/step.err" | sed 's/ *$//')"
	return 1
}

# one_vm_new VMID NIC_ID/MAC/VNET...: a VM oned has placed nowhere yet.
one_vm_new() {
	local vmid=$1 n d
	d=$(_vmd "$vmid")
	shift
	mkdir -p "$d"
	: >"$d/nics"
	for n in "$@"; do
		echo "${n//\// }" >>"$d/nics"
	done
	_vm_set "$vmid" state "1 0"
	_vm_set "$vmid" host ""
}

# DEPLOY (also resume from POWEROFF/UNDEPLOYED; SIM_NO_FAIL_ACTIONS: the
# front-end dies with a failing deploy, its vnm clean never runs): vnm pre; the deployment
# file (ssh'd with vm.xml beside it, as the stock driver does) on the deploy
# stdin; on failure vnm clean; vnm post (on failure cancel, vnm clean).
one_deploy_vm() { # VMID HOST
	local vmid=$1 host=$2 dir=/var/lib/one/datastores/0/$1 macs=() id mac net att pcpus
	_vm_set "$vmid" host "$host"
	_vm_set "$vmid" state "3 2"
	_vnm "$host" pre "$vmid" || { _vm_set "$vmid" state "3 36"; _one_fail DEPLOY; return; }
	while read -r id mac net att; do macs+=("$mac"); done <"$(_vmd "$vmid")/nics"
	mkdir -p "$TEST_TMP/shared-ds/0/$vmid"
	_vm_xml "$vmid" >"$TEST_TMP/shared-ds/0/$vmid/vm.xml"
	if [ -r "$(_vmd "$vmid")/q35" ]; then
		DOMAIN_XML_Q35_PCI=$(cat "$(_vmd "$vmid")/gpus" 2>/dev/null) \
			domain_xml_q35 "$vmid" numa "${macs[@]}" >"$SIM_STEP_DIR/deployment.xml"
	else
		domain_xml "$vmid" "${macs[@]}" >"$SIM_STEP_DIR/deployment.xml"
	fi
	if [ ! -r "$(_vmd "$vmid")/q35" ] && [ -r "$(_vmd "$vmid")/pin" ] &&
		read -r _ pcpus <"$(_vmd "$vmid")/pin"; then
		sed -i "s|<shares>1024</shares>|&<vcpupin vcpu='0' cpuset='$pcpus'/>|" "$SIM_STEP_DIR/deployment.xml"
	fi
	if ! _step "$host" "$SIM_STEP_DIR/deployment.xml" /var/tmp/one/vmm/kvm-ib/deploy \
		"'$dir/deployment.0'" "'$host'" "$vmid" "$host"; then
		_one_fail DEPLOY
		# one_vmm_exec's fail action, unless it died with the deploy
		[ -n "${SIM_NO_FAIL_ACTIONS:-}" ] || _vnm "$host" clean "$vmid" "$host"
		_vm_set "$vmid" state "3 36"
		return 1
	fi
	_vm_set "$vmid" deploy_id "$(sed '/^$/d' "$SIM_STEP_DIR/step.out")"
	if ! _vnm "$host" post "$vmid" "$(vm_deploy_id "$vmid")" "$host"; then
		_one_fail DEPLOY
		_vmm "$host" cancel "$vmid" "$(vm_deploy_id "$vmid")" "$host"
		_vnm "$host" clean "$vmid" "$host"
		_vm_set "$vmid" state "3 36"
		return 1
	fi
	_vm_set "$vmid" state "3 3"
	echo "DEPLOY SUCCESS"
}

# SHUTDOWN (terminate, poweroff, undeploy): shutdown, vnm clean.
one_shutdown() { # VMID [STATE]   STATE after it: "8 0" POWEROFF (default)
	_one_down shutdown SHUTDOWN "$@"
}

# CANCEL (terminate --hard, poweroff --hard, undeploy --hard): cancel, vnm
# clean.
one_cancel() { # VMID [STATE]   STATE after it: "8 0" POWEROFF (default)
	_one_down cancel CANCEL "$@"
}

_one_down() { # ACTION NAME VMID [STATE]
	local action=$1 name=$2 vmid=$3 host
	host=$(vm_host "$vmid")
	_vm_set "$vmid" state "3 18"
	if ! _vmm "$host" "$action" "$vmid" "$(vm_deploy_id "$vmid")" "$host"; then
		_vm_set "$vmid" state "3 3"
		_one_fail "$name"
		return
	fi
	_vnm "$host" clean "$vmid" "$host" || { _vm_set "$vmid" state "3 3"; _one_fail "$name"; return; }
	_vm_set "$vmid" state "${4:-8 0}"
	echo "$name SUCCESS"
}

# SAVE (suspend, stop, non-live migrate): save, vnm clean.
one_save() { # VMID [STATE]   STATE after it: "5 0" SUSPENDED (default)
	local vmid=$1 host
	host=$(vm_host "$vmid")
	_vm_set "$vmid" state "3 6"
	if ! _vmm "$host" save "$vmid" "$(vm_deploy_id "$vmid")" \
		"/var/lib/one/datastores/0/$vmid/checkpoint" "$host"; then
		_vm_set "$vmid" state "3 3"
		_one_fail SAVE
		return
	fi
	if ! _vnm "$host" clean "$vmid" "$host"; then
		_vm_set "$vmid" state "3 3"
		_one_fail SAVE
		return
	fi
	_vm_set "$vmid" state "${2:-5 0}"
	echo "SAVE SUCCESS"
}

# RESTORE (resume of a SUSPENDED/STOPPED VM, the end of a non-live
# migration) on HOST: vnm pre, restore, vnm post (on failure cancel).
one_restore() { # VMID HOST
	local vmid=$1 host=$2 before
	before=$(vm_state "$vmid")
	_vm_set "$vmid" host "$host"
	_vm_set "$vmid" state "3 21"
	_vnm "$host" pre "$vmid" || { _vm_set "$vmid" state "$before"; _one_fail RESTORE; return; }
	if ! _vmm "$host" restore "$vmid" "/var/lib/one/datastores/0/$vmid/checkpoint" "$host" \
		"$(vm_deploy_id "$vmid")"; then
		_vm_set "$vmid" state "$before"
		_one_fail RESTORE
		return
	fi
	if ! _vnm "$host" post "$vmid" "$(vm_deploy_id "$vmid")" "$host"; then
		_one_fail RESTORE
		_vmm "$host" cancel "$vmid" "$(vm_deploy_id "$vmid")" "$host"
		_vm_set "$vmid" state "$before"
		return 1
	fi
	_vm_set "$vmid" state "3 3"
	echo "RESTORE SUCCESS"
}

# MIGRATE (live) to DEST: vnm pre on DEST (unless the same host), migrate
# on the source (or, with LOCAL=1, migrate_local on the front-end with the
# Base64 action data), vnm clean on the source and vnm post on DEST (both
# no_fail). On failure the VM stays where it was, RUNNING. To its own host
# oned refuses before any step (RequestManagerVirtualMachine: "VM is
# already running on Host"), unless SIM_DS_LIVE_MIGRATION is set: a live
# move to another system datastore of the same host, which a VM_MAD with
# DS_LIVE_MIGRATION lets through to the driver.
one_migrate() { # VMID DEST [LOCAL]
	local vmid=$1 dest=$2 src rc
	src=$(vm_host "$vmid")
	if [ "$src" = "$dest" ] && [ -z "${SIM_DS_LIVE_MIGRATION:-}" ]; then
		echo "MIGRATE FAILURE: VM is already running on Host [${dest//[!0-9]/}]"
		return 1
	fi
	_vm_set "$vmid" state "3 4"
	if [ "$src" != "$dest" ] && ! _vnm "$dest" pre "$vmid"; then
		_vm_set "$vmid" state "3 3"
		_one_fail MIGRATE
		return
	fi
	if [ -n "${3:-}" ]; then
		action_xml "$vmid" "$dest" | base64 -w0 >"$SIM_STEP_DIR/action.b64"
		bash -c "cat << 'EOT' | '$SIM_REMOTES/vmm/kvm-ib/migrate_local' '$(vm_deploy_id "$vmid")' '$dest' '$src' $vmid $src
$(cat "$SIM_STEP_DIR/action.b64")
EOT
" >"$SIM_STEP_DIR/step.out" 2>"$SIM_STEP_DIR/step.err"
		rc=$?
		echo "front-end: vmm/kvm-ib/migrate_local -> $rc" >>"$TEST_TMP/steps.log"
	else
		SIM_MIGR_HOST=$dest _vmm "$src" migrate "$vmid" "$(vm_deploy_id "$vmid")" "$dest" "$src"
		rc=$?
	fi
	if [ $rc != 0 ]; then
		_vm_set "$vmid" state "3 3"
		_one_fail MIGRATE
		return
	fi
	if [ "$src" != "$dest" ]; then
		_vnm "$src" clean "$vmid" "$src" || echo "# vnm clean on $src failed (no_fail)"
		_vm_set "$vmid" host "$dest"
		_vnm "$dest" post "$vmid" "$(vm_deploy_id "$vmid")" "$src" || echo "# vnm post on $dest failed (no_fail)"
	fi
	_vm_set "$vmid" host "$dest"
	_vm_set "$vmid" state "3 3"
	echo "MIGRATE SUCCESS"
}

# ATTACHNIC of NIC_ID/MAC/VNET: the NIC joins the template with
# ATTACH=YES; vnm pre, attach_nic, vnm post (on failure detach_nic),
# prereconfigure (on failure detach_nic), reconfigure. On failure oned
# drops the NIC again.
one_attach_nic() { # VMID NIC_ID/MAC/VNET
	local vmid=$1 id mac net host d undo=
	IFS=/ read -r id mac net <<<"$2"
	d=$(_vmd "$vmid")
	host=$(vm_host "$vmid")
	echo "$id $mac $net ATTACH" >>"$d/nics"
	_vm_set "$vmid" state "3 25"
	if ! _vnm "$host" pre "$vmid" ||
		! _vmm "$host" attach_nic "$vmid" "$(vm_deploy_id "$vmid")" "$mac" '' - ib "one-$vmid-$id"; then
		:
	elif ! _vnm "$host" post "$vmid" "$(vm_deploy_id "$vmid")" "$host" ||
		! _vmm "$host" prereconfigure "$vmid" "$(vm_deploy_id "$vmid")" hda; then
		undo=1
	else
		_vmm "$host" reconfigure "$vmid" "$(vm_deploy_id "$vmid")" hda \
			"/var/lib/one/datastores/0/$vmid/disk.1"
		sed -i "s/^$id \(.*\) ATTACH\$/$id \1/" "$d/nics"
		_vm_set "$vmid" state "3 3"
		echo "ATTACHNIC SUCCESS"
		return 0
	fi
	_one_fail ATTACHNIC
	if [ -n "$undo" ]; then
		_vmm "$host" detach_nic "$vmid" "$(vm_deploy_id "$vmid")" "$mac" ||
			echo "# detach_nic (fail action) failed too: $(tr '\n' ' ' <"$SIM_STEP_DIR/step.err")"
	fi
	sed -i "/^$id /d" "$d/nics"
	_vm_set "$vmid" state "3 3"
	return 1
}

# DETACHNIC of NIC_ID: the NIC gets ATTACH=YES; detach_nic, vnm clean,
# prereconfigure, reconfigure. On success oned drops the NIC.
one_detach_nic() { # VMID NIC_ID
	local vmid=$1 id=$2 host d mac
	d=$(_vmd "$vmid")
	host=$(vm_host "$vmid")
	mac=$(awk -v id="$id" '$1 == id { print $2 }' "$d/nics")
	[ -n "$mac" ] || die "one_detach_nic: VM $vmid has no NIC $id"
	sed -i "s/^$id \([^ ]* [^ ]*\)\$/$id \1 ATTACH/" "$d/nics"
	_vm_set "$vmid" state "3 25"
	if ! _vmm "$host" detach_nic "$vmid" "$(vm_deploy_id "$vmid")" "$mac" ||
		! _vnm "$host" clean "$vmid" "$host"; then
		sed -i "s/^$id \(.*\) ATTACH\$/$id \1/" "$d/nics"
		_vm_set "$vmid" state "3 3"
		_one_fail DETACHNIC
		return
	fi
	sed -i "/^$id /d" "$d/nics"
	_vmm "$host" prereconfigure "$vmid" "$(vm_deploy_id "$vmid")" hda
	_vmm "$host" reconfigure "$vmid" "$(vm_deploy_id "$vmid")" hda \
		"/var/lib/one/datastores/0/$vmid/disk.1"
	_vm_set "$vmid" state "3 3"
	echo "DETACHNIC SUCCESS"
}

# ---------------------------------------------------------------------------
# What the hosts really have, and whether it agrees with oned's view.

# The port GUID of VM ID NIC N (design decision 2, cloud $SIM_CLOUD_ID).
guid_of() { # VMID NIC_ID
	printf '0x02%02x%08x%04x\n' "${SIM_CLOUD_ID:-0}" "$1" "$2"
}

# Facts of the host it runs on (with `on`), one per line:
#   held DOMAIN VF             an IB VF in that domain's XML (running or not)
#   prog VF GUID[/PKEY]        VF programmed: its port GUID (mlx5, OFED
#                              files) or alias GUID and the P_Key of its
#                              virtual index 0 (mlx4); VFs left as the
#                              kernel made them (0) or unmapped (all ones,
#                              mlx5 policy Down) are not listed
#   lease VM NIC VF GUID PKEY STATE   a ledger line (STATE: leased, reserved)
#   adopted VF DOMAIN
#   file NAME                  anything in the ledger directory but the ledger
_hostfacts() {
	local d vf pf idx port slave g p pi
	for d in $(virsh list --all --name); do
		virsh dumpxml "$d" | sed -n "s/.*<address domain='0x\([0-9a-f]*\)' bus='0x\([0-9a-f]*\)' slot='0x\([0-9a-f]*\)' function='0x\([0-9a-f]*\)'.*/\1 \2 \3 \4/p" |
			while read -r a b c f; do
				printf 'held %s %04x:%02x:%02x.%x\n' "$d" $((16#$a)) $((16#$b)) $((16#$c)) $((16#$f))
			done
	done
	# each PF's virtfnN links: VF N's address, one readlink per VF
	for pf in /sys/bus/pci/devices/*; do
		for idx in "$pf"/virtfn*; do
			[ -L "$idx" ] || continue
			vf=$(readlink "$idx")
			vf=${vf##*/}
			idx=${idx##*virtfn}
			if [ -d "$pf/sriov/$idx" ]; then # mlx5, MLNX_OFED files
				g=$(tr -d ':\n' <"$pf/sriov/$idx/port")
				[ "$(cat "$pf/sriov/$idx/policy")" = Down ] && continue
				case $g in 0000000000000000 | ffffffffffffffff) continue ;; esac
				echo "prog $vf 0x$g"
			elif [ -d "$pf/infiniband" ] && [ -d "$(echo "$pf"/infiniband/mlx4_*)/iov/$vf" ]; then
				d=$(echo "$pf"/infiniband/mlx4_*)
				for port in 1 2; do
					[ -d "$d/iov/$vf/ports/$port" ] || continue
					slave=$(cat "$d/iov/$vf/ports/$port/gid_idx/0")
					g=$(printf '%016x' "0x$(cat "$d/iov/ports/$port/admin_guids/$slave")")
					case $g in 0000000000000000 | ffffffffffffffff) continue ;; esac
					pi=$(cat "$d/iov/$vf/ports/$port/pkey_idx/0")
					p=none
					[ "$pi" = none ] || p=$(cat "$d/ports/$port/pkeys/$pi")
					echo "prog $vf 0x$g/$p"
				done
			fi
		done
	done
	/var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib |
		jq -r '.leases[] | if .vm == null then "adopted \(.vf) \(.domain)"
			else "lease \(.vm) \(.nic) \(.vf) \(.guid) \(.pkey) \(if .reserved then "reserved" else "leased" end)" end'
	find /var/lib/one/ib -mindepth 1 -maxdepth 1 ! -name leases ! -name leases.lock \
		-printf 'file %f\n' 2>/dev/null | LC_ALL=C sort
}

# Each lease, domain-held VF and programmed VF of HOST described from the
# NIC's side, for comparison with what oned's view implies:
#   HOST VM V NIC N: GUID G P_KEY P, in one-V, programmed G[/P]
#   HOST VF X: held by D without a lease | programmed G without a lease | ...
_host_view() { # HOST
	local h=$1 f=$TEST_TMP/facts.$1 kind what vm nic vf g p st dom
	export -f _hostfacts
	on "$h" bash -c _hostfacts >"$f" 2>"$f.err" || { _tl_show "$f.err" 5; die "facts of $h"; }
	while read -r what vm nic vf g p st; do
		[ "$what" = lease ] || continue
		dom=$(awk -v vf="$vf" '$1 == "held" && $3 == vf { print $2 }' "$f")
		kind=$(awk -v vf="$vf" '$1 == "prog" && $2 == vf { print $3 }' "$f")
		echo "$h VM $vm NIC $nic: GUID $g P_KEY $p${st/leased/}, in ${dom:-no domain}, programmed ${kind:-nothing}"
	done <"$f"
	awk -v h="$h" '
		NR == FNR { if ($1 == "lease") leased[$4] = 1; next }
		$1 == "held" && !($3 in leased) { print h " VF " $3 ": held by " $2 " without a lease" }
		$1 == "prog" && !($2 in leased) { print h " VF " $2 ": programmed " $3 " without a lease" }
		$1 == "adopted" { print h " VF " $2 ": adopted for " $3 }
		$1 == "file" { print h " ledger directory holds " $2 }' "$f" "$f" | sort -u
}

# What oned's view implies: every IB NIC of a RUNNING VM (3 3) has one VF
# on the VM's host, in its domain, programmed with its GUID (and, on mlx4,
# its P_Key); nothing else anywhere.
_oned_view() {
	local d vmid host id mac net att g pk
	for d in "$TEST_TMP"/vms/*/; do
		vmid=$(basename "$d")
		[ "$(vm_state "$vmid")" = "3 3" ] || continue
		host=$(vm_host "$vmid")
		while read -r id mac net att; do
			g=$(guid_of "$vmid" "$id")
			pk=$(_pkey_of_vnet "$net")
			[ "$(cat "$SIM_HOSTS/$host/kind")" = mlx4 ] && g="$g/$pk" || g="$g"
			echo "$host VM $vmid NIC $id: GUID $(guid_of "$vmid" "$id") P_KEY $pk, in one-$vmid, programmed $g"
		done <"$d/nics"
	done
}

# hosts_consistent MSG: on every host, whatever oned thinks: every lease is
# an ordinary one, in its VM's domain and programmed with its GUID; no VF is
# held or programmed without a lease; nothing beside the ledger. What
# reconcile must leave after a crash.
hosts_consistent() { # MSG
	local h
	for h in "$SIM_HOSTS"/*/kind; do
		h=$(dirname "$h")
		_host_view "${h##*/}"
	done | sort >"$TEST_TMP/real.view"
	assert_eq "" "$(grep -Ev '^[^ ]+ VM ([0-9]+) NIC [0-9]+: GUID ([^ ]+) P_KEY [^ ,]+, in one-\1, programmed \2(/0x[0-9a-f]+)?$' "$TEST_TMP/real.view")" \
		"$1: every lease in its domain and programmed, nothing else held or programmed"
}

# oned's view of the cloud as `onevm list -x`, `onehost list -x`,
# `onevnet list -x` print it, for the partitions renderer.
cloud_xml() {
	local d vmid host id mac net att
	echo "<VM_POOL>"
	for d in "$TEST_TMP"/vms/*/; do
		vmid=$(basename "$d")
		host=$(vm_host "$vmid")
		# shellcheck disable=SC2046,SC2183 # vm_state prints "STATE LCM_STATE"
		printf '<VM><ID>%s</ID><UID>2</UID><NAME><![CDATA[vm-%s]]></NAME><STATE>%s</STATE><LCM_STATE>%s</LCM_STATE><TEMPLATE>\n' \
			"$vmid" "$vmid" $(vm_state "$vmid")
		while read -r id mac net att; do
			printf '<NIC><MAC><![CDATA[%s]]></MAC><NETWORK_ID><![CDATA[%s]]></NETWORK_ID><NIC_ID><![CDATA[%s]]></NIC_ID></NIC>\n' \
				"$mac" "$net" "$id"
		done <"$d/nics"
		printf '</TEMPLATE><HISTORY_RECORDS><HISTORY><HOSTNAME><![CDATA[%s]]></HOSTNAME></HISTORY></HISTORY_RECORDS></VM>\n' \
			"${host:-}"
	done
	echo "</VM_POOL>"
	echo "<HOST_POOL>"
	for d in "$SIM_HOSTS"/*/kind; do
		d=$(dirname "$d")
		_cloud_host "${d##*[!0-9]}" "${d##*/}" "0x0002c9030000$(printf %04x "${d##*[!0-9]}")" \
			"$(cat "$d/kind")_core"
	done
	echo "</HOST_POOL>"
	cloud_vnets | _vnet_pkeys
}

# The pool's IB_PKEYs as vnet_pkey changed them.
_vnet_pkeys() {
	local f net expr=''
	for f in "$TEST_TMP"/vnet-pkey.*; do
		[ -e "$f" ] || continue
		net=${f##*.}
		expr="$expr;/<ID>$net<\/ID>/,/<\/VNET>/ s/<IB_PKEY><!\[CDATA\[[^]]*\]\]>/<IB_PKEY><![CDATA[$(cat "$f")]]>/"
	done
	sed "${expr#;}"
}

# The VM port GUIDs the partitions renderer makes members of VNET's
# partition (the hosts' own PF ports left out), sorted, one line.
partition_vm_members() { # VNET
	"$SIM_REMOTES/ib/bin/oneib-partitions" render --cloud-id "${SIM_CLOUD_ID:-0}" \
		"$TEST_TMP/cloud.xml" 2>"$TEST_TMP/render.err" | partition_members_in "$1"
}

# The full members of network VNET's partition in the partitions.conf on
# stdin but the fixtures' PF ports (0x0002c9030000...), sorted, one line.
partition_members_in() { # VNET
	grep -v '^#' | tr '\n' ' ' | tr ';' '\n' | sed -n "s/^ *vnet$1_[^=]*=[^:]*://p" | tr ',' '\n' |
		sed -n 's/^[[:space:]]*\(0x[0-9a-f]*\)=full.*/\1/p' | grep -v '^0x0002c9030000' | sort | tr '\n' ' ' |
		sed 's/ $//'
}

# The GUIDs leased on any host for NICs of VNET, sorted, one line.
_leased_guids() { # VNET
	local d vmid id mac net att
	for d in "$TEST_TMP"/vms/*/; do
		vmid=$(basename "$d")
		while read -r id mac net att; do
			[ "$net" = "$1" ] || continue
			grep -h "^lease $vmid $id " "$TEST_TMP"/facts.* 2>/dev/null | awk '{ print $5 }'
		done <"$d/nics"
	done | sort | tr '\n' ' ' | sed 's/ $//'
}

# cloud_agrees MSG: after an action, on every host: the domains' hostdevs,
# the ledgers and the VFs' GUID/P_Key state are what oned's view of the VMs
# implies (and nothing else: no VF held, programmed or leased for a NIC
# that is not running there, no reservation left, nothing beside the
# ledger); and the partitions the renderer makes from oned's view hold
# exactly the GUIDs leased on the hosts.
cloud_agrees() { # MSG
	local h net
	for h in "$SIM_HOSTS"/*/kind; do
		h=$(dirname "$h")
		_host_view "${h##*/}"
	done | sort >"$TEST_TMP/real.view"
	_oned_view | sort >"$TEST_TMP/oned.view"
	assert_eq "$(cat "$TEST_TMP/oned.view")" "$(cat "$TEST_TMP/real.view")" \
		"$1: hosts (domains, ledgers, VFs) agree with oned"
	cloud_xml >"$TEST_TMP/cloud.xml"
	for net in 5 7; do
		assert_eq "$(_leased_guids "$net")" "$(partition_vm_members "$net")" \
			"$1: partition of VNET $net = the GUIDs leased for it"
	done
}
