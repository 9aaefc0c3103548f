// SPDX-License-Identifier: Apache-2.0
/* The service levels of the renderer's networks (partsl.h, slplan.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/ibattr.h"
#include "core/strbuf.h"
#include "fabric/partsl.h"
#include "fabric/partwork.h"

void partitions_plan_free(struct partitions_plan *pp)
{
	if (!pp)
		return;
	sl_plan_free(&pp->plan);
	free(pp->nets);
	free(pp->pkey);
	free(pp->label);
	free(pp->hosts);
	free(pp->h);
	sb_release(&pp->warnings);
	memset(pp, 0, sizeof(*pp));
}

/* The network NIC i is a member of (its index in w->ids), or -1. */
static long member_net(const struct work *w, size_t i)
{
	const struct nic_fact *n = &w->f->nics[i];
	const struct by_id *b;

	if (n->net == FACT_NONE || n->bad != FACT_NONE || w->nic_out[i])
		return -1;
	b = partwork_find_id(w->ids, w->nnets, n->net);
	/* a reservation's NICs are its parent's */
	if (b && w->nets[b->i].status == NET_RESERVATION)
		b = partwork_find_id(w->ids, w->nnets, w->nets[b->i].f->parent);
	return b ? (long)(b - w->ids) : -1;
}

/* The NICs that are members of their network's partition, by network:
 * first[k]..first[k + 1] of order for the network at w->ids[k]. */
static int nics_by_net(const struct work *w, size_t **order, size_t **first)
{
	const struct cloud_facts *f = w->f;
	size_t i, k, *at;
	long b;

	*order = calloc(f->nnics + 1, sizeof(**order));
	*first = calloc(w->nnets + 2, sizeof(**first));
	at = calloc(w->nnets + 1, sizeof(*at));
	if (!*order || !*first || !at) {
		free(at);
		return -ENOMEM;
	}
	for (i = 0; i < f->nnics; i++)
		if ((b = member_net(w, i)) >= 0)
			(*first)[(size_t)b + 1]++;
	for (k = 0; k < w->nnets; k++) {
		(*first)[k + 1] += (*first)[k];
		at[k] = (*first)[k];
	}
	for (i = 0; i < f->nnics; i++)
		if ((b = member_net(w, i)) >= 0)
			(*order)[at[b]++] = i;
	free(at);
	return 0;
}

/* A static partition whose sl= a cluster may get too. */
static int static_sl_warnings(const struct work *w, struct strbuf *sb)
{
	char list[SL_LIST_STRLEN];
	size_t i;
	int r = 0;

	sl_list_fmt(w->o->sls->pool, list);
	for (i = 0; i <= w->stat->n && !r; i++) {
		const struct partition *p = partitions_at(w->stat, i);

		if (!p || p->sl < 0 || !(w->o->sls->pool & (1u << p->sl)))
			continue;
		r = sb_addf(sb,
			    "SL plan: %s's partition %s (0x%04x) has sl=%d, "
			    "one of ONEIB_SLS %s: a cluster may get it too; "
			    "leave the site's SLs out of ONEIB_SLS\n",
			    partwork_stat_label(w), p->name, p->pkey, p->sl,
			    list);
	}
	return r;
}

/*
 * The plan over the networks that have a partition (fresh ones from their
 * NICs, kept ones pinned at their installed SL), applied to their
 * partitions' sl=. Runs before finish(), which sorts the partitions.
 */
