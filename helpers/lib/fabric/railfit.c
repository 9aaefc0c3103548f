// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/railrank.h"
#include "fabric/railfit.h"
#include "fabric/vfcount.h"

static bool gpu_class(int cls)
{
	return cls >= 0 && pci_class_is_gpu((uint32_t)cls << 8);
}

static long pci_index(const struct host_fact *h, const struct pci_addr *a)
{
	size_t i;

	for (i = 0; i < h->npcis; i++)
		if (!pci_addr_cmp(&h->pcis[i].addr, a))
			return (long)i;
	return -1;
}

static bool matches(const struct host_pci *d, const struct vm_pci *q)
{
	return (q->cls < 0 || d->cls == q->cls) &&
	       (q->vendor < 0 || d->vendor == q->vendor) &&
	       (q->device < 0 || d->device == q->device);
}

static bool same_short(const struct pci_addr *a, const struct pci_addr *b)
{
	return a->bus == b->bus && a->slot == b->slot && a->func == b->func;
}

/*
 * The devices oned gives v on rf's host, in v's template order, into
 * got[] (indexes of h->pcis): those it has (on_host: a PCI/ADDRESS the
 * host lists), the others as HostSharePCI would hand them out. false when
 * oned could not (a request no free device matches).
 */
static bool devices_of(const struct railfit *rf, const struct cloud_facts *f,
		       const struct vm_fact *v, bool on_host, long *got)
{
	const struct host_fact *h = rf->h;
	size_t k, i;

	for (k = 0; k < v->npci; k++) {
		const struct vm_pci *q = &f->vmpcis[v->pci + k];

		got[k] = on_host && q->has_addr ? pci_index(h, &q->addr) : -1;
		if (got[k] >= 0 || !q->has_short)
			continue;
		for (i = 0; i < h->npcis; i++)
			if (same_short(&h->pcis[i].addr, &q->short_addr))
				break;
		if (i == h->npcis || h->pcis[i].vmid >= 0 || rf->taken[i])
			return false;
		got[k] = (long)i;
	}
	/* then each request by name: the first free match by address */
	for (k = 0; k < v->npci; k++) {
		const struct vm_pci *q = &f->vmpcis[v->pci + k];
		size_t j;

		if (got[k] >= 0 || q->has_short)
			continue;
		if (q->cls < 0 && q->vendor < 0 && q->device < 0)
			return false; /* oned refuses such a request */
		for (i = 0; i < h->npcis; i++) {
			bool mine = false;

			if (h->pcis[i].vmid >= 0 || rf->taken[i] ||
			    !matches(&h->pcis[i], q))
				continue;
			for (j = 0; j < v->npci && !mine; j++)
				mine = got[j] == (long)i;
			if (!mine)
				break;
		}
		if (i == h->npcis)
			return false;
		got[k] = (long)i;
	}
	return true;
}

/*
 * v's NICs on rf's host by the rule (railrank.h). fit: every NIC got a
 * VF, the required ones beside their GPUs. take: the VFs and devices
 * taken from rf.
 */
static bool place_vm(struct railfit *rf, const struct cloud_facts *f,
		     const struct vm_fact *v, bool on_host, bool take)
{
	const struct host_fact *h = rf->h;
	long *got = calloc(v->npci + 1, sizeof(*got));
	long *left = calloc(h->nrails + 1, sizeof(*left));
	int *rail_of = calloc(v->nibnet + 1, sizeof(*rail_of));
	struct rail_cand *c = calloc(h->nrails + 1, sizeof(*c));
	/* its GPUs' places, as the host pairs them (NULL: not known) */
	const struct pci_place **gpus = calloc(v->npci + 1, sizeof(*gpus));
	size_t k, i, ngpus = 0, npair = 0, kpair = 0;
	bool fit = got && left && rail_of && c && gpus &&
		   devices_of(rf, f, v, on_host, got);

	if (!fit)
		goto out;
	memcpy(left, rf->left, h->nrails * sizeof(*left));
	for (k = 0; k < v->npci; k++) {
		const struct vm_pci *q = &f->vmpcis[v->pci + k];
		const struct host_pci *d = got[k] >= 0 ? &h->pcis[got[k]]
						       : NULL;

		/* the host pairs the deployment's GPUs, by their class */
		if (!gpu_class(d ? d->cls : q->cls))
			continue;
		gpus[ngpus++] = d ? &d->place : NULL;
	}
	for (k = 0; k < v->nibnet; k++)
		npair += f->ibnets[v->ibnet + k].affinity != IB_AFFINITY_NONE;
	for (k = 0; k < v->nibnet; k++) {
		const struct vm_ibnet *x = &f->ibnets[v->ibnet + k];
		bool spread = x->rails == IB_RAILS_SPREAD;
		int g = x->affinity == IB_AFFINITY_NONE
				? -1
				: rail_pair(kpair++, npair, ngpus);
		const struct pci_place *gp = g >= 0 ? gpus[g] : NULL;
		/* a VM counted takes its VFs as it can; only one to place
		 * is held to required */
		bool required = !on_host && g >= 0 &&
				x->affinity == IB_AFFINITY_REQUIRED;
		enum pci_near want = PCI_NEAR_NONE;
		long best;
		size_t j;

		for (i = 0; i < h->nrails; i++) {
			int sib = 0;

			for (j = 0; spread && j < k; j++)
				sib += f->ibnets[v->ibnet + j].net == x->net &&
				       rail_of[j] == h->rails[i].rail;
			c[i] = (struct rail_cand){
				.rail = h->rails[i].rail,
				.siblings = sib,
				.near = gp ? pci_near(gp, &h->rails[i].place)
					   : PCI_NEAR_NONE,
				.shared = gp ? (long)pci_shared_bridges(
						       gp, &h->rails[i].place)
					     : 0,
				.has_free = left[i] > 0,
			};
		}
		/* a GPU the probe does not place is beside nothing: required
		 * cannot be met there */
		if (required && !gp) {
			fit = false;
			rail_of[k] = -1;
			continue;
		}
		if (g >= 0)
			want = rail_beside(c, h->nrails);
		best = rail_choose(c, h->nrails, required, want);
		rail_of[k] = best >= 0 ? h->rails[best].rail : -1;
		if (best < 0) {
			fit = false;
			continue;
		}
		left[best]--;
		if (on_host && take)
			rf->took[rf->ntook++] =
				(struct railfit_took){ .vm = v->id,
						       .rail = (size_t)best };
	}
	if (take) {
		memcpy(rf->left, left, h->nrails * sizeof(*left));
		for (k = 0; k < v->npci; k++)
			if (got[k] >= 0)
				rf->taken[got[k]] = true;
	}
out:
	free(got);
	free(left);
	free(rail_of);
	free(c);
	free((void *)gpus);
	return fit;
}

