#!/bin/bash
# A master and a standby subnet manager through the real OpenNebula
# front-end (issue 32, design decision 17; tests/lib/one.sh): opensm on the
# front-end's fabric node (sm, the master, sm_priority 10) and on a host of
# its own, sm2 (a simulated host with its sshd and its own /etc/opensm, not
# an OpenNebula host; sm_priority 5), 1 s polls and 2 retries, sweep_on_trap
# FALSE (reference/sm-redundancy.md: the simulator's limits). ibrc names
# both, ONEIB_SMS="localhost sm2", the commands at their defaults (the sudo
# lines of the one-ib-sm package's rule on each SM host), reached with the
# real ssh as oneadmin. Alice's VM 0 runs on hv1 before; then sm2 is down
# (its name no longer reaches its sshd):
#   - alice's VM 1 is created and runs: the hook's runs install on the
#     master and fail, naming sm2; the master's file has VM 1, sm2's not;
#   - sm2 back, the next run (by hand, as cron does) gives it the file:
#     VM 1 is a member on both SMs;
#   - kill -9 of the master: sm2 takes over, and VM 1's VF still holds
#     alice's key, the SA (sm2's now) answers a path between VMs 0 and 1 in
#     her partition.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
# alice's VMs' IDs (0 and 1 on a front-end of its own)
A=$ONE_VM0 B=$((ONE_VM0 + 1))
one_host hv1 cx5 --leaf 1 --vfs "$A/0 $B/0"
one_host sm2 cx5 --leaf 2
one_fabric 2

# --- the two SMs ------------------------------------------------------------------
SMCONF="sweep_on_trap FALSE
sminfo_polling_timeout 1000
polling_retry_number 2"
# the master: these options are re-read at SIGHUP
printf '%s\nsm_priority 10\n' "$SMCONF" >>"$SIM_FABRIC/opensm.conf"
sim_opensm_reread
# the standby on sm2, reading sm2's own /etc/opensm, told as Debian's unit
D2=$TEST_TMP/sm2-opensm
mkdir -p "$D2/osm" "$D2/cache"
cp "$TEST_TMP/default-only.conf" "$D2/partitions.conf"
cat >"$D2/opensm.conf" <<EOF
log_file $D2/opensm.log
force_log_flush TRUE
dump_files_dir $D2/
partition_config_file /etc/opensm/partitions.conf
per_module_logging_file $D2/none
prefix_routes_file $D2/none
qos TRUE
qos_policy_file /etc/opensm/qos-policy.conf
$SMCONF
sm_priority 5
EOF
on sm2 mount --bind "$D2" /etc/opensm || die "sm2: cannot give it its own /etc/opensm"
(cd "$D2/osm" && exec nsenter --mount="/proc/$(cat "$SIM_HOSTS/sm2/pid")/ns/mnt" -- \
	env LD_PRELOAD="$UMAD2SIM" IBSIM_SOCKNAME="$IBSIM_SOCKNAME" SIM_HOST=sm2 OSM_CACHE_DIR="$D2/cache" \
	OSM_TMP_DIR="$D2" /usr/sbin/opensm -F "$D2/opensm.conf" -f "$D2/opensm.log") \
	</dev/null >"$D2/opensm.out" 2>&1 &
sm2_pid=$!
_tl_daemon "$sm2_pid" "opensm on sm2"
wait_for 20 grep -qs "Entering STANDBY state" "$D2/opensm.log" || {
	_tl_show "$D2/opensm.log" 20 "sm2's opensm.log"
	_tl_show "$SIM_IBSIM_LOG" 20 ibsim.log
	die "sm2's opensm did not become standby"
}
cat >"$D2/systemctl" <<EOS
#!/bin/sh
if [ "\$*" = "show --property=Id,MainPID -- opensm@*.service" ]; then
	printf 'MainPID=%s\\nId=opensm@0x0002c90300000101.service\\n' "$sm2_pid"
	exit 0
fi
exit 1
EOS
chmod 0755 "$D2/systemctl"
on sm2 mount --bind "$D2/systemctl" /usr/bin/systemctl || die "sm2: cannot put the systemctl stand-in in place"
state() { # FROM NODE
	sim_client "$1" sminfo "$(sim_lid "$2")" 2>/dev/null | sed -n 's/.* state [0-9]* \(SMINFO_[A-Z]*\).*/\1/p'
}
assert_eq "SMINFO_MASTER SMINFO_STANDBY" "$(state hv1 sm) $(state hv1 sm2)" "sm masters, sm2 stands by"

IBRC=$ONE_DIR/var/remotes/etc/vnm/ib/ibrc
# (no connection sharing for the SMs: sm2 down must be down)
cat >>"$IBRC" <<'EOF'
ONEIB_SMS="localhost sm2"
ONEIB_SM_SSH="ssh -o BatchMode=yes -o ConnectTimeout=10 -o ControlPath=none"
EOF
HOOK=$ONE_DIR/var/remotes/hooks/oneib-partitions
# the hook by hand, as cron runs it; again while it coalesced into a run
# of the hooks' that was waiting (that one saw the change, not this one)
by_hand() {
	local rc
	while :; do
		as_oneadmin "$HOOK" >"$TEST_TMP/hand.out" 2>"$TEST_TMP/hand.err"
		rc=$?
		grep -q '^oneib-partitions: a run is already waiting' "$TEST_TMP/hand.out" || break
		sleep 1
	done
	cat "$TEST_TMP/hand.out"
	cat "$TEST_TMP/hand.err" >&2
	return $rc
}
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running \
	oneib-api-vn-allocate oneib-vnet-ready oneib-api-host-allocate oneib-host-monitored
