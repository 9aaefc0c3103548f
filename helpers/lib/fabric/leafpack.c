// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "fabric/leafpack.h"
#include "fabric/railfit.h"
#include "fabric/vfcount.h"

#define VM_PENDING 1

/* How many VMs of network net are under leaf switch leaf[l]. */
struct use {
	int net;
	size_t l;
	long n;
};

/* What one run knows and has given so far. */
struct plan {
	const struct cloud_facts *f;
	uint64_t *leaf; /* the distinct leaf switches, ascending */
	size_t nleaf;
	long *rem; /* per host: VFs free by the counters, less those given */
	/* per host with rails: each rail's VFs left, less those given
	 * (railfit.h); rails NULL for a host without (or not counted) */
	struct railfit *rf;
	bool *rails;
	const struct vnet_fact **net; /* by network ID */
	size_t nnet;
	struct use *use; /* by (net, l) */
	size_t nuse, capuse;
	long *room; /* per leaf, for the VM being placed */
	bool *fits;
	/* per VM: a host's VMS names it. oned has dispatched a PENDING VM a
	 * host holds: the VM listing was taken before the host listing, and
	 * the scheduler placed it in between. It is where it is, counted on
	 * its host; placing it again would count its VFs twice. */
	bool *held;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_net(const void *a, const void *b)
{
	const struct vnet_fact *x = *(const struct vnet_fact *const *)a;
	const struct vnet_fact *y = *(const struct vnet_fact *const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_use(const void *a, const void *b)
{
	const struct use *x = a, *y = b;

	if (x->net != y->net)
		return (x->net > y->net) - (x->net < y->net);
	return (x->l > y->l) - (x->l < y->l);
}

static const struct vnet_fact *net_of(const struct plan *p, int id)
{
	const struct vnet_fact key = { .id = id }, *k = &key, *const * hit;

	hit = bsearch(&k, p->net, p->nnet, sizeof(*p->net), cmp_net);
	return hit ? *hit : NULL;
}

static long leaf_index(const struct plan *p, uint64_t g)
{
	const uint64_t *hit;

	if (!g)
		return -1;
	hit = bsearch(&g, p->leaf, p->nleaf, sizeof(*p->leaf), cmp_u64);
	return hit ? hit - p->leaf : -1;
}

static struct use *use_find(const struct plan *p, int net, size_t l)
{
	const struct use key = { .net = net, .l = l };

	if (!p->nuse)
		return NULL;
	return bsearch(&key, p->use, p->nuse, sizeof(*p->use), cmp_use);
}

static long uses(const struct plan *p, int net, size_t l)
{
	const struct use *u = use_find(p, net, l);

	return u ? u->n : 0;
}

/* One VM more of net under leaf l (kept in order: few are added). */
static int use_add(struct plan *p, int net, size_t l)
{
	const struct use key = { .net = net, .l = l, .n = 1 };
	struct use *u = use_find(p, net, l);
	size_t at = 0;

	if (u) {
		u->n++;
		return 0;
	}
	if (ALLOC_GROW(p->use, p->nuse + 1, p->capuse))
		return -ENOMEM;
	while (at < p->nuse && cmp_use(&p->use[at], &key) < 0)
		at++;
	memmove(&p->use[at + 1], &p->use[at], (p->nuse - at) * sizeof(*p->use));
	p->use[at] = key;
	p->nuse++;
	return 0;
}

/* Port k of h is the first of h's ports under its leaf (a leaf counts
 * once per host), and that leaf is known. */
static bool first_port_of_leaf(const struct host_fact *h, size_t k)
{
	size_t j;

	if (!h->leaves[k])
		return false;
	for (j = 0; j < k; j++)
		if (h->leaves[j] == h->leaves[k])
			return false;
	return true;
}

/* May the scheduler put a VM of network n on h? */
static bool host_serves(const struct host_fact *h, const struct vnet_fact *n)
{
	size_t i;

	if (!h->schedulable)
		return false;
	if (!n->nclusters)
		return false; /* in no cluster: on no host */
	for (i = 0; i < n->nclusters; i++)
		if (n->clusters[i] == h->cluster)
			return true;
	return false;
}

static void plan_free(struct plan *p)
{
	free(p->leaf);
	free(p->rem);
	free(p->net);
	free(p->use);
	free(p->room);
	free(p->fits);
	free(p->held);
	for (size_t i = 0; p->rf && i < p->f->nhosts; i++)
		if (p->rails[i])
			railfit_free(&p->rf[i]);
	free(p->rf);
	free(p->rails);
}

/* A use by VM v (network v->net) under each leaf its rails took on rf's
 * host are cabled to, once a leaf (the rails a leaf serves are one). */
static int rail_uses(struct plan *p, const struct railfit *rf,
		     const struct vm_fact *v)
{
	size_t t, u;

	for (t = 0; t < rf->ntook; t++) {
		uint64_t g = rf->h->rails[rf->took[t].rail].leaf;
		bool seen = false;

		if (rf->took[t].vm != v->id || leaf_index(p, g) < 0)
			continue;
		for (u = 0; u < t && !seen; u++)
			seen = rf->took[u].vm == v->id &&
			       rf->h->rails[rf->took[u].rail].leaf == g;
		if (seen)
			continue;
		if (ALLOC_GROW(p->use, p->nuse + 1, p->capuse))
			return -ENOMEM;
		p->use[p->nuse++] = (struct use){
			.net = v->net,
			.l = (size_t)leaf_index(p, g),
			.n = 1,
		};
	}
	return 0;
}

/* The leaves, each host's room, the networks and who uses which leaf. */
static int plan_init(struct plan *p, const struct cloud_facts *f)
{
	size_t i, j, k, n = 0;
	int r;

	p->f = f;
	for (i = 0; i < f->nhosts; i++)
		n += f->hosts[i].nports;
	p->leaf = calloc(n + 1, sizeof(*p->leaf));
	p->rem = calloc(f->nhosts + 1, sizeof(*p->rem));
	p->net = calloc(f->nv + 1, sizeof(*p->net));
	p->room = calloc(n + 1, sizeof(*p->room));
	p->fits = calloc(n + 1, sizeof(*p->fits));
	p->held = calloc(f->nvms + 1, sizeof(*p->held));
	p->rf = calloc(f->nhosts + 1, sizeof(*p->rf));
	p->rails = calloc(f->nhosts + 1, sizeof(*p->rails));
	if (!p->leaf || !p->rem || !p->net || !p->room || !p->fits ||
	    !p->held || !p->rf || !p->rails)
		return -ENOMEM;
	for (i = 0; i < f->nhosts; i++)
		for (k = 0; k < f->hosts[i].nports; k++)
			if (f->hosts[i].leaves[k])
				p->leaf[p->nleaf++] = f->hosts[i].leaves[k];
	qsort(p->leaf, p->nleaf, sizeof(*p->leaf), cmp_u64);
	for (i = j = 0; i < p->nleaf; i++)
		if (!j || p->leaf[j - 1] != p->leaf[i])
			p->leaf[j++] = p->leaf[i];
	p->nleaf = j;
	for (i = 0; i < f->nv; i++)
		p->net[p->nnet++] = &f->v[i];
	qsort(p->net, p->nnet, sizeof(*p->net), cmp_net);

	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];
		long c[HC_COUNT];

		/* a host VMS names a VM unknown to: no room until counted */
		p->rem[i] = vfcount_host(f, h, c) ? 0 : c[HC_AVAIL];
		if (p->rem[i] && h->nrails) {
			r = railfit_init(&p->rf[i], f, h);
			if (r == -ENOMEM)
				return r;
			p->rails[i] = !r;
		}
		for (j = 0; j < h->nvms; j++) {
			const struct vm_fact *v = vfcount_vm(f, h->vms[j]);

			if (v)
				p->held[v - f->vms] = true;
			if (!v || v->net == FACT_NONE || !v->ib_nics)
				continue;
			/* per rail: under the leaves of the rails it took */
			if (p->rails[i]) {
				r = rail_uses(p, &p->rf[i], v);
				if (r)
					return r;
				continue;
			}
			for (k = 0; k < h->nports; k++) {
				if (!first_port_of_leaf(h, k))
					continue;
				if (ALLOC_GROW(p->use, p->nuse + 1, p->capuse))
					return -ENOMEM;
				p->use[p->nuse++] = (struct use){
					.net = v->net,
					.l = (size_t)leaf_index(p,
								h->leaves[k]),
					.n = 1,
				};
			}
		}
	}
	if (p->nuse)
		qsort(p->use, p->nuse, sizeof(*p->use), cmp_use);
	for (i = j = 0; i < p->nuse; i++) {
		if (j && !cmp_use(&p->use[j - 1], &p->use[i]))
			p->use[j - 1].n++;
		else
			p->use[j++] = p->use[i];
	}
	p->nuse = j;
	return 0;
}

/*
 * Can host i take VM v by the counters: its VFs, and where the host has
 * rails the rails it needs (the rail term) and, with IB_AFFINITY
 * required, VFs beside the devices oned would give it (railfit.h)?
 */
static bool host_fits(struct plan *p, size_t i, const struct vm_fact *v)
{
	int need;

	if (p->rem[i] < v->ib_nics)
		return false;
	if (!p->rails[i])
		return true;
	need = railfit_need(p->f, v);
	if (need >= 2 && railfit_avail(&p->rf[i]) < need)
		return false;
	return !railfit_required(p->f, v) ||
	       railfit_vm(&p->rf[i], p->f, v, false);
}

/*
 * Gives VM v (network n) VFs under leaf l: from the host there with the
 * most free (the lowest index on a tie). false when no host under l
 * has them.
 */
static bool take(struct plan *p, const struct vm_fact *v,
		 const struct vnet_fact *n, size_t l)
{
	const struct cloud_facts *f = p->f;
	size_t i, k;
	long best = -1;

	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];

