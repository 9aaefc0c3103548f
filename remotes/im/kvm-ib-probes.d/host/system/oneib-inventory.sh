#!/bin/sh
# kvm-ib monitoring probe, class host/system (every 600 s by default):
# the host's SR-IOV InfiniBand inventory, its place in the fabric and its
# free VFs as OpenNebula attributes,
#   IB_SRIOV="YES"
#   IB_NOT_READY=""   (or "mlx5_1 port 1 (0000:af:00.0): no IPoIB netdev, ...")
#   IB_LEAVES=",0x248a070300f4c1a0,"   the leaf switches of the ready ports
#   IB_NO_LEAF=""     (or "PF 0000:3b:00.0 port 1: sudo: a password is required")
#   IB_PF=[ ADDRESS="0000:3b:00.0", IBDEV="mlx5_0", PORT="1", ...,
#           PKEY_CAP="128", PKEY_USED="3", LEAF_GUID="0x248a070300f4c1a0",
#           LEAF_PORT="17", LEAF_DESC="MF0;leaf01:MQM8700/U1", PEER_TYPE="switch" ]
#   IB_VFS_FREE=14
#   IB_ERROR=""
#   IB_PF_FREE=[ ADDRESS="0000:3b:00.0", PORT="1", IB_VFS_FREE="7" ]
#   IB_NUMA=[ NODE="0", VFS_FREE="7" ]
# The leaf switch of each port comes from oneib-peer, run as root through
# ONEIB_PEER (kvm-ibrc; only root may send the SMP that asks it): a port
# whose leaf cannot be learnt keeps LEAF_* empty, and IB_NO_LEAF says why.
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
	echo 'IB_VFS_USABLE=0'
	echo 'IB_ERROR="oneib-discover failed on this host, see the monitoring log"'
fi
exit 0
