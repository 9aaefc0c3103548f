// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/railrank.h"
#include "core/strbuf.h"
#include "core/sysfs.h"
#include "host/placement.h"

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
	const struct placement_request rq = { .vmid = -1,
					      .nic = &any,
					      .guids = guids };
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
	const struct placement_request rq = { .vmid = -1,
					      .nic = &any,
					      .guids = guids };
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

long placement_pf_usable(const struct hca *h, const struct ledger *l,
			 bool guids)
{
	return placement_pf_free(h, l, guids) + pf_leased(h, l, guids);
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

/* Where the NIC's siblings hold VFs: per rail, and the unrailed ports. */
#define SIB_UNRAILED_MAX 16
struct siblings {
	unsigned char rail[RAIL_MAX + 1];
	struct {
		struct pci_addr pf;
		int port;
	} other[SIB_UNRAILED_MAX];
	size_t nother;
};

static bool is_sibling(const struct placement_request *rq, int nic_id)
{
	size_t i;

	for (i = 0; i < rq->nsiblings; i++)
		if (rq->siblings[i] == nic_id && nic_id != rq->nic->nic_id)
			return true;
	return false;
}

static void siblings_read(const struct hca_list *hcas, const struct ledger *l,
			  const struct placement_request *rq,
			  struct siblings *sb)
{
	size_t k;

	memset(sb, 0, sizeof(*sb));
	for (k = 0; rq->nsiblings && k < l->n; k++) {
		const struct lease *x = &l->v[k];
		int r;

		if (x->vmid != rq->vmid || !is_sibling(rq, x->nic_id))
			continue;
		r = rail_of_port(hcas, &x->pf, x->port);
		if (r >= 0 && sb->rail[r] < UCHAR_MAX)
			sb->rail[r]++;
		else if (r == -1 && sb->nother < SIB_UNRAILED_MAX) {
			sb->other[sb->nother].pf = x->pf;
			sb->other[sb->nother++].port = x->port;
		}
	}
}

/* How many siblings' VFs the port's rail holds. */
static int sibling_use(const struct siblings *sb, const struct hca *h,
		       const struct ib_port *pt)
{
	size_t i;
	int n = 0;

	if (pt->rail >= 0)
		return sb->rail[pt->rail];
	for (i = 0; i < sb->nother; i++)
		n += !pci_addr_cmp(&sb->other[i].pf, &h->addr) &&
		     sb->other[i].port == pt->num;
	return n;
}

static bool pairs(const struct placement_request *rq)
{
	return rq->gpu && rq->nic->affinity != IB_AFFINITY_NONE;
}

static bool spreads(const struct placement_request *rq)
{
	return rq->nic->rails == IB_RAILS_SPREAD;
}

static enum pci_near near_of(const struct placement_request *rq,
			     const struct hca *h)
{
	return pairs(rq) ? pci_near(&rq->gpu->place, &h->place) : PCI_NEAR_NONE;
}

/* Port pt of PF h as a candidate of the rule (core/railrank.h). */
static void cand_of(const struct placement_request *rq,
		    const struct siblings *sb, const struct hca *h,
		    const struct ib_port *pt, struct rail_cand *out)
{
	bool local = h->numa_node >= 0 && h->numa_node < 64 &&
		     (rq->numa_nodes >> h->numa_node & 1);

	*out = (struct rail_cand){
		.rail = pt->rail,
		.siblings = spreads(rq) ? sibling_use(sb, h, pt) : 0,
		.near = near_of(rq, h),
		.shared = pairs(rq) ? (long)pci_shared_bridges(&rq->gpu->place,
							       &h->place)
				    : 0,
		.off_node = rq->numa_nodes && !local,
		.hinted = rq->has_hint && pt->rail == rq->hint_rail,
	};
}

/*
 * The VFs the ledger and the domains hold, sorted, looked up by bsearch: a
 * host of 8 x 127 VFs with hundreds of leases is asked once per VF of
 * every PF a NIC may use, and the ledger's own lookup is a scan.
 */
struct taken {
	struct pci_addr *v;
	size_t n;
};

static int addr_cmp(const void *a, const void *b)
{
	return pci_addr_cmp(a, b);
}

static int taken_build(const struct ledger *l, const struct virt_domains *d,
		       struct taken *t)
{
	size_t n = l->n, i, j;

	for (i = 0; i < d->n; i++)
		n += d->v[i].npcis;
	t->n = 0;
	t->v = malloc((n ? n : 1) * sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	for (i = 0; i < l->n; i++)
		t->v[t->n++] = l->v[i].vf;
	for (i = 0; i < d->n; i++)
		for (j = 0; j < d->v[i].npcis; j++)
			t->v[t->n++] = d->v[i].pcis[j];
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), addr_cmp);
	return 0;
}

static bool taken_has(const struct taken *t, const struct pci_addr *a)
{
	return t->n && bsearch(a, t->v, t->n, sizeof(*t->v), addr_cmp);
}

/* The first VF of h a NIC can be given now, or NULL. */
static const struct vf *free_vf(const struct hca *h, const struct taken *t)
{
	size_t j;

	for (j = 0; j < h->nvfs; j++) {
		const struct vf *vf = &h->vfs[j];

		/* Unprobed: the caller probes it and asks again
		 * (hca_inventory reads drivers only when asked). */
		if ((!vf->unprobed && !vf_assignable(vf)) ||
		    taken_has(t, &vf->addr))
			continue;
		return vf;
	}
	return NULL;
}

