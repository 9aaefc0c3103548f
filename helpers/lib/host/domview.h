/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What libvirt domains hold, as a deploy sees it: read from libvirt at a
 * moment no earlier than the deploy's own start, and shared by the deploys
 * that run at once, so that a burst of them asks libvirt a few times
 * instead of once each (each asking costs ~12 ms of loading libvirt, then
 * a round trip per domain read).
 *
 * The rule that keeps libvirt the truth (design decision 5): a deploy that
 * started at t uses a view taken at t' >= t. Whatever a view taken at t'
 * misses, a scan of the deploy's own at t would have missed too.
 *
 * The view is kept in POSIX shared memory (/dev/shm, cleared at boot, never
 * on disk), one object per ledger and user, read and written
 * only by the holder of the ledger lock (a writer killed half way leaves no
 * "end" line, and a torn view is never used); only an object the user owns
 * and nobody else can write is believed:
 *
 *   /dev/shm/oneib-view-3f2a9c0d18e4b7a5
 *     # one-ib: VFs libvirt domains held when oneib-vf last asked; a cache
 *     boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 at=183340571223
 *     uri=qemu:///system
 *     vf=0000:03:00.1 vm=-
 *     vf=0000:3b:00.2 vm=42
 *     end
 *
 * boot is the kernel's boot id and at CLOCK_BOOTTIME in ns when the listing
 * started; a view of another libvirt (uri) is never used either. Deleting
 * the object is always safe.
 */
#ifndef ONEIB_DOMVIEW_H
#define ONEIB_DOMVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bootclock.h"
#include "host/virt.h"

/*
 * The domains and the PCI functions they hold, as seen at or after
 * `since` (boot_now; a boot "" is never shared): the shared view of the
 * ledger in dir (whose lock the caller
 * holds) if one that fresh is there, else a new virt_scan (need/ctx as
 * there: the domains whose holdings the caller's ledger already knows),
 * shared for the deploys queued behind. Domains of a shared view carry no
 * name ("") and hold one VF each. A view that cannot be shared (no boot id,
 * no shared memory) is still returned, just not shared.
 */
int domview_get(const char *dir, const char *uri,
		const struct boot_moment *since, virt_need_xml need, void *ctx,
		struct virt_domains *out, char *err, size_t errlen);

#endif
