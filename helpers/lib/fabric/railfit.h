/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The free-VF counters per rail (design decisions 12 and 15): what each
 * rail of a host has left once the VMs oned has put there are counted,
 * and whether a VM's NICs would get VFs there as deploy leases them, a
 * pure function of one reading of the cloud (cloudfacts.h).
 *
 * What the front-end knows of a host is what its probe published
 * (IB_RAIL with VFS_USABLE, IB_PF's places, IB_PCI's places) and oned's
 * own state (VMS, HOST_SHARE's PCI devices and who has them); it never
 * sees the ledger. So each rail starts from VFS_USABLE (free, or leased
 * to the cloud's VMs: a figure that a VM coming or going does not move)
 * and every VM on the host, in ID order, takes its NICs' VFs by the rule
 * deploy leases by (core/railrank.h): its NICs in order, the siblings on
 * one network apart, each paired NIC beside its GPU (the devices oned
 * gave it, PCI/ADDRESS). That is the host's own choice but for what the
 * front-end cannot see: the NUMA nodes of pinned vCPUs (rule 4), the
 * rails a migrated VM kept (rule 1), the order deploys really came in,
 * ports without a rail, and two-level switches (pciplace.h): where they
 * differ, the count of a rail is an estimate, and deploy's own check
 * (a refusal, one line) stays the last word.
 *
 *   hgx (8 rails of 8 VFs), VM 3 with 4 GPUs (node 0's) and 4 NICs:
 *   rails 0-3 have 7 left, 4-7 have 8: IB_RAILS_AVAIL 8.
 *
 * What a VM to place needs there (railfit_vm), oned's own choice of its
 * PCI devices foreseen: HostSharePCI gives SHORT_ADDRESS requests that
 * device, then each VENDOR/DEVICE/CLASS request the first free matching
 * device by ADDRESS (reference/gpu-multirail.md §1.1), which is the
 * scheduler's test too. It fits when every InfiniBand NIC gets a VF and
 * each NIC with IB_AFFINITY required one beside its GPU (rail_beside: the
 * VM's own NICs taking the rails under a GPU's switch make the next one
 * beside it). That the NICs of a spread network get distinct rails is the
 * rail term's (railfit_need against IB_RAILS_AVAIL).
 */
#ifndef ONEIB_RAILFIT_H
#define ONEIB_RAILFIT_H

#include <stdbool.h>

#include "fabric/cloudfacts.h"

/* A VF a VM counted on the host took: on rail entry h->rails[rail]. */
struct railfit_took {
	int vm;
	size_t rail;
};

/* One host's rails as the counters see them. */
struct railfit {
	const struct host_fact *h;
	long *left; /* per h->rails[i]: VFs left */
	bool *taken; /* per h->pcis[i]: a VM has it, or is planned to */
	struct railfit_took *took; /* what railfit_init counted, in order */
	size_t ntook;
};

/*
 * rf for host h of f (vfcount_prepare'd), its VMs counted. 0, -ENOENT
 * when VMS names a VM the listing lacks (rf is then all usable), or
 * -ENOMEM.
 */
int railfit_init(struct railfit *rf, const struct cloud_facts *f,
		 const struct host_fact *h);
void railfit_free(struct railfit *rf);

/* How many rails (by number) have a VF left: IB_RAILS_AVAIL. */
long railfit_avail(const struct railfit *rf);

/*
 * The rails VM v needs: the most of its InfiniBand NICs on one spread
 * network (its term, schedreq.h, when 2 or more).
 */
int railfit_need(const struct cloud_facts *f, const struct vm_fact *v);

/* Does v have a NIC with IB_AFFINITY required, and ask for PCI devices? */
bool railfit_required(const struct cloud_facts *f, const struct vm_fact *v);

/*
 * Would v's NICs get VFs on rf's host (above)? take: they and the devices
 * oned would give it are taken from rf, fit or not.
 */
bool railfit_vm(struct railfit *rf, const struct cloud_facts *f,
		const struct vm_fact *v, bool take);

#endif
