#!/bin/bash
# The randomized life cycle (tests/lib/stress.sh): two simulated hosts,
# STRESS_WORKERS (8) VMs driven side by side through deploy, shutdown,
# cancel, NIC attach/detach, save, restore on the same or the other host
# and live migration (to the other host, by migrate or migrate_local, and
# to its own, which oned refuses), reconcile among them after a wall clock
# step, about STRESS_KILL % (10) of the actions killed with -9 mid-way and
# retried; after every round: no VF in two domains, no GUID leased twice,
# every running VM's IB NICs with their VFs, leased and programmed with
# their GUIDs, nothing else held, leased or programmed, the ledgers as
# libvirt says, and the partitions model equal to the leased GUIDs.
#
# In make check the short form: a fixed seed (STRESS_SEED, 1) and a fixed
# number of rounds (STRESS_ROUNDS, 14: about a minute on an idle 2-core
# machine), one check each, so that a loaded machine runs the same rounds
# as an idle one, only slower (issue 30: by time, a loaded run did 5).
# `make stress` runs it by time, long, and prints every step, kill,
# refusal and violation (STRESS_SEED, STRESS_SECONDS).
# The short form prints a round's steps only after a violation in it, so
# that the first lines of a failed run say what broke (STRESS_STEPS).
: "${STRESS_STEPS:=0}"
[ -n "${STRESS_SECONDS:-}" ] || : "${STRESS_ROUNDS:=14}"
TEST_TIMEOUT=${TEST_TIMEOUT:-$((${STRESS_SECONDS:-$((STRESS_ROUNDS * 30))} * 2 + 240))}
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
. "$TOP/tests/lib/stress.sh"
stress_setup
stress_run "${STRESS_SECONDS:-0}" "${STRESS_ROUNDS:-}"
say "$(stress_summary)"
test_done
