#!/bin/sh
# kvm-ib monitoring probe, class host/system (every 600 s by default):
# the host's SR-IOV InfiniBand inventory as OpenNebula attributes,
#   IB_SRIOV="YES"
#   IB_PF=[ ADDRESS="0000:3b:00.0", IBDEV="mlx5_0", PORT="1", ... ]
# Called like every stock probe: <probe> <IM_MAD> <host_id> <hostname>, with
# the monitor configuration on stdin (not needed here).
#
# A probe that exits non-zero fails every probe of its class, so whatever
# happens this one reports and exits 0; oneib-discover's warnings go to
# stderr, which monitord logs.

bin="$(dirname "$0")/../../../../ib/bin/oneib-discover"

if out=$("$bin" --format=one-system); then
	printf '%s\n' "$out"
else
	echo 'IB_SRIOV="NO"'
fi
exit 0
