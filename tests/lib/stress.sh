# shellcheck shell=bash
# tests/lib/stress.sh - the randomized life cycle: two simulated hosts
# (tests/lib/hosts.sh), STRESS_WORKERS VMs, each driven by its own worker
# through every action oned has for it (deploy, shutdown, cancel, NIC
# attach and detach, save, restore on the same or the other host, live
# migration), side by side, with the monitoring probe's reconcile running
# among them after the wall clock stepped forward; about STRESS_KILL % of
# the actions killed with -9 (the driver's scripts and the front-end's
# step sequence alike) at a random moment, then retried once as `onevm
# recover --retry` or the user would. After every round, all quiet, the
# invariants:
#   - no VF in two domains, no GUID leased on two hosts;
#   - every running VM's IB NICs have a VF in its domain on its host,
#     leased and programmed with the NIC's GUID; no other VF held, leased
#     or programmed; no reservation left (cloud_agrees' view);
#   - the partitions rendered from oned's view hold exactly the leased
#     GUIDs.
# Sourced after test-lib.sh and hosts.sh;
# tests/e2e/t0620-lifecycle-stress.sh runs it (short, in make check) and
# `make stress` (long: STRESS_SEED, STRESS_SECONDS).
#
#   stress_setup           the hosts and the VMs
#   stress_run SECONDS [ROUNDS]
#                          rounds until SECONDS have passed, or exactly
#                          ROUNDS rounds (make check: the same rounds and
#                          checks on a slow machine as on a fast one); prints every
#                          violation, and every step, kill and refusal
#                          (STRESS_STEPS=1, the default) or only those of
#                          a round with a violation, after it
#                          (STRESS_STEPS=0); one check (assert) per round
#   stress_summary         "stress: seed S, N rounds, N steps, N kills, ..."

: "${STRESS_SEED:=1}" "${STRESS_WORKERS:=8}" "${STRESS_KILL:=10}" "${STRESS_STEPS:=1}"
_st_steps=0 _st_kills=0 _st_refusals=0 _st_violations=0 _st_rounds=0
_st_probes=0 _st_recovered=0

stress_setup() {
	local w net
	sim_two_hvs cx5
	# 7 VFs a host, programmable (MLNX_OFED files); read by hosts.sh
	SIM_IB_PF=0000:3b:00.0
	export SIM_IB_PF
	RANDOM=$STRESS_SEED
	for ((w = 1; w <= STRESS_WORKERS; w++)); do
		net=$((w % 2 ? 5 : 7))
		one_vm_new $((100 + w)) "0/02:00:c0:a8:$(printf %02x "$w"):00/$net"
		mkdir -p "$TEST_TMP/w$w"
	done
}

# The VM of worker W; its IB NICs as "ID MAC VNET" lines.
_st_vm() { echo $((100 + $1)); }
_st_nics() { cat "$(_vmd "$1")/nics"; }
_st_other() { [ "$1" = hv1 ] && echo hv2 || echo hv1; }

# The action worker W's VM gets this round, from oned's state, in
# _st_cmd as the words of a one_* call ("one_save 103"), "" for none.
# No command substitution around RANDOM: a subshell would not move the
# seed's sequence on.
_st_choose() { # W
	local vm host n next r=$((RANDOM % 100)) r2=$((RANDOM % 100)) r3=$((RANDOM % 12))
	vm=$(_st_vm "$1")
	host=$(vm_host "$vm")
	n=$(_st_nics "$vm" | grep -c '')
	_st_cmd=
	case $(vm_state "$vm") in
	"1 0" | "9 0") _st_cmd="one_deploy_vm $vm hv$((r2 % 2 + 1))" ;;
	"8 0") _st_cmd="one_deploy_vm $vm $host" && [ "$r2" -lt 25 ] && _st_cmd="one_deploy_vm $vm $(_st_other "$host")" ;;
	"5 0") _st_cmd="one_restore $vm $host" && [ "$r2" -lt 40 ] && _st_cmd="one_restore $vm $(_st_other "$host")" ;;
	"3 3")
		next=$(($(_st_nics "$vm" | awk '{ print $1 }' | sort -n | tail -n 1) + 1))
		if [ $r -lt 8 ]; then
			_st_cmd="one_shutdown $vm"
		elif [ $r -lt 16 ]; then
			_st_cmd="one_cancel $vm"
		elif [ $r -lt 34 ] && [ "$n" -lt 3 ]; then
			_st_cmd="one_attach_nic $vm $next/02:00:c0:a8:$(printf %02x "$1"):$(printf %02x "$next")/$((r2 % 2 ? 5 : 7))"
		elif [ $r -lt 50 ] && [ "$n" -gt 1 ]; then
			_st_cmd="one_detach_nic $vm $(_st_nics "$vm" | awk '{ print $1 }' | sed -n "$((r2 % n + 1))p")"
		elif [ $r -lt 70 ]; then
			_st_cmd="one_save $vm"
		elif [ $r -lt 74 ]; then
			_st_cmd="one_migrate $vm $host" # oned refuses: its own host
		else
			_st_cmd="one_migrate $vm $(_st_other "$host")"
			[ "$r3" = 0 ] && _st_cmd="$_st_cmd 1" # migrate_local
		fi
		;;
	esac
}

