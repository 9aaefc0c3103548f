# shellcheck shell=bash
# A cloud on a shared fabric (design decision 11), for the t042x tests and
# the demo: tests/e2e/data/fabric-shared.net (hypervisors' PF ports, the
# VFs of two tenants' VMs with mlx5-style 02:CC:VM:NIC GUIDs, two storage
# servers, a login node) and the cloud's listings as OpenNebula prints
# them. Source after test-lib.sh and oneib.sh.
#
#   SH_GUID[node]          the port GUID of each node of the net file
#   shared_static          the operator's static file on stdout: the
#                          default partition, infra (0x0105: storage and
#                          login), storage (0x0200: the two servers)
#   shared_vnets [TMPL_A]  VNET 5 tenant-a 0x8101 (TMPL_A: more of its
#                          template, e.g. <IB_SL>3</IB_SL>), 7 tenant-b
#                          0x8102, 9 storage 0x8109 (IB_MEMBERSHIP limited,
#                          IB_SERVICE_PARTITION storage), cluster 100
#   shared_hosts [NAME...] node01 (ConnectX-3), node02, node03 (and node04
#                          when named), cluster 100
#   shared_vms [SPEC...]   VMs as `onevm list -x --extended` lists them;
#                          SPEC "ID/HOST/NET[,NET...]" (NIC_IDs in order);
#                          default: VM 10 node02 5,9; 11 node02 7,9;
#                          12 node03 5,9; 13 node03 7
#   shared_listing FILE [SPEC...]  the three pools into FILE ($SH_HOSTS,
#                          $SH_VNETS_A pass through)
#   shared_fabric          ibsim + opensm, the SM on "sm", starting with
#                          one-ib's default partition alone; the static
#                          file in $TEST_TMP/static.conf
#   shared_start           shared_fabric, the cloud's listing into
#                          $TEST_TMP/cloud.xml (SH_VNETS_A passes through),
#                          rendered and installed, opensm's parse checked
#   shared_render_install XML [ARGS...]  render (static file, hosts
#                          partition infra, the installed file) and install
#                          with the root installer, waiting for opensm's
#                          sweep
#   shared_path A B [PKEY] the P_Key of the SA's path record from node A to
#                          node B (in partition PKEY), nothing when it has
#                          none (a PathRecord query with both GIDs: one
#                          record, what ibsim passes whole)
#   shared_pkeys NODE      the P_Keys opensm programmed on NODE's port
#   shared_hook            the installed hook, against a stand-in of oned's
#                          XML-RPC API answering with
#                          $TEST_TMP/{vms,hosts,vnets}.xml (standin_oned)
#                          and ibrc set to install into $SIM_PARTITIONS
#                          (no SL plan, no QoS policy: t043x have those)
#                          (sets HOOK; run it with run_hook)

SH_NET=$TOP/tests/e2e/data/fabric-shared.net
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install
declare -A SH_GUID=(
	[sm]=0x0002c90300000001 [node01]=0x0002c90300001001
	[node02]=0x248a070300002001 [node03]=0x248a070300003001
	[node04]=0x248a070300004001
	[vm10-nic0]=0x02000000000a0000 [vm10-nic1]=0x02000000000a0001
	[vm11-nic0]=0x02000000000b0000 [vm11-nic1]=0x02000000000b0001
	[vm12-nic0]=0x02000000000c0000 [vm12-nic1]=0x02000000000c0001
	[vm13-nic0]=0x02000000000d0000
	[stor1]=0x0002c903000a0001 [stor2]=0x0002c903000b0001
	[login]=0x0002c903000c0001
)

shared_static() {
	cat <<-'EOF'
	# The site's own partitions, in opensm's grammar: one-ib carries them
	# into every partitions.conf it renders.
	Default=0x7fff, ipoib : ALL=limited, SELF=full ;
	# infrastructure: the hypervisors (ONEIB_HOSTS_PARTITION adds their PF
	# ports), the storage servers and the login node
	infra=0x0105, ipoib, defmember=full :
	    0x0002c903000a0001, 0x0002c903000b0001,   # stor1, stor2
	    0x0002C903000C0001 ;                      # login
	# what service networks name as their endpoints
	storage=0x0200, ipoib : 0x0002c903000a0001=full, 0x0002c903000b0001=full ;
	EOF
}

shared_vnets() {
	printf '<VNET_POOL>\n'
	printf '<VNET><ID>5</ID><NAME><![CDATA[tenant-a]]></NAME><STATE>1</STATE><CLUSTERS><ID>100</ID></CLUSTERS>'
	printf '<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x8101]]></IB_PKEY>%s</TEMPLATE></VNET>\n' "${1:-}"
	printf '<VNET><ID>7</ID><NAME><![CDATA[tenant-b]]></NAME><STATE>1</STATE><CLUSTERS><ID>100</ID></CLUSTERS>'
	printf '<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x8102]]></IB_PKEY></TEMPLATE></VNET>\n'
	printf '<VNET><ID>9</ID><NAME><![CDATA[storage]]></NAME><STATE>1</STATE><CLUSTERS><ID>100</ID></CLUSTERS>'
	printf '<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x8109]]></IB_PKEY>'
	printf '<IB_MEMBERSHIP><![CDATA[limited]]></IB_MEMBERSHIP>'
	printf '<IB_SERVICE_PARTITION><![CDATA[storage]]></IB_SERVICE_PARTITION></TEMPLATE></VNET>\n'
	printf '</VNET_POOL>\n'
}

