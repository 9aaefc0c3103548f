#!/bin/bash
# Virtual clusters packed by leaf (design decision 12, fabric/leafpack.h)
# through the real OpenNebula front-end: four hosts of four VFs each
# (fixture cx5-four-ibsim), hv1 and hv2 under leaf 1, hv3 and hv4 under
# leaf 2 of an ibsim fabric, which the hosts learn with oneib-peer
# (one_peer_ibsim), one-ib's hooks, three InfiniBand networks with the
# default IB_PLACEMENT (pack), VMs instantiated in bursts from the shipped
# template (its requirement holds the free-VF term and the gate: no VM is
# placed before the hook has chosen its leaf):
#   - 4 VMs of tenant a at once, room for them under either leaf: all
#     under one leaf (the lower GUID on a tie: leaf 1);
#   - 4 VMs of tenant b: all under the other leaf (the most room);
#   - 6 VMs of tenant c, which fit under neither (4 free under each): 4
#     under one leaf and 2 under the other, the fewest across;
#   - all 14 run, each on one host and never failed (no deploy tried without
#     a VF, none failed), the hosts agree with oned, every hook run
#     succeeded;
#   - the requirement of a running VM names the leaf it is under;
#   - each VM's CONTEXT carries its cluster's leaf map (ONEIB_TOPOLOGY),
#     only its own cluster's VMs, each under the leaf it runs under; the
#     last VM of a burst knows the whole cluster, and the context.sh
#     OpenNebula made at deploy holds it;
#   - the host facts the scheduler reads, as oned shows them: the leaf
#     (LEAF_GUID, LEAF_PORT, LEAF_DESC), P_Key headroom (PKEY_CAP,
#     PKEY_USED), free VFs per NUMA node (IB_NUMA); a host whose ledger is
#     damaged shows 0 usable VFs and IB_ERROR at its next system probe
#     run, and 0 available once the hook has run (any VM event; here a VM
#     created on hold);
#   - the hook's runs read the VMs an event changed: oned hands a VM's
#     state hook its VM, the kept listing holds oned's VMs, and a VM
#     terminated leaves it through the event's run alone, no full listing.
# 6.10's mm_sched and 7.0's scheduler driver alike, MAX_HOST 1.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
ONE_SCHED_RETRY=3 # 7.0: waiting VMs placed again every 3 s, not 60
one_sim
one_frontend
one_host hv1 cx5-four-ibsim --leaf 1
one_host hv2 cx5-four-ibsim --leaf 1
one_host hv3 cx5-four-ibsim --leaf 2
one_host hv4 cx5-four-ibsim --leaf 2
one_fabric 2
one_peer_ibsim
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-done \
	oneib-vm-boot-failure oneib-vm-prolog-failure oneib-api-vn-allocate oneib-vnet-ready \
	oneib-api-host-allocate oneib-host-monitored oneib-api-vm-allocate oneib-api-template-instantiate
one_host_create hv1 hv2 hv3 hv4
# the VMs' IDs: tenant a's from V, b's from V + 4, c's from V + 8 (0 on a
# front-end of its own)
V=$ONE_VM0 B=$((ONE_VM0 + 4)) C=$((ONE_VM0 + 8)) LAST=$((ONE_VM0 + 13))
LEAF1=0x0002c90200000001
LEAF2=0x0002c90200000002
_leaves_known() {
	local h
	for h in hv1 hv2 hv3 hv4; do
		[ -n "$(one_xml host "$h" | one_xpath /HOST/TEMPLATE/IB_VFS_AVAIL)" ] || { sleep 1; return 1; }
	done
}
wait_for 90 _leaves_known
for h in hv1 hv2 hv3 hv4; do
	why=$(one_xml host "$h" | one_xpath /HOST/TEMPLATE/IB_NO_LEAF)
	[ -z "$why" ] || say "$h: IB_NO_LEAF=$why"
