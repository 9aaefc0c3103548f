// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "host/placement.h"
#include "core/sysfs.h"

uint64_t placement_numa_nodes(const uint64_t cpus[CPULIST_WORDS])
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	uint64_t mask = 0, node_cpus[CPULIST_WORDS];
	int node, i;

	for (node = 0; node < 64; node++) {
		if (path_fmt(path, sizeof(path), SYS_NODE "/node%d/cpulist",
			     node) ||
		    sysfs_read_str(path, buf, sizeof(buf)))
			continue;
		if (cpulist_parse(buf, node_cpus, false))
			continue;
		for (i = 0; i < CPULIST_WORDS; i++)
			if (node_cpus[i] & cpus[i])
				mask |= (uint64_t)1 << node;
	}
	return mask;
}

/* How full the ports a NIC may use are, for the refusal message. */
struct tally {
	const struct hca *pf; /* the last eligible PF */
	int npfs;
	int port; /* its last eligible port */
	int nports; /* eligible ports of that PF */
	int total; /* assignable VFs of eligible PFs, each counted once */
	int taken;
	/* a port the NIC could use but for the port-ready rule */
	const struct hca *unready_pf;
	const struct ib_port *unready;
};

static bool vf_taken(const struct ledger *l, const struct virt_domains *doms,
		     const struct vf *vf)
{
	return ledger_find_vf(l, &vf->addr) >= 0 ||
	       virt_pci_user(doms, &vf->addr) != NULL;
}

static bool port_pinned(const struct ib_nic *nic, const struct ib_port *pt)
{
	return !nic->port || pt->num == nic->port;
}

static bool pf_pinned(const struct ib_nic *nic, const struct hca *h)
{
	return h->has_pci && !(nic->has_pf && pci_addr_cmp(&h->addr, &nic->pf));
}

static bool port_eligible(const struct placement_request *rq,
			  const struct ib_port *pt)
{
	return port_pinned(rq->nic, pt) && ib_port_ready(pt, rq->guids);
}

static bool pf_eligible(const struct placement_request *rq, const struct hca *h)
{
	int p;

	if (!pf_pinned(rq->nic, h))
		return false;
	for (p = 0; p < h->nports; p++)
		if (port_eligible(rq, &h->ports[p]))
			return true;
	return false;
}

long placement_pf_free(const struct hca *h, const struct ledger *l, bool guids)
{
	const struct ib_nic any = { .network_id = -1 };
	const struct placement_request rq = { -1, &any, 0, guids };
	const struct virt_domains none = { 0 };
	long n = 0;
	size_t j;

	if (!pf_eligible(&rq, h))
		return 0;
	for (j = 0; j < h->nvfs; j++)
		n += vf_assignable(&h->vfs[j]) &&
		     !vf_taken(l, &none, &h->vfs[j]);
	return n;
}

/* The VFs of PF h, counted free or not by placement_pf_free, that a lease
 * of one of the cloud's VMs holds (not an adopted one). */
static long pf_leased(const struct hca *h, const struct ledger *l, bool guids)
{
	const struct ib_nic any = { .network_id = -1 };
	const struct placement_request rq = { -1, &any, 0, guids };
	long n = 0;
	size_t j;
	long k;

	if (!pf_eligible(&rq, h))
		return 0;
	for (j = 0; j < h->nvfs; j++) {
		if (!vf_assignable(&h->vfs[j]))
			continue;
		k = ledger_find_vf(l, &h->vfs[j].addr);
		n += k >= 0 && !lease_adopted(&l->v[k]);
	}
	return n;
}

void placement_count_free(const struct hca_list *hcas, const struct ledger *l,
			  bool guids, struct placement_free *out)
{
	size_t i;
	int p;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];
		long n = placement_pf_free(h, l, guids);
		bool ready = false;

		for (p = 0; p < h->nports; p++) {
			int r = h->ports[p].rail;

			if (!ib_port_ready(&h->ports[p], guids))
				continue;
			ready = true;
			if (r < 0 || r > RAIL_MAX)
				continue;
			if (!rail_set_has(&out->rails, r))
				rail_set_add(&out->rails, r);
			out->rail[r] += n;
		}
		out->total += n;
		out->usable += n + pf_leased(h, l, guids);
		if (!h->has_pci || !ready || h->numa_node < 0 ||
		    h->numa_node >= PLACEMENT_MAX_NODES)
			continue;
		out->node[h->numa_node] += n;
		out->nodes |= (uint64_t)1 << h->numa_node;
	}
	for (i = 0; i <= RAIL_MAX; i++)
		out->rails_free += rail_set_has(&out->rails, (int)i) &&
				   out->rail[i] > 0;
}

