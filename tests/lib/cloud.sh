#!/bin/bash
# The cloud of tests/e2e/data/fabric-tenants.net as OpenNebula would list
# it (`onevm list -x`, `onehost list -x`, `onevnet list -x`), with the
# elements the partitions renderer reads, in OpenNebula's shapes (CDATA
# values; the VMs in the short body `onevm list -x` prints since 5.12,
# whose NICs have no VN_MAD).
#
#   cloud_vnets            two tenants: VNET 5 "tenant-a" IB_PKEY 0x8101,
#                          VNET 7 "tenant-b" IB_PKEY 0x8102, cluster 100
#   cloud_hosts [NAME...]  node01 (ConnectX-3: IB_PF DRIVER mlx4_core),
#                          node02-04 (mlx5_core), all in cluster 100;
#                          only the NAMEs given (default: all four)
#   cloud_vms SPEC...      one VM per SPEC "ID/STATE/LCM_STATE/HOST/MAC/VNET"
#                          or ".../VNET/IB_PKEY": the NIC as the full
#                          listing (onevm list -x --extended) has it, with
#                          VN_MAD and the IB_PKEY it carries
#   cloud_start_vms        the VMs of the fabric file, all RUNNING (3/3):
#                          the two tenants' networks hand out the same
#                          addresses, and VMs 10 (a) and 11 (b) got the
#                          same MAC
#   cloud_start_fabric     cloud_fabric with the partitions of the whole
#                          cloud of cloud_start_vms, rendered from
#                          $TEST_TMP/start.xml into $TEST_TMP/start.conf

cloud_vnets() {
	cat <<-'XML'
	<VNET_POOL>
	  <VNET><ID>5</ID><UID>2</UID><GID>100</GID><NAME><![CDATA[tenant-a]]></NAME>
	    <CLUSTERS><ID>100</ID></CLUSTERS><VN_MAD><![CDATA[ib]]></VN_MAD>
	    <TEMPLATE><IB_PKEY><![CDATA[0x8101]]></IB_PKEY><IB_MTU><![CDATA[2048]]></IB_MTU></TEMPLATE>
	  </VNET>
	  <VNET><ID>7</ID><UID>3</UID><GID>101</GID><NAME><![CDATA[tenant-b]]></NAME>
	    <CLUSTERS><ID>100</ID></CLUSTERS><VN_MAD><![CDATA[ib]]></VN_MAD>
	    <TEMPLATE><IB_PKEY><![CDATA[0x8102]]></IB_PKEY></TEMPLATE>
	  </VNET>
	  <VNET><ID>0</ID><NAME><![CDATA[public]]></NAME>
	    <CLUSTERS><ID>100</ID></CLUSTERS><VN_MAD><![CDATA[bridge]]></VN_MAD>
	    <TEMPLATE><BRIDGE><![CDATA[br0]]></BRIDGE></TEMPLATE>
	  </VNET>
	</VNET_POOL>
	XML
}

_cloud_host() { # ID NAME GUID DRIVER
	cat <<-XML
	  <HOST><ID>$1</ID><NAME><![CDATA[$2]]></NAME><STATE>2</STATE>
	    <IM_MAD><![CDATA[kvm-ib]]></IM_MAD><VM_MAD><![CDATA[kvm-ib]]></VM_MAD>
	    <CLUSTER_ID>100</CLUSTER_ID><CLUSTER><![CDATA[hpc]]></CLUSTER>
	    <TEMPLATE>
	      <IB_PF><ADDRESS><![CDATA[0000:04:00.0]]></ADDRESS><PORT><![CDATA[1]]></PORT>
	        <PORT_GUID><![CDATA[$3]]></PORT_GUID><STATE><![CDATA[ACTIVE]]></STATE>
	        <LINK_LAYER><![CDATA[InfiniBand]]></LINK_LAYER><DRIVER><![CDATA[$4]]></DRIVER></IB_PF>
	    </TEMPLATE>
	  </HOST>
	XML
}

cloud_hosts() {
	local want=" ${*:-node01 node02 node03 node04} "
	echo "<HOST_POOL>"
	[[ $want == *" node01 "* ]] && _cloud_host 1 node01 0x0002c90300001001 mlx4_core
	[[ $want == *" node02 "* ]] && _cloud_host 2 node02 0x248a070300002001 mlx5_core
	[[ $want == *" node03 "* ]] && _cloud_host 3 node03 0x248a070300003001 mlx5_core
	[[ $want == *" node04 "* ]] && _cloud_host 4 node04 0x248a070300004001 mlx5_core
	echo "</HOST_POOL>"
}