static int cmp_index(const void *a, const void *b)
{
	ptrdiff_t x = *(const ptrdiff_t *)a, y = *(const ptrdiff_t *)b;

	return (x > y) - (x < y);
}

int railfit_init(struct railfit *rf, const struct cloud_facts *f,
		 const struct host_fact *h)
{
	ptrdiff_t *order;
	size_t i;
	int r = 0;

	rf->h = h;
	rf->left = calloc(h->nrails + 1, sizeof(*rf->left));
	rf->taken = calloc(h->npcis + 1, sizeof(*rf->taken));
	rf->ntook = 0;
	for (i = 0; i < h->nvms; i++) {
		const struct vm_fact *v = vfcount_vm(f, h->vms[i]);

		rf->ntook += v ? v->nibnet : 0;
	}
	rf->took = calloc(rf->ntook + 1, sizeof(*rf->took));
	rf->ntook = 0;
	if (!rf->left || !rf->taken || !rf->took) {
		railfit_free(rf);
		return -ENOMEM;
	}
	for (i = 0; i < h->nrails; i++)
		rf->left[i] = h->rails[i].usable;
	order = calloc(h->nvms + 1, sizeof(*order));
	if (!order) {
		railfit_free(rf);
		return -ENOMEM;
	}
	for (i = 0; i < h->nvms && !r; i++) {
		const struct vm_fact *v = vfcount_vm(f, h->vms[i]);

		if (!v)
			r = -ENOENT;
		else
			order[i] = v - f->vms;
	}
	/* in ID order (f's VMs are): VMS is oned's, in no order of its own */
	if (!r && h->nvms > 1)
		qsort(order, h->nvms, sizeof(*order), cmp_index);
	for (i = 0; i < h->nvms && !r; i++)
		if (f->vms[order[i]].ib_nics &&
		    (i == 0 || order[i] != order[i - 1]))
			place_vm(rf, f, &f->vms[order[i]], true, true);
	free(order);
	if (r) {
		for (i = 0; i < h->nrails; i++)
			rf->left[i] = h->rails[i].usable;
		rf->ntook = 0;
	}
	return r;
}

void railfit_free(struct railfit *rf)
{
	free(rf->left);
	free(rf->taken);
	free(rf->took);
	rf->left = NULL;
	rf->taken = NULL;
	rf->took = NULL;
}

long railfit_avail(const struct railfit *rf)
{
	const struct host_fact *h = rf->h;
	long n = 0;
	size_t i, j;

	for (i = 0; i < h->nrails; i++) {
		bool seen = false;

		if (rf->left[i] <= 0)
			continue;
		/* a rail counts once, however many ports serve it */
		for (j = 0; j < i && !seen; j++)
			seen = rf->left[j] > 0 &&
			       h->rails[j].rail == h->rails[i].rail;
		n += !seen;
	}
	return n;
}

int railfit_need(const struct cloud_facts *f, const struct vm_fact *v)
{
	int most = 0;
	size_t i, j;

	for (i = 0; i < v->nibnet; i++) {
		const struct vm_ibnet *x = &f->ibnets[v->ibnet + i];
		int n = 0;

		if (x->rails != IB_RAILS_SPREAD)
			continue;
		for (j = 0; j < v->nibnet; j++)
			n += f->ibnets[v->ibnet + j].net == x->net;
		if (n > most)
			most = n;
	}
	return most;
}

bool railfit_required(const struct cloud_facts *f, const struct vm_fact *v)
{
	size_t i;

	if (!v->npci)
		return false;
	for (i = 0; i < v->nibnet; i++)
		if (f->ibnets[v->ibnet + i].affinity == IB_AFFINITY_REQUIRED)
			return true;
	return false;
}

bool railfit_vm(struct railfit *rf, const struct cloud_facts *f,
		const struct vm_fact *v, bool take)
{
	return place_vm(rf, f, v, false, take);
}
