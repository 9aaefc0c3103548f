/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The free-VF counters the scheduler places by (design decision 12, exact
 * VF accounting), a pure function of one reading of the cloud
 * (cloudfacts.h). The probe's own count (IB_VFS_FREE, host/system, every
 * SYSTEM_HOST seconds) is a snapshot that a burst of deployments outruns;
 * these follow oned's state at every VM event and say how fresh they are.
 *
 * A host with InfiniBand PF ports shows, in its template:
 *   IB_VFS_USABLE  the VFs the cloud may lease there (the probe's: free
 *                  and leased by the cloud's VMs, on ready ports)
 *   IB_VFS_USED    the InfiniBand NICs of the VMs oned has put on it
 *                  (VMS, any state: a POWEROFF or SUSPENDED VM gets its VFs
 *                  back when it resumes, so they stay reserved)
 *   IB_VFS_AVAIL   IB_VFS_USABLE - IB_VFS_USED, never below 0
 *   IB_SYNC_VMS    how many VMs VMS held when they were counted...
 *   IB_SYNC_SUM    ...and the sum of their IDs
 *   IB_RAILS_AVAIL the rails with a VF left once those VMs are counted,
 *                  by rail (railfit.h), where the probe says what each
 *                  rail has (IB_RAIL VFS_USABLE)
 * The last two are the counters' fingerprint: oned adds a VM to its host's
 * VMS when it dispatches it, before any hook runs, so a host whose VMS no
 * longer matches its fingerprint has counters that do not count that VM
 * yet. The requirement every InfiniBand VM is scheduled by,
 *
 *   "/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and
 *          sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" > 0
 *
 * (one line; "> N-1" for a VM with N InfiniBand NICs, and the rail and
 * beside terms of schedreq.h after it; OpenNebula reads a
 * name that starts with '/' as an XPath over the host, 6.10 and 7.0
 * alike), matches a host only while its counters are current and have
 * room: a host just given a VM waits for the hook's next count, and the
 * scheduler's MAX_HOST (1 by default in both releases: one VM per host per
 * scheduling cycle) keeps one cycle from giving a host two VMs on one
 * count. schedreq.h reads and writes that requirement.
 */
#ifndef ONEIB_VFCOUNT_H
#define ONEIB_VFCOUNT_H

#include <stdbool.h>

#include <stddef.h>

#include "fabric/cloudfacts.h"

/*
 * Orders f's VMs by ID, which vfcount_vm looks them up by, and gives each
 * the network of its virtual cluster (cloudfacts.h: no service network).
 * 0 or -ENOMEM.
 */
int vfcount_prepare(struct cloud_facts *f);

/* VM id of f (after vfcount_prepare), or NULL when not listed. */
const struct vm_fact *vfcount_vm(const struct cloud_facts *f, int id);

/*
 * The counters h should show now (out[HC_USABLE] is the probe's, as
 * given; missing counts as 0 usable; out[HC_RAILS_AVAIL] -1 for a host
 * without rails that never had the count). -ENOENT when VMS names a VM the
 * listing does not hold (dispatched after the VMs were listed): then
 * nothing is known about it and the host is best left stale, which keeps
 * the scheduler off it until the next run counts it.
 */
int vfcount_host(const struct cloud_facts *f, const struct host_fact *h,
		 long out[HC_COUNT]);

/* Does the host show exactly these counters already? */
bool vfcount_current(const struct host_fact *h, const long want[HC_COUNT]);

#endif
