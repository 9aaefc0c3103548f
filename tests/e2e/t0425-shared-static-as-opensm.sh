#!/bin/bash
# The operator's static file means in the rendered file exactly what it
# means to opensm alone (design decisions 11 and 16, issue 35 item 2), on
# the real opensm over ibsim: for each operator file below, opensm first
# reads the file itself, then one-ib's rendering of it (installed by the
# root installer); every port of the fabric then holds the same P_Keys,
# with the same membership bits and the same key at index 0, and
# `oneib-partitions verify` finds the fabric as one-ib's reading of either
# file says (0 ports differ). The files:
# - order: servers listed full, then ALL_CAS=limited: opensm makes them
#   limited (the last entry for a port wins; one-ib once made them full);
# - selfall: SELF=full, then ALL=limited: the SM's own port limited;
# - forms: names with '.', '/', '@', a blank, a digit first, lowercase
#   default, keys in decimal and octal and as the name, a decimal GUID,
#   abbreviated memberships and keywords, "=" (full), both, defmember=,
#   a key in two definitions, a GUID twice;
# - groups: mgid= lines (one reading its comment as flags, one taking the
#   members after it on its line as flags), scope=, Q_Key=, TClass=,
#   FlowLabel=, a flag opensm does not know, indx0 (index 0): the same
#   multicast groups too (MGID, MTU, key, rate, SL), as the SA shows them
#   to the member ports;
# - open: a file that ends without its last ';'.
# Then with the cloud (tenants, a service network, the hosts partition):
# the static keys as opensm alone has them, but the hypervisors' PF ports
# full members of the hosts partition, appended after its last entry.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

shared_fabric
NODES="sm node01 node02 node03 node04 vm10-nic0 vm10-nic1 vm11-nic0 vm11-nic1
       vm12-nic0 vm12-nic1 vm13-nic0 stor1 stor2 login"
# LIDs while the SA answers (with SELF=full, ALL=limited it does not: the
# SM's port is then a limited member like every other one)
declare -A LID
for n in $NODES; do
	LID[$n]=$(sim_lid "$n") || die "no LID for $n"
done

# "NODE i0=<index 0> <the keys, sorted>" for every node
tables() {
	local n
	for n in $NODES; do
		printf '%s i0=%s %s\n' "$n" "$(sim_client sm smpquery pkeys "${LID[$n]}" |
			awk '/^ *0:/ { print $2 }')" "$(sim_client sm smpquery pkeys "${LID[$n]}" |
			awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }' |
			sort | tr '\n' ' ')"
	done
}

# the multicast groups the SA shows the static file's member ports (it
# shows a port only its partitions' groups), one line each: MGID, MTU,
# P_Key, rate, SL; the default partition's broadcast group aside
# (one-ib's own default partition has ipoib)
groups() {
	local n
	for n in stor1 stor2 login; do
		sim_client "$n" saquery -g 2>/dev/null | awk -F'[.]+' '
			/MGID/ { if (g) print g; g = $2; next }
			/pkey|Mtu|Rate|SL|Qkey/ { g = g " " $2 }
			END { if (g) print g }'
	done | grep -vi ' 0x[7f]fff' | sort -u
}

opensm_reads() { # FILE
	cp "$1" "$SIM_PARTITIONS"
	sim_opensm_reread
	assert_eq "" "$(sed -n "$((log_at + 1)),\$p" "$SIM_OPENSM_LOG" | grep 'Partition configuration in error')" \
		"$case: opensm takes the file"
	log_at=$(wc -l <"$SIM_OPENSM_LOG")
}

install_rendered() { # RENDERED
	local n
	n=$(sim_opensm_sweeps)
	assert_ok "$case: the root installer takes the rendered file" -- \
		"$INST" --output "$SIM_PARTITIONS" --pid-file "$SIM_OPENSM_PID_FILE" "$1"
	sim_opensm_wait_sweep "$n"
	assert_eq "" "$(sed -n "$((log_at + 1)),\$p" "$SIM_OPENSM_LOG" | grep 'Partition configuration in error')" \
		"$case: opensm takes the rendered file"
	log_at=$(wc -l <"$SIM_OPENSM_LOG")
}

