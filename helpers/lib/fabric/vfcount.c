// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>

#include "fabric/railfit.h"
#include "fabric/vfcount.h"

static int by_id(const void *a, const void *b)
{
	const struct vm_fact *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A reservation's parent (pairs of ints: reservation, parent; sorted). */
static int parent_of(const int *res, size_t nres, int net)
{
	const int *hit =
		nres ? bsearch(&net, res, nres, 2 * sizeof(*res), cmp_int)
		     : NULL;

	return hit ? hit[1] : net;
}

/* The network of v's cluster (cloudfacts.h): its first InfiniBand NIC
 * that is on no service network (limited, sorted), a reservation's NIC
 * its parent's. */
static void choose_cluster(const struct cloud_facts *f, struct vm_fact *v,
			   const int *limited, size_t nlimited, const int *res,
			   size_t nres)
{
	size_t k;

	v->net = FACT_NONE;
	v->has_ip = false;
	v->ip = 0;
	for (k = 0; k < v->nibnet; k++) {
		const struct vm_ibnet *x = &f->ibnets[v->ibnet + k];
		int net = parent_of(res, nres, x->net);

		if (nlimited &&
		    bsearch(&net, limited, nlimited, sizeof(*limited), cmp_int))
			continue;
		v->net = net;
		v->has_ip = x->has_ip;
		v->ip = x->ip;
		return;
	}
}

int vfcount_prepare(struct cloud_facts *f)
{
	int *limited = calloc(f->nv + 1, sizeof(*limited)),
	    *res = calloc(2 * f->nv + 2, sizeof(*res));
	size_t i, n = 0, nres = 0;

	if (!limited || !res) {
		free(limited);
		free(res);
		return -ENOMEM;
	}
	for (i = 0; i < f->nv; i++) {
		if (f->v[i].parent >= 0) {
			res[2 * nres] = f->v[i].id;
			res[2 * nres++ + 1] = f->v[i].parent;
		} else if (f->v[i].a.limited) {
			limited[n++] = f->v[i].id;
		}
	}
	if (n > 1)
		qsort(limited, n, sizeof(*limited), cmp_int);
	if (nres > 1)
		qsort(res, nres, 2 * sizeof(*res), cmp_int);
	for (i = 0; i < f->nvms; i++)
		choose_cluster(f, &f->vms[i], limited, n, res, nres);
	free(limited);
	free(res);
	if (f->nvms > 1)
		qsort(f->vms, f->nvms, sizeof(*f->vms), by_id);
	return 0;
}

const struct vm_fact *vfcount_vm(const struct cloud_facts *f, int id)
{
	const struct vm_fact key = { .id = id };

	if (!f->nvms)
		return NULL;
	return bsearch(&key, f->vms, f->nvms, sizeof(*f->vms), by_id);
}

int vfcount_host(const struct cloud_facts *f, const struct host_fact *h,
		 long out[HC_COUNT])
{
	long used = 0, sum = 0;
	size_t i;

	for (i = 0; i < h->nvms; i++) {
		const struct vm_fact *v = vfcount_vm(f, h->vms[i]);

		if (!v)
			return -ENOENT;
		used += v->ib_nics;
		sum += v->id;
	}
	out[HC_USABLE] = h->count[HC_USABLE] < 0 ? 0 : h->count[HC_USABLE];
	out[HC_USED] = used;
	out[HC_AVAIL] = out[HC_USABLE] > used ? out[HC_USABLE] - used : 0;
	out[HC_SYNC_VMS] = (long)h->nvms;
	out[HC_SYNC_SUM] = sum;
	/* per rail, where the probe says what each rail has (railfit.h);
	 * a host that had a count and has no rails now shows 0 */
	out[HC_RAILS_AVAIL] = h->count[HC_RAILS_AVAIL] >= 0 ? 0 : -1;
	if (h->nrails) {
		struct railfit rf;
		int r = railfit_init(&rf, f, h);

		if (r)
			return r;
		out[HC_RAILS_AVAIL] = railfit_avail(&rf);
		railfit_free(&rf);
	}
	return 0;
}

bool vfcount_current(const struct host_fact *h, const long want[HC_COUNT])
{
	int k;

	for (k = HC_USED; k < HC_COUNT; k++)
		if (h->count[k] != want[k])
			return false;
	return true;
}
