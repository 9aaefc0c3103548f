#!/bin/bash
# genpools.sh: a synthetic cloud for the partitions renderer (b40) and the
# SL plan (b41), as the three documents `oneib-partitions render` reads:
# DIR/vms.xml (<VM_POOL>), DIR/hosts.xml (<HOST_POOL>), DIR/vnets.xml
# (<VNET_POOL>).
#
#   genpools.sh [-n NETS] [-g MEMBERS] [-H HOSTS] [-L HOSTS_PER_LEAF]
#               [-f lean|listing|extended] [-s SEED] DIR
#   genpools.sh -n 32766 -g 100000 DIR
#   -> nets=32766 hosts=2500 mlx4_hosts=50 vms=70293 member_vms=63403
#      ib_nics=105307 vm_members=95000 mlx4_members=5000 members=100000
#      bytes_vms=147549801 bytes_hosts=9026694 bytes_vnets=54450853
#   (listing: 2.1 kB per VM, 3.6 kB per host, 1.7 kB per network; lean:
#   0.5 kB per VM; extended: 6.5 kB per VM. About 2 s with mawk.)
#
# The cloud (deterministic for a seed):
# - NETS "ib" networks (VN_MAD ib), IDs 2.., IB_PKEY 0x8001.. in order, so
#   the rendered file has NETS + 1 partitions with Default; some with IB_MTU,
#   a few with IB_RATE / IB_SL. Two bridge networks, IDs 0 and 1, that the
#   renderer skips. Networks 2..K+1 (K = min(100, NETS)) are in clusters
#   100 and 101, the rest in cluster 100 only.
# - HOSTS hosts (default MEMBERS / 40): one in 50 is a ConnectX-3 host
#   (IB_PF DRIVER mlx4_core, port 1 InfiniBand, port 2 Ethernet) in cluster
#   101, so its port holds 1 + K <= 101 keys; the rest are mlx5 hosts with
#   one or two IB_PFs in cluster 100. Every InfiniBand port has the leaf
#   switch the probes publish (LEAF_GUID, LEAF_PORT, LEAF_DESC, PEER_TYPE):
#   hosts in ID order, HOSTS_PER_LEAF (default 18, a 40-port switch with
#   half its ports up) under each leaf; a host's two ports under one.
# - VMs are placed on hosts in ID order (a VM's HID), so a network's VMs
#   spread over many hosts and leaves: a crowded SL plan.
# - VMs, IDs from 1000 with gaps: 90 % in a state that holds a host
#   (RUNNING mostly, some PROLOG/BOOT/UNKNOWN/HOTPLUG, POWEROFF, SUSPENDED;
#   only the ACTIVE ones are partition members),
#   10 % not (PENDING, HOLD, STOPPED, UNDEPLOYED). Each has a bridge NIC and
#   1 (70 %), 2 (20 %) or 4 (10 %) InfiniBand NICs with unique MACs
#   02:00:0a:.., on networks drawn with a skew (low IDs are the big tenants,
#   many high ones have few or no members). VMs are added until the
#   partition members (VM NIC GUIDs of VMs with a host, plus the mlx4 PF
#   GUID in each of the K shared networks) total MEMBERS exactly.
#
# Shapes (-f), all indented like the CLI prints them:
#   lean      only what the renderer reads (ID, NAME, STATE, LCM_STATE,
#             TEMPLATE/NIC/{MAC,NETWORK_ID,NIC_ID,VN_MAD}, HISTORY/HID;
#             IB_PF, CLUSTER_ID; VN_MAD, CLUSTERS, TEMPLATE/IB_*): the floor.
#   listing   (default) `onevm list -x` as oned's one.vmpool.info writes it
#             (VirtualMachine::to_xml_short: UID..DEPLOY_ID, TEMPLATE CPU,
#             MEMORY, short DISK, NICs with only IP, MAC, NETWORK,
#             NETWORK_ID, NIC_ID, SECURITY_GROUPS as plain text and no
#             VN_MAD, GRAPHICS, short MONITORING, USER_TEMPLATE, the last
#             HISTORY); `onehost list -x` and `onevnet list -x` as oned
#             writes them (networks without their leases).
#   extended  `onevm list -x --extended` (one.vmpool.infoextended): the full
#             VM body, PERMISSIONS, the whole TEMPLATE (CONTEXT, DISK, NIC,
#             OS, AUTOMATIC_*REQUIREMENTS...), the full last HISTORY.
#             Hosts and networks as in listing.
# Prints one line of counts and byte sizes on stdout.
set -eu

