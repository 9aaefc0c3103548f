#!/bin/sh
# kvm-ib monitoring probe, class host/monitor (every 120 s by default):
# free VFs,
#   IB_VFS_FREE=14
#   IB_ERROR=""
#   IB_PF_FREE=[ ADDRESS="0000:3b:00.0", PORT="1", IB_VFS_FREE="7" ]
#   IB_NUMA=[ NODE="0", VFS_FREE="7" ]
# (a port whose VFs cannot get their GUIDs, IB_NOT_READY, has none free).
# Same calling convention and the same never-fail rule as oneib-inventory.sh.
# monitord keeps none of these from this class (see oneib-inventory.sh,
# which reports them into the host's template for SCHED_REQUIREMENTS);
# they are here for a person running the probe, and for the heal below.
#
# It first heals the lease ledger from libvirt (oneib-vf reconcile: leases
# of VMs without a domain after the grace period, VFs domains hold without
# a lease), so a crash or a failed release never keeps a VF out of the pool
# for longer than one monitoring cycle past the grace period.

ONEIB_REMOTES="$(dirname "$0")/../../../.."
oneib_vf() { return 1; } # until ib/helpers.sh defines them
oneib_discover() { return 1; }
# shellcheck source=../../../../ib/helpers.sh
[ ! -r "$ONEIB_REMOTES/ib/helpers.sh" ] || . "$ONEIB_REMOTES/ib/helpers.sh"

oneib_vf reconcile --grace "$ONEIB_RECONCILE_GRACE" >/dev/null 2>&1

if out=$(oneib_discover one-monitor); then
	printf '%s\n' "$out"
else
	echo 'IB_VFS_FREE=0'
	echo 'IB_VFS_USABLE=0'
	echo 'IB_ERROR="oneib-discover failed on this host, see the monitoring log"'
fi
exit 0
