#!/bin/bash
# Demo part: the scheduler sees the fabric (design decision 12). The four
# hosts of the tenants' fabric (tests/e2e/data/fabric-tenants.net: node01
# and node02 under Switch1, node03 and node04 under Switch2) learn their
# leaf with a directed-route SMP one hop out of their own port (what
# oneib-peer sends; here smpquery -D through ibsim) and publish it with 4
# usable VFs each, as their probes do. At a VM event the front-end hook
# (oneib-partitions sync) lists the cloud from oned (here the stand-in of
# its XML-RPC API, tests/lib/standin/oned-rpc, answering with the cloud
# below) and writes back each host's free-VF counters from the VMs oned
# put on it, and for every VM waiting to be placed its requirement, the
# free-VF term and the leaf switch its virtual cluster (the VMs of its
# network) is packed under: tenant a's waiting VMs
# join a's VMs under Switch1, b's join b's under Switch2, a new tenant c
# of six fits under no one leaf and spreads with the fewest across, and a
# VM on hold keeps the gate until it is released.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host none

cloud_fabric
leaf_of() { # NODE: its port's peer, asked with a directed-route SMP
	sim_client "$1" smpquery -D nodeinfo 0,1 | sed -n 's/^Guid:\.*\(0x[0-9a-f]*\)$/\1/p'
}
say "=== each host's leaf, a directed-route SMP one hop out of its port ==="
declare -A leaf
for n in node01 node02 node03 node04; do
	leaf[$n]=$(leaf_of "$n")
	say "    $n: LEAF_GUID=${leaf[$n]}"
done
s1=0x0002c90200001000 s2=0x0002c90200002000
assert_eq "$s1 $s1 $s2 $s2" "${leaf[node01]} ${leaf[node02]} ${leaf[node03]} ${leaf[node04]}" \
	"node01, node02 under Switch1; node03, node04 under Switch2"

host() { # ID NAME GUID DRIVER VMS...
	local id=$1 name=$2 guid=$3 drv=$4 v vms=
	shift 4
	for v in "$@"; do vms="$vms<ID>$v</ID>"; done
	cat <<-XML
	  <HOST><ID>$id</ID><NAME><![CDATA[$name]]></NAME><STATE>2</STATE>
	    <CLUSTER_ID>100</CLUSTER_ID><VMS>$vms</VMS><TEMPLATE>
	      <IB_PF><ADDRESS><![CDATA[0000:04:00.0]]></ADDRESS><PORT><![CDATA[1]]></PORT>
	        <PORT_GUID><![CDATA[$guid]]></PORT_GUID><LINK_LAYER><![CDATA[InfiniBand]]></LINK_LAYER>
	        <DRIVER><![CDATA[$drv]]></DRIVER><LEAF_GUID><![CDATA[${leaf[$name]}]]></LEAF_GUID></IB_PF>
	      <IB_LEAVES><![CDATA[,${leaf[$name]},]]></IB_LEAVES><IB_VFS_USABLE><![CDATA[4]]></IB_VFS_USABLE>
	    </TEMPLATE></HOST>
	XML
}
# a on node02 (VMs 10, 14), b on node04 (VM 13); waiting: a 20-22, b 23-24,
# c 30-35, and a's VM 25 on hold
vms=(10/3/3/node02/02:00:c0:a8:01:0a/5/0x8101 14/3/3/node02/02:00:c0:a8:01:0c/5/0x8101
	13/3/3/node04/02:00:c0:a8:01:0d/7/0x8102)
for i in 20 21 22; do vms+=("$i/1/0//02:00:c0:a8:01:$i/5/0x8101"); done
for i in 23 24; do vms+=("$i/1/0//02:00:c0:a8:01:$i/7/0x8102"); done
for i in 30 31 32 33 34 35; do vms+=("$i/1/0//02:00:c0:a8:02:$i/9/0x8103"); done
vms+=("25/2/0//02:00:c0:a8:01:25/5/0x8101")
{
	cloud_vms "${vms[@]}"
	echo "<HOST_POOL>"
	host 1 node01 0x0002c90300001001 mlx4_core
	host 2 node02 0x248a070300002001 mlx5_core 10 14
	host 3 node03 0x248a070300003001 mlx5_core
	host 4 node04 0x248a070300004001 mlx5_core 13
	echo "</HOST_POOL>"
	cloud_vnets | sed 's|</VNET_POOL>|  <VNET><ID>9</ID><NAME><![CDATA[tenant-c]]></NAME><CLUSTERS><ID>100</ID></CLUSTERS><VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x8103]]></IB_PKEY></TEMPLATE></VNET>\n</VNET_POOL>|'
} >"$TEST_TMP/cloud.xml"

say "=== what the hook writes back to oned for the scheduler ==="
mkdir -p "$TEST_TMP/oned"
for c in vms:VM_POOL hosts:HOST_POOL vnets:VNET_POOL; do
	sed -n "/<${c#*:}>/,/<\/${c#*:}>/p" "$TEST_TMP/cloud.xml" >"$TEST_TMP/oned/${c%%:*}.xml"
done
standin_oned "$TEST_TMP/oned"
install_tree "$TEST_TMP/inst" 2>/dev/null
printf '%s\n' 'ONEIB_PARTITIONS_CMD="cat >/dev/null"' 'ONEIB_PARTITIONS_READ_CMD=true' \
	'ONEIB_QOS_POLICY_CMD=""' "ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock" \
	>>"$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc"
assert_ok "the hook" -- "$TEST_TMP/inst/var/lib/one/remotes/hooks/oneib-partitions"
# oned was sent "ID --append" and the attributes (one.host.update,
# one.vm.update): as one line each here
for k in onehost:host onevm:vm; do
	awk -v k="${k#*:}" '/ --append$/ { if (l) print l; l = k " " $1; next } { l = l " " $0 } END { if (l) print l }' \
		"$TEST_TMP/oned/updates.${k%%:*}"
done >"$TEST_TMP/written"
# (the free-VF term shortened to "VF > N" here)
sed -e 's|"\\"/HOST\[.*IB_VFS_AVAIL\\" > \([0-9]*\)|"VF > \1|' -e 's/^/    /' "$TEST_TMP/written"
out=$TEST_TMP/written
leaf_term() { # VM: the leaf its requirement names, or "gate", or "none"
	local l
	l=$(grep "^vm $1 " "$out" | grep -o 'IB_LEAVES = [^,]*,[^,]*' | sed 's/.*,//')
	case $l in
	chosen-by-one-ib) echo gate ;;
	'') echo none ;;
	*) echo "$l" ;;
	esac
}
for v in 20 21 22; do
	assert_eq "$s1" "$(leaf_term "$v")" "tenant a's VM $v joins a's VMs under Switch1"
done
for v in 23 24; do
	assert_eq "$s2" "$(leaf_term "$v")" "tenant b's VM $v joins b's VM under Switch2"
done
got=$(for v in 30 31 32 33 34 35; do leaf_term "$v"; done | sort | uniq -c | sed 's/^ *//' | paste -sd' ')
assert_eq "1 $s1 5 $s2" "$got" "tenant c: under neither leaf at once (room 3 and 5 left): 5 under one, 1 across"
assert_eq "gate" "$(leaf_term 25)" "VM 25 on hold: the gate until it is released"
test_done
