# shellcheck shell=bash
# Two subnet managers on one fabric (design decision 17), for the t044x
# tests: tests/e2e/data/fabric-2sm.net (the shared cloud of shared.sh and
# a second SM port, sm2), a master opensm on sm (sm_priority 10) and a
# standby on sm2 (sm_priority 5), as reference/sm-redundancy.md measured
# them: sminfo_polling_timeout 1000 and polling_retry_number 2 (takeover
# in 3-4 s), sweep_on_trap FALSE on both (a master sweeping on the
# standby's trap 144 waits forever on ibsim). Handover back to a master
# that returns hangs on ibsim (ibsim drops TrapRepress): only takeover is
# tested. Source after test-lib.sh, oneib.sh and shared.sh.
#
# Each SM stands for a host of its own: its /etc/opensm is a directory of
# the test, SMS_DIR[sm] ($TEST_TMP/fabric, sim_fabric's) and SMS_DIR[sm2]
# ($TEST_TMP/fabric2), holding partitions.conf, qos-policy.conf, opensm.pid,
# opensm.conf and opensm.log. The front-end reaches them as it reaches SM
# hosts, through ONEIB_SM_SSH: the stand-in $TEST_TMP/bin/sm-ssh HOST CMD
# runs CMD with sh in a mount namespace of its own where that host's
# directory is /etc/opensm, so the commands of ibrc are the lines an
# operator writes (the root installer of the build instead of sudo
# /usr/sbin/oneib-partitions-install, told through --pid-file
# /etc/opensm/opensm.pid instead of systemd). A host is down while
# $TEST_TMP/sms/HOST.down exists (ssh's "No route to host", exit 255), and
# hangs while $TEST_TMP/sms/HOST.hang exists (on the commands matching the
# extended regular expression it holds, on all when it is empty).
#
#   sms_fabric             ibsim, the master on sm, the standby on sm2,
#                          both with one-ib's default partition alone, qos
#                          TRUE and their QoS policy file. SMS_NET: another
#                          net file; SMS_CONF_SM, SMS_CONF_SM2: more
#                          opensm.conf lines for each; SMS_WAIT2: what
#                          sm2's log says once it is up ("Entering STANDBY
#                          state")
#   sms_hook               the installed hook (HOOK), the stand-in oned
#                          answering $TEST_TMP/{vms,hosts,vnets}.xml, ibrc
#                          with ONEIB_SMS="sm sm2" and the commands above,
#                          the static file of shared.sh, infra as the hosts'
#                          partition, no SL plan
#   sms_listing [SPEC...]  shared_listing into those three files
#   sms_state NODE         the SM state opensm on NODE's port answers
#                          (sminfo: SMINFO_MASTER, SMINFO_STANDBY)
#   sms_kill_master        kill -9 the master (sm), wait for the standby's
#                          SUBNET UP; SMS_TAKEOVER: the seconds it took
#   sms_pkeys NODE         the P_Keys on NODE's port, asked from SMS_FROM
#   sms_path A B [PKEY]    the P_Key of the SA's path record A -> B, asked
#                          from SMS_FROM (the master's node)
#   sms_tables             every end port's P_Keys, one "NODE KEYS" line each

SMS_NET=${SMS_NET:-$TOP/tests/e2e/data/fabric-2sm.net}
SH_GUID+=([sm2]=0x0002c90300000101)
declare -A SMS_DIR
SMS_FROM=sm
SMS_NODES="sm sm2 node01 node02 node03 node04 vm10-nic0 vm10-nic1 vm11-nic0
	vm11-nic1 vm12-nic0 vm12-nic1 vm13-nic0 stor1 stor2 login"
# how the two opensm are to behave (sm-redundancy.md, section 5)
_SMS_CONF="sweep_on_trap FALSE
sminfo_polling_timeout 1000
polling_retry_number 2
qos TRUE"