		if (!host_fits(p, i, v) || !host_serves(h, n) ||
		    (best >= 0 && p->rem[i] <= p->rem[best]))
			continue;
		for (k = 0; k < h->nports; k++)
			if (h->leaves[k] == p->leaf[l])
				break;
		if (k < h->nports)
			best = (long)i;
	}
	if (best < 0)
		return false;
	p->rem[best] -= v->ib_nics;
	if (p->rails[best])
		railfit_vm(&p->rf[best], f, v, true);
	return true;
}

/* Is leaf a better than leaf b for network net (pack or spread)? */
static bool better(const struct plan *p, int net, bool spread, size_t a,
		   size_t b)
{
	long ua = uses(p, net, a), ub = uses(p, net, b);

	if (ua != ub)
		return spread ? ua < ub : ua > ub;
	if (p->room[a] != p->room[b])
		return p->room[a] > p->room[b];
	return a < b; /* the lower GUID */
}

/* The best leaf that fits v, or -1 when none does. */
static long choose(struct plan *p, const struct vm_fact *v,
		   const struct vnet_fact *n)
{
	const struct cloud_facts *f = p->f;
	size_t i, k;
	long best = -1;

	memset(p->room, 0, p->nleaf * sizeof(*p->room));
	memset(p->fits, 0, p->nleaf * sizeof(*p->fits));
	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];

		bool fits;

		if (p->rem[i] <= 0 || !host_serves(h, n))
			continue;
		fits = host_fits(p, i, v);
		/* per rail: a leaf's room is what the rails cabled to it
		 * have left */
		for (k = 0; p->rails[i] && k < h->nrails; k++) {
			long l = leaf_index(p, h->rails[k].leaf);

			if (l < 0)
				continue;
			p->room[l] += p->rf[i].left[k];
			p->fits[l] |= fits;
		}
		for (k = 0; !p->rails[i] && k < h->nports; k++) {
			long l = leaf_index(p, h->leaves[k]);

			if (l < 0 || !first_port_of_leaf(h, k))
				continue;
			p->room[l] += p->rem[i];
			p->fits[l] |= fits;
		}
	}
	for (i = 0; i < p->nleaf; i++)
		if (p->fits[i] &&
		    (best < 0 ||
		     better(p, v->net, n->a.placement == IB_PLACE_SPREAD, i,
			    (size_t)best)))
			best = (long)i;
	return best;
}

