/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rule that gives an InfiniBand NIC its rail (design decision 15),
 * the one home of it: the host leases by it (host/placement.h, over its
 * HCAs' ports and VFs) and the front-end counts by it (fabric/railfit.h,
 * over the rails the probe published). Each port a NIC may use is a
 * candidate; the caller says what it knows of each:
 *
 *   rail 2, 0 siblings there, under the paired GPU's switch, 2 bridges
 *   shared, on the pinned node, not the hinted rail, a VF free
 *   -> { .rail = 2, .near = PCI_NEAR_SWITCH, .shared = 2, .has_free }
 *
 * The candidates with a free VF are ranked, best first, by:
 *   1. the rail the NIC had (hinted: a restore or a migration);
 *   2. the fewest siblings' VFs on its rail (the caller gives 0 for all
 *      when the network packs, IB_RAILS pack);
 *   3. nearest the paired GPU (PCI_NEAR_NONE for all without one), then
 *      the most bridges shared with it;
 *   4. on the NUMA nodes of the VM's pinned vCPUs;
 *   5. a rail before none, then rail order; of equals, the first given.
 * "Beside" the GPU is as near as the candidates with the fewest siblings
 * come to it, free VFs or not (rail_beside); IB_AFFINITY required takes
 * no candidate farther than that.
 *
 *   HGX host, NIC 1 of a VM whose NIC 0 took rail 0, paired with GPU 1
 *   under the switch of rails 0 and 1: beside = switch (rail 1 has no
 *   sibling); rail 1 wins on rule 2.
 */
#ifndef ONEIB_RAILRANK_H
#define ONEIB_RAILRANK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pciplace.h"

struct rail_cand {
	int rail; /* -1: none */
	int siblings; /* the NIC's siblings' VFs on its rail (spread) */
	enum pci_near near; /* to the paired GPU */
	long shared; /* bridges shared with it, within PCI_NEAR_SWITCH */
	bool off_node; /* not on a pinned vCPU's node (when pinned) */
	bool hinted; /* the rail the NIC had */
	bool has_free; /* a VF can be leased there */
};

/* How near the candidates with the fewest siblings come to the GPU. */
enum pci_near rail_beside(const struct rail_cand *c, size_t n);

/*
 * The best candidate with a free VF, none farther than want when
 * required: its index, or -1.
 */
long rail_choose(const struct rail_cand *c, size_t n, bool required,
		 enum pci_near want);

/*
 * The device NIC k of n (the VM's InfiniBand NICs that pair, IB_AFFINITY
 * not none, in NIC order) pairs with, of g in deployment order: GPU k when
 * there are as many, else k * g / n (8 NICs on 2 GPUs: NICs 0-3 with GPU
 * 0, 4-7 with GPU 1; 2 NICs on 8 GPUs: GPUs 0 and 4). -1 when g is 0.
 */
int rail_pair(size_t k, size_t n, size_t g);

#endif