one_host_create hv1
na=$(one_ib_network ib-tenant-a)
pa=$(one_xml vnet "$na" | one_xpath /VNET/TEMPLATE/IB_PKEY)
one_user alice
vm() { # ID
	printf '%s\n' 'NAME = "vm"' 'CPU = "0.1"' 'MEMORY = "64"' \
		'NIC = [ NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin" ]' \
		'SCHED_REQUIREMENTS = "HOSTNAME = \"hv1\" & IB_VFS_FREE > 0"' >"$TEST_TMP/vm.tmpl"
	chmod 0644 "$TEST_TMP/vm.tmpl"
	as_user alice onevm create "$TEST_TMP/vm.tmpl" >/dev/null || die "alice: onevm create"
	one_wait_vm "$1" "^ACTIVE RUNNING$"
}
members() { partition_members_in "$na" <"$1"; }
G0=$(guid_of "$A" 0) G1=$(guid_of "$B" 0)

vm "$A"
assert_ok "a run by hand: both SMs" -- by_hand
assert_match "^sm2: /etc/opensm/partitions.conf: (installed|unchanged) " "$(cat "$LAST_OUT")" "sm2 holds the file"
assert_match "^localhost: /etc/opensm/partitions.conf: (installed|unchanged) " "$(cat "$LAST_OUT")" "so does the master"
assert_file_eq "$SIM_PARTITIONS" "$D2/partitions.conf" "the same file on both"
assert_eq "$G0" "$(members "$D2/partitions.conf")" "VM $A in alice's partition on sm2"

# --- sm2 down: VM 1 made meanwhile ----------------------------------------------
# its name no longer reaches its sshd (nothing listens there)
sed 's/^\(127\.0\.2\.[0-9]*\) sm2$/127.0.3.1 sm2/' "$ONE_ETC_HOSTS" >"$TEST_TMP/hosts.down"
cp "$ONE_ETC_HOSTS" "$TEST_TMP/hosts.up"
cat "$TEST_TMP/hosts.down" >"$ONE_ETC_HOSTS"
fails=$(one_hook_log | grep -vc ' 0$')
vm "$B"
wait_for 60 eval '[ "$(members "$SIM_PARTITIONS")" = "$G0 $G1" ]' ||
	say "the master's file does not have VM $B yet"
assert_eq "$G0 $G1" "$(members "$SIM_PARTITIONS")" "the master has VM $B"
assert_eq "$G0" "$(members "$D2/partitions.conf")" "sm2 has not"
assert_eq 1 "$(( $(one_hook_log | grep -vc ' 0$') > fails ))" "the hook's runs failed meanwhile"
assert_fail "a run by hand while sm2 is down" -- by_hand
assert_match "^oneib-partitions: sm2: .*failed \(exit 255\): ssh: connect to host sm2 port 22: .*; 1 of 2 subnet managers hold the new partitions" \
	"$(cat "$LAST_ERR")" "one line naming sm2 and ssh's reason"

# --- sm2 back: the next run gives it the file ------------------------------------
cat "$TEST_TMP/hosts.up" >"$ONE_ETC_HOSTS"
assert_ok "the next run (cron)" -- by_hand
assert_match "^sm2: /etc/opensm/partitions.conf: installed " "$(cat "$LAST_OUT")" "sm2 gets the file it missed"
assert_eq "$G0 $G1" "$(members "$D2/partitions.conf")" "VM $B a member on sm2 too"
assert_file_eq "$SIM_PARTITIONS" "$D2/partitions.conf" "the same file on both"

# --- the master dies: sm2 takes over, VM 1's partition holds ---------------------
keys() { # FROM NODE
	sim_client "$1" smpquery pkeys "$(sim_lid "$2")" |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }' | sort | tr '\n' ' ' | sed 's/ $//'
}
path() { # FROM A B
	sim_client "$1" saquery -p --src-to-dst "$(sim_lid "$2"):$(sim_lid "$3")" |
		sed -n 's/^[[:space:]]*pkey\.*\(0x[0-9a-f]*\)$/\1/p'
}
assert_eq "0x7fff $pa" "$(keys sm vm$B-nic0)" "VM $B's VF in alice's partition"
assert_eq "$pa" "$(path sm vm$A-nic0 vm$B-nic0)" "a path between VMs $A and $B in it"
sim_kill_master_sm "$(cat "$SIM_OPENSM_PID_FILE")" "$sm2_pid"
if ! wait_for 60 grep -qs "SUBNET UP" "$D2/opensm.log"; then
	_tl_show "$D2/opensm.log" 20 "sm2's opensm.log"
	_tl_show "$SIM_IBSIM_LOG" 20 ibsim.log
	die "sm2 did not take over"
fi
say "sm2 took over $(echo "$(date +%s.%N) - $SIM_SM_KILLED_AT" | bc) s after kill -9 of the master"
assert_eq SMINFO_MASTER "$(state hv1 sm2)" "sm2 masters the fabric"
assert_eq "0x7fff $pa|0x7fff $pa" "$(keys sm2 vm$A-nic0)|$(keys sm2 vm$B-nic0)" \
	"VMs $A and $B keep alice's key"
assert_eq "$pa" "$(path sm2 vm$A-nic0 vm$B-nic0)" "the new master's SA: the same path"
test_done