/* The network v's leaf is chosen for, or NULL: none of one-ib's. */
static const struct vnet_fact *placed_by_leaf(const struct plan *p,
					      const struct vm_fact *v)
{
	const struct vnet_fact *n;

	if (v->net == FACT_NONE)
		return NULL;
	n = net_of(p, v->net);
	/* a network left out (bad, not ready) has no placement to trust */
	if (!n || n->bad != FACT_NONE || !n->ready)
		return NULL;
	return n->a.placement != IB_PLACE_NONE ? n : NULL;
}

int leafpack_plan(const struct cloud_facts *f, struct leaf_pick *pick)
{
	struct plan p = { 0 };
	size_t i;
	int r = plan_init(&p, f), pass;

	for (i = 0; i < f->nvms; i++) {
		const struct vm_fact *v = &f->vms[i];
		const struct vnet_fact *n = placed_by_leaf(&p, v);
		struct schedreq had = { 0 };

		pick[i] = (struct leaf_pick){
			.to_place = v->ib_nics && vm_fact_to_place(v) &&
				    !(p.held && p.held[i]),
		};
		/* the requirement read once, for pass 0 and topology.h; one
		 * that cannot be wrapped is refused (schedreq.h): no leaf */
		if (pick[i].to_place && v->req != FACT_NONE) {
			if (schedreq_parse(f->texts[v->req], &had))
				had.has = SR_REFUSED;
			pick[i].had = had.has;
			pick[i].had_leaf = had.leaf;
		}
		if (pick[i].to_place && pick[i].had == SR_REFUSED)
			pick[i].has = SR_REFUSED;
		else if (pick[i].to_place && n && v->state != VM_PENDING)
			pick[i].has = SR_GATE;
	}
	/* pass 0: PENDING VMs keep the leaf they have while it fits; 1: the
	 * rest get the best */
	for (pass = 0; !r && pass < 2; pass++) {
		for (i = 0; !r && i < f->nvms; i++) {
			const struct vm_fact *v = &f->vms[i];
			const struct vnet_fact *n = placed_by_leaf(&p, v);
			long l = -1;

			if (!pick[i].to_place || !n || v->state != VM_PENDING ||
			    pick[i].has == SR_LEAF || pick[i].has == SR_REFUSED)
				continue;
			if (pass == 0) {
				if (pick[i].had != SR_LEAF)
					continue;
				l = leaf_index(&p, pick[i].had_leaf);
				if (l < 0 || !take(&p, v, n, (size_t)l))
					continue;
			} else {
				l = choose(&p, v, n);
				if (l < 0 || !take(&p, v, n, (size_t)l))
					continue;
			}
			pick[i].has = SR_LEAF;
			pick[i].leaf = p.leaf[l];
			r = use_add(&p, v->net, (size_t)l);
		}
	}
	plan_free(&p);
	return r;
}