int partwork_plan_sls(struct work *w, struct partitions_plan *pp)
{
	const struct cloud_facts *f = w->f;
	size_t *order = NULL, *first = NULL, k, j, n = 0, nh = 0;
	int r;

	pp->nets = calloc(w->nnets + 1, sizeof(*pp->nets));
	pp->pkey = calloc(w->nnets + 1, sizeof(*pp->pkey));
	pp->label = calloc(w->nnets + 1, sizeof(*pp->label));
	pp->hosts = calloc(f->nnics + 1, sizeof(*pp->hosts));
	pp->h = calloc(f->nhosts + 1, sizeof(*pp->h));
	if (!pp->nets || !pp->pkey || !pp->label || !pp->hosts || !pp->h)
		return -ENOMEM;
	r = nics_by_net(w, &order, &first);
	for (k = 0; k < f->nhosts && !r; k++) {
		pp->h[k].id = f->hosts[k].id;
		pp->h[k].leaves = f->hosts[k].leaves;
		pp->h[k].nleaves = f->hosts[k].nports;
	}
	for (k = 0; k < w->nnets && !r; k++) {
		const struct net *net = &w->nets[w->ids[k].i];
		const struct partition *p;
		struct slplan_net *sn = &pp->nets[n];

		if (net->part < 0)
			continue;
		p = &w->out->p[net->part];
		/* a network left out keeps its partition, SL and all */
		if (net->status == NET_BAD && p->sl < 0)
			continue;
		vnet_fact_label(net->f, pp->label[n]);
		pp->pkey[n] = p->pkey;
		sn->id = net->f->id;
		sn->label = pp->label[n];
		sn->pinned = net->status == NET_BAD	      ? p->sl
			     : ibattr_has(&net->f->a, IBA_SL) ? net->f->a.sl
							      : -1;
		sn->installed = net->inst ? net->inst->sl : -1;
		sn->hosts = pp->hosts + nh;
		for (j = first[k]; j < first[k + 1]; j++)
			pp->hosts[nh++] = f->nics[order[j]].host == FACT_NONE
						  ? SLPLAN_HOST_UNKNOWN
						  : f->nics[order[j]].host;
		sn->nhosts = (size_t)(pp->hosts + nh - sn->hosts);
		n++;
	}
	free(order);
	free(first);
	if (!r)
		r = sl_plan_make(pp->nets, n, pp->h, f->nhosts, w->o->sls,
				 &pp->plan);
	for (k = 0, j = 0; !r && k < w->nnets; k++) {
		const struct net *net = &w->nets[w->ids[k].i];

		if (j < n && pp->nets[j].id == net->f->id) {
			if (net->status != NET_BAD)
				w->out->p[net->part].sl = pp->plan.c[j].sl;
			j++;
		}
	}
	if (!r)
		r = sl_plan_warnings(&pp->plan, pp->nets, &pp->warnings);
	if (!r)
		r = static_sl_warnings(w, &pp->warnings);
	return r;
}

void partitions_sls_in_force(struct partitions *m,
			     const struct partitions *installed)
{
	size_t i;

	for (i = 0; i <= m->n; i++) {
		struct partition *p = i < m->n ? &m->p[i] : m->def;
		const struct partition *was =
			p && installed ? partitions_find(installed, p->pkey)
				       : NULL;

		if (p)
			p->sl = was ? was->sl : -1;
	}
}

int partitions_plan_text(const struct partitions_plan *pp, struct strbuf *out)
{
	const struct sl_plan *p = &pp->plan;
	char list[SL_LIST_STRLEN];
	size_t i, vms = 0;
	int r = 0;

	for (i = 0; i < p->n && !r; i++) {
		const struct sl_choice *c = &p->c[i];

		vms += c->why != SLW_NO_VMS;
		r = sb_addf(out, "%s 0x%04x: ", pp->label[i], pp->pkey[i]);
		if (!r)
			r = c->sl >= 0 ? sb_addf(out, "SL %d, ", c->sl)
				       : sb_adds(out, "-, ");
		if (!r)
			r = sl_plan_explain(p, pp->nets, i, out);
		if (!r)
			r = sb_adds(out, "\n");
	}
	sl_list_fmt(p->o.pool, list);
	if (!r)
		r = sb_addf(out,
			    "plan: %zu of %zu network%s with VMs; SLs %s for "
			    "them (%d), best effort %d; %zu on best effort, "
			    "%zu clash%s\n",
			    vms, p->n, p->n == 1 ? "" : "s", list,
			    __builtin_popcount(p->o.pool), p->o.best_effort,
			    p->nshared, p->nclash, p->nclash == 1 ? "" : "es");
	return r;
}