/* "under its PCIe switch 0000:15:00.0", "on its NUMA node 0" */
static void where_near(const struct placement_request *rq, enum pci_near n,
		       char *buf, size_t len)
{
	if (n == PCI_NEAR_SWITCH) {
		char sw[PCI_ADDR_STRLEN];

		pci_addr_fmt(&rq->gpu->place.sw, sw);
		snprintf(buf, len, "under its PCIe switch %s", sw);
	} else {
		snprintf(buf, len, "on its NUMA node %d",
			 rq->gpu->place.numa_node);
	}
}

/* "rail 0 8 of 8 leased, rail 1 8 of 8 leased": the ports at least as
 * near as n, for the refusal of required. */
static void tally_near(const struct hca_list *hcas,
		       const struct placement_request *rq,
		       const struct ledger *l, const struct virt_domains *doms,
		       enum pci_near n, struct strbuf *out)
{
	char pf[PCI_ADDR_STRLEN];
	size_t i, j;
	int p;

	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];
		int total = 0, taken = 0;

		if (!pf_eligible(rq, h) || near_of(rq, h) > n)
			continue;
		for (j = 0; j < h->nvfs; j++) {
			if (!vf_assignable(&h->vfs[j]))
				continue;
			total++;
			taken += vf_taken(l, doms, &h->vfs[j]);
		}
		pci_addr_fmt(&h->addr, pf);
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			if (!port_eligible(rq, pt))
				continue;
			if (pt->rail >= 0)
				sb_addf(out, "%srail %d %d of %d leased",
					out->len ? ", " : "", pt->rail, taken,
					total);
			else
				sb_addf(out, "%s%s port %d %d of %d leased",
					out->len ? ", " : "", pf, pt->num,
					taken, total);
		}
	}
}

int placement_choose(const struct hca_list *hcas, const struct ledger *l,
		     const struct virt_domains *doms,
		     const struct placement_request *rq, struct placement *out,
		     char *err, size_t errlen)
{
	const struct hca *best_h = NULL;
	const struct ib_port *best_pt = NULL;
	const struct vf *best_vf = NULL;
	enum pci_near want = PCI_NEAR_NONE;
	struct rail_cand *c;
	struct {
		const struct hca *h;
		const struct ib_port *pt;
		const struct vf *vf;
	} * at;
	struct siblings sb;
	struct taken held;
	struct tally t;
	size_t i, n = 0, nports = 0;
	long best;
	int p;

	for (i = 0; i < hcas->n; i++)
		nports += (size_t)hcas->v[i].nports;
	c = calloc(nports + 1, sizeof(*c));
	at = calloc(nports + 1, sizeof(*at));
	if (!c || !at || taken_build(l, doms, &held)) {
		free(c);
		free(at);
		snprintf(err, errlen, "VM %d NIC %d: out of memory", rq->vmid,
			 rq->nic->nic_id);
		return -ENOMEM;
	}
	siblings_read(hcas, l, rq, &sb);
	/* every port the NIC may use, as the rule's candidates */
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];
		const struct vf *vf;

		if (!pf_eligible(rq, h))
			continue;
		vf = free_vf(h, &held);
		for (p = 0; p < h->nports; p++) {
			if (!port_eligible(rq, &h->ports[p]))
				continue;
			cand_of(rq, &sb, h, &h->ports[p], &c[n]);
			c[n].has_free = vf != NULL;
			at[n].h = h;
			at[n].pt = &h->ports[p];
			at[n++].vf = vf;
		}
	}
	if (pairs(rq))
		want = rail_beside(c, n);
	best = rail_choose(
		c, n, pairs(rq) && rq->nic->affinity == IB_AFFINITY_REQUIRED,
		want);
	if (best >= 0) {
		best_h = at[best].h;
		best_pt = at[best].pt;
		best_vf = at[best].vf;
	}
	free(c);
	free(at);
	free(held.v);
	if (best_h) {
		out->pf = best_h;
		out->port = best_pt;
		out->vf = best_vf;
		out->near = near_of(rq, best_h);
		out->warning[0] = '\0';
		if (pairs(rq) && out->near > want) {
			char g[PCI_ADDR_STRLEN], a[PCI_ADDR_STRLEN], w[96];
			char rail[32] = "no rail";

			pci_addr_fmt(&rq->gpu->addr, g);
			pci_addr_fmt(&best_h->addr, a);
			if (best_pt->rail >= 0)
				snprintf(rail, sizeof(rail), "rail %d",
					 best_pt->rail);
			where_near(rq, want, w, sizeof(w));
			snprintf(out->warning, sizeof(out->warning),
				 "VM %d NIC %d: %s (%s port %d) is not beside "
				 "GPU %s: no free VF %s (IB_AFFINITY "
				 "preferred)",
				 rq->vmid, rq->nic->nic_id, rail, a,
				 best_pt->num, g, w);
		}
		return 0;
	}
	if (pairs(rq) && rq->nic->affinity == IB_AFFINITY_REQUIRED &&
	    want != PCI_NEAR_NONE) {
		struct strbuf sbuf = STRBUF_INIT;
		char g[PCI_ADDR_STRLEN], w[96];

		pci_addr_fmt(&rq->gpu->addr, g);
		where_near(rq, want, w, sizeof(w));
		tally_near(hcas, rq, l, doms, want, &sbuf);
		snprintf(err, errlen,
			 "VM %d NIC %d: no free VF beside GPU %s (IB_AFFINITY "
			 "required, %s: %s)",
			 rq->vmid, rq->nic->nic_id, g, w, sb_str(&sbuf));
		sb_release(&sbuf);
		return -EBUSY;
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