cloud_vms() {
	local spec id st lcm host mac net pkey full
	echo "<VM_POOL>"
	for spec in "$@"; do
		IFS=/ read -r id st lcm host mac net pkey <<<"$spec"
		full=
		[ -z "$pkey" ] || full="<VN_MAD><![CDATA[ib]]></VN_MAD><IB_PKEY><![CDATA[$pkey]]></IB_PKEY>"
		cat <<-XML
		  <VM><ID>$id</ID><UID>2</UID><NAME><![CDATA[vm-$id]]></NAME>
		    <STATE>$st</STATE><LCM_STATE>$lcm</LCM_STATE>
		    <TEMPLATE>
		      <NIC><MAC><![CDATA[$mac]]></MAC><NETWORK_ID><![CDATA[$net]]></NETWORK_ID>
		        <NIC_ID><![CDATA[0]]></NIC_ID><NETWORK><![CDATA[tenant]]></NETWORK>$full</NIC>
		    </TEMPLATE>
		    <HISTORY_RECORDS><HISTORY><HOSTNAME><![CDATA[$host]]></HOSTNAME></HISTORY></HISTORY_RECORDS>
		  </VM>
		XML
	done
	echo "</VM_POOL>"
}

CLOUD_VM10=10/3/3/node02/02:00:c0:a8:01:0a/5
CLOUD_VM11=11/3/3/node02/02:00:c0:a8:01:0a/7
CLOUD_VM12=12/3/3/node03/02:00:c0:a8:01:0b/5
CLOUD_VM13=13/3/3/node04/02:00:c0:a8:01:0d/7
CLOUD_VM14=14/3/3/node04/02:00:c0:a8:01:0c/5
# on the ConnectX-3 host: its GUID is an alias on node01's port, not a port
CLOUD_VM15=15/3/3/node01/02:00:c0:a8:01:0f/7

# the VMs of the fabric file
CLOUD_START=("$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM13" "$CLOUD_VM14" "$CLOUD_VM15")

cloud_start_vms() { cloud_vms "${CLOUD_START[@]}"; }

# The whole cloud listing (the three pools, one after another, as the hook
# pipes them) for the VMs given as SPECs; hosts from $CLOUD_HOSTS.
cloud_listing() { # SPEC...
	cloud_vms "$@"
	# shellcheck disable=SC2086
	cloud_hosts ${CLOUD_HOSTS:-}
	cloud_vnets
}

cloud_start_fabric() {
	cloud_listing "${CLOUD_START[@]}" >"$TEST_TMP/start.xml"
	"$TOP/build/bin/oneib-partitions" render "$TEST_TMP/start.xml" >"$TEST_TMP/start.conf" ||
		die "cannot render the start"
	cloud_fabric "$TEST_TMP/start.conf"
}

# The P_Keys (non-zero entries) opensm programmed on NODE's port 1, sorted,
# on one line: "0x7fff 0x8101". Needs sim_fabric with SIM_SM_NODE=sm.
cloud_pkeys() { # NODE
	sim_client sm smpquery pkeys "$(sim_lid "$1")" |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

# The P_Key of the path record the SA returns from NODE1 to NODE2, or
# nothing when it has none (no partition both share as a full member).
cloud_path_pkey() { # NODE1 NODE2
	sim_client sm saquery -p --src-to-dst "$(sim_lid "$1"):$(sim_lid "$2")" |
		sed -n 's/^[[:space:]]*pkey\.*\(0x[0-9a-f]*\)$/\1/p'
}

# ibsim + opensm on data/fabric-tenants.net, the SM on node "sm", with
# PARTITIONS_CONF, or with the default partition only (a cloud without
# tenants yet: every port limited, the SM's full).
cloud_fabric() { # [PARTITIONS_CONF]
	local conf=${1:-$TEST_TMP/default-only.conf}
	[ -n "${1:-}" ] || echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$conf"
	SIM_SM_NODE=sm sim_fabric "$TOP/tests/e2e/data/fabric-tenants.net" "$conf"
}