# Every descendant of PID, deepest first.
_st_tree() {
	local c
	for c in $(pgrep -P "$1"); do _st_tree "$c"; done
	echo "$1"
}

# Kill PID and everything it started, as a crash would: stopped first (so
# that nothing forks past us), then killed.
_st_kill_tree() {
	local pass pids=
	for pass in 1 2 3; do
		pids=$(_st_tree "$1")
		# shellcheck disable=SC2086 # one pid a word
		kill -STOP $pids 2>/dev/null || [ "$pass" = 3 ]
	done
	pids=$(_st_tree "$1")
	# shellcheck disable=SC2086 # one pid a word
	kill -KILL $pids 2>/dev/null
}

# One worker's round: its action (killed after KILL_MS ms if > 0, then
# its VM put back as oned keeps it after a failed action and the action
# retried); its report lines in $TEST_TMP/wW/report.
_st_work() { # W KILL_MS ACTION...
	local w=$1 ms=$2 vm pid out d
	shift 2
	vm=$2
	d=$(_vmd "$vm")
	SIM_STEP_DIR=$TEST_TMP/w$w
	export SIM_STEP_DIR
	: >"$SIM_STEP_DIR/report"
	rm -rf "$d.bak" && cp -a "$d" "$d.bak"
	if [ "$ms" -gt 0 ]; then
		("$@" >"$SIM_STEP_DIR/out" 2>&1) &
		pid=$!
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		if kill -0 "$pid" 2>/dev/null; then
			_st_kill_tree "$pid"
			wait "$pid" 2>/dev/null
			echo "kill VM $vm: $* killed after $ms ms" >>"$SIM_STEP_DIR/report"
			# oned: the action failed; the VM as it was before it
			rm -rf "$d" && mv "$d.bak" "$d"
		else
			wait "$pid"
			ms=0
		fi
	else
		"$@" >"$SIM_STEP_DIR/out" 2>&1
	fi
	[ "$ms" -gt 0 ] && "$@" >"$SIM_STEP_DIR/out" 2>&1 # the retry
	out=$(grep -E '^[A-Z]+ (SUCCESS|FAILURE)' "$SIM_STEP_DIR/out" | tail -n 1)
	echo "step VM $vm: $*$([ "$ms" -gt 0 ] && echo " (retried)"): ${out:-no answer}" >>"$SIM_STEP_DIR/report"
	case $out in
	*SUCCESS) ;;
	"DEPLOY FAILURE"*)
		if on "$(vm_host "$vm")" virsh domstate "one-$vm" 2>/dev/null | grep -q running; then
			# its domain runs: deployed by the killed try, the stock
			# deploy's retry cannot create it again; onevm recover --success
			_vm_set "$vm" deploy_id "$(on "$(vm_host "$vm")" virsh domuuid "one-$vm" | sed '/^$/d')"
			_vm_set "$vm" state "3 3"
			echo "recovered VM $vm: its domain runs, onevm recover --success" >>"$SIM_STEP_DIR/report"
		else
			echo "refused VM $vm: $out" >>"$SIM_STEP_DIR/report"
			# BOOT_FAILURE: onevm undeploy --hard
			one_cancel "$vm" "9 0" >/dev/null 2>&1
		fi
		;;
	*) echo "refused VM $vm: $out" >>"$SIM_STEP_DIR/report" ;;
	esac
	rm -rf "$d.bak"
}

# The monitoring probe on HOST after the wall clock stepped forward (every
# lease's since made 0): reconcile must not take a lease a live action uses.
_st_probe() { # HOST
	on "$1" bash -c "$(declare -f ledger_age); ledger_age --wall"
	on "$1" sh /var/tmp/one/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh kvm-ib 1 "$1" </dev/null >/dev/null
}

