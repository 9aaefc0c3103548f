/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Leasing a host's VFs to VMs' InfiniBand NICs, with libvirt as the truth
 * for what is running (design decision 5): the steps behind oneib-vf
 * deploy, release and reconcile, and the pieces other actions (NIC attach,
 * restore, migration) put together the same way:
 *
 *   leasing_open        the host's VFs read, the ledger locked and read,
 *                       what libvirt domains hold read
 *   leasing_acquire     a VF for each NIC (its own again while it fits),
 *                       recorded in the ledger in memory
 *   (the caller builds its XML from the map; nothing is committed yet)
 *   leasing_commit      the ledger written, then GUID and P_Key on each
 *                       VF (oneib-pkey); a failure undoes the programming
 *                       and writes the ledger back as it was
 *   leasing_close       unlock, free
 *
 * A step that fails leaves the ledger file and the VFs as they were, but
 * for a VF it programmed and could not unmap again: that one keeps its
 * lease (reconcile unmaps it once it expires).
 */
#ifndef ONEIB_LEASING_H
#define ONEIB_LEASING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/domxml.h"
#include "host/hca.h"
#include "host/lease.h"
#include "host/onexml.h"
#include "host/placement.h"
#include "host/rails.h"
#include "core/strbuf.h"
#include "host/virt.h"

/* The host's settings (kvm-ibrc), as oneib-vf's options give them. */
struct leasing_cfg {
	const char *ledger_dir; /* "/var/lib/one/ib" */
	const char *uri; /* libvirt, "qemu:///system" */
	const char *pkey_cmd; /* "sudo -n /usr/sbin/oneib-pkey"; NULL, "": none */
	unsigned cloud_id; /* byte 1 of every GUID (design decision 2) */
	long grace; /* reconcile: seconds a lease may wait for its domain, > 0 */
	/* The action the leases taken here are for (the kvm-ib script that
	 * runs oneib-vf): while it runs reconcile never takes them. pid 0:
	 * none outlives the command. */
	struct proc_id owner;
	/* ONEIB_RAIL_MAP (host/rails.h); NULL or empty: rails by address */
	const struct rail_map *rail_map;
};

/*
 * What places a VM's NICs besides their own attributes (design decision
 * 15): all its InfiniBand NICs (the siblings on each network, and which
 * NICs pair with the GPUs), its GPUs in deployment order, and the rail
 * each NIC had (hints, from a migration's source or a save).
 */
struct leasing_vm {
	const struct ib_nic *all;
	size_t nall;
	const struct placement_gpu *gpus;
	size_t ngpus;
	const struct rail_hint *hints;
	size_t nhints;
};

struct leasing {
	const struct leasing_cfg *cfg;
	struct lease_clock now; /* when leasing_open began */
	struct hca_list hcas;
	struct ledger l;
	struct virt_domains doms;
};

/*
 * The host's VFs are read before the lock is taken (the hardware does not
 * change with leases), so concurrent deploys wait only for the ledger and
 * libvirt. On error nothing is held and err names the reason.
 */
int leasing_open(struct leasing *s, const struct leasing_cfg *cfg, char *err,
		 size_t errlen);
/* Safe on a zeroed struct and twice. */
void leasing_close(struct leasing *s);

/*
 * A VF for each of the n NICs of VM vmid: map[i] = { nics[i].mac, VF }. A
 * NIC keeps its leased VF while it fits (placement_lease_fits; the grace
 * period starts again and an old lease gets the VM/NIC GUID), else gets
 * the one placement_choose picks, PFs on `numa_nodes` first, with vm's
 * siblings, pairing and hints (NULL: the n NICs are all, no GPU, no hint);
 * map[i].gpu is the GPU it pairs with (has_gpu).
 * A NIC that preferred its GPU's side and could not have it: one warning
 * line (log_msg). Refusals: placement_choose's line, or a GUID another NIC
 * holds in the ledger (-EEXIST; only a cloud id set differently on two
 * front-ends gets there).
 */
