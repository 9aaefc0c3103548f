/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VM listing the front-end hook keeps between its runs (design
 * decision 12: at most one second per VM event at 10,000 VMs), so that an
 * event lists only the VMs it changed (one.vmpool.infoset) instead of the
 * whole pool.
 *
 * It is one <VM_POOL> document, each VM reduced to what the pool reader
 * makes the facts of (fabric/poolread.h: ID, STATE, the NICs, the host,
 * the requirement, one-ib's CONTEXT map; a fifth of a listing's bytes),
 * one per ID in ascending order, no DONE VM: read back, it gives the facts
 * the full listing gives. Its first line says where VMs made since begin,
 * one above every ID it read (a DONE VM's too, 0 for none), and each VM is
 * a record whose ID and length a comment before it gives (XML the reader
 * skips), so that the next run copies the records it keeps unparsed:
 *   <!-- next VM ID: 10042 -->
 *   <VM_POOL>
 *   <!-- 7 311 --><VM><ID>7</ID><STATE>3</STATE>...</VM>
 *   </VM_POOL>
 */
#ifndef ONEIB_VMCACHE_H
#define ONEIB_VMCACHE_H

#include <stddef.h>
#include <stdio.h>

/*
 * The VMs of the VM_POOL documents in paths[0..n-1] (oned's listings, an
 * earlier cache), one per ID, into out: a later file's VM replaces an
 * earlier file's of the same ID; of the first file, the VMs whose IDs are
 * in refresh[0..nrefresh-1] are dropped (asked for again: what the later
 * files hold of them is all there is, nothing when they are gone); a DONE
 * VM (STATE 6) is dropped. A first file vmcache wrote is copied record by
 * record (each record's VM must be the one its comment names, below the
 * next ID), any other file parsed. 0, or -EINVAL / -ENOMEM / -EIO with one
 * line in err, as the pool reader words it, or naming the byte:
 *   VM pool: VM element 3 has no single <ID>
 *   /var/lib/one/.oneib-partitions.lock.vms: byte 48: not a VM listing vmcache kept
 */
int vmcache_write(FILE *out, int n, char *const *paths, const int *refresh,
		  size_t nrefresh, char *err, size_t errlen);

/*
 * The next VM ID of a listing vmcache wrote (its first line), or -1 when
 * path holds none.
 */
long vmcache_next_id(const char *path);

#endif