done
for h in hv1 hv2; do
	assert_eq ",$LEAF1," "$(one_xml host "$h" | one_xpath /HOST/TEMPLATE/IB_LEAVES)" "$h is under leaf 1"
done
for h in hv3 hv4; do
	assert_eq ",$LEAF2," "$(one_xml host "$h" | one_xpath /HOST/TEMPLATE/IB_LEAVES)" "$h is under leaf 2"
done
T=$ONE_DIR/share/one-ib/templates
assert_match 'IB_LEAVES = \\"\*,chosen-by-one-ib,\*\\"' "$(grep '^SCHED_REQUIREMENTS' "$T/ib-vm.tmpl")" \
	"the shipped template carries the gate"

# tenant NET: a template as shipped (no disk, no Ethernet: this cloud has
# neither) on network ib-NET; prints its ID
tenant_template() {
	one_ib_network "ib-$1" >/dev/null
	grep -v -e '^DISK' -e 'NETWORK = "public"' "$T/ib-vm.tmpl" |
		sed -e 's/^CPU .*/CPU = "0.1"/' -e 's/^MEMORY .*/MEMORY = "64"/' \
			-e "s/^NAME .*/NAME = \"vm-$1\"/" -e "s/ib-tenant-a/ib-$1/" >"$TEST_TMP/$1.tmpl"
	chmod 0644 "$TEST_TMP/$1.tmpl"
	local id
	id=$(as_oneadmin onetemplate create "$TEST_TMP/$1.tmpl") || die "onetemplate create $1"
	echo "${id#ID: }"
}

# the VMs from FIRST, N of them, all RUNNING
_running() {
	local i
	for ((i = $1; i < $1 + $2; i++)); do
		[ "$(one_vm_state "$i")" = "ACTIVE RUNNING" ] || { sleep 1; return 1; }
	done
}
# "leaf1 leaf2" counts of the VMs FIRST..FIRST+N-1, e.g. "4 0"
leaf_counts() {
	local i h one=0 two=0
	for ((i = $1; i < $1 + $2; i++)); do
		h=$(one_xml vm "$i" | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME')
		case $h in
		hv1 | hv2) one=$((one + 1)) ;;
		hv3 | hv4) two=$((two + 1)) ;;
		*) say "VM $i is on '$h'" ;;
		esac
	done
	echo "$one $two"
}

ta=$(tenant_template a)
assert_ok "tenant a: four VMs at once" -- as_oneadmin onetemplate instantiate "$ta" --multiple 4
wait_for 180 _running "$V" 4
assert_ok "tenant a: its 4 VMs run" -- _running "$V" 4
assert_eq "4 0" "$(leaf_counts "$V" 4)" "tenant a: all four under leaf 1"
assert_match "IB_LEAVES = \"\\*,$LEAF1,\\*\"" \
	"$(one_xml vm "$V" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)" \
	"VM $V: its requirement names the leaf it is under"

tb=$(tenant_template b)
assert_ok "tenant b: four VMs at once" -- as_oneadmin onetemplate instantiate "$tb" --multiple 4
wait_for 180 _running "$B" 4
assert_ok "tenant b: its 4 VMs run" -- _running "$B" 4
assert_eq "0 4" "$(leaf_counts "$B" 4)" "tenant b: all four under the other leaf"

tc=$(tenant_template c)
assert_ok "tenant c: six VMs at once" -- as_oneadmin onetemplate instantiate "$tc" --multiple 6
wait_for 240 _running "$C" 6
assert_ok "tenant c: its 6 VMs run" -- _running "$C" 6
assert_eq "4 2" "$(leaf_counts "$C" 6)" "tenant c: fits under neither leaf, 4 under one, 2 across"
[ "$(leaf_counts "$C" 6)" = "4 2" ] ||
	for ((i = C; i <= LAST; i++)); do # what went where, for the report
		say "VM $i: $(one_xml vm "$i" | one_xpath 'concat(/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME, " ", /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)' | grep -o '^[^ ]* \|IB_LEAVES = [^&]*' | tr '\n' ' ')"
		say "VM $i log: $(one_vm_log "$i" | grep -c 'New state is') state changes, $(one_vm_log "$i" | grep -c 'New LCM state is POWEROFF\|POWEROFF') poweroff lines"
	done

