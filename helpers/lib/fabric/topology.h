/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a guest learns of its virtual cluster's fabric (design decision 12):
 * the map of which leaf switch each VM of its cluster is under, written
 * into the CONTEXT of a VM before it leaves PENDING, as ONEIB_TOPOLOGY
 * (core/topomap.h), for an MPI launcher to place ranks by.
 *
 * A cluster is the VMs of one InfiniBand network (the network of a VM's
 * first InfiniBand NIC on no service network, as leafpack.h counts them:
 * a tenant on the storage network learns nothing of the other tenants
 * there). Its map holds, by the
 * IPv4 address of that NIC:
 *   - each VM a host holds (VMS/ID) that the scheduler will not place
 *     again, under the host's leaf (its first port whose leaf is known);
 *   - each PENDING VM leafpack gave a leaf in this run, under that leaf.
 * Only the VMs of that network: on a tenant's own network, nothing of
 * another tenant's (users who share a network see each other's VMs in it,
 * as they share its partition). A stale map with no member left that has
 * an address is taken back with "".
 *
 * Who gets it: a PENDING VM behind the gate (schedreq.h) that leafpack
 * gives a leaf now, has a CONTEXT, and whose CONTEXT holds another map.
 * The hook writes the map (`onevm updateconf --append`) before it lifts
 * the gate, so the VM is surely still PENDING: updateconf then changes
 * only the template, and the context disk made at deploy carries it.
 * Each VM learns the cluster as it was when it was placed; a VM placed
 * later is in the maps of the VMs placed after it, not of those before
 * (one-ib-placement(7)). A VM without the gate in its requirement gets no map:
 * the scheduler could place it while the hook writes.
 */
#ifndef ONEIB_TOPOLOGY_H
#define ONEIB_TOPOLOGY_H

#include "fabric/cloudfacts.h"
#include "fabric/leafpack.h"

/*
 * out[i] for f->vms[i] (f after vfcount_prepare, pick from leafpack_plan):
 * the ONEIB_TOPOLOGY to write into its CONTEXT (malloc'd), or NULL when
 * none is to be written. 0, or -ENOMEM (out all NULL).
 */
int topology_plan(const struct cloud_facts *f, const struct leaf_pick *pick,
		  char **out);

#endif
