// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/topomap.h"
#include "fabric/topology.h"
#include "fabric/vfcount.h"

#define VM_PENDING 1

/* A VM of network net, by its address, under leaf. */
struct member {
	int net;
	struct topo_entry e;
};

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return (x->net > y->net) - (x->net < y->net);
}

/* PENDING behind the gate, given a leaf now: the run that lifts it. */
static bool wants_map(const struct vm_fact *v, const struct leaf_pick *p)
{
	return p->to_place && v->state == VM_PENDING && p->has == SR_LEAF &&
	       p->had == SR_GATE && v->context && v->net != FACT_NONE;
}

/* Every VM of a cluster with an address and a leaf, ordered by network. */
static int members(const struct cloud_facts *f, const struct leaf_pick *pick,
		   struct member **out, size_t *n)
{
	struct member *m = NULL;
	size_t nm = 0, cap = 0, i, j, k;

	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];
		uint64_t leaf = 0;

		for (k = 0; k < h->nports && !leaf; k++)
			leaf = h->leaves[k];
		for (j = 0; leaf && j < h->nvms; j++) {
			const struct vm_fact *v = vfcount_vm(f, h->vms[j]);

			if (!v || !v->ib_nics || v->net == FACT_NONE ||
			    !v->has_ip || pick[v - f->vms].to_place)
				continue;
			if (ALLOC_GROW(m, nm + 1, cap))
				goto nomem;
			m[nm++] = (struct member){ v->net, { leaf, v->ip } };
		}
	}
	for (i = 0; i < f->nvms; i++) {
		const struct vm_fact *v = &f->vms[i];

		if (!pick[i].to_place || pick[i].has != SR_LEAF ||
		    v->net == FACT_NONE || !v->has_ip)
			continue;
		if (ALLOC_GROW(m, nm + 1, cap))
			goto nomem;
		m[nm++] = (struct member){ v->net, { pick[i].leaf, v->ip } };
	}
	if (nm)
		qsort(m, nm, sizeof(*m), cmp_member);
	*out = m;
	*n = nm;
	return 0;
nomem:
	free(m);
	return -ENOMEM;
}

/* Network net's map into sb (reset first). */
static int net_map(const struct member *m, size_t nm, int net,
		   struct topo_entry *scratch, struct strbuf *sb)
{
	const struct member key = { .net = net }, *hit;
	size_t lo, hi, n = 0;

	sb_reset(sb);
	hit = nm ? bsearch(&key, m, nm, sizeof(*m), cmp_member) : NULL;
	if (!hit)
		return sb_adds(sb, "");
	for (lo = (size_t)(hit - m); lo > 0 && m[lo - 1].net == net; lo--)
		;
	for (hi = lo; hi < nm && m[hi].net == net; hi++)
		scratch[n++] = m[hi].e;
	return topomap_format(scratch, n, sb);
}

int topology_plan(const struct cloud_facts *f, const struct leaf_pick *pick,
		  char **out)
{
	struct strbuf sb = STRBUF_INIT;
	struct topo_entry *scratch = NULL;
	struct member *m = NULL;
	size_t nm = 0, i;
	int r, last = FACT_NONE;

	memset(out, 0, f->nvms * sizeof(*out));
	r = members(f, pick, &m, &nm);
	if (!r && !(scratch = calloc(nm + 1, sizeof(*scratch))))
		r = -ENOMEM;
	for (i = 0; !r && i < f->nvms; i++) {
		const struct vm_fact *v = &f->vms[i];
		const char *had;

		if (!wants_map(v, &pick[i]))
			continue;
		/* a burst's VMs come one after the other: one map for them */
		if (v->net != last) {
			r = net_map(m, nm, v->net, scratch, &sb);
			last = r ? FACT_NONE : v->net;
		}
		had = v->topo == FACT_NONE ? NULL : f->texts[v->topo];
		if (r || (had && !strcmp(had, sb_str(&sb))) ||
		    (!had && !sb.len))
			continue;
		if (!(out[i] = strdup(sb_str(&sb))))
			r = -ENOMEM;
	}
	if (r)
		for (i = 0; i < f->nvms; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	sb_release(&sb);
	free(scratch);
	free(m);
	return r;
}
