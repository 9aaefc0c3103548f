#!/bin/bash
# The hook templates (templates/hooks/*.tmpl, for `onehook create`) parse as
# OpenNebula templates, each has a unique NAME, a TYPE, and runs the
# installed oneib-partitions hook on the front-end, a VM's events telling
# it which VM; state hooks name only
# states OpenNebula has, api hooks only calls it has; no trigger is there
# twice, and together they cover every event that can change partitions.conf.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

# OpenNebula's names, from OpenNebula/one (master, the same names in 6.x):
# VM states and LCM states: include/VirtualMachine.h (enum VmState,
# enum LcmState; commented-out values are gone), as parsed by
# src/vm/VirtualMachine.cc vm_state_from_str / lcm_state_from_str.
VM_STATES="INIT PENDING HOLD ACTIVE STOPPED SUSPENDED DONE POWEROFF UNDEPLOYED
CLONING CLONING_FAILURE"
LCM_STATES="LCM_INIT PROLOG BOOT RUNNING MIGRATE SAVE_STOP SAVE_SUSPEND
SAVE_MIGRATE PROLOG_MIGRATE PROLOG_RESUME EPILOG_STOP EPILOG SHUTDOWN
CLEANUP_RESUBMIT UNKNOWN HOTPLUG SHUTDOWN_POWEROFF BOOT_UNKNOWN BOOT_POWEROFF
BOOT_SUSPENDED BOOT_STOPPED CLEANUP_DELETE HOTPLUG_SNAPSHOT HOTPLUG_NIC
HOTPLUG_SAVEAS HOTPLUG_SAVEAS_POWEROFF HOTPLUG_SAVEAS_SUSPENDED
SHUTDOWN_UNDEPLOY EPILOG_UNDEPLOY PROLOG_UNDEPLOY BOOT_UNDEPLOY
HOTPLUG_PROLOG_POWEROFF HOTPLUG_EPILOG_POWEROFF BOOT_MIGRATE BOOT_FAILURE
BOOT_MIGRATE_FAILURE PROLOG_MIGRATE_FAILURE PROLOG_FAILURE EPILOG_FAILURE
EPILOG_STOP_FAILURE EPILOG_UNDEPLOY_FAILURE PROLOG_MIGRATE_POWEROFF
PROLOG_MIGRATE_POWEROFF_FAILURE PROLOG_MIGRATE_SUSPEND
PROLOG_MIGRATE_SUSPEND_FAILURE BOOT_UNDEPLOY_FAILURE BOOT_STOPPED_FAILURE
PROLOG_RESUME_FAILURE PROLOG_UNDEPLOY_FAILURE DISK_SNAPSHOT_POWEROFF
DISK_SNAPSHOT_REVERT_POWEROFF DISK_SNAPSHOT_DELETE_POWEROFF
DISK_SNAPSHOT_SUSPENDED DISK_SNAPSHOT_DELETE_SUSPENDED DISK_SNAPSHOT
DISK_SNAPSHOT_DELETE PROLOG_MIGRATE_UNKNOWN PROLOG_MIGRATE_UNKNOWN_FAILURE
DISK_RESIZE DISK_RESIZE_POWEROFF DISK_RESIZE_UNDEPLOYED HOTPLUG_NIC_POWEROFF
HOTPLUG_RESIZE HOTPLUG_SAVEAS_UNDEPLOYED HOTPLUG_SAVEAS_STOPPED BACKUP
BACKUP_POWEROFF RESTORE"
# Host states: include/Host.h (enum HostState, str_to_state).
HOST_STATES="INIT MONITORED ERROR DISABLED OFFLINE"
# Virtual network states: include/VirtualNetwork.h (str_to_state); INIT is
# refused by src/hm/HookStateVirtualNetwork.cc parse_template.
NET_STATES="READY LOCK_CREATE LOCK_DELETE DONE ERROR UPDATE_FAILURE"
# API calls: src/rm/xml-rpc/RequestManagerXRPC.cc (src/rm/RequestManager.cc
# in 6.x); the ones a hook of ours may name.
API_CALLS="one.vm.attachnic one.vm.detachnic one.vn.allocate one.vn.delete
one.vn.update one.vn.rename one.host.allocate one.host.delete
one.cluster.addhost one.cluster.delhost one.cluster.addvnet one.cluster.delvnet
one.vm.allocate one.template.instantiate"

# What must be covered (design decision 7): a VM placed on a host, moved,
# settled, taken off it, failed; NICs changed; InfiniBand networks, hosts
# and cluster membership changed; and (decision 12) a VM created, held or
# not, which gets the free-VF term.
NEED_STATE="VM/ACTIVE/PROLOG VM/ACTIVE/BOOT VM/ACTIVE/RUNNING
VM/ACTIVE/BOOT_POWEROFF VM/ACTIVE/BOOT_SUSPENDED
VM/ACTIVE/PROLOG_RESUME VM/ACTIVE/PROLOG_UNDEPLOY VM/ACTIVE/MIGRATE
VM/ACTIVE/PROLOG_MIGRATE VM/ACTIVE/PROLOG_MIGRATE_POWEROFF
VM/ACTIVE/PROLOG_MIGRATE_SUSPEND VM/ACTIVE/PROLOG_MIGRATE_UNKNOWN
VM/POWEROFF/LCM_INIT VM/SUSPENDED/LCM_INIT VM/STOPPED/LCM_INIT
VM/UNDEPLOYED/LCM_INIT VM/DONE/LCM_INIT VM/PENDING/LCM_INIT
HOST/MONITORED/ NET/READY/ NET/DONE/"
for s in $LCM_STATES; do
	case $s in *_FAILURE) NEED_STATE="$NEED_STATE VM/ACTIVE/$s" ;; esac
