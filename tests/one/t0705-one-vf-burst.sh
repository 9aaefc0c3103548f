#!/bin/bash
# Exact VF accounting (design decision 12) through the real OpenNebula
# front-end: two hosts of four VFs each (fixture cx5-four) under two leaves
# of an ibsim fabric, one-ib's hooks, and a burst of ten VMs with one
# InfiniBand NIC each, instantiated at once from the shipped template
# (templates/ib-vm.tmpl, whose SCHED_REQUIREMENTS holds the free-VF term,
# fabric/vfcount.h):
#   - the hosts show IB_VFS_USABLE (the probe's) and, from the hook,
#     IB_VFS_USED, IB_VFS_AVAIL and the fingerprint of their VMS;
#   - 8 VMs run, 4 per host; 2 stay PENDING (not failed) while the
#     scheduler runs on, no deploy is ever attempted on a host without a
#     free VF (each VM on one host, never in a failure
#     state) and the hosts show 0 available;
#   - two VMs terminated: the two waiting ones deploy, on the hosts freed;
#   - the hosts agree with oned all along (domains, ledgers, VFs);
#   - a VM created on hold from a template without the term gets it from
#     the hook (run by one.vm.allocate; "> 0": one IB NIC) with the gate
#     of leaf packing (fabric/leafpack.h), the user's requirement kept
#     after them; released, the gate goes (no leaf has room) and it waits
#     for a VF as well.
#     (Created without --hold, such a VM races the hook: measured on 6.10
#     with a 2 s scheduler interval, it was dispatched first and failed to
#     boot on a host without a free VF. one-ib-placement(7) says to keep the term in
#     the templates.)
# 6.10's mm_sched and 7.0's scheduler driver alike, MAX_HOST 1 (both
# releases' default: one VM per host per placement).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
ONE_SCHED_RETRY=3 # 7.0: waiting VMs placed again every 3 s, not 60
one_sim
one_frontend
one_host hv1 cx5-four --leaf 1
one_host hv2 cx5-four --leaf 2
one_fabric 2
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-done \
	oneib-vm-boot-failure oneib-vm-prolog-failure oneib-api-vn-allocate oneib-vnet-ready \
	oneib-api-host-allocate oneib-host-monitored oneib-api-vm-allocate oneib-api-template-instantiate
one_host_create hv1 hv2
one_ib_network ib-tenant-a >/dev/null
# the burst's VM IDs (0 to 9 on a front-end of its own)
V=$ONE_VM0 W=$((ONE_VM0 + 9))
T=$ONE_DIR/share/one-ib/templates

host_counts() { # HOST: USABLE USED AVAIL SYNC_VMS (of its template) VMS
	one_xml host "$1" | one_xpath "concat(/HOST/TEMPLATE/IB_VFS_USABLE, ' ', /HOST/TEMPLATE/IB_VFS_USED, ' ', /HOST/TEMPLATE/IB_VFS_AVAIL, ' ', /HOST/TEMPLATE/IB_SYNC_VMS, ' ', count(/HOST/VMS/ID))"
}
_counts_are() { [ "$(host_counts hv1)|$(host_counts hv2)" = "$1" ] || { sleep 1; return 1; }; }
counts_become() { # WANT MSG
	wait_for 60 _counts_are "$1"
	assert_eq "$1" "$(host_counts hv1)|$(host_counts hv2)" "$2"
}
counts_become "4 0 4 0 0|4 0 4 0 0" "hosts: 4 usable, counted by the hook: 0 used, 4 available"

# --- the template as shipped (no disk, no Ethernet: this cloud has neither)
grep -v -e '^DISK' -e 'NETWORK = "public"' "$T/ib-vm.tmpl" |
	sed -e 's/^CPU .*/CPU = "0.1"/' -e 's/^MEMORY .*/MEMORY = "64"/' >"$TEST_TMP/vm.tmpl"
chmod 0644 "$TEST_TMP/vm.tmpl"
assert_match 'IB_VFS_AVAIL\\" > 0' "$(grep '^SCHED_REQUIREMENTS' "$TEST_TMP/vm.tmpl")" \
	"the shipped template carries the free-VF term"