verified() { # what: verify against the installed file
	assert_ok "$case: verify $1" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
	assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "$case: $1: 0 ports differ"
}

printf '<VM_POOL/>\n<HOST_POOL/>\n<VNET_POOL/>\n' >"$TEST_TMP/none.xml"
log_at=$(wc -l <"$SIM_OPENSM_LOG")

same_as_opensm() { # CASE VERIFY(yes|no): $TEST_TMP/$CASE.conf
	case=$1
	local f=$TEST_TMP/$case.conf
	opensm_reads "$f"
	tables >"$TEST_TMP/$case.alone"
	[ "$2" = yes ] && groups >"$TEST_TMP/$case.groups-alone"
	[ "$2" = yes ] && verified "the operator's file alone"
	# opensm keeps a partition's groups while it has members: start the
	# carried file from a fabric without them
	opensm_reads "$TEST_TMP/default-only.conf"
	assert_ok "$case: rendered" -- "$PART" render --static "$f" "$TEST_TMP/none.xml"
	cp "$LAST_OUT" "$TEST_TMP/$case.rendered"
	install_rendered "$TEST_TMP/$case.rendered"
	tables >"$TEST_TMP/$case.carried"
	assert_file_eq "$TEST_TMP/$case.alone" "$TEST_TMP/$case.carried" \
		"$case: every port's P_Keys, membership bits and index 0 as from the file alone"
	[ "$2" = yes ] && groups >"$TEST_TMP/$case.groups-carried" &&
		assert_file_eq "$TEST_TMP/$case.groups-alone" "$TEST_TMP/$case.groups-carried" \
			"$case: the multicast groups as from the file alone"
	[ "$2" = yes ] && verified "the rendered file"
}

node_has() { # CASE NODE REGEX
	assert_match "^$2 $3" "$(grep "^$2 " "$TEST_TMP/$1.carried")" "$1: $2 holds $3"
}

cat >"$TEST_TMP/order.conf" <<'EOF'
storage=0x0200, ipoib : 0x0002c903000a0001=full, 0x0002c903000b0001=full, ALL_CAS=limited ;
EOF
same_as_opensm order yes
node_has order stor1 "i0=0x7fff 0x0200 0x7fff $"
node_has order stor2 "i0=0x7fff 0x0200 0x7fff $"
node_has order vm10-nic0 "i0=0x7fff 0x0200 0x7fff $"
assert_match "^storage=0x0200, ipoib : 0x0002c903000a0001=full, 0x0002c903000b0001=full, ALL_CAS=limited ;$" \
	"$(cat "$TEST_TMP/order.rendered")" "order: carried as written"

cat >"$TEST_TMP/selfall.conf" <<'EOF'
Default=0x7fff, ipoib : SELF=full, ALL=limited ;
EOF
same_as_opensm selfall no
node_has selfall sm "i0=0x7fff 0x7fff $"

cat >"$TEST_TMP/forms.conf" <<'EOF'
# names, keys, GUIDs, memberships and keywords as opensm reads them
stor.age/x@y z=512, ipoib : 0x0002c903000a0001=f, 0x0002c903000b0001=limi, A=l, S=f ;
5lab=0x0301 : 144115188076511232=l, 0x0002c903000c0001 ;   # VM 10 NIC 0, decimal
0x302 : 0x0002c903000c0001=both, 0x0002c903000a0001= ;
default=0x7fff : ALL=limited, SELF=full, 0x0002c903000c0001= ;
a=01404, defmember=f : ALL_S, 0x0002c903000b0001 ; a=0x8304 : 0x0002c903000a0001 ;
infra=261 : 0x0002c903000a0001=full,
    0x0002c903000a0001=limited, 0x0002c903000b0001 ;
