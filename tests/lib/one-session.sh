#!/bin/bash
# ONEIB_ONE_SCRIPTS="SCRIPT..." tests/lib/one-session.sh [-v] [-d] [-x]:
# the real front-end scenarios (tests/one/t*.sh, in that order) of one
# release (ONEIB_ONE_VERSION) on one front-end,
# started once (issue 30: a front-end start is a third of a scenario's
# time, and the moment a Ruby driver can miss oned's 10 s INIT window):
#   - the front-end as one scenario alone makes it (tests/lib/one.sh:
#     one_sim, one_frontend), with every hook of one-ib's templates, as
#     one-ib-frontend(7) creates them, and the systemctl stand-in the installer asks
#     which opensm to tell (each scenario's opensm reads the front-end's
#     /etc/opensm, found by its command line);
#   - each SCRIPT in turn, in a mount and pid namespace of its own within
#     the front-end's network namespace (ONEIB_ONE_SESSION: one.sh attaches
#     to the running front-end instead of starting one), its own hosts
#     (sshd on 127.0.2.N, named in the front-end's /etc/hosts), users,
#     networks and fabric; its first VM's ID in ONE_VM0 (oned's IDs only
#     grow), its start in ONE_T0 (the hook log it reads begins there);
#   - after each, whatever happened to it: what it made taken away again
#     (its VMs deleted, then its templates, networks, hosts, users, groups
#     and VDCs; the front-end's remotes settings, /etc/hosts and
#     /etc/opensm as they were; oneadmin's ssh connections to its hosts
#     closed), and the hook manager idle, so the next one starts from what
#     a fresh front-end holds but for the IDs.
# Prints each scenario's output (its result line last) as the scenario
# prints it, and a line of its own per scenario for what the cleanup left,
# then "session: N passed, N failed, N skipped". Exit 0 when every
# scenario passed or skipped. Without ../shared/third-party every
# scenario skips.
. "$(dirname "$0")/test-lib.sh"
: "${TEST_TIMEOUT:=5400}"
. "$TOP/tests/lib/one.sh"
SCRIPTS=()
for a in ${ONEIB_ONE_SCRIPTS:-}; do SCRIPTS+=("$(realpath "$a")"); done
[ ${#SCRIPTS[@]} -gt 0 ] || { echo "usage: ONEIB_ONE_SCRIPTS=\"SCRIPT...\" $0" >&2; exit 2; }
TEST_NAME="one-session [OpenNebula $ONE_VERSION]"

# the settings every scenario shares: 7.0 places waiting VMs again every
# 3 s, not 60 (the bursts of t0705 and t0706 need it)
ONE_SCHED_RETRY=3
one_sim
one_frontend
one_hooks
# the installer asks systemd which opensm to tell: the scenario's
mkdir -p "$ONE_FE/fabric"
_one_opensm_unit
echo "# session: front-end-start took $SECONDS s"
fresh=$ONE_FE/fresh
mkdir -p "$fresh" && cp -a "$ONE_DIR/var/remotes/etc" "$fresh/remotes-etc" &&
	cp "$ONE_ETC_HOSTS" "$fresh/etc-hosts" || die "cannot keep the front-end's fresh settings"

# the highest VM ID oned ever gave, plus one (DONE VMs stay listed with
# state -2)
_next_vm() {
	one_rpc one.vmpool.info i:-2 i:-1 i:-1 i:-2 | grep -o '<VM><ID>[0-9]*' |
		cut -d'>' -f3 | sort -n | tail -n 1 | awk '{ print $1 + 1 } END { if (!NR) print 0 }'
}
# IDs of KIND's pool (one.KIND pool info method, its arguments), one a line
_ids() { # METHOD ELEMENT ARG...
	local m=$1 e=$2
	shift 2
	one_rpc "$m" "$@" | grep -o "<$e><ID>[0-9]*" | cut -d'>' -f3
}
# The hook manager idle: no oneib-partitions run, no new execution logged,
# for 2 s.
_hooks_idle() {
	local n
	n=$(one_rpc one.hooklog.info i:-1 i:-1 i:-1 i:0 | grep -o '<HOOK_EXECUTION_RECORD>' | wc -l)
	sleep 2
	! pgrep -f 'oneib-partitions sync' >/dev/null &&
		[ "$n" = "$(one_rpc one.hooklog.info i:-1 i:-1 i:-1 i:0 | grep -o '<HOOK_EXECUTION_RECORD>' | wc -l)" ]
}
_vms_done() {
	[ -z "$(_ids one.vmpool.info VM i:-2 i:-1 i:-1 i:-1)" ] || { sleep 0.5; return 1; }
}
_hosts_gone() {
	[ -z "$(_ids one.hostpool.info HOST)" ] || { sleep 0.5; return 1; }
}
# Everything a scenario made goes again; what cannot is said.
cleanup() {
	local id left=
	for id in $(_ids one.vmpool.info VM i:-2 i:-1 i:-1 i:-1); do
		as_oneadmin onevm recover --delete "$id" >/dev/null 2>&1
	done
	wait_for 120 _vms_done || left="$left VMs"
	for id in $(_ids one.templatepool.info VMTEMPLATE i:-2 i:-1 i:-1); do
		as_oneadmin onetemplate delete "$id" >/dev/null 2>&1
	done
	# reservations before their parents
	for id in $(_ids one.vnpool.info VNET i:-2 i:-1 i:-1 | sort -nr); do
		as_oneadmin onevnet delete "$id" >/dev/null 2>&1
	done
	for id in $(_ids one.hostpool.info HOST); do
		as_oneadmin onehost delete "$id" >/dev/null 2>&1
	done
	wait_for 60 _hosts_gone || left="$left hosts"
	for id in $(_ids one.userpool.info USER); do
		[ "$id" -gt 1 ] && as_oneadmin oneuser delete "$id" >/dev/null 2>&1
	done
	for id in $(_ids one.vdcpool.info VDC); do
		[ "$id" -gt 0 ] && as_oneadmin onevdc delete "$id" >/dev/null 2>&1
	done
	for id in $(_ids one.grouppool.info GROUP); do
		[ "$id" -gt 1 ] && as_oneadmin onegroup delete "$id" >/dev/null 2>&1
	done
	[ -z "$(_ids one.vnpool.info VNET i:-2 i:-1 i:-1)" ] || left="$left networks"
	[ -z "$(_ids one.templatepool.info VMTEMPLATE i:-2 i:-1 i:-1)" ] || left="$left templates"
	[ "$(_ids one.userpool.info USER | wc -l)" -le 2 ] || left="$left users"
	# one-ib as the session installed it (a scenario may have installed
	# another, t0704's older one)
	cmp -s "$TOP/build/bin/oneib-vf" "$ONE_DIR/var/remotes/ib/bin/oneib-vf" ||
		(ONE_IB_SRC='' one_install_frontend) || left="$left one-ib's front-end part"
	rm -rf "$ONE_DIR/var/remotes/etc" && cp -a "$fresh/remotes-etc" "$ONE_DIR/var/remotes/etc" ||
		left="$left remotes-settings"
	cp "$fresh/etc-hosts" "$ONE_ETC_HOSTS" || left="$left /etc/hosts"
	find "$ONE_FE/fabric" -mindepth 1 -delete || left="$left /etc/opensm"
	pkill -u "$ONE_ADMIN" -x ssh 2>/dev/null
	wait_for 60 _hooks_idle || left="$left (the hook manager still busy)"
	echo "$left"
}

passed=0 failed=0 skipped=0
for s in "${SCRIPTS[@]}"; do
	name=$(basename "$s" .sh)
	{
		echo "ONE_FE=$ONE_FE ONE_DIR=$ONE_DIR ONE_HOME=$ONE_HOME ONE_BUILD=$ONE_BUILD"
		echo "ONE_ETC_HOSTS=$ONE_ETC_HOSTS ONE_VM0=$(_next_vm) ONE_T0=$(date +%s)"
	} >"$ONE_FE/env"
	start=$SECONDS
	ONEIB_ONE_SESSION=$ONE_FE bash "$s" "${TEST_ARGS[@]}" </dev/null >"$TEST_TMP/$name.out" 2>&1
	rc=$?
	cat "$TEST_TMP/$name.out"
	case $rc in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
	left=$(cleanup)
	echo "# session: $name took $((SECONDS - start)) s"
	if [ -n "$left" ]; then
		echo "not ok - $name [OpenNebula $ONE_VERSION]: after it, the session could not take away:$left"
		failed=$((failed + 1))
	fi
done
_tl_done=1
: >"$TEST_TMP/.tl-done"
echo "session: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
