#!/bin/sh
# kvm-ib monitoring probe, class host/monitor (every 120 s by default):
# free VFs, for SCHED_REQUIREMENTS = "IB_VFS_FREE > 0",
#   IB_VFS_FREE=14
#   IB_PF_FREE=[ ADDRESS="0000:3b:00.0", PORT="1", IB_VFS_FREE="7" ]
# Same calling convention and the same never-fail rule as oneib-inventory.sh.

bin="$(dirname "$0")/../../../../ib/bin/oneib-discover"

if out=$("$bin" --format=one-monitor); then
	printf '%s\n' "$out"
else
	echo 'IB_VFS_FREE=0'
fi
exit 0