sms_fabric() {
	local d2=$TEST_TMP/fabric2 pid
	echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$TEST_TMP/default-only.conf"
	SIM_SM_NODE=sm SIM_OPENSM_CONF="$_SMS_CONF
sm_priority 10
qos_policy_file $TEST_TMP/fabric/qos-policy.conf${SMS_CONF_SM:+
$SMS_CONF_SM}" \
		sim_fabric "$SMS_NET" "$TEST_TMP/default-only.conf"
	SMS_DIR[sm]=$TEST_TMP/fabric
	SMS_DIR[sm2]=$d2
	shared_static >"$TEST_TMP/static.conf"
	mkdir -p "$d2/osm" "$d2/cache" "$TEST_TMP/sms"
	cp "$TEST_TMP/default-only.conf" "$d2/partitions.conf"
	cat >"$d2/opensm.conf" <<-EOF
	log_file $d2/opensm.log
	force_log_flush TRUE
	dump_files_dir $d2/
	partition_config_file $d2/partitions.conf
	per_module_logging_file $d2/none
	qos_policy_file $d2/qos-policy.conf
	prefix_routes_file $d2/none
	$_SMS_CONF
	sm_priority 5
	${SMS_CONF_SM2:-}
	EOF
	(cd "$d2/osm" && LD_PRELOAD=$UMAD2SIM SIM_HOST=sm2 OSM_CACHE_DIR=$d2/cache \
		OSM_TMP_DIR=$d2 exec opensm -F "$d2/opensm.conf" -f "$d2/opensm.log" \
		-P "$d2/partitions.conf") </dev/null >"$d2/opensm.out" 2>&1 &
	pid=$!
	_tl_daemon "$pid" opensm-sm2
	echo "$pid" >"$d2/opensm.pid"
	if ! _tl_wait_daemon 20 "$pid" grep -qs "${SMS_WAIT2:-Entering STANDBY state}" "$d2/opensm.log"; then
		_tl_show "$d2/opensm.log" 20 "sm2's opensm.log"
		die "the second opensm did not log '${SMS_WAIT2:-Entering STANDBY state}' within 20 s"
	fi
	_sms_ssh_standin
}

# the stand-in for ssh: sm-ssh HOST CMD, as `ssh HOST CMD` runs CMD there
_sms_ssh_standin() {
	mkdir -p "$TEST_TMP/bin"
	cat >"$TEST_TMP/bin/sm-ssh" <<-EOF
	#!/bin/bash
	# stand-in for ssh to an SM host (tests/lib/sms.sh): sm-ssh HOST CMD
	host=\$1
	case \$host in
	sm) dir=$TEST_TMP/fabric ;;
	sm2) dir=$TEST_TMP/fabric2 ;;
	*) echo "ssh: Could not resolve hostname \$host: Name or service not known" >&2; exit 255 ;;
	esac
	echo "\$host \$2" >>$TEST_TMP/sms/calls
	if [ -e "$TEST_TMP/sms/\$host.down" ]; then
		echo "ssh: connect to host \$host port 22: No route to host" >&2
		exit 255
	fi
	# a host that hangs: on every command, or on those matching the
	# pattern the file holds
	if [ -e "$TEST_TMP/sms/\$host.hang" ] &&
		{ [ ! -s "$TEST_TMP/sms/\$host.hang" ] ||
			printf '%s\n' "\$2" | grep -qEf "$TEST_TMP/sms/\$host.hang"; }; then
		exec sleep 300
	fi
	exec unshare --mount --propagation private -- sh -c \\
		'mount --bind "\$0" /etc/opensm && exec sh -c "\$1"' "\$dir" "\$2"
	EOF
	chmod +x "$TEST_TMP/bin/sm-ssh"
}