done
NEED_API=$API_CALLS

in_list() { # WORD LIST
	case " $(echo $2) " in *" $1 "*) return 0 ;; esac
	return 1
}

# attr FILE KEY: the value of KEY = "value"
attr() { sed -n "s/^$2 *= *\"\(.*\)\"\$/\1/p" "$1"; }

D=$TOP/templates/hooks
install_tree "$TEST_TMP/inst" 2>/dev/null
R=$TEST_TMP/inst/var/lib/one/remotes
assert_ok "README.md says how to create them" -- grep -q 'onehook create' "$D/README.md"
files=$(ls "$D"/*.tmpl 2>/dev/null)
assert_match . "$files" "there are templates"

: >"$TEST_TMP/names"
: >"$TEST_TMP/keys"
for f in $files; do
	b=$(basename "$f" .tmpl)
	# the part of OpenNebula's template syntax we use: comments, blank
	# lines, KEY = "value" (src/parsers/template_parser.l)
	bad=$(grep -Ev '^(#.*|[[:space:]]*|[A-Z_]+ *= *"[^"]*")$' "$f")
	assert_eq "" "$bad" "$b: only comments and KEY = \"value\" lines"
	dup=$(sed -n 's/^\([A-Z_]*\) *=.*/\1/p' "$f" | sort | uniq -d)
	assert_eq "" "$dup" "$b: no attribute twice"
	name=$(attr "$f" NAME) type=$(attr "$f" TYPE) cmd=$(attr "$f" COMMAND)
	assert_eq "$b" "$name" "$b: NAME is the file's name"
	echo "$name" >>"$TEST_TMP/names"
	assert_eq oneib-partitions "${cmd%% *}" "$b: COMMAND is the hook, relative (remotes/hooks)"
	assert_ok "$b: the hook COMMAND names is installed" -- test -x "$R/hooks/${cmd%% *}"
	assert_eq NO "$(attr "$f" REMOTE)" "$b: REMOTE=NO: runs on the front-end"
	# the event the hook reads (design decision 12): a VM's own events
	# name their VM, on stdin (a VM's body can outgrow a command line);
	# a new VM is found by its ID; any other event lists every VM
	case $(attr "$f" RESOURCE)/$(attr "$f" CALL) in
	VM/) want='vm-state $TEMPLATE' ;;
	/one.vm.attachnic | /one.vm.detachnic) want='vm-nic $API' ;;
	/one.vm.allocate | /one.template.instantiate) want=vm-new ;;
	*) want= ;;
	esac
	assert_eq "$want" "$(attr "$f" ARGUMENTS)" "$b: ARGUMENTS '$want'"
	case $want in
	*' $'*)
		assert_eq "oneib-partitions --event-stdin" "$cmd" "$b: the hook reads its event on stdin"
		assert_eq yes "$(attr "$f" ARGUMENTS_STDIN)" "$b: ARGUMENTS_STDIN=yes" ;;
	*)
		assert_eq oneib-partitions "$cmd" "$b: COMMAND is the hook alone"
		assert_eq "" "$(attr "$f" ARGUMENTS_STDIN)" "$b: no ARGUMENTS_STDIN" ;;
	esac
	case $type in
	state)
		res=$(attr "$f" RESOURCE) st=$(attr "$f" STATE) lcm=$(attr "$f" LCM_STATE)
		case $res in
		VM)
			assert_eq CUSTOM "$(attr "$f" ON)" "$b: ON=CUSTOM (required for VM hooks)"
			assert_ok "$b: STATE '$st' is a VM state" -- in_list "$st" "$VM_STATES"
			assert_ok "$b: LCM_STATE '$lcm' is an LCM state" -- in_list "$lcm" "$LCM_STATES"
			# a VM has an LCM state only while ACTIVE: other pairs never fire
			if [ "$st" = ACTIVE ]; then
				assert_ok "$b: ACTIVE with an LCM state" -- test "$lcm" != LCM_INIT
			else
				assert_eq LCM_INIT "$lcm" "$b: $st with LCM_INIT"
			fi
			;;
		HOST)
			assert_ok "$b: STATE '$st' is a host state" -- in_list "$st" "$HOST_STATES"
			assert_eq "" "$lcm" "$b: no LCM_STATE for a host"
			;;
		NET)
			assert_ok "$b: STATE '$st' is a network state" -- in_list "$st" "$NET_STATES"
			assert_eq "" "$lcm" "$b: no LCM_STATE for a network"
			;;
		*) assert_eq "VM, HOST or NET" "$res" "$b: RESOURCE" ;;
		esac
		# the key onehem-server.rb subscribes the hook with
		echo "$res/$st/$lcm" >>"$TEST_TMP/keys"
		;;
	api)
		call=$(attr "$f" CALL)
		assert_ok "$b: CALL '$call' is an OpenNebula API call" -- in_list "$call" "$API_CALLS"
		assert_eq "" "$(attr "$f" RESOURCE)$(attr "$f" STATE)" "$b: no RESOURCE/STATE on an api hook"
		echo "$call" >>"$TEST_TMP/keys"
		;;
	*) assert_eq "state or api" "$type" "$b: TYPE" ;;
	esac
done

assert_eq "" "$(sort "$TEST_TMP/names" | uniq -d)" "NAMEs are unique"
assert_eq "" "$(sort "$TEST_TMP/keys" | uniq -d)" "no trigger has two hooks"
for k in $NEED_STATE $NEED_API; do
	assert_ok "covers $k" -- grep -qx -- "$k" "$TEST_TMP/keys"
done
test_done