# The invariants, one line per violation.
stress_violations() {
	local h net
	for h in hv1 hv2; do
		_host_view "$h"
	done | sort >"$TEST_TMP/real.view"
	_oned_view | sort >"$TEST_TMP/oned.view"
	diff "$TEST_TMP/oned.view" "$TEST_TMP/real.view" | sed -n 's/^< /oned says, the hosts do not: /p; s/^> /the hosts have, oned does not say: /p'
	for h in hv1 hv2; do
		awk -v h="$h" '$1 == "held" { n[$3]++; d[$3] = d[$3] " " $2 }
			END { for (v in n) if (n[v] > 1) print h " VF " v " in " n[v] " domains:" d[v] }' "$TEST_TMP/facts.$h"
	done
	awk '$1 == "lease" && $7 == "leased" { n[$5]++ } END { for (g in n) if (n[g] > 1) print "GUID " g " leased " n[g] " times" }' \
		"$TEST_TMP"/facts.hv1 "$TEST_TMP"/facts.hv2
	cloud_xml >"$TEST_TMP/cloud.xml"
	for net in 5 7; do
		[ "$(_leased_guids "$net")" = "$(partition_vm_members "$net")" ] ||
			echo "partition of VNET $net: members $(partition_vm_members "$net"), leased $(_leased_guids "$net")"
	done
}

stress_run() { # SECONDS [ROUNDS]
	local end=$((SECONDS + $1)) rounds=${2:-} w cmd ms pids v
	while if [ -n "$rounds" ]; then [ "$_st_rounds" -lt "$rounds" ]; else [ "$SECONDS" -lt "$end" ]; fi; do
		_st_rounds=$((_st_rounds + 1))
		pids=()
		for ((w = 1; w <= STRESS_WORKERS; w++)); do
			_st_choose "$w"
			cmd=$_st_cmd
			[ -n "$cmd" ] || continue
			ms=0
			[ $((RANDOM % 100)) -lt "$STRESS_KILL" ] && ms=$((RANDOM % 1500 + 1))
			# shellcheck disable=SC2086 # the call's words
			_st_work "$w" "$ms" $cmd 2>"$TEST_TMP/w$w/worker.err" &
			pids+=($!)
		done
		if [ $((RANDOM % 2)) = 0 ]; then
			_st_probe "hv$((RANDOM % 2 + 1))" &
			pids+=($!)
			_st_probes=$((_st_probes + 1))
		fi
		wait "${pids[@]}"
		mv "$TEST_TMP/round.steps" "$TEST_TMP/round.steps.before" 2>/dev/null
		: >"$TEST_TMP/round.steps"
		for ((w = 1; w <= STRESS_WORKERS; w++)); do
			[ -s "$TEST_TMP/w$w/report" ] || continue
			sed "s/^/round $_st_rounds: /; s/^/# /" "$TEST_TMP/w$w/report" >>"$TEST_TMP/round.steps"
			_st_steps=$((_st_steps + $(grep -c '^step ' "$TEST_TMP/w$w/report")))
			_st_kills=$((_st_kills + $(grep -c '^kill ' "$TEST_TMP/w$w/report")))
			_st_refusals=$((_st_refusals + $(grep -c '^refused ' "$TEST_TMP/w$w/report")))
			_st_recovered=$((_st_recovered + $(grep -c '^recovered ' "$TEST_TMP/w$w/report")))
			: >"$TEST_TMP/w$w/report"
		done
		v=$(stress_violations)
		[ "$STRESS_STEPS" = 1 ] && cat "$TEST_TMP/round.steps"
		if [ -n "$v" ]; then
			_st_violations=$((_st_violations + $(printf '%s\n' "$v" | grep -c '')))
			printf '%s\n' "$v" | sed "s/^/# round $_st_rounds: violation: /"
			# the steps that led there (this round's and the one
			# before), when they were not printed yet
			[ "$STRESS_STEPS" = 1 ] || cat "$TEST_TMP/round.steps.before" "$TEST_TMP/round.steps" 2>/dev/null
		fi
		assert_eq "" "$v" "round $_st_rounds: the invariants hold"
		# a violation found is reported once, then the run goes on from
		# what oned believes: hosts healed by the next actions or not
	done
}

stress_summary() {
	echo "stress: seed $STRESS_SEED, $STRESS_WORKERS workers, $_st_rounds rounds, $_st_steps steps, $_st_kills kills, $_st_refusals refusals, $_st_recovered recovered, $_st_probes probes, $_st_violations violations"
}