nets=1000 members=100000 hosts='' shape=listing seed=42 perleaf=18
usage() {
	echo "usage: genpools.sh [-n NETS] [-g MEMBERS] [-H HOSTS] [-L HOSTS_PER_LEAF] [-f lean|listing|extended] [-s SEED] DIR" >&2
	exit 2
}
while getopts n:g:H:L:f:s: o; do
	case $o in
	n) nets=$OPTARG ;;
	g) members=$OPTARG ;;
	H) hosts=$OPTARG ;;
	L) perleaf=$OPTARG ;;
	f) shape=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
dir=$1
case $shape in lean | listing | extended) ;; *) usage ;; esac
for v in "$nets" "$members" "${hosts:-1}" "$seed" "$perleaf"; do
	case $v in '' | *[!0-9]*) usage ;; esac
done
[ "$perleaf" -ge 1 ] || usage
[ "$nets" -ge 1 ] && [ "$nets" -le 32766 ] || {
	echo "genpools.sh: NETS must be 1..32766 (tenant P_Keys 0x0001-0x7ffe)" >&2
	exit 2
}
[ -n "$hosts" ] || hosts=$(((members + 39) / 40))
[ "$hosts" -ge 2 ] || hosts=2
mkdir -p "$dir"

counts=$(awk -v NETS="$nets" -v MEMBERS="$members" -v HOSTS="$hosts" -v SHAPE="$shape" \
	-v SEED="$seed" -v DIR="$dir" -v PERLEAF="$perleaf" '
# Park-Miller: exact in awk doubles (16807 * 2^31 < 2^53).
function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
function E(ind, n, v) { return ind "<" n ">" v "</" n ">\n" }
function C(ind, n, v) { return ind "<" n "><![CDATA[" v "]]></" n ">\n" }
# a NIC value: plain text in the short VM body, CDATA otherwise
function V(ind, n, v) { return short ? E(ind, n, v) : C(ind, n, v) }
function hex2(x) { return sprintf("%02x", x % 256) }
# 48-bit MAC from a 32-bit counter: 02:00:aa:bb:cc:dd, as OpenNebula
# derives MACs from IPv4 addresses (MAC_PREFIX 02:00).
function mac(v) {
	return "02:00:" hex2(int(v / 16777216)) ":" hex2(int(v / 65536)) ":" \
		hex2(int(v / 256)) ":" hex2(v)
}
function ip(v) {
	return int(v / 16777216) % 256 "." int(v / 65536) % 256 "." \
		int(v / 256) % 256 "." v % 256
}
function perms(ind, i2) {
	i2 = ind "  "
	return ind "<PERMISSIONS>\n" E(i2, "OWNER_U", 1) E(i2, "OWNER_M", 1) \
		E(i2, "OWNER_A", 0) E(i2, "GROUP_U", 0) E(i2, "GROUP_M", 0) \
		E(i2, "GROUP_A", 0) E(i2, "OTHER_U", 0) E(i2, "OTHER_M", 0) \
		E(i2, "OTHER_A", 0) ind "</PERMISSIONS>\n"
}
function netname(k) {
	if (k % 3 == 0) return "tenant-" k
	if (k % 3 == 1) return "proj" k "-mpi"
	return "hpc lab " k " #ib"
}

BEGIN {
	seed = SEED + 0
	K = NETS < 100 ? NETS : 100
	M4 = int(HOSTS / 50); if (M4 < 1) M4 = 1
	M5 = HOSTS - M4
	mlx4_members = M4 * K
	vm_target = MEMBERS - mlx4_members
	if (vm_target < 0) {
		print "genpools.sh: MEMBERS < " mlx4_members " (the mlx4 PF members)" > "/dev/stderr"
		exit 2
	}
	now = 1761900000
	vmf = DIR "/vms.xml"; hostf = DIR "/hosts.xml"; netf = DIR "/vnets.xml"
	lean = SHAPE == "lean"; ext = SHAPE == "extended"; short = SHAPE == "listing"

	# ---- VMs (first: the hosts list their VMs) ----------------------------
	print "<VM_POOL>" > vmf
	got = 0; nvm = 0; nmember = 0; nnic = 0; macn = 167772160 # 10.0.0.0
	while (got < vm_target) {
		id = 1000 + nvm + int(nvm / 3) # gaps: DONE VMs are not listed
		u = rnd()
		lcm = 0
		if (u < 0.84) { st = 3; lcm = 3 }
		else if (u < 0.86) { st = 3; x = int(rnd() * 5); lcm = x == 0 ? 1 : x == 1 ? 2 : x == 2 ? 16 : x == 3 ? 17 : 25 }
		else if (u < 0.89) st = 8
		else if (u < 0.90) st = 5
		else if (u < 0.94) st = 1
		else if (u < 0.95) st = 2
		else if (u < 0.97) st = 4
		else st = 9
		# a host: ACTIVE, POWEROFF, SUSPENDED; a member (its VFs in the
		# partitions): ACTIVE only (partitions.h, vm_has_host)
		hosted = st == 3 || st == 5 || st == 8
		member = st == 3
		u = rnd(); n = u < 0.7 ? 1 : u < 0.9 ? 2 : 4
		if (member && n > vm_target - got) n = vm_target - got
		shared = 1
		for (j = 0; j < n; j++) {
			u = rnd(); net[j] = int(NETS * u * u)
			if (net[j] >= K) shared = 0
		}
		if (member) { got += n; nmember++ }
		nnic += n
		# the host: ConnectX-3 hosts (cluster 101) run VMs of shared networks
		# (16 VFs each, so at most 16 VMs there)
		if (shared && nvm % 3 == 0 && hcount[nvm % M4] < 16) { h = nvm % M4; cid = 101 }
		else { h = M4 + nvm % M5; cid = 100 }
		hasdh = st == 3 || st == 5 || st == 8 || st == 4 || st == 9
		if (hosted) { hvms[h] = hvms[h] E("      ", "ID", id); hcount[h]++ }
		uid = 2 + nvm % 97; name = "mpi-" id
		s = "  <VM>\n" E("    ", "ID", id)
		if (!lean) s = s E("    ", "UID", uid) E("    ", "GID", 100 + uid % 7) \
			E("    ", "UNAME", "user" uid) E("    ", "GNAME", "hpc" uid % 7)
		s = s E("    ", "NAME", name)
		if (ext) s = s perms("    ")
		if (!lean) s = s E("    ", "LAST_POLL", 0)
		s = s E("    ", "STATE", st) E("    ", "LCM_STATE", lcm)
		if (ext) s = s E("    ", "PREV_STATE", st) E("    ", "PREV_LCM_STATE", lcm)
		if (!lean) s = s E("    ", "RESCHED", 0) E("    ", "STIME", now - nvm * 7) \
			E("    ", "ETIME", 0) E("    ", "DEPLOY_ID", hosted ? "one-" id : "")
		if (ext) s = s "    <MONITORING>\n" C("      ", "CPU", "398.05") \
			C("      ", "DISKRDBYTES", 1948106240) C("      ", "DISKRDIOPS", 51213) \
			C("      ", "DISKWRBYTES", 88123392) C("      ", "DISKWRIOPS", 6102) \
			C("      ", "ID", id) C("      ", "MEMORY", 16592384) \
			C("      ", "NETRX", 1203812) C("      ", "NETTX", 298121) \
			C("      ", "TIMESTAMP", now + 3600) "    </MONITORING>\n" \
			"    <SCHED_ACTIONS/>\n"
		s = s "    <TEMPLATE>\n"
		if (ext) s = s C("      ", "AUTOMATIC_DS_REQUIREMENTS", "(\"CLUSTERS/ID\" @> " cid ")") \
			C("      ", "AUTOMATIC_NIC_REQUIREMENTS", "(\"CLUSTERS/ID\" @> " cid ")") \
			C("      ", "AUTOMATIC_REQUIREMENTS", "(CLUSTER_ID = " cid ") & !(PUBLIC_CLOUD = YES) & !(PIN_POLICY = PINNED)") \
			"      <CONTEXT>\n" C("        ", "DISK_ID", 1) C("        ", "ETH0_DNS", "10.255.0.53") \
			C("        ", "ETH0_GATEWAY", "100.64.0.1") C("        ", "ETH0_IP", ip(1681915904 + nvm)) \
			C("        ", "ETH0_MAC", mac(1681915904 + nvm)) C("        ", "ETH0_MASK", "255.192.0.0") \
			C("        ", "ETH0_NETWORK", "100.64.0.0") C("        ", "NETWORK", "YES") \
			C("        ", "SET_HOSTNAME", name) \
			C("        ", "SSH_PUBLIC_KEY", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGp4dT1o2wq0b7mZr3xH9tQ0V1cF8sKxw0bq4rJtZc2L user" uid "@login") \
			C("        ", "TARGET", "hda") "      </CONTEXT>\n"
		if (ext) s = s C("      ", "CPU", 4)
		else if (!lean) s = s E("      ", "CPU", 4)
		if (ext) s = s "      <DISK>\n" C("        ", "ALLOW_ORPHANS", "NO") \
			C("        ", "CLONE", "YES") C("        ", "CLONE_TARGET", "SYSTEM") \
			C("        ", "CLUSTER_ID", "100,101") C("        ", "DATASTORE", "default") \
			C("        ", "DATASTORE_ID", 1) C("        ", "DEV_PREFIX", "vd") \
			C("        ", "DISK_ID", 0) C("        ", "DISK_SNAPSHOT_TOTAL_SIZE", 0) \
			C("        ", "DISK_TYPE", "FILE") C("        ", "DRIVER", "qcow2") \
			C("        ", "FORMAT", "qcow2") C("        ", "IMAGE", "rocky9-hpc") \
			C("        ", "IMAGE_ID", 3) C("        ", "IMAGE_STATE", 2) \
			C("        ", "LN_TARGET", "NONE") C("        ", "ORIGINAL_SIZE", 20480) \
			C("        ", "READONLY", "NO") C("        ", "SAVE", "NO") \
			C("        ", "SIZE", 20480) C("        ", "SOURCE", "/var/lib/one//datastores/1/6b1e4c0f2d8a9e7f5c3b1a0d9e8f7a6b") \
			C("        ", "TARGET", "vda") C("        ", "TM_MAD", "ssh") \
			C("        ", "TYPE", "FILE") "      </DISK>\n"
		else if (!lean) s = s E("      ", "MEMORY", 16384) "      <DISK>\n" \
			E("        ", "CLONE", "YES") E("        ", "CLONE_TARGET", "SYSTEM") \
			E("        ", "DATASTORE", "default") E("        ", "DATASTORE_ID", 1) \
			E("        ", "DISK_ID", 0) E("        ", "IMAGE", "rocky9-hpc") \
			E("        ", "IMAGE_ID", 3) E("        ", "LN_TARGET", "NONE") \
			E("        ", "SIZE", 20480) E("        ", "TARGET", "vda") \
			E("        ", "TYPE", "FILE") "      </DISK>\n"
		if (ext) s = s "      <GRAPHICS>\n" C("        ", "LISTEN", "0.0.0.0") \
			C("        ", "PORT", 5900 + id) C("        ", "TYPE", "VNC") \
			"      </GRAPHICS>\n" C("      ", "MEMORY", 16384)
		# NIC 0: the bridge network (the renderer skips it). The short
		# body writes NIC values as plain text and no VN_MAD; the extended
		# one writes CDATA and VN_MAD.
		if (!lean) {
			s = s "      <NIC>\n"
			if (ext) s = s C("        ", "AR_ID", 0) C("        ", "BRIDGE", "br0") \
				C("        ", "BRIDGE_TYPE", "linux") C("        ", "CLUSTER_ID", "100,101")
			s = s V("        ", "IP", ip(1681915904 + nvm)) V("        ", "MAC", mac(1681915904 + nvm))
			if (ext) s = s C("        ", "MODEL", "virtio") C("        ", "NAME", "NIC0")
			s = s V("        ", "NETWORK", "public") V("        ", "NETWORK_ID", 0)
			if (ext) s = s C("        ", "NETWORK_UNAME", "oneadmin")
			s = s V("        ", "NIC_ID", 0) V("        ", "SECURITY_GROUPS", 0)
			if (ext) s = s C("        ", "TARGET", "one-" id "-0") C("        ", "VN_MAD", "bridge")
			s = s "      </NIC>\n"
		}
		for (j = 0; j < n; j++) {
			k = net[j]; nic = j + 1 # NIC 0 is the public one, left out of lean
			s = s "      <NIC>\n"
			if (ext) s = s C("        ", "AR_ID", 0) C("        ", "BRIDGE_TYPE", "none") \
				C("        ", "CLUSTER_ID", k < K ? "100,101" : "100") \
				C("        ", "IB_PKEY", sprintf("0x%04x", 32768 + k + 1))
			# an IPoIB address (10.0.0.0/8), as an IP4 range gives
			if (!lean) s = s V("        ", "IP", ip(macn))
			s = s V("        ", "MAC", mac(macn++))
			if (ext) s = s C("        ", "NAME", "NIC" nic)
			if (!lean) s = s V("        ", "NETWORK", netname(k))
			s = s V("        ", "NETWORK_ID", k + 2)
			if (ext) s = s C("        ", "NETWORK_UNAME", "user" (2 + k % 97))
			s = s V("        ", "NIC_ID", nic)
			if (!lean) s = s V("        ", "SECURITY_GROUPS", 0)
			if (ext) s = s C("        ", "TARGET", "one-" id "-" nic)
			if (!short) s = s C("        ", "VN_MAD", "ib")
			s = s "      </NIC>\n"
		}
		if (ext) s = s "      <OS>\n" C("        ", "ARCH", "x86_64") \
			C("        ", "UUID", sprintf("%08x-1b2c-4d5e-8f90-%012d", id, id)) "      </OS>\n" \
			C("      ", "TEMPLATE_ID", 12) C("      ", "TM_MAD_SYSTEM", "ssh") \
			C("      ", "VCPU", 4) C("      ", "VMID", id)
		else if (!lean) s = s "      <GRAPHICS>\n" C("        ", "LISTEN", "0.0.0.0") \
			C("        ", "PORT", 5900 + id) C("        ", "TYPE", "VNC") "      </GRAPHICS>\n"
		s = s "    </TEMPLATE>\n"
		if (short) s = s "    <MONITORING>\n" E("      ", "CPU", "398.05") \
			E("      ", "MEMORY", 16592384) E("      ", "STATE", "a") "    </MONITORING>\n"
		if (!lean) s = s "    <USER_TEMPLATE>\n" C("      ", "DESCRIPTION", "MPI worker of job " int(nvm / 16)) \
			C("      ", "LOGO", "images/logos/rocky.png") "    </USER_TEMPLATE>\n"
		if (lean && hasdh) s = s "    <HISTORY_RECORDS>\n      <HISTORY>\n" \
			E("        ", "HID", h) "      </HISTORY>\n    </HISTORY_RECORDS>\n"
		else if (!lean && !hasdh) s = s "    <HISTORY_RECORDS/>\n"
		else if (!lean) {
			s = s "    <HISTORY_RECORDS>\n      <HISTORY>\n" E("        ", "OID", id) \
				E("        ", "SEQ", 0) E("        ", "HOSTNAME", sprintf("node%04d", h)) \
				E("        ", "HID", h) E("        ", "CID", cid)
			if (ext) s = s E("        ", "STIME", now - nvm * 7) E("        ", "ETIME", hosted ? 0 : now) \
				C("        ", "VM_MAD", "kvm-ib") C("        ", "TM_MAD", "ssh") E("        ", "DS_ID", 0) \
				E("        ", "PSTIME", now - nvm * 7) E("        ", "PETIME", now - nvm * 7 + 12) \
				E("        ", "RSTIME", now - nvm * 7 + 12) E("        ", "RETIME", hosted ? 0 : now) \
				E("        ", "ESTIME", hosted ? 0 : now) E("        ", "EETIME", hosted ? 0 : now + 3) \
				E("        ", "ACTION", hosted ? 0 : st == 4 ? 11 : 28) E("        ", "UID", -1) \
				E("        ", "GID", -1) E("        ", "REQUEST_ID", -1)
			else s = s E("        ", "DS_ID", 0) E("        ", "VM_MAD", "kvm-ib") \
				E("        ", "TM_MAD", "ssh") E("        ", "ACTION", hosted ? 0 : st == 4 ? 11 : 28)
			s = s "      </HISTORY>\n    </HISTORY_RECORDS>\n"
		}
		printf "%s  </VM>\n", s > vmf
		nvm++
	}
	print "</VM_POOL>" > vmf
	close(vmf)

	# ---- hosts ------------------------------------------------------------
	print "<HOST_POOL>" > hostf
	for (h = 0; h < HOSTS; h++) {
		m4 = h < M4; cid = m4 ? 101 : 100
		s = "  <HOST>\n" E("    ", "ID", h) E("    ", "NAME", sprintf("node%04d", h))
		if (!lean) s = s E("    ", "STATE", 2) E("    ", "PREV_STATE", 2) \
			C("    ", "IM_MAD", "kvm-ib") C("    ", "VM_MAD", "kvm-ib")
		s = s E("    ", "CLUSTER_ID", cid)
		if (!lean) s = s E("    ", "CLUSTER", m4 ? "ib-legacy" : "ib") \
			"    <HOST_SHARE>\n" E("      ", "MEM_USAGE", 452984832) \
			E("      ", "CPU_USAGE", 10800) E("      ", "TOTAL_MEM", 1056964608) \
			E("      ", "TOTAL_CPU", 12800) E("      ", "MAX_MEM", 1056964608) \
			E("      ", "MAX_CPU", 12800) E("      ", "RUNNING_VMS", 27) \
			E("      ", "VMS_THREAD", 1) "      <DATASTORES>\n" \
			E("        ", "DISK_USAGE", 0) E("        ", "FREE_DISK", 3512341) \
			E("        ", "MAX_DISK", 3815447) E("        ", "USED_DISK", 303106) \
			"      </DATASTORES>\n      <PCI_DEVICES/>\n      <NUMA_NODES/>\n" \
			"    </HOST_SHARE>\n    <VMS>\n" hvms[h] "    </VMS>\n"
		s = s "    <TEMPLATE>\n"
		if (!lean) s = s C("      ", "ARCH", "x86_64") C("      ", "CPUSPEED", 2450) \
			C("      ", "HOSTNAME", sprintf("node%04d.hpc.example.org", h)) \
			C("      ", "HYPERVISOR", "kvm")
		np = m4 ? 2 : 1 + h % 2
		for (p = 0; p < np; p++) {
			if (m4) {
				addr = "0000:04:00.0"; dev = "mlx4_0"; port = p + 1
				guid = sprintf("0x0002c903%06x%02x", h, p + 1)
				ll = p ? "Ethernet" : "InfiniBand"; drv = "mlx4_core"; vfs = 16
			} else {
				addr = sprintf("0000:%02x:00.0", 59 + p * 75); dev = "mlx5_" p; port = 1
				guid = sprintf("0x248a0703%04x%04x", h % 65536, p * 4096 + 1)
				ll = "InfiniBand"; drv = "mlx5_core"; vfs = 32
			}
			s = s "      <IB_PF>\n" C("        ", "ADDRESS", addr)
			if (!lean) s = s C("        ", "IBDEV", dev)
			s = s C("        ", "PORT", port) C("        ", "PORT_GUID", guid)
			if (!lean) s = s C("        ", "STATE", ll == "InfiniBand" ? "ACTIVE" : "DOWN") \
				C("        ", "RATE", m4 ? 56 : 200)
			s = s C("        ", "LINK_LAYER", ll)
			if (!lean) s = s C("        ", "NUMA_NODE", p) C("        ", "VFS_TOTAL", vfs) \
				C("        ", "VFS_ENABLED", vfs)
			s = s C("        ", "DRIVER", drv)
			if (ll == "InfiniBand") {
				leaf = int(h / PERLEAF)
				s = s C("        ", "LEAF_GUID", sprintf("0x248a0703%08x", 16777216 + leaf)) \
					C("        ", "LEAF_PORT", h % PERLEAF + 1 + p * PERLEAF)
				if (!lean) s = s C("        ", "LEAF_DESC", sprintf("MF0;leaf%03d:MQM8700/U1", leaf)) \
					C("        ", "PEER_TYPE", "switch")
			}
			s = s "      </IB_PF>\n"
			if (!lean) s = s "      <IB_PF_FREE>\n" C("        ", "ADDRESS", addr) \
				C("        ", "PORT", port) C("        ", "IB_VFS_FREE", 3) "      </IB_PF_FREE>\n"
		}
		if (!lean) s = s C("      ", "IB_SRIOV", "YES") C("      ", "IB_VFS_FREE", 3 * np) \
			C("      ", "IM_MAD", "kvm-ib") C("      ", "KVM_CPU_MODEL", "host-passthrough") \
			C("      ", "KVM_MACHINES", "pc-i440fx-7.2 pc pc-q35-7.2 q35 pc-i440fx-2.12 pc-q35-2.12") \
			C("      ", "MODELNAME", m4 ? "Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz" : "AMD EPYC 7763 64-Core Processor") \
			C("      ", "RESERVED_CPU", "") C("      ", "RESERVED_MEM", "") \
			C("      ", "VERSION", "6.10.0") C("      ", "VM_MAD", "kvm-ib")
		s = s "    </TEMPLATE>\n"
		if (!lean) s = s "    <MONITORING>\n" E("      ", "TIMESTAMP", now + 3590) \
			E("      ", "ID", h) "      <CAPACITY>\n" E("        ", "FREE_CPU", 1980) \
			E("        ", "FREE_MEMORY", 603979776) E("        ", "USED_CPU", 10820) \
			E("        ", "USED_MEMORY", 452984832) "      </CAPACITY>\n      <SYSTEM>\n" \
			E("        ", "NETRX", "88123192391") E("        ", "NETTX", "71230012311") \
			"      </SYSTEM>\n    </MONITORING>\n"
		printf "%s  </HOST>\n", s > hostf
	}
	print "</HOST_POOL>" > hostf
	close(hostf)

	# ---- networks ---------------------------------------------------------
	print "<VNET_POOL>" > netf
	for (k = -2; k < NETS; k++) {
		ib = k >= 0
		vid = k + 2; uid = ib ? 2 + k % 97 : 0
		name = ib ? netname(k) : k == -2 ? "public" : "mgmt"
		s = "  <VNET>\n" E("    ", "ID", vid)
		if (!lean) s = s E("    ", "UID", uid) E("    ", "GID", ib ? 100 + uid % 7 : 0) \
			E("    ", "UNAME", ib ? "user" uid : "oneadmin") \
			E("    ", "GNAME", ib ? "hpc" uid % 7 : "oneadmin")
		s = s C("    ", "NAME", name)
		if (!lean) s = s perms("    ")
		s = s "    <CLUSTERS>\n" E("      ", "ID", 100)
		if (!ib || k < K) s = s E("      ", "ID", 101)
		s = s "    </CLUSTERS>\n"
		if (!lean) s = s C("    ", "BRIDGE", ib ? "" : "br" (k + 2)) \
			C("    ", "BRIDGE_TYPE", ib ? "none" : "linux") E("    ", "STATE", 1) \
			E("    ", "PREV_STATE", 0) C("    ", "PARENT_NETWORK_ID", "")
		s = s C("    ", "VN_MAD", ib ? "ib" : "bridge")
		if (!lean) s = s C("    ", "PHYDEV", "") C("    ", "VLAN_ID", "") \
			C("    ", "OUTER_VLAN_ID", "") C("    ", "VLAN_ID_AUTOMATIC", 0) \
			C("    ", "OUTER_VLAN_ID_AUTOMATIC", 0) E("    ", "USED_LEASES", 3) \
			"    <VROUTERS/>\n    <UPDATED_VMS/>\n    <OUTDATED_VMS/>\n" \
			"    <UPDATING_VMS/>\n    <ERROR_VMS/>\n"
		s = s "    <TEMPLATE>\n"
		if (!lean) s = s C("      ", "BRIDGE_TYPE", ib ? "none" : "linux") \
			C("      ", "DESCRIPTION", ib ? "InfiniBand partition of project " k : "front network")
		if (ib) {
			if (k % 3 == 0) s = s C("      ", "IB_MTU", 4096)
			if (k % 17 == 0) s = s C("      ", "IB_RATE", 7)
			if (k % 29 == 0) s = s C("      ", "IB_SL", k % 8)
			s = s C("      ", "IB_PKEY", sprintf("0x%04x", 32768 + k + 1))
		}
		if (!lean) s = s C("      ", "SECURITY_GROUPS", 0) \
			C("      ", "VN_MAD", ib ? "ib" : "bridge")
		s = s "    </TEMPLATE>\n"
		if (!lean) s = s "    <AR_POOL>\n      <AR>\n" C("        ", "AR_ID", 0) \
			C("        ", "MAC", mac(ib ? 184549376 + k * 256 : 1681915904)) \
			C("        ", "SIZE", ib ? 256 : 65536) \
			C("        ", "TYPE", ib ? "ETHER" : "IP4") \
			E("        ", "USED_LEASES", 3) "      </AR>\n    </AR_POOL>\n"
		printf "%s  </VNET>\n", s > netf
	}
	print "</VNET_POOL>" > netf
	close(netf)

	printf "nets=%d hosts=%d mlx4_hosts=%d vms=%d member_vms=%d ib_nics=%d vm_members=%d mlx4_members=%d members=%d",
		NETS, HOSTS, M4, nvm, nmember, nnic, got, mlx4_members, got + mlx4_members
}')
sizes() { wc -c <"$1" | tr -d ' '; }
echo "$counts bytes_vms=$(sizes "$dir/vms.xml") bytes_hosts=$(sizes "$dir/hosts.xml") bytes_vnets=$(sizes "$dir/vnets.xml")"