_shared_host() { # ID NAME GUID DRIVER
	printf '<HOST><ID>%s</ID><NAME><![CDATA[%s]]></NAME><STATE>2</STATE><CLUSTER_ID>100</CLUSTER_ID>' "$1" "$2"
	printf '<TEMPLATE><IB_PF><ADDRESS><![CDATA[0000:04:00.0]]></ADDRESS><PORT><![CDATA[1]]></PORT>'
	printf '<PORT_GUID><![CDATA[%s]]></PORT_GUID><STATE><![CDATA[ACTIVE]]></STATE>' "$3"
	printf '<LINK_LAYER><![CDATA[InfiniBand]]></LINK_LAYER><DRIVER><![CDATA[%s]]></DRIVER></IB_PF></TEMPLATE></HOST>\n' "$4"
}

shared_hosts() {
	local n want=" ${*:-node01 node02 node03} "
	printf '<HOST_POOL>\n'
	for n in node01 node02 node03 node04; do
		[[ $want == *" $n "* ]] || continue
		_shared_host "${n#node0}" "$n" "${SH_GUID[$n]}" \
			"$([ $n = node01 ] && echo mlx4_core || echo mlx5_core)"
	done
	printf '</HOST_POOL>\n'
}

declare -A _SH_PKEY=([5]=0x8101 [7]=0x8102 [9]=0x8109)

shared_vms() {
	local spec id host nets net i
	[ $# -gt 0 ] || set -- 10/node02/5,9 11/node02/7,9 12/node03/5,9 13/node03/7
	printf '<VM_POOL>\n'
	for spec in "$@"; do
		IFS=/ read -r id host nets <<<"$spec"
		printf '<VM><ID>%s</ID><NAME><![CDATA[vm-%s]]></NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE><TEMPLATE>' "$id" "$id"
		i=0
		for net in ${nets//,/ }; do
			printf '<NIC><MAC><![CDATA[02:00:0a:00:%02x:%02x]]></MAC><NETWORK_ID><![CDATA[%s]]></NETWORK_ID>' "$id" "$i" "$net"
			printf '<NIC_ID><![CDATA[%s]]></NIC_ID><VN_MAD><![CDATA[ib]]></VN_MAD>' "$i"
			printf '<IB_PKEY><![CDATA[%s]]></IB_PKEY></NIC>' "${_SH_PKEY[$net]}"
			i=$((i + 1))
		done
		printf '</TEMPLATE><HISTORY_RECORDS><HISTORY><HOSTNAME><![CDATA[%s]]></HOSTNAME></HISTORY></HISTORY_RECORDS></VM>\n' "$host"
	done
	printf '</VM_POOL>\n'
}

shared_listing() { # FILE [SPEC...]
	local f=$1
	shift
	{
		shared_vms "$@"
		# shellcheck disable=SC2086 # host names
		shared_hosts ${SH_HOSTS:-}
		shared_vnets "${SH_VNETS_A:-}"
	} >"$f"
}

shared_fabric() {
	echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$TEST_TMP/default-only.conf"
	SIM_SM_NODE=sm sim_fabric "$SH_NET" "$TEST_TMP/default-only.conf"
	shared_static >"$TEST_TMP/static.conf"
}

shared_render_install() { # XML [RENDER ARGS...]
	local xml=$1 n
	shift
	"$PART" render --static "$TEST_TMP/static.conf" --hosts-partition infra \
		--installed "$SIM_PARTITIONS" "$@" "$xml" >"$TEST_TMP/rendered.conf" ||
		die "cannot render $xml"
	n=$(sim_opensm_sweeps)
	"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" - <"$TEST_TMP/rendered.conf" >/dev/null ||
		die "cannot install the rendered file"
	sim_opensm_wait_sweep "$n"
}

shared_start() {
	shared_fabric
	shared_listing "$TEST_TMP/cloud.xml"
	shared_render_install "$TEST_TMP/cloud.xml"
	assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" \
		"opensm parsed the rendered file"
}

# fe80::<the GUID's four 16-bit groups, as saquery writes them>
_shared_gid() {
	local g=${1#0x}
	printf 'fe80::%x:%x:%x:%x' "0x${g:0:4}" "0x${g:4:4}" "0x${g:8:4}" "0x${g:12:4}"
}

shared_path() { # A B [PKEY]
	local a b
	a=$(_shared_gid "${SH_GUID[$1]}") b=$(_shared_gid "${SH_GUID[$2]}")
	sim_client sm saquery PR --sgid-to-dgid "$a-$b" ${3:+--pkey "$3"} 2>/dev/null |
		sed -n 's/^[[:space:]]*pkey\.*\(0x[0-9a-fA-F]*\)$/\1/p' | tr A-F a-f
}

shared_pkeys() { # NODE
	local lid
	lid=$(sim_client sm ibaddr -G "${SH_GUID[$1]}" | sed -n 's/.*LID start \(0x[0-9a-f]*\).*/\1/p')
	[ -n "$lid" ] || return 1
	sim_client sm smpquery pkeys "$((lid))" |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

shared_hook() {
	install_tree "$TEST_TMP/inst" 2>/dev/null
	HOOK=$TEST_TMP/inst/var/lib/one/remotes/hooks/oneib-partitions
	standin_oned "$TEST_TMP"
	cat >>"$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc" <<-EOF
	ONEIB_PARTITIONS_CMD="$INST --output $SIM_PARTITIONS --pid-file $SIM_OPENSM_PID_FILE -"
	ONEIB_PARTITIONS_READ_CMD="cat $SIM_PARTITIONS"
	ONEIB_PARTITIONS_STATIC=$TEST_TMP/static.conf
	ONEIB_HOSTS_PARTITION=infra
	ONEIB_SLS=""
	ONEIB_QOS_POLICY_CMD=""
	EOF
	export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
}

run_hook() { "$HOOK"; }
