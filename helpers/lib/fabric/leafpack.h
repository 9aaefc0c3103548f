/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Virtual clusters packed by leaf switch (design decision 12): the leaf
 * each InfiniBand VM the scheduler is about to place should go under, a
 * pure function of one reading of the cloud (cloudfacts.h) and of the
 * free-VF counters (vfcount.h). The front-end hook writes it into the
 * VM's requirement as the leaf term (schedreq.h),
 *   IB_LEAVES = "*,0x0002c90200000a00,*"
 * and the scheduler picks the host under that leaf by its own rank.
 *
 * A virtual cluster is the VMs with a NIC on one InfiniBand network (the
 * network of a VM's first InfiniBand NIC on no service network,
 * cloudfacts.h: a service network's VMs are other tenants'; a VM on
 * service networks only is in no cluster, placed by its VF term alone). Its IB_PLACEMENT says how:
 *   pack (default)  the leaves the cluster already uses (its VMs there,
 *                   most first), then the leaves with the most room; it
 *                   spreads over more leaves only when it must
 *   spread          the leaves it uses least, then the most room
 *   none            no leaf term: anywhere the VF term allows
 * Room is what the counters leave free on the hosts under a leaf that
 * the scheduler uses (MONITORED) in the network's clusters, less what the
 * VMs chosen before took; a leaf fits a VM with N InfiniBand NICs when
 * one such host has N free (all of a VM's VFs come from its host). Ties
 * go to the lower switch GUID, so every run chooses alike.
 *
 * Per rail (design decision 15), where a host's probe says what each rail
 * has (railfit.h): a leaf's room is what the rails cabled to it have left,
 * a VM counted on the host uses the leaves of the rails it took (its
 * rail-k NICs under rail-k leaves, so a cluster's NICs of every rail pack
 * under as few leaves of that rail as there is room), and a host fits a
 * VM only with the rails it needs (the rail term) and, with IB_AFFINITY
 * required, VFs beside its GPUs (the beside term); what a VM is given
 * comes off its rails. In a rail-optimized fabric, where each scalable
 * unit's hosts share one leaf per rail, that packs a cluster by unit.
 *
 * Who gets what, in VM ID order (a burst's VMs in the order they came):
 *   - a PENDING VM whose requirement names a leaf keeps it while that leaf
 *     still fits it (so a waiting VM's term is rewritten only when it
 *     must be), counted before any VM is given a new leaf;
 *   - every other PENDING VM gets the best leaf that fits it, or no leaf
 *     term when none fits (the VF term alone: it waits for a VF, or goes
 *     to a host whose leaf is unknown);
 *   - a VM on HOLD, STOPPED or UNDEPLOYED gets the gate (schedreq.h):
 *     when it is released or resumed it turns PENDING, the hook runs and
 *     gives it a leaf, and no scheduling cycle can place it before that;
 *   - none: no leaf term, the gate removed;
 *   - a PENDING VM a host's VMS already names is not placed again: oned
 *     dispatched it between the VM and the host listings, and it counts
 *     on that host (its VFs would count twice: a burst split wrongly).
 * Two tenants' bursts that come together part: each VM of the second
 * finds the leaf the first took with less room, and its own cluster's
 * VMs follow it.
 */
#ifndef ONEIB_LEAFPACK_H
#define ONEIB_LEAFPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/cloudfacts.h"
#include "fabric/schedreq.h"

struct leaf_pick {
	bool to_place; /* an InfiniBand VM the scheduler will place */
	enum schedreq_leaf has; /* its leaf term */
	uint64_t leaf; /* SR_LEAF: the switch */
	enum schedreq_leaf had; /* to_place: the term its requirement has */
	uint64_t had_leaf; /* had SR_LEAF: that switch */
};

/*
 * pick[i] for f->vms[i], f in vfcount_prepare's order (by VM ID).
 * 0, or -ENOMEM.
 */
int leafpack_plan(const struct cloud_facts *f, struct leaf_pick *pick);

#endif
