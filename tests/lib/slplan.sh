# shellcheck shell=bash
# The service-level plan's cloud (design decision 13), for the t043x
# tests: tests/e2e/data/fabric-2leaf-vms.net (two leaves under a spine,
# four hypervisors, the VFs of the VMs of three virtual clusters) and the
# cloud's listings as OpenNebula prints them, the hosts with the leaf of
# their port (IB_PF LEAF_GUID, as issue 22's probe publishes it). Source
# after test-lib.sh and oneib.sh.
#
#   a (VNET 5, 0x8101): VM 10 on hv1, VM 11 on hv2        leaf1 only
#   b (VNET 7, 0x8102): VM 12 on hv3, VM 13 on hv4        leaf2 only
#   c (VNET 9, 0x8103): VM 14 on hv1, VM 15 on hv3        both: spans
#   later: VM 16 (a) on hv3, VM 17 (c) on hv2
#
#   SL_GUID[node]            the port GUID of each node of the net file
#   SL_PKEY[vnet]            the networks' P_Keys (full-member form)
#   sl_listing FILE [SPEC...]  the three pools into FILE; SPEC
#                            "VM/HOST/VNET" (one IB NIC, NIC 0); default:
#                            the six VMs above (10 to 15). $SL_MORE_VNETS:
#                            more <VNET>s ($(sl_vnet ID NAME PKEY))
#   sl_vnet ID NAME PKEY [TMPL]  one ib network of cluster 100
#   sl_fabric                ibsim + opensm (qos TRUE, the QoS policy at
#                            $SL_POLICY, read from its start), one-ib's
#                            default partition alone
#   sl_render_install XML [ARGS...]  render (--sls 1-7, the installed
#                            file, --qos-policy), install the policy then
#                            the partitions with the root installer, and
#                            wait for opensm's sweep when either changed
#   sl_of FILE VNET          the sl= of VNET's partition in a partitions.conf
#   sl_path A B PKEY         the SL of the SA's path record from node A to
#                            node B in PKEY (asked from the SM's port,
#                            with both GIDs and the P_Key: one record)

SL_NET=$TOP/tests/e2e/data/fabric-2leaf-vms.net
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install
declare -A SL_GUID=(
	[sm]=0x0002c90300000001
	[hv1]=0x0002c90300001001 [hv2]=0x0002c90300002001
	[hv3]=0x0002c90300003001 [hv4]=0x0002c90300004001
	[vm10-nic0]=0x02000000000a0000 [vm11-nic0]=0x02000000000b0000
	[vm12-nic0]=0x02000000000c0000 [vm13-nic0]=0x02000000000d0000
	[vm14-nic0]=0x02000000000e0000 [vm15-nic0]=0x02000000000f0000
	[vm16-nic0]=0x0200000000100000 [vm17-nic0]=0x0200000000110000
)
declare -A SL_PKEY=([5]=0x8101 [7]=0x8102 [9]=0x8103)
declare -A _SL_LEAF=([1]=0x0002c90200000a00 [2]=0x0002c90200000a00
	[3]=0x0002c90200000b00 [4]=0x0002c90200000b00)
SL_POLICY=$TEST_TMP/fabric/qos-policy.conf
# what opensm logs when it drops a policy (opensm-facts, section 2) or the
# partitions: not AC01, the file missing before the first install, nor
# AC14, "partition doesn't exist", which a sweep that re-routes logs for
# partitions new in that sweep (it sets the policy up before the P_Key
# manager reads partitions.conf; the rule is kept, the next sweep is quiet)
# shellcheck disable=SC2034 # for the tests that source this file
SL_POLICY_ERRORS='ERR AC0[2-9]|ERR AC1[0-35-9]|Partition configuration in error'

sl_vnet() { # ID NAME PKEY [TMPL]
	printf '<VNET><ID>%s</ID><NAME><![CDATA[%s]]></NAME><STATE>1</STATE><CLUSTERS><ID>100</ID></CLUSTERS>' "$1" "$2"
	printf '<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[%s]]></IB_PKEY>%s</TEMPLATE></VNET>\n' "$3" "${4:-}"
}