one_deployed_once "$V" "$LAST" "no deploy attempted without a free VF: one host per VM, no failure"
one_cloud_agrees "14 VMs in three clusters"

# --- what each guest learns of its cluster (fabric/topology.h): the map
# written into its CONTEXT before its gate lifted, "IP LEAF" lines
vm_map() {
	one_xml vm "$1" | one_xpath /VM/TEMPLATE/CONTEXT/ONEIB_TOPOLOGY | tr ' ' '\n' |
		awk -F= 'NF == 2 { n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i], $1 }' | sort
}
vm_truth() { # "IP LEAF" of the VMs FIRST..FIRST+N-1, where they run
	local i h
	for ((i = $1; i < $1 + $2; i++)); do
		h=$(one_xml vm "$i" | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME')
		case $h in
		hv1 | hv2) echo "$(one_xml vm "$i" | one_xpath '/VM/TEMPLATE/NIC[1]/IP') $LEAF1" ;;
		*) echo "$(one_xml vm "$i" | one_xpath '/VM/TEMPLATE/NIC[1]/IP') $LEAF2" ;;
		esac
	done | sort
}
maps_true() { # FIRST N: each map is lines of the cluster's truth, its own among them
	local i m truth bad=
	truth=$(vm_truth "$1" "$2")
	for ((i = $1; i < $1 + $2; i++)); do
		m=$(vm_map "$i")
		[ -n "$m" ] && [ -z "$(comm -23 <(echo "$m") <(echo "$truth"))" ] &&
			echo "$m" | grep -q "^$(one_xml vm "$i" | one_xpath '/VM/TEMPLATE/NIC[1]/IP') " ||
			bad="$bad VM $i: '$(echo "$m" | tr '\n' ';')'"
	done
	echo "${bad:-ok}"
}
assert_eq ok "$(maps_true "$V" 4)" "tenant a: each VM's map names only its cluster's VMs, where they run, itself too"
assert_eq ok "$(maps_true "$B" 4)" "tenant b: the same"
assert_eq ok "$(maps_true "$C" 6)" "tenant c: the same, over both leaves"
assert_eq "$(vm_truth "$V" 4)" "$(vm_map $((V + 3)))" "tenant a's last VM knows the whole cluster"
assert_eq "$(vm_truth "$C" 6)" "$(vm_map "$LAST")" "tenant c's last VM knows the whole cluster: 4 under one leaf, 2 under the other"
ctxf=$(find "$ONE_DIR/var" -path "*/$LAST/context.sh" 2>/dev/null | head -n 1)
assert_match "^ONEIB_TOPOLOGY='0x" "$(grep '^ONEIB_TOPOLOGY=' "${ctxf:-/dev/null}")" \
	"the context OpenNebula made at deploy carries it ($ctxf)"

# --- what the scheduler reads of a host, as oned shows it
t=$(one_xml host hv3)
assert_eq "$LEAF2 1 leaf2" "$(echo "$t" | one_xpath 'concat(/HOST/TEMPLATE/IB_PF/LEAF_GUID, " ", /HOST/TEMPLATE/IB_PF/LEAF_PORT, " ", /HOST/TEMPLATE/IB_PF/LEAF_DESC)')" \
	"hv3: its leaf, the switch port its cable is in, the switch's name"
assert_match '^[1-9][0-9]* [1-9][0-9]*$' "$(echo "$t" | one_xpath 'concat(/HOST/TEMPLATE/IB_PF/PKEY_CAP, " ", /HOST/TEMPLATE/IB_PF/PKEY_USED)')" \
	"hv3: P_Key table size and entries in use"
