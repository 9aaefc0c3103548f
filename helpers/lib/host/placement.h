/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a VM's InfiniBand NIC gets its VF: the placement policy, as a pure
 * function of what the host has (its HCAs, ports and VFs), what the ledger
 * records, what libvirt domains hold, and what the NIC asks for.
 *
 *   NIC 0 of VM 42, IB_PF 0000:3b:00.0, vCPUs pinned to node 1
 *   -> VF 0000:3b:00.2 of PF 0000:3b:00.0 port 1
 *   or "no free VF on 0000:3b:00.0 port 1 for VM 42 (8 of 8 leased)"
 *
 * The policy:
 *   - a PF is eligible when it has a PCI address, matches the NIC's IB_PF
 *     (if any) and has an eligible port: ready (hca.h's port-ready rule:
 *     ACTIVE InfiniBand, and its VFs can get their GUIDs when the host
 *     programs them), and the NIC's IB_PORT (if any);
 *   - a VF is free when it is assignable (no host driver holds it), no
 *     lease records it and no libvirt domain holds it; an unprobed VF
 *     (struct vf.unprobed, hca_inventory) is chosen as if assignable, for
 *     the caller to probe and ask again;
 *   - PFs on the NUMA nodes of the VM's pinned vCPUs come first, then the
 *     others; PFs in address order, VFs by index, the first eligible port.
 *
 * Rails and GPUs (design decision 15) refine the order. A NIC may ask with
 * its siblings (the NIC IDs of the VM's other InfiniBand NICs on its
 * network, whose leases this host's ledger records), the rail it had (a
 * restore or migration: hint_rail), and the VM's device it is paired with
 * (a GPU: rail_pair, rq->gpu). The eligible ports with a free VF are
 * then ranked by core/railrank.h's rule (which the front-end counts by
 * too), best first:
 *   1. the rail it had, where this host has it;
 *   2. with IB_RAILS spread (the default): the fewest siblings' VFs on
 *      the port's rail, so the NICs of a network get distinct rails while
 *      rails have free VFs (a port without a rail is a rail of its own);
 *   3. with a paired GPU (IB_AFFINITY not none): nearest it (under its
 *      PCIe switch, more bridges shared first; on its NUMA node; neither);
 *   4. on the NUMA nodes of the VM's pinned vCPUs;
 *   5. a port with a rail first, then in rail order (by default PCI
 *      address order), PF address, port number; VFs by index.
 * IB_RAILS pack leaves 2 out: the first PF with a free VF, as before rails.
 *
 *   HGX host, 8 GPUs x 8 NICs: NIC k pairs with GPU k, and gets the rail
 *   under GPU k's switch its siblings have not taken: rails 0..7, each VF
 *   beside its GPU.
 *
 * "Beside" the GPU is as near as this host's ports with the fewest
 * siblings (free VFs or not) come to it: the VM's own NICs taking the
 * rails under its switch make a farther port beside it, leases of other
 * VMs do not. IB_AFFINITY required takes only ports at least that near,
 * and refuses when none of them has a free VF:
 *   VM 42 NIC 1: no free VF beside GPU 0000:17:00.0 (IB_AFFINITY required, under its PCIe switch 0000:15:00.0: rail 0 8 of 8 leased, rail 1 8 of 8 leased)
 * preferred takes the best port there is, and out->warning says why it
 * is not beside:
 *   VM 42 NIC 1: rail 2 (0000:3d:00.0 port 1) is not beside GPU 0000:17:00.0: no free VF under its PCIe switch 0000:15:00.0 (IB_AFFINITY preferred)
 */
#ifndef ONEIB_PLACEMENT_H
#define ONEIB_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/railrank.h"
#include "host/domxml.h"
#include "host/hca.h"
#include "host/lease.h"
#include "host/onexml.h"
#include "host/rails.h"
#include "host/virt.h"

/* A device of the VM a NIC pairs with: a GPU, and where it is. */
struct placement_gpu {
	struct pci_addr addr;
	struct pci_place place;
};

struct placement_request {
	int vmid;
	/* its IB_PF / IB_PORT pins, its NIC ID, IB_RAILS, IB_AFFINITY */
	const struct ib_nic *nic;
	uint64_t numa_nodes; /* bit n: prefer PFs on node n; 0: none */
	bool guids; /* the host programs VFs' GUIDs (ONEIB_PKEY set) */
	const struct placement_gpu *gpu; /* paired with; NULL: none */
	const int *siblings; /* NIC IDs on the same network */
	size_t nsiblings;
	bool has_hint; /* hint_rail: the rail it had */
	int hint_rail;
};