sms_hook() {
	install_tree "$TEST_TMP/inst" 2>/dev/null
	# shellcheck disable=SC2034 # the calling test runs it
	HOOK=$TEST_TMP/inst/var/lib/one/remotes/hooks/oneib-partitions
	IBRC=$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc
	standin_oned "$TEST_TMP"
	cat >>"$IBRC" <<-EOF
	ONEIB_SMS="sm sm2"
	ONEIB_SM_SSH="$TEST_TMP/bin/sm-ssh"
	ONEIB_PARTITIONS_CMD="$INST --output /etc/opensm/partitions.conf --pid-file /etc/opensm/opensm.pid -"
	ONEIB_PARTITIONS_READ_CMD="test ! -e /etc/opensm/partitions.conf || cat /etc/opensm/partitions.conf"
	ONEIB_QOS_POLICY_CMD="$INST --qos-policy /etc/opensm/qos-policy.conf --pid-file /etc/opensm/opensm.pid -"
	ONEIB_PARTITIONS_STATIC=$TEST_TMP/static.conf
	ONEIB_HOSTS_PARTITION=infra
	ONEIB_SLS=""
	EOF
	export ONEIB_PARTITIONS_LOCK=$TEST_TMP/lock
}

sms_listing() { # [SPEC...]
	shared_listing "$TEST_TMP/cloud.xml" "$@"
	sed -n '/^<VM_POOL>/,/^<\/VM_POOL>/p' "$TEST_TMP/cloud.xml" >"$TEST_TMP/vms.xml"
	sed -n '/^<HOST_POOL>/,/^<\/HOST_POOL>/p' "$TEST_TMP/cloud.xml" >"$TEST_TMP/hosts.xml"
	sed -n '/^<VNET_POOL>/,/^<\/VNET_POOL>/p' "$TEST_TMP/cloud.xml" >"$TEST_TMP/vnets.xml"
}

sms_state() { # NODE
	local lid
	lid=$(sim_lid "$1") || return 1
	sim_client "$SMS_FROM" sminfo "$lid" 2>/dev/null | sed -n 's/.* state [0-9]* \(SMINFO_[A-Z]*\).*/\1/p'
}

_sms_up2() { grep -qs "SUBNET UP" "${SMS_DIR[sm2]}/opensm.log"; }

sms_kill_master() {
	local pid
	pid=$(cat "${SMS_DIR[sm]}/opensm.pid")
	sim_kill_master_sm "$pid" "$(cat "${SMS_DIR[sm2]}/opensm.pid")"
	if ! wait_for 90 _sms_up2; then
		_tl_show "${SMS_DIR[sm2]}/opensm.log" 20 "sm2's opensm.log"
		die "the standby did not take over within 90 s"
	fi
	# shellcheck disable=SC2034 # the calling test says it
	SMS_TAKEOVER=$(echo "$(date +%s.%N) - $SIM_SM_KILLED_AT" | bc)
	SMS_FROM=sm2
}

sms_pkeys() { # NODE
	local lid
	lid=$(sim_client "$SMS_FROM" ibaddr -G "${SH_GUID[$1]}" 2>/dev/null |
		sed -n 's/.*LID start \(0x[0-9a-f]*\).*/\1/p')
	[ -n "$lid" ] || return 1
	sim_client "$SMS_FROM" smpquery pkeys "$((lid))" |
		awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) if ($i != "0x0000") print $i }' |
		sort | tr '\n' ' ' | sed 's/ $//'
}

sms_path() { # A B [PKEY]
	local a b
	a=$(_shared_gid "${SH_GUID[$1]}") b=$(_shared_gid "${SH_GUID[$2]}")
	sim_client "$SMS_FROM" saquery PR --sgid-to-dgid "$a-$b" ${3:+--pkey "$3"} 2>/dev/null |
		sed -n 's/^[[:space:]]*pkey\.*\(0x[0-9a-fA-F]*\)$/\1/p' | tr A-F a-f
}

sms_tables() {
	local n
	for n in $SMS_NODES; do
		printf '%s %s\n' "$n" "$(sms_pkeys "$n")"
	done
}