int leasing_acquire(struct leasing *s, int vmid, const struct ib_nic *nics,
		    size_t n, uint64_t numa_nodes, const struct leasing_vm *vm,
		    struct domxml_vf *map, char *err, size_t errlen);

/*
 * The GPUs a VM's NICs pair with, from the n host addresses of its PCI
 * devices (the deployment's hostdevs, or vm.xml's PCI ADDRESS), in that
 * order: those of GPU class (host/pcitopo.h); a device that is not a GPU
 * is not paired with. *out malloc'd. A device this host does not have:
 *   VM 42: PCI device 0000:17:00.0 is not on this host
 * -ENODEV, nothing read.
 */
int leasing_gpus(int vmid, const struct pci_addr *a, size_t n,
		 struct placement_gpu **out, size_t *nout, char *err,
		 size_t errlen);
/*
 * The ledger written, then GUID and P_Key on each VF of map through the
 * pkey command. A refusal unmaps the VFs programmed here again and writes
 * the ledger back as it was read (a VF that cannot be unmapped keeps its
 * lease); a kill half-way leaves leases for every
 * VF it may have programmed (the retry programs the same VFs, reconcile
 * unmaps them once they expire), never a programmed VF without a lease.
 */
int leasing_commit(struct leasing *s, const struct domxml_vf *map, size_t n,
		   char *err, size_t errlen);

/*
 * oneib-vf deploy: dom is the domain XML OpenNebula wrote, vm its vm.xml
 * parsed (at least one IB NIC). On success out holds the domain XML with
 * each IB NIC turned into its VF's hostdev, and the leases are committed;
 * on failure nothing changed.
 */
int leasing_deploy(const struct leasing_cfg *cfg, const struct one_vm *vm,
		   const char *dom, size_t domlen, struct strbuf *out,
		   char *err, size_t errlen);

/* nic_id for the calls that work on one NIC or on every one. */
#define LEASING_ALL_NICS (-1)

/*
 * oneib-vf lease (NIC hot-attach, restore, the two ends of a live
 * migration): a VF for each InfiniBand NIC of vm (nic_id: only that NIC),
 * taken as deploy takes them (a NIC keeps its VF while it fits, a
 * reservation becomes its lease; a new VF on the rail hints give it, where
 * this host has that rail, beside the GPU it pairs with among vm->pci, on a
 * rail its siblings' leases here do not hold), programmed with the NIC's
 * GUID and P_Key,
 * and committed. With reserve: recorded as reservations and not programmed
 * (the source of the migration still uses the GUIDs); a NIC that already
 * holds an ordinary lease here keeps it as it is, and a NIC that keeps the
 * VF it held keeps the lease's time too (when it was leased: a failed NIC
 * detach attaching it again changes nothing). A new VF is chosen as
 * deploy chooses, PFs on the NUMA nodes of the pinned vCPUs first: the
 * CPUs oned pinned them to on this host, vm->cpus (its NUMA_NODE/CPUS,
 * which the deployment's <vcpupin> is written from). Appends one line per
 * NIC to out, the VF and the device XML that attaches it:
 *   0000:3b:00.2 <hostdev mode="subsystem" type="pci" managed="yes">...
 * A failure (placement's refusal, a NIC that is not InfiniBand, the pkey
 * command's line) leaves the ledger and the VFs as they were.
 */
int leasing_lease(const struct leasing_cfg *cfg, const struct one_vm *vm,
		  int nic_id, bool reserve, const struct rail_hint *hints,
		  size_t nhints, struct strbuf *out, char *err, size_t errlen);

/*
 * oneib-vf rails: the rail each NIC of VM vmid has on this host, by its
 * lease (a reservation too), in rail_hints_fmt's form ("0=3,1=5"), for a
 * migration's destination or a restore (lease --rails). A NIC whose port
 * has no rail is left out. Reads the ledger without the lock.
 */
