#!/bin/bash
# NIC hot-plug beside what else looks at the host's domains, as t0620
# (stress) runs it:
#   - the monitoring probe reconciling the same host over and over, the
#     wall clock stepped forward: the VM's other IB NIC keeps its lease
#     through every attach and detach, and the hosts agree with oned;
#   - a nic-detach killed with -9 in the middle of libvirt's hot-unplug,
#     then retried (onevm recover --retry): the VM keeps its domain and
#     its other NIC's VF and lease.
# t0620 once ended with a running VM's domain gone and its other NIC's
# lease released: its nic-detach had been killed while the stand-in virsh
# re-created the domain (libvirt's test driver cannot change a running
# domain's devices: destroy, then create), which left no domain, and the
# retry's clean released what no domain held. Real libvirt changes the
# domain in place and finishes a request whose client died. The stand-in
# now does the same (tests/lib/standin/virsh, replace); the second part
# fails without it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
export SIM_IB_PF

one_vm_new 42 0/02:00:c0:a8:01:05/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (one IB NIC) on hv1"
cloud_agrees "deploy"

# the probe, over and over, until $TEST_TMP/stop
probe_loop() {
	while [ ! -e "$TEST_TMP/stop" ]; do
		on hv1 bash -c "$(declare -f ledger_age); ledger_age --wall"
		on hv1 sh /var/tmp/one/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh kvm-ib 1 hv1 </dev/null >/dev/null
	done
}
probe_loop &
loop=$!
for i in 1 2 3 4 5 6; do
	assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)" "round $i: nic-attach"
	assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "round $i: nic-detach"
	assert_eq 1 "$(on hv1 grep -c ' vm=42 nic=0 ' /var/lib/one/ib/leases)" "round $i: NIC 0 still leased"
done
touch "$TEST_TMP/stop"
wait "$loop"
cloud_agrees "after six attach and detach rounds beside the probe"

# --- a nic-detach killed while libvirt re-creates the domain, retried
. "$TOP/tests/lib/stress.sh" # _st_kill_tree
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)" "nic-attach again"
d=$(_vmd 42)
cp -a "$d" "$TEST_TMP/vm42.bak"
inject replace-pause
(one_detach_nic 42 1 >"$TEST_TMP/killed.out" 2>&1) &
pid=$!
gone() { ! on hv1 virsh domstate one-42 >/dev/null 2>&1 || { sleep 0.05; return 1; }; }
assert_ok "the hot-unplug under way: one-42 is being re-created" -- wait_for 30 gone
_st_kill_tree "$pid"
wait "$pid" 2>/dev/null
uninject replace-pause
rm -rf "$d" && mv "$TEST_TMP/vm42.bak" "$d" # oned: the action failed
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "nic-detach retried after the kill"
assert_eq running "$(on hv1 virsh domstate one-42 | sed '/^$/d')" "one-42 still runs"
assert_eq 1 "$(on hv1 grep -c ' vm=42 nic=0 ' /var/lib/one/ib/leases)" "NIC 0 still leased"
cloud_agrees "a nic-detach killed half-way, retried"
test_done