static void count(const struct hca_list *hcas,
		  const struct placement_request *rq, const struct ledger *l,
		  const struct virt_domains *doms, struct tally *t)
{
	size_t i, j;
	int p;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];

		for (p = 0; p < h->nports && !t->unready; p++)
			if (pf_pinned(rq->nic, h) &&
			    port_pinned(rq->nic, &h->ports[p]) &&
			    ib_port_usable(&h->ports[p]) &&
			    !ib_port_ready(&h->ports[p], rq->guids)) {
				t->unready_pf = h;
				t->unready = &h->ports[p];
			}
		if (!pf_eligible(rq, h))
			continue;
		t->pf = h;
		t->npfs++;
		t->nports = 0;
		for (p = 0; p < h->nports; p++)
			if (port_eligible(rq, &h->ports[p])) {
				t->port = h->ports[p].num;
				t->nports++;
			}
		/* A ConnectX-3 VF serves both ports: count it once. */
		for (j = 0; j < h->nvfs; j++) {
			if (!vf_assignable(&h->vfs[j]))
				continue;
			t->total++;
			t->taken += vf_taken(l, doms, &h->vfs[j]);
		}
	}
}

/* "no free VF on 0000:3b:00.0 port 1 for VM 42 (8 of 8 leased)" */
static void refusal(const struct placement_request *rq, const struct tally *t,
		    char *err, size_t errlen)
{
	const struct ib_nic *nic = rq->nic;
	char pf[PCI_ADDR_STRLEN], where[64];

	if (t->npfs == 0 && t->unready) {
		pci_addr_fmt(&t->unready_pf->addr, pf);
		snprintf(err, errlen,
			 "VM %d NIC %d: %s port %d (%s) is not ready: %s",
			 rq->vmid, nic->nic_id, t->unready_pf->ibdev,
			 t->unready->num, pf,
			 ib_port_not_ready(t->unready, rq->guids));
		return;
	}
	if (t->npfs == 0 && nic->has_pf) {
		pci_addr_fmt(&nic->pf, pf);
		if (nic->port)
			snprintf(where, sizeof(where), "%s port %d", pf,
				 nic->port);
		else
			snprintf(where, sizeof(where), "%s", pf);
		snprintf(err, errlen,
			 "VM %d NIC %d: IB_PF %s is not an ACTIVE InfiniBand "
			 "port on this host",
			 rq->vmid, nic->nic_id, where);
		return;
	}
	if (t->npfs == 0) {
		snprintf(err, errlen,
			 "no ACTIVE InfiniBand port on this host for VM %d NIC "
			 "%d",
			 rq->vmid, nic->nic_id);
		return;
	}
	pci_addr_fmt(&t->pf->addr, pf);
	if (t->npfs > 1)
		snprintf(where, sizeof(where), "%d PFs", t->npfs);
	else if (t->nports == 1)
		snprintf(where, sizeof(where), "%s port %d", pf, t->port);
	else
		snprintf(where, sizeof(where), "%s", pf);
	snprintf(err, errlen, "no free VF on %s for VM %d (%d of %d leased)",
		 where, rq->vmid, t->taken, t->total);
}

int placement_choose(const struct hca_list *hcas, const struct ledger *l,
		     const struct virt_domains *doms,
		     const struct placement_request *rq, struct placement *out,
		     char *err, size_t errlen)
{
	uint64_t nodes = rq->numa_nodes;
	struct tally t;
	size_t i, j;
	int pass, p;

	/* Pass 0: PFs on the preferred NUMA nodes only; pass 1: all. */
	for (pass = nodes ? 0 : 1; pass < 2; pass++) {
		for (i = 0; i < hcas->n; i++) {
			const struct hca *h = &hcas->v[i];
			bool local = h->numa_node >= 0 && h->numa_node < 64 &&
				     (nodes >> h->numa_node & 1);

			if ((pass == 0 && !local) || !pf_eligible(rq, h))
				continue;
			for (p = 0; !port_eligible(rq, &h->ports[p]); p++)
				;
			for (j = 0; j < h->nvfs; j++) {
				const struct vf *vf = &h->vfs[j];

				/* Unprobed: the caller probes it and asks
				 * again (hca_inventory reads drivers only
				 * when asked). */
				if ((!vf->unprobed && !vf_assignable(vf)) ||
				    vf_taken(l, doms, vf))
					continue;
				out->pf = h;
				out->port = &h->ports[p];
				out->vf = vf;
				return 0;
			}
		}
	}
	count(hcas, rq, l, doms, &t);
	refusal(rq, &t, err, errlen);
	return -EBUSY;
}

bool placement_lease_fits(const struct hca_list *hcas,
			  const struct virt_domains *doms,
			  const struct lease *x,
			  const struct placement_request *rq)
{
	const struct virt_domain *d = virt_pci_user(doms, &x->vf);
	size_t i, j;
	int p;

	if (x->mac != rq->nic->mac || x->pkey.raw != rq->nic->pkey.raw ||
	    (d && d->vmid != rq->vmid))
		return false;
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];

		if (!pf_eligible(rq, h) || pci_addr_cmp(&h->addr, &x->pf))
			continue;
		for (p = 0; p < h->nports; p++)
			if (h->ports[p].num == x->port &&
			    port_eligible(rq, &h->ports[p]))
				break;
		if (p == h->nports)
			continue;
		for (j = 0; j < h->nvfs; j++)
			if (!pci_addr_cmp(&h->vfs[j].addr, &x->vf))
				return vf_assignable(&h->vfs[j]);
	}
	return false;
}