#define PLACEMENT_WARN_MAX 256

struct placement {
	const struct hca *pf;
	const struct ib_port *port;
	const struct vf *vf;
	enum pci_near near; /* to rq->gpu (PCI_NEAR_NONE without one) */
	char warning[PLACEMENT_WARN_MAX]; /* "" unless preferred fell back */
};

/*
 * The VF for rq, or -EBUSY with one line in err:
 *   VM 42 NIC 1: no free VF beside GPU 0000:17:00.0 (IB_AFFINITY required, ...)
 *   no free VF on 0000:3b:00.0 port 1 for VM 42 (8 of 8 leased)
 *   no free VF on 2 PFs for VM 42 (254 of 254 leased)
 *   VM 42 NIC 1: IB_PF 0000:5e:00.0 port 2 is not an ACTIVE InfiniBand port on this host
 *   no ACTIVE InfiniBand port on this host for VM 42 NIC 1
 *   VM 42 NIC 1: mlx5_1 port 1 (0000:af:00.0) is not ready: no IPoIB netdev, ...
 * "leased" counts every assignable VF of the eligible PFs that the ledger
 * records or a domain holds (a ConnectX-3 VF serving both ports once): the
 * caller probes every VF before taking a refusal's counts as final.
 */
int placement_choose(const struct hca_list *hcas, const struct ledger *l,
		     const struct virt_domains *doms,
		     const struct placement_request *rq, struct placement *out,
		     char *err, size_t errlen);

/*
 * rq's NIC's existing lease is reused only while it still fits: same MAC
 * and P_Key, the VF still an assignable VF of an eligible PF port (probed
 * by the caller), and no domain but rq's VM's own holding it (a VF a
 * foreign domain took since is never handed out twice).
 */
bool placement_lease_fits(const struct hca_list *hcas,
			  const struct virt_domains *doms,
			  const struct lease *x,
			  const struct placement_request *rq);

/*
 * The VFs of PF h a NIC without pins could be given now, by the policy
 * above with libvirt not asked (reconcile records in the ledger the VFs
 * domains hold): 0 unless h has a ready port; else its assignable VFs
 * that no lease or reservation in l records. What the probes count, free
 * VFs in all (IB_VFS_FREE), per port and per NUMA node, so they never
 * count a VF deploy would not lease, nor the reverse.
 */
long placement_pf_free(const struct hca *h, const struct ledger *l, bool guids);

/*
 * placement_pf_free and the VFs of h the cloud's VMs lease (not adopted
 * ones): what the cloud may lease there, a figure VMs coming and going do
 * not move (IB_VFS_USABLE, and per rail IB_RAIL's VFS_USABLE, which the
 * front-end counts its VMs against: fabric/railfit.h).
 */
long placement_pf_usable(const struct hca *h, const struct ledger *l,
			 bool guids);

/* NUMA nodes placement tells apart (numa_nodes is a 64-bit mask). */
#define PLACEMENT_MAX_NODES 64

/* placement_pf_free summed over a host's PFs. */
struct placement_free {
	long total; /* IB_VFS_FREE */
	/*
	 * IB_VFS_USABLE: the VFs the cloud may lease, free or leased to its
	 * VMs; not those a foreign domain holds (adopted leases)
	 */
	long usable;
	long node[PLACEMENT_MAX_NODES]; /* by the PF's NUMA node */
	uint64_t nodes; /* bit n: node n has a PF with a ready port */
	/* by rail (host/rails.h): a ready port's PF's free VFs (a ConnectX-3
	 * VF serving two ports counts on both rails, as IB_PF_FREE counts) */
	long rail[RAIL_MAX + 1];
	struct rail_set rails; /* the rails of ready ports */
	int rails_free; /* how many of them have a free VF: IB_RAILS_FREE */
};

void placement_count_free(const struct hca_list *hcas, const struct ledger *l,
			  bool guids, struct placement_free *out);

/*
 * The request's NUMA preference: the nodes whose CPUs
 * (/sys/devices/system/node/nodeN/cpulist) meet the pinned set; node1
 * "8-15" and the pinned set {8,9} -> bit 1. Reads sysfs.
 */
uint64_t placement_numa_nodes(const uint64_t cpus[CPULIST_WORDS]);

#endif