EOF
same_as_opensm forms yes
node_has forms stor1 "i0=0x7fff 0x0105 0x0200 0x0304 0x7fff 0x8302 $"
node_has forms stor2 "i0=0x7fff 0x0105 0x0200 0x7fff 0x8304 $"
node_has forms sm "i0=0xffff 0x8200 0xffff $"
node_has forms login "i0=0xffff 0x0200 0x0301 0x8302 0xffff $"
node_has forms vm10-nic0 "i0=0x7fff 0x0200 0x0301 0x7fff $"

cat >"$TEST_TMP/groups.conf" <<'EOF'
infra=0x0105, ipoib, mtu=4, rate=3, scope=2, Q_Key=0x0b1b, TClass=0, FlowLabel=0, indx0, later=1 :
    mgid=ff12:401b::1,sl=0       # an IPv4 group
    mgid=ff12:601b::16    # MLDv2-capable routers (its flags: this comment)
    0x0002c903000a0001=full, 0x0002c903000c0001=full ;
storage=0x0200 : 0x0002c903000a0001=full, mgid=ff12::1,mtu=4, 0x0002c903000b0001=full ;
EOF
same_as_opensm groups yes
node_has groups stor1 "i0=0x8105 0x7fff 0x8105 0x8200 $"
node_has groups login "i0=0x8105 0x7fff 0x8105 $"
node_has groups stor2 "i0=0x7fff 0x7fff $"
assert_match "^ff12:401b:8105::1 0x84 0x8105 0x83 0x0$" "$(cat "$TEST_TMP/groups.groups-carried")" \
	"groups: the mgid= line's IPv4 group, in infra's key"
assert_match "^ff12::1 0x84 0x8200 " "$(cat "$TEST_TMP/groups.groups-carried")" \
	"groups: storage's group, though its members after it on the line are its flags"

printf 'lab=0x0300 : 0x0002c903000a0001=full,\n    0x0002c903000b0001=full    # no ";" at the end\n' \
	>"$TEST_TMP/open.conf"
same_as_opensm open yes
node_has open stor2 "i0=0x7fff 0x7fff 0x8300 $"

# with the cloud: tenants, the storage network, the hypervisors in infra
case=cloud
{
	cat "$TEST_TMP/order.conf"
	printf 'infra=0x0105, ipoib, defmember=full : 0x0002c903000c0001, 0x248a070300002001=limited ;\n'
} >"$TEST_TMP/static.conf"
opensm_reads "$TEST_TMP/static.conf"
tables >"$TEST_TMP/cloud.alone"
shared_listing "$TEST_TMP/cloud.xml"
shared_render_install "$TEST_TMP/cloud.xml"
assert_match "^	0x248a070300002001=full,$" "$(cat "$SIM_PARTITIONS")" "cloud: node02 appended full after its limited entry"
tables >"$TEST_TMP/cloud.carried"
static_keys() { # FILE NODE: the static file's keys NODE holds
	grep "^$2 " "$1" | tr ' ' '\n' | grep -E '^0x(7fff|ffff|0200|8200|0105|8105)$' | sort -u | tr '\n' ' '
}
for n in $NODES; do
	want=$(static_keys "$TEST_TMP/cloud.alone" "$n")
	case $n in node01 | node02 | node03) # the cloud's hosts: infra, full
		# shellcheck disable=SC2086 # the keys, a word each
		want=$(printf '%s\n' $want 0x8105 | grep -v '^0x0105$' | sort -u | tr '\n' ' ') ;;
	esac
	assert_eq "$want" "$(static_keys "$TEST_TMP/cloud.carried" "$n")" \
		"cloud: $n holds the static keys as from the file alone (a hypervisor: infra full)"
done
node_has cloud stor1 "i0=0x7fff 0x0200 0x7fff $"
node_has cloud node02 "i0=0x7fff 0x0200 0x7fff 0x8105 $"
assert_ok "cloud: verify" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "cloud: 0 ports differ"
test_done