_sl_vms() {
	local spec id host net
	[ $# -gt 0 ] || set -- 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9
	printf '<VM_POOL>\n'
	for spec in "$@"; do
		IFS=/ read -r id host net <<<"$spec"
		printf '<VM><ID>%s</ID><NAME><![CDATA[vm-%s]]></NAME><STATE>3</STATE><LCM_STATE>3</LCM_STATE><TEMPLATE>' "$id" "$id"
		printf '<NIC><MAC><![CDATA[02:00:0a:00:%02x:00]]></MAC><NETWORK_ID><![CDATA[%s]]></NETWORK_ID>' "$id" "$net"
		printf '<NIC_ID><![CDATA[0]]></NIC_ID><VN_MAD><![CDATA[ib]]></VN_MAD>'
		printf '<IB_PKEY><![CDATA[%s]]></IB_PKEY></NIC>' "${SL_PKEY[$net]:-0x8000}"
		printf '</TEMPLATE><HISTORY_RECORDS><HISTORY><HOSTNAME><![CDATA[hv%s]]></HOSTNAME><HID>%s</HID>' "$host" "$host"
		printf '</HISTORY></HISTORY_RECORDS></VM>\n'
	done
	printf '</VM_POOL>\n'
}

_sl_hosts() {
	local h
	printf '<HOST_POOL>\n'
	for h in 1 2 3 4; do
		printf '<HOST><ID>%s</ID><NAME><![CDATA[hv%s]]></NAME><STATE>2</STATE><CLUSTER_ID>100</CLUSTER_ID>' "$h" "$h"
		printf '<TEMPLATE><IB_PF><ADDRESS><![CDATA[0000:04:00.0]]></ADDRESS><PORT><![CDATA[1]]></PORT>'
		printf '<PORT_GUID><![CDATA[%s]]></PORT_GUID><STATE><![CDATA[ACTIVE]]></STATE>' "${SL_GUID[hv$h]}"
		printf '<LINK_LAYER><![CDATA[InfiniBand]]></LINK_LAYER><DRIVER><![CDATA[mlx5_core]]></DRIVER>'
		printf '<LEAF_GUID><![CDATA[%s]]></LEAF_GUID><LEAF_PORT><![CDATA[2]]></LEAF_PORT>' "${_SL_LEAF[$h]}"
		printf '<PEER_TYPE><![CDATA[switch]]></PEER_TYPE></IB_PF></TEMPLATE></HOST>\n'
	done
	printf '</HOST_POOL>\n'
}

sl_listing() { # FILE [SPEC...]
	local f=$1
	shift
	{
		_sl_vms "$@"
		_sl_hosts
		printf '<VNET_POOL>\n'
		sl_vnet 5 a 0x8101
		sl_vnet 7 b 0x8102
		sl_vnet 9 c 0x8103
		printf '%s' "${SL_MORE_VNETS:-}"
		printf '</VNET_POOL>\n'
	} >"$f"
}

sl_fabric() {
	echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$TEST_TMP/default-only.conf"
	SIM_SM_NODE=sm SIM_OPENSM_CONF="qos TRUE
qos_policy_file $SL_POLICY" sim_fabric "$SL_NET" "$TEST_TMP/default-only.conf"
}

sl_render_install() { # XML [RENDER ARGS...]
	local xml=$1 n
	shift
	"$PART" render --sls 1-7 --installed "$SIM_PARTITIONS" \
		--qos-policy "$TEST_TMP/rendered-policy.conf" "$@" "$xml" \
		>"$TEST_TMP/rendered.conf" 2>"$TEST_TMP/render.err" ||
		die "cannot render $xml: $(cat "$TEST_TMP/render.err")"
	n=$(sim_opensm_sweeps)
	"$INST" --qos-policy "$SL_POLICY" --no-reload - <"$TEST_TMP/rendered-policy.conf" \
		>"$TEST_TMP/install.out" || die "cannot install the rendered policy"
	"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" - <"$TEST_TMP/rendered.conf" >>"$TEST_TMP/install.out" ||
		die "cannot install the rendered file"
	if grep -q ': installed' "$TEST_TMP/install.out"; then
		# the partitions unchanged, the policy not: tell opensm
		grep -q 'SIGHUP' "$TEST_TMP/install.out" || sim_opensm_reread
		sim_opensm_wait_sweep "$n"
	fi
}

sl_of() { # FILE VNET
	sed -n "s/^vnet$2_[^=]*=0x[0-9a-f]*, ipoib.*, sl=\([0-9]*\) :\( ;\)\?\$/\1/p" "$1"
}

# fe80::<the GUID's four 16-bit groups, as saquery writes them>
_sl_gid() {
	local g=${1#0x}
	printf 'fe80::%x:%x:%x:%x' "0x${g:0:4}" "0x${g:4:4}" "0x${g:8:4}" "0x${g:12:4}"
}

sl_path() { # A B PKEY
	local a b
	a=$(_sl_gid "${SL_GUID[$1]}") b=$(_sl_gid "${SL_GUID[$2]}")
	sim_client sm saquery PR --sgid-to-dgid "$a-$b" --pkey "$3" 2>/dev/null |
		sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-f]\)$/\1/p'
}