assert_match '^[0-9]+ [0-9]+$' "$(echo "$t" | one_xpath 'concat(/HOST/TEMPLATE/IB_NUMA/NODE, " ", /HOST/TEMPLATE/IB_NUMA/VFS_FREE)')" \
	"hv3: free VFs per NUMA node"
# hv4's ledger damaged: 0 usable and IB_ERROR at the next system probe run
on hv4 sh -c 'printf "vf=0000:3b:00.4 pf=0000:3b:00.0 port=1 vm=7 nic=0 since=1 mac=02:zz\n" >>/var/lib/one/ib/leases' ||
	die "cannot damage hv4's ledger"
_damaged() {
	[ "$(one_xml host hv4 | one_xpath /HOST/TEMPLATE/IB_VFS_USABLE)" = 0 ] || { sleep 1; return 1; }
}
# (the system probes run when a host's monitoring starts, then every 600 s
# by default: the operator starts hv4's again, `onehost forceupdate`)
as_oneadmin onehost forceupdate hv4 >/dev/null || die "onehost forceupdate hv4"
wait_for 90 _damaged
assert_eq 0 "$(one_xml host hv4 | one_xpath /HOST/TEMPLATE/IB_VFS_USABLE)" "hv4, ledger damaged: 0 usable VFs"
assert_match "^ledger /var/lib/one/ib/leases line [0-9]+: " "$(one_xml host hv4 | one_xpath /HOST/TEMPLATE/IB_ERROR)" \
	"hv4: IB_ERROR names the ledger, the line and the reason"
id=$(as_oneadmin onetemplate instantiate "$ta" --hold) || die "onetemplate instantiate --hold"
_none_avail() {
	[ "$(one_xml host hv4 | one_xpath /HOST/TEMPLATE/IB_VFS_AVAIL)" = 0 ] || { sleep 1; return 1; }
}
wait_for 60 _none_avail
assert_eq 0 "$(one_xml host hv4 | one_xpath /HOST/TEMPLATE/IB_VFS_AVAIL)" "hv4: the hook's next run (a VM created) counts 0 available"

# --- an event's run reads the VMs it changed, not the pool (issue 22)
kept=$ONE_DIR/var/.oneib-partitions.lock.vms
id=${id#VM ID: }
args=$(as_oneadmin onehook show oneib-vm-running -x | one_xpath '(//HOOK_EXECUTION_RECORD/ARGUMENTS)[1]')
assert_match '^vm-state [A-Za-z0-9+/=]{100,}$' "$args" \
	"oned's hook subsystem hands a VM's state hook its VM (on stdin)"
ids=$(one_rpc one.vmpool.info i:-2 i:-1 i:-1 i:-1 | grep -o '<VM><ID>[0-9]*' | cut -d'>' -f3 | sort -n)
assert_eq "$(echo $ids)" "$(grep -o '<VM><ID>[0-9]*' "$kept" | cut -d'>' -f3 | sort -n | xargs)" \
	"the kept listing holds oned's VMs, one each"
assert_eq "<!-- next VM ID: $((id + 1)) -->" "$(head -n 1 "$kept")" "new VMs begin above the last made"
stamp=$(stat -c %Y "$kept")
n=$(one_hook_log | grep -c '^oneib-vm-done 0$')
as_oneadmin onevm terminate --hard "$id" >/dev/null || die "onevm terminate $id"
one_wait_hook oneib-vm-done "$n"
assert_eq "" "$(grep "<VM><ID>$id</ID>" "$kept")" "VM $id terminated: gone from the kept listing"
assert_eq "$stamp" "$(stat -c %Y "$kept")" "by the event's run alone: no full listing since (its time kept)"
assert_eq "" "$(one_hook_log | grep -v ' 0$' | sort -u)" "every hook run succeeded"
test_done
