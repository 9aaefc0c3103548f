#!/bin/sh
# kvm-ib monitoring probe, class host/system (every 600 s by default):
# the host's SR-IOV InfiniBand inventory and its free VFs as OpenNebula
# attributes,
#   IB_SRIOV="YES"
#   IB_NOT_READY=""   (or "mlx5_1 port 1 (0000:af:00.0): no IPoIB netdev, ...")
#   IB_PF=[ ADDRESS="0000:3b:00.0", IBDEV="mlx5_0", PORT="1", ... ]
#   IB_VFS_FREE=14
#   IB_ERROR=""
#   IB_PF_FREE=[ ADDRESS="0000:3b:00.0", PORT="1", IB_VFS_FREE="7" ]
# Called like every stock probe: <probe> <IM_MAD> <host_id> <hostname>, with
# the monitor configuration on stdin (not needed here).
#
# This class is the one whose attributes reach the host's template, where
# `onehost show` and SCHED_REQUIREMENTS see them: monitord keeps only
# CPU, memory, network and NUMA figures of host/monitor messages (one:
# src/monitor/src/monitor/HostMonitorManager.cc monitor_host,
# HostMonitoringTemplate.cc). IB_ERROR names what keeps the host from
# taking VMs with InfiniBand (a lease ledger that does not parse: every
# VF then counts as taken); it is "" when all is well, so a repaired host
# clears it.
#
# A probe that exits non-zero fails every probe of its class, so whatever
# happens this one reports and exits 0; oneib-discover's warnings go to
# stderr, which monitord logs.

ONEIB_REMOTES="$(dirname "$0")/../../../.."
oneib_discover() { return 1; } # until ib/helpers.sh defines it
# shellcheck source=../../../../ib/helpers.sh
[ ! -r "$ONEIB_REMOTES/ib/helpers.sh" ] || . "$ONEIB_REMOTES/ib/helpers.sh"

# (Without ONEIB_PKEY the host programs no VF: no IPoIB netdev is needed.)
if out=$(oneib_discover one); then
	printf '%s\n' "$out"
else
	echo 'IB_SRIOV="NO"'
	echo 'IB_VFS_FREE=0'
	echo 'IB_ERROR="oneib-discover failed on this host, see the monitoring log"'
fi
exit 0