int leasing_rails(const struct leasing_cfg *cfg, int vmid, struct strbuf *out,
		  char *err, size_t errlen);

/* Which of a VM's VFs leasing_hostdevs lists. */
enum leasing_which {
	LEASING_LEASED, /* its leases (not reservations) */
	LEASING_HELD, /* what its domain holds of this host's IB VFs */
	LEASING_NOT_HELD, /* its leases its domain does not hold */
};

/*
 * oneib-vf hostdevs: the lines of leasing_lease ("<VF> <hostdev XML>") for
 * VM vmid's VFs on this host (nic_id: that NIC's only), those `which`
 * says. LEASING_HELD also lists an InfiniBand VF of this host the VM's
 * domain ("one-<vmid>") holds without a lease of the VM, so that nothing
 * the domain holds is left in it before a save or a migration; with a
 * nic_id only the VF of that NIC's lease. LEASING_NOT_HELD (the VFs to
 * attach) gives each VF's line the guest port it goes on: with vm (its
 * action data; NULL: not known), a free downstream port beside the GPU
 * its NIC pairs with (domxml_pair's switch), else a port on the guest
 * NUMA node of its host node. Reads the ledger without the lock (it is
 * always whole) and libvirt; changes nothing.
 */
int leasing_hostdevs(const struct leasing_cfg *cfg, int vmid, int nic_id,
		     enum leasing_which which, const struct one_vm *vm,
		     struct strbuf *out, char *err, size_t errlen);

struct leasing_counts {
	int kept, released, adopted;
	int dated; /* reconcile: old lines given a boot time */
};

/*
 * oneib-vf release: VM vmid's leases go, except a VF a domain still holds:
 * kept while the VM's own domain holds it (logged), recorded as adopted
 * when another domain does. A VF whose unmapping fails stays leased and
 * the call fails with the pkey command's line, after the others went.
 *
 * domain_gone: the caller has just seen the VM's domain end (the stock
 * shutdown or cancel succeeded), so libvirt is not asked: the leases go.
 * Safe because deploy is the gate: it never hands out a VF a domain
 * holds, whatever the ledger says, and reconcile adopts such a VF.
 */
int leasing_release(const struct leasing_cfg *cfg, int vmid, bool domain_gone,
		    struct leasing_counts *c, char *err, size_t errlen);
/*
 * The same for one NIC of the VM (nic_id), or all (LEASING_ALL_NICS). A
 * reservation goes without unmapping: it was never programmed.
 */
int leasing_release_nic(const struct leasing_cfg *cfg, int vmid, int nic_id,
			bool domain_gone, struct leasing_counts *c, char *err,
			size_t errlen);

/*
 * oneib-vf reconcile: the ledger brought in line with libvirt at now.
 * A VF held by another domain than the lease says, or by a domain without
 * a lease, is recorded as adopted. A lease whose VF no domain holds goes,
 * unmapped (kept while it cannot be), unless a live action may still be
 * using it:
 *   - its VM's domain is here (active): a save, migration or NIC detach
 *     took the VF out and runs, or the VM runs without it; the VM's own
 *     actions attach or release it;
 *   - its owner, the action that took it, still runs (lease_hold),
 *     however long and whatever the clocks say;
 *   - it was taken less than cfg->grace seconds ago on the boot clock,
 *     which no clock step moves (an old line without that time is dated
 *     now and kept);
 * a reservation likewise, or while the VM's domain here is paused (a live
 * migration still coming in), but not merely because its domain runs
 * here: once the VM runs here without it, the migration is over. One line
 * per change is appended to report:
 *   VF 0000:03:00.1: held by domain legacy db without a lease, adopted
 */
int leasing_reconcile(const struct leasing_cfg *cfg,
		      const struct lease_clock *now, struct strbuf *report,
		      struct leasing_counts *c, char *err, size_t errlen);

#endif
