/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one-ib needs to know about the cloud, taken out of OpenNebula's pool
 * listings (`onevm list -x`, `onehost list -x`, `onevnet list -x`) by a
 * reader (poolread.h) and kept as plain facts, one record per InfiniBand
 * network, per NIC of a VM that has a host and per ConnectX-3 host:
 *
 *   <VNET><ID>7</ID><NAME>tenant-b</NAME><STATE>1</STATE><VN_MAD>ib</VN_MAD>
 *     <CLUSTERS><ID>100</ID></CLUSTERS>
 *     <TEMPLATE><IB_PKEY>0x8102</IB_PKEY><IB_SL>16</IB_SL></TEMPLATE></VNET>
 *   -> { .id = 7, .name = "tenant-b", .ready = true, .clusters = { 100 },
 *        .bad = "VNET 7 (tenant-b): IB_SL '16' is not a service level 0..15",
 *        claims: { 7, 0x8102 } }
 *
 *   <VM><ID>42</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE><TEMPLATE>
 *     <NIC><MAC>02:00:c0:a8:01:05</MAC><NETWORK_ID>5</NETWORK_ID>
 *          <NIC_ID>1</NIC_ID></NIC>...
 *     <HISTORY_RECORDS><HISTORY><HID>3</HID>...
 *   -> { .vm = 42, .nic = 1, .net = 5, .mac = 0x0200c0a80105, .host = 3 }
 *
 * A value a tenant chose that breaks the rules of its attribute makes its
 * record "bad" (the reason kept, one line), never the whole reading: the
 * renderer leaves that network or NIC out and names it (design decision
 * 7). Only a listing that cannot be what oned prints (no ID, no STATE, not
 * well-formed, a host's PF GUID that is no GUID) fails the reading.
 */
#ifndef ONEIB_CLOUDFACTS_H
#define ONEIB_CLOUDFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ibattr.h"
#include "core/log.h"
#include "core/pciplace.h"
#include "fabric/pools.h"

#define FACT_NONE (-1) /* no text: the record is fine */

/* An InfiniBand network (VN_MAD "ib") of the VNET pool. */
struct vnet_fact {
	int id;
	size_t nth; /* position in the listing, for ties */
	struct san_str name; /* NAME, sanitized: messages, partition names */
	/*
	 * READY (1) or UPDATE_FAILURE (6), or no STATE (before 6.4): it has
	 * a partition. Otherwise vnet_create has not finished (LOCK_CREATE,
	 * no IB_PKEY yet) or refused it (ERROR).
	 */
	bool ready;
	struct ib_attrs a; /* every IB_* of TEMPLATE, valid unless bad */
	int bad; /* text index: why it cannot be rendered, or FACT_NONE */
	/*
	 * PARENT_NETWORK_ID: a reservation (`onevnet reserve`) of that
	 * network, a slice of its addresses owned by a user, with a copy of
	 * its template: its NICs are the parent's, in the parent's partition
	 * as the parent's members; it has no partition, no cluster of its
	 * own, and never costs its parent its partition. -1: none.
	 */
	int parent;
	int *clusters; /* CLUSTERS/ID */
	size_t nclusters, capclusters;
};

/*
 * A partition some network's TEMPLATE/IB_PKEY names, whether or not the
 * network is well formed or READY: vnet_create never hands it out again
 * (0x0101 and 0x8101 are one partition).
 */
struct vnet_claim {
	int id;
	struct san_str name;
	struct pkey pkey; /* as written */
	int parent; /* the network's PARENT_NETWORK_ID, -1: none */
};

/*
 * A NIC, with a NETWORK_ID, of a VM that has a host (see partitions.h).
 * `onevm list -x` prints NICs without VN_MAD: whether it is InfiniBand is
 * known only from its network.
 */
struct nic_fact {
	int vm;
	int nic; /* NIC_ID; FACT_NONE when missing or malformed */
	int net; /* NETWORK_ID; FACT_NONE when missing (only kept if ib) */
	bool ib; /* VN_MAD "ib" given */
	bool has_mac;
	uint64_t mac;
	bool has_pkey; /* IB_PKEY given and well formed (full listing) */
	struct pkey pkey;
	int bad; /* text index: malformed IB_PKEY, NIC_ID..., or FACT_NONE */
	int bad_mac; /* text index: malformed MAC, or FACT_NONE */
	int host; /* its VM's host (last HISTORY's HID), or FACT_NONE */
};

/*
 * A VM of the pool in any state but DONE, for the VF counters (vfcount.h),
 * its leaf (leafpack.h) and its cluster's map (topology.h): how many of
 * its NICs are InfiniBand (VN_MAD "ib"), the network of its virtual
 * cluster and that NIC's IPv4 address, the requirement it is scheduled by
 * (USER_TEMPLATE/SCHED_REQUIREMENTS) and the map its context holds
 * (TEMPLATE/CONTEXT/ONEIB_TOPOLOGY). Its cluster is the network of its
 * first InfiniBand NIC that is no service network (IB_MEMBERSHIP
 * limited): a service network's VMs are other tenants', who share its
 * servers, not a cluster (no map of them, no packing with them); none
 * when every InfiniBand NIC is on one. The reader records every
 * InfiniBand NIC's network (ibnet), and vfcount_prepare() chooses.
 */
struct vm_fact {
	int id;
	int state; /* STATE: 1 PENDING, 2 HOLD, 4 STOPPED, 9 UNDEPLOYED... */
	int ib_nics;
	int net; /* its cluster's NETWORK_ID, or FACT_NONE */
	bool has_ip; /* that NIC's IP, an IPv4 address */
	uint32_t ip; /* host byte order */
	size_t ibnet, nibnet; /* its InfiniBand NICs in cloud_facts.ibnets */
	int req; /* text index of SCHED_REQUIREMENTS, or FACT_NONE */
	bool context; /* TEMPLATE/CONTEXT is there (updateconf adds none) */
	int topo; /* text index of CONTEXT/ONEIB_TOPOLOGY, or FACT_NONE */
	size_t pci, npci; /* its TEMPLATE/PCI in cloud_facts.vmpcis */
};

/*
 * A PCI=[...] of a VM (OpenNebula's own passthrough), in template order:
 * what it asks for (VENDOR, DEVICE, CLASS as hex, -1 unset; or
 * SHORT_ADDRESS alone) and, once oned has given it one, the device
 * (ADDRESS, "0000:17:00:0" as oned writes it).
 *   <PCI><CLASS>0302</CLASS></PCI>          -> { .cls = 0x0302 }
 *   <PCI><ADDRESS>0000:17:00:0</ADDRESS>... -> { .has_addr, 0000:17:00.0 }
 */
struct vm_pci {
	int vendor, device, cls;
	bool has_short; /* SHORT_ADDRESS "17:00.0" alone: that device */
	struct pci_addr short_addr; /* domain 0 */
	bool has_addr;
	struct pci_addr addr;
};

/* An InfiniBand NIC of a VM, in the order of its NICs. */
struct vm_ibnet {
	int net; /* NETWORK_ID */
	bool has_ip;
	uint32_t ip;
	int nic; /* NIC_ID */
	enum ib_rails rails; /* its IB_RAILS, IB_AFFINITY (inherited from */
	enum ib_affinity affinity; /* the network; the defaults if absent) */
};

/* PENDING, HOLD, STOPPED, UNDEPLOYED: the scheduler places it (again). */
static inline bool vm_fact_to_place(const struct vm_fact *v)
{
	return v->state == 1 || v->state == 2 || v->state == 4 || v->state == 9;
}

/*
 * The VF counters a host shows (vfcount.h), as its template holds them:
 * -1 when missing or not a count.
 */
enum host_count {
	HC_USABLE, /* IB_VFS_USABLE: the probe's */
	HC_USED, /* IB_VFS_USED and the rest: the front-end hook's */
	HC_AVAIL,
	HC_SYNC_VMS,
	HC_SYNC_SUM,
	HC_RAILS_AVAIL, /* IB_RAILS_AVAIL: rails with a VF left (railfit.h) */
	HC_COUNT
};

/*
 * A rail of a host (host/rails.h): the probe's IB_RAIL joined with the
 * IB_PF of its port, for the per-rail counters (railfit.h).
 *   IB_RAIL=[ RAIL="0", ADDRESS="0000:19:00.0", PORT="1", VFS_FREE="7",
 *             VFS_USABLE="8" ]
 *   IB_PF=[ ADDRESS="0000:19:00.0", PORT="1", ..., NUMA_NODE="0",
 *           PCIE_SWITCH="0000:15:00.0", PCIE_ROOT_PORT="0000:14:01.0" ]
 *   -> { .rail = 0, .usable = 8, .place: root port 0000:14:01.0, switch
 *        0000:15:00.0, node 0 }
 */
struct host_rail {
	int rail;
	long usable; /* VFS_USABLE: free and leased to the cloud's VMs */
	uint64_t leaf; /* its port's LEAF_GUID, 0 unknown */
	struct pci_place place; /* its PF's, as far as the probe says */
};

/*
 * A device OpenNebula passes through (HOST_SHARE/PCI_DEVICES/PCI), with
 * the place one-ib's probe gives it (IB_PCI of the same address; known
 * false without one). Kept in oned's order: by ADDRESS as text, which is
 * the order oned hands free devices out in (HostSharePCI's map).
 */
struct host_pci {
	struct pci_addr addr;
	int vendor, device, cls; /* hex, as PCI/VENDOR, DEVICE, CLASS */
	int vmid; /* VMID: the VM that has it, -1 free */
	struct pci_place place;
};

/*
 * A host with InfiniBand PF ports (IB_PF with LINK_LAYER InfiniBand): all
 * of them join the operator's hosts partition (ONEIB_HOSTS_PARTITION);
 * the ConnectX-3 ones (DRIVER mlx4_core) every network of its cluster.
 */
struct host_fact {
	int id;
	int cluster;
	int name; /* text index */
	uint64_t *pf; /* ConnectX-3 PF port GUIDs */
	size_t npf, cappf;
	uint64_t *ports; /* every InfiniBand PF port GUID */
	size_t nports, capports;
	uint64_t *leaves; /* per port: its leaf switch (LEAF_GUID), 0 unknown */
	size_t capleaves;
	bool schedulable; /* STATE MONITORED (or no STATE): the scheduler's */
	struct host_rail *rails; /* by IB_RAIL, in rail order */
	size_t nrails, caprails;
	struct host_pci *pcis; /* in oned's order */
	size_t npcis, cappcis;
	int *vms; /* VMS/ID: the VMs oned has put on it, in any state */
	size_t nvms, capvms;
	long count[HC_COUNT];
};

struct cloud_facts {
	struct vnet_fact *v; /* listing order */
	size_t nv, capv;
	struct vnet_claim *claims;
	size_t nclaims, capclaims;
	struct nic_fact *nics;
	size_t nnics, capnics;
	struct host_fact *hosts;
	size_t nhosts, caphosts;
	struct vm_fact *vms; /* listing order */
	size_t nvms, capvms;
	struct vm_ibnet *ibnets;
	size_t nibnets, capibnets;
	struct vm_pci *vmpcis;
	size_t nvmpcis, capvmpcis;
	char **texts; /* reasons and names, one line each */
	size_t ntexts, captexts;
	int docs[POOL_KINDS]; /* documents read per pool */
	size_t nth[POOL_KINDS]; /* elements seen per pool */
};

void cloud_facts_free(struct cloud_facts *f);

/* Keeps a copy of s; its index, or -ENOMEM. */
int cloud_facts_text(struct cloud_facts *f, const char *s);

/* Room for one more record; NULL on ENOMEM. */
struct vnet_fact *cloud_facts_new_vnet(struct cloud_facts *f);
struct vnet_claim *cloud_facts_new_claim(struct cloud_facts *f);
struct nic_fact *cloud_facts_new_nic(struct cloud_facts *f);
struct host_fact *cloud_facts_new_host(struct cloud_facts *f);
struct vm_fact *cloud_facts_new_vm(struct cloud_facts *f);
/* An InfiniBand NIC of the VM last added. 0 or -ENOMEM. */
int cloud_facts_add_ibnet(struct cloud_facts *f, int net, bool has_ip,
			  uint32_t ip);
/* The last ibnet added (after cloud_facts_add_ibnet). */
static inline struct vm_ibnet *cloud_facts_last_ibnet(struct cloud_facts *f)
{
	return &f->ibnets[f->nibnets - 1];
}
/* A PCI of the VM last added. 0 or -ENOMEM. */
int cloud_facts_add_vmpci(struct cloud_facts *f, const struct vm_pci *p);

/* "VNET 7 (tenant-b)" or "VNET 7". */
#define VNET_LABEL_MAX 96
void vnet_fact_label(const struct vnet_fact *v, char buf[VNET_LABEL_MAX]);

/*
 * 0 when every pool in want (bits 1 << POOL_VM ...) was read, else -EINVAL:
 *   no <HOST_POOL> in the input (onevm/onehost/onevnet list -x)
 */
int cloud_facts_complete(const struct cloud_facts *f, unsigned want, char *err,
			 size_t errlen);

#endif