tid=$(as_oneadmin onetemplate create "$TEST_TMP/vm.tmpl") || die "onetemplate create"
tid=${tid#ID: }
assert_ok "ten VMs at once" -- as_oneadmin onetemplate instantiate "$tid" --multiple 10

states() { # the VMs' states, counted: "8 ACTIVE RUNNING|2 PENDING LCM_INIT"
	local i
	for i in $(seq "$V" "$W"); do one_vm_state "$i"; done | sort | uniq -c |
		sed 's/^ *//' | paste -sd'|'
}
_states_are() { [ "$(states)" = "$1" ] || { sleep 1; return 1; }; }
wait_for 180 _states_are "8 ACTIVE RUNNING|2 PENDING LCM_INIT"
assert_eq "8 ACTIVE RUNNING|2 PENDING LCM_INIT" "$(states)" "8 of the 10 run, 2 wait"
counts_become "4 4 0 4 4|4 4 0 4 4" "hosts: 4 used, 0 available, the fingerprint current"
sleep 8 # several scheduling cycles with the waiting VMs
assert_eq "8 ACTIVE RUNNING|2 PENDING LCM_INIT" "$(states)" "the 2 still wait, none failed"
one_cloud_agrees "8 of 10"
waiting=$(for i in $(seq "$V" "$W"); do [ "$(one_vm_state "$i")" = "PENDING LCM_INIT" ] && echo "$i"; done)
for i in $waiting; do
	assert_match "SCHED_MESSAGE" "$(one_xml vm "$i" | one_xpath 'name(/VM/USER_TEMPLATE/SCHED_MESSAGE)')" \
		"VM $i: the scheduler says why it waits"
done

# --- two VMs end: the two waiting ones take their VFs
running=$(for i in $(seq "$V" "$W"); do [ "$(one_vm_state "$i")" = "ACTIVE RUNNING" ] && echo "$i"; done)
gone="$(echo "$running" | sed -n 1p) $(echo "$running" | sed -n 5p)"
for i in $gone; do assert_ok "VM $i terminated" -- as_oneadmin onevm terminate --hard "$i"; done
for i in $gone; do one_wait_vm "$i" "^DONE" 60; done
for i in $waiting; do one_wait_vm "$i" "^ACTIVE RUNNING$" 120; done
assert_eq "8 ACTIVE RUNNING|2 DONE LCM_INIT" "$(states)" "the waiting VMs run once VFs are free"
counts_become "4 4 0 4 4|4 4 0 4 4" "hosts: 4 used again, 0 available"
one_cloud_agrees "after the terminations"
one_deployed_once "$V" "$W" "no deploy attempted without a free VF: one host per VM, no failure"

# --- a VM from a template without the term: the hook adds it
printf '%s\n' 'NAME = "plain"' 'CPU = "0.1"' 'MEMORY = "64"' \
	'NIC = [ NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin" ]' \
	'SCHED_REQUIREMENTS = "IB_SRIOV = \"YES\""' >"$TEST_TMP/plain.tmpl"
chmod 0644 "$TEST_TMP/plain.tmpl"
id=$(as_oneadmin onevm create --hold "$TEST_TMP/plain.tmpl") || die "onevm create"
id=${id#ID: }
_has_term() {
	[ "$(one_xml vm "$id" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)" = "$1" ] || { sleep 1; return 1; }
}
term='"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" > 0'
want="$term"' & IB_LEAVES = "*,chosen-by-one-ib,*" & (IB_SRIOV = "YES")'
wait_for 60 _has_term "$want"
assert_eq "$want" "$(one_xml vm "$id" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)" \
	"VM $id on hold: the hook put the term and the gate before the user's requirement"
assert_ok "VM $id released" -- as_oneadmin onevm release "$id"
# PENDING: the hook chooses its leaf; none has a VF free, so the gate goes
# and the VF term alone keeps it waiting
want="$term"' & (IB_SRIOV = "YES")'
wait_for 60 _has_term "$want"
assert_eq "$want" "$(one_xml vm "$id" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)" \
	"VM $id released: no leaf has room, the gate is gone"
sleep 6
assert_eq "PENDING LCM_INIT" "$(one_vm_state "$id")" "VM $id waits too: no VF free"
assert_eq "" "$(one_hook_log | grep -v ' 0$' | sort -u)" "every hook run succeeded"
test_done
