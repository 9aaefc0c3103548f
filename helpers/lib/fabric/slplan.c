// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/grow.h"
#include "core/log.h"
#include "fabric/slplan.h"

/* --- the settings ---------------------------------------------------------- */

static int sl_number(const char **s, int *out)
{
	int v = 0, digits = 0;

	while (**s >= '0' && **s <= '9' && digits < 3) {
		v = v * 10 + (**s - '0');
		(*s)++;
		digits++;
	}
	if (!digits || (**s >= '0' && **s <= '9'))
		return -EINVAL;
	*out = v;
	return 0;
}

/* "1-7", "1,2,5-7" -> a mask of SLs 0..15; "" is none. */
static int sl_list_parse(const char *s, uint16_t *mask, char *why,
			 size_t whylen)
{
	const char *p = s;

	*mask = 0;
	while (*p) {
		int lo, hi;

		if (sl_number(&p, &lo)) {
			err_set(why, whylen, "not a list of SLs (\"1-7\")");
			return -EINVAL;
		}
		hi = lo;
		if (*p == '-') {
			p++;
			if (sl_number(&p, &hi)) {
				err_set(why, whylen,
					"not a list of SLs (\"1-7\")");
				return -EINVAL;
			}
		}
		if (lo > SL_MAX || hi > SL_MAX) {
			err_set(why, whylen, "SL %d is not 0..15",
				lo > SL_MAX ? lo : hi);
			return -EINVAL;
		}
		if (hi < lo) {
			err_set(why, whylen, "%d-%d is an empty range", lo, hi);
			return -EINVAL;
		}
		for (; lo <= hi; lo++)
			*mask |= (uint16_t)(1u << lo);
		if (*p == ',')
			p++;
		else if (*p) {
			err_set(why, whylen, "not a list of SLs (\"1-7\")");
			return -EINVAL;
		}
	}
	return 0;
}

int sl_opts_parse(const char *sls, const char *best_effort, struct sl_opts *o,
		  char *err, size_t errlen)
{
	char why[96];
	const char *p = best_effort ? best_effort : "0";
	int be;

	memset(o, 0, sizeof(*o));
	if (sl_list_parse(sls ? sls : "", &o->pool, why, sizeof(why))) {
		err_set(err, errlen, "ONEIB_SLS '%s': %s", str_sanitize(sls).s,
			why);
		return -EINVAL;
	}
	if (sl_number(&p, &be) || *p || be > SL_MAX) {
		err_set(err, errlen,
			"ONEIB_SL_BEST_EFFORT '%s': not an SL 0..15",
			str_sanitize(best_effort).s);
		return -EINVAL;
	}
	if (o->pool & (1u << be)) {
		char list[SL_LIST_STRLEN];

		sl_list_fmt(o->pool, list);
		err_set(err, errlen,
			"ONEIB_SL_BEST_EFFORT %d is in ONEIB_SLS %s: the "
			"shared SL cannot be one network's own too",
			be, list);
		return -EINVAL;
	}
	o->best_effort = be;
	return 0;
}

void sl_list_fmt(uint16_t mask, char buf[SL_LIST_STRLEN])
{
	size_t at = 0;
	int lo, hi;

	buf[0] = '\0';
	for (lo = 0; lo <= SL_MAX; lo = hi + 1) {
		hi = lo;
		if (!(mask & (1u << lo)))
			continue;
		while (hi < SL_MAX && (mask & (1u << (hi + 1))))
			hi++;
		at += (size_t)snprintf(buf + at, SL_LIST_STRLEN - at,
				       lo == hi ? "%s%d" : "%s%d-%d",
				       at ? "," : "", lo, hi);
	}
	if (!at)
		snprintf(buf, SL_LIST_STRLEN, "none");
}

/* --- the work -------------------------------------------------------------- */

/* One VM's NIC on a known host: host index, network index. */
struct pair {
	size_t host, net;
};

struct net_work {
	size_t *hosts; /* distinct host indexes, sorted */
	size_t nhosts;
	bool vms;
	bool fixed; /* SL decided */
};

struct work {
	const struct slplan_net *nets;
	size_t n;
	const struct slplan_host *hosts;
	size_t nhosts;
	size_t *hidx; /* hosts by ID: indexes into hosts */
	struct pair *pairs; /* by host, then net */
	size_t npairs;
	size_t *group; /* per host: its first pair; group[nhosts]: the end */
	size_t *span; /* the networks that span, by index */
	size_t nspan;
	struct net_work *w;
	size_t *stamp; /* per network: the last visit's mark */
	size_t mark;
	struct sl_plan *out;
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->net < y->net ? -1 : x->net > y->net;
}

static int cmp_host_id(const void *a, const void *b, void *arg)
{
	const struct slplan_host *h = arg;
	int x = h[*(const size_t *)a].id, y = h[*(const size_t *)b].id;

	return x < y ? -1 : x > y;
}

/* The index of host ID id, or -1 (binary search over hidx). */
static long host_index(const struct work *k, int id)
{
	size_t lo = 0, hi = k->nhosts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->hosts[k->hidx[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < k->nhosts && k->hosts[k->hidx[lo]].id == id)
		return (long)k->hidx[lo];
	return -1;
}

/* Network i's distinct hosts and leaves, and whether it spans. */
static int place_net(struct work *k, size_t i, uint64_t **leaves,
		     size_t *capleaves)
{
	const struct slplan_net *n = &k->nets[i];
	struct net_work *w = &k->w[i];
	struct sl_choice *c = &k->out->c[i];
	size_t j, h, nl = 0, known = 0;
	bool nohost = false;

	w->hosts = calloc(n->nhosts + 1, sizeof(*w->hosts));
	if (!w->hosts)
		return -ENOMEM;
	w->vms = n->nhosts > 0;
	for (j = 0; j < n->nhosts; j++) {
		long x = n->hosts[j] == SLPLAN_HOST_UNKNOWN
				 ? -1
				 : host_index(k, n->hosts[j]);

		if (x < 0)
			nohost = true;
		else
			w->hosts[w->nhosts++] = (size_t)x;
	}
	qsort(w->hosts, w->nhosts, sizeof(*w->hosts), cmp_size);
	for (j = 0, h = 0; j < w->nhosts; j++)
		if (!h || w->hosts[j] != w->hosts[h - 1])
			w->hosts[h++] = w->hosts[j];
	w->nhosts = h;
	/* the leaves of its hosts; a host without a known one (or a VM
	 * without a known host) could be under any */
	c->unknown = nohost;
	for (j = 0; j < w->nhosts; j++) {
		const struct slplan_host *hh = &k->hosts[w->hosts[j]];
		size_t m, before = nl;

		for (m = 0; m < hh->nleaves; m++) {
			if (!hh->leaves[m])
				continue;
			if (ALLOC_GROW(*leaves, nl + 1, *capleaves))
				return -ENOMEM;
			(*leaves)[nl++] = hh->leaves[m];
		}
		if (nl == before)
			c->unknown = true;
		k->pairs[k->npairs].host = w->hosts[j];
		k->pairs[k->npairs++].net = i;
	}
	if (nl) /* *leaves is NULL until a leaf is known */
		qsort(*leaves, nl, sizeof(**leaves), guid_cmp);
	for (j = 0; j < nl; j++)
		known += !j || (*leaves)[j] != (*leaves)[j - 1];
	c->nhosts = w->nhosts;
	c->nleaves = known;
	/* VMs in two places or more (a VM whose host is not known is one
	 * more), not all under one leaf; one host keeps its VMs' traffic
	 * off the switches' uplinks */
	c->spans = w->nhosts + nohost > 1 && (known > 1 || c->unknown);
	return 0;
}

/*
 * Each network's distinct hosts, whether it spans, the (host, network)
 * pairs by host and the networks that span.
 */
static int placement(struct work *k)
{
	uint64_t *leaves = NULL;
	size_t i, j, total = 0, capleaves = 0;
	int r = 0;

	k->hidx = calloc(k->nhosts + 1, sizeof(*k->hidx));
	k->group = calloc(k->nhosts + 1, sizeof(*k->group));
	k->span = calloc(k->n + 1, sizeof(*k->span));
	for (i = 0; i < k->n; i++)
		total += k->nets[i].nhosts;
	k->pairs = calloc(total + 1, sizeof(*k->pairs));
	if (!k->hidx || !k->group || !k->span || !k->pairs)
		return -ENOMEM;
	for (i = 0; i < k->nhosts; i++)
		k->hidx[i] = i;
	qsort_r(k->hidx, k->nhosts, sizeof(*k->hidx), cmp_host_id,
		(void *)k->hosts);
	for (i = 0; i < k->n && !r; i++) {
		r = place_net(k, i, &leaves, &capleaves);
		if (!r && k->out->c[i].spans)
			k->span[k->nspan++] = i;
	}
	free(leaves);
	if (r)
		return r;
	qsort(k->pairs, k->npairs, sizeof(*k->pairs), cmp_pair);
	for (i = 0, j = 0; i <= k->nhosts; i++) {
		while (j < k->npairs && k->pairs[j].host < i)
			j++;
		k->group[i] = j;
	}
	return 0;
}

/*
 * fn(k, v, u, host, arg) for every network u that shares a host with v,
 * once, with the first such host's ID. Networks that span are visited
 * too; the callers deal with the rest of those (k->span).
 */
typedef void (*visit_fn)(struct work *k, size_t v, size_t u, int host,
			 void *arg);

static void each_host_conflict(struct work *k, size_t v, visit_fn fn, void *arg)
{
	const struct net_work *w = &k->w[v];
	size_t j, p;

	k->mark++;
	k->stamp[v] = k->mark;
	for (j = 0; j < w->nhosts; j++) {
		size_t h = w->hosts[j];

		for (p = k->group[h]; p < k->group[h + 1]; p++) {
			size_t u = k->pairs[p].net;

			if (k->stamp[u] == k->mark)
				continue;
			k->stamp[u] = k->mark;
			fn(k, v, u, k->hosts[h].id, arg);
		}
	}
}

/* Keeps u among the first SLPLAN_SHOWN conflicts of c, by index. */
static void show(struct sl_choice *c, size_t u, int host)
{
	size_t i, at;

	for (at = 0; at < c->nshown && c->shown[at].net < u; at++)
		;
	if (at >= SLPLAN_SHOWN || (at < c->nshown && c->shown[at].net == u))
		return;
	if (c->nshown < SLPLAN_SHOWN)
		c->nshown++;
	for (i = c->nshown - 1; i > at; i--)
		c->shown[i] = c->shown[i - 1];
	c->shown[at].net = u;
	c->shown[at].host = host;
}

static void count_conflict(struct work *k, size_t v, size_t u, int host,
			   void *arg)
{
	struct sl_choice *c = &k->out->c[v];

	(void)arg;
	/* one that spans too is counted with the others that span */
	if (!c->spans || !k->out->c[u].spans)
		c->nconflicts++;
	show(c, u, host);
}

/* How many networks v conflicts with, and the first few. */
static void conflicts_of(struct work *k, size_t v)
{
	struct sl_choice *c = &k->out->c[v];
	size_t j, shown = 0;

	if (!k->w[v].vms)
		return;
	each_host_conflict(k, v, count_conflict, NULL);
	if (!c->spans)
		return;
	c->nconflicts += k->nspan - 1;
	/* the first few that span; a shared host names it better */
	for (j = 0; j < k->nspan && shown <= SLPLAN_SHOWN; j++) {
		size_t u = k->span[j];

		if (u == v)
			continue;
		shown++;
		if (k->stamp[u] != k->mark) /* else shown with its host */
			show(c, u, -1);
	}
}

/* What the decided networks v conflicts with hold. */
struct taken {
	uint16_t mask; /* their SLs of their own */
	long pinned_taker; /* a pinned one whose SL is want, or -1 */
	int want;
};

static bool has_own_sl(const struct sl_choice *c)
{
	return c->why == SLW_PINNED || c->why == SLW_KEPT || c->why == SLW_NEW;
}

static void take_one(struct work *k, size_t u, struct taken *t)
{
	const struct sl_choice *c = &k->out->c[u];

	if (!k->w[u].fixed || !has_own_sl(c))
		return;
	t->mask |= (uint16_t)(1u << c->sl);
	if (c->why == SLW_PINNED && c->sl == t->want && t->pinned_taker < 0)
		t->pinned_taker = (long)u;
}

static void take(struct work *k, size_t v, size_t u, int host, void *arg)
{
	(void)v;
	(void)host;
	take_one(k, u, arg);
}

/*
 * The SLs the decided networks v conflicts with have. Those that span
 * are kept per SL as they are decided (span_sl, span_pinned), so a network
 * that spans costs one look at them, not one per network.
 */
struct span_state {
	uint16_t mask; /* SLs of decided networks that span */
	long pinned[SL_MAX + 1]; /* per SL: a pinned one that spans, or -1 */
};

static void taken_by(struct work *k, size_t v, const struct span_state *ss,
		     struct taken *t)
{
	each_host_conflict(k, v, take, t);
	if (!k->out->c[v].spans)
		return;
	t->mask |= ss->mask;
	if (t->want >= 0 && ss->pinned[t->want] >= 0 && t->pinned_taker < 0)
		t->pinned_taker = ss->pinned[t->want];
}

static void decided(struct work *k, size_t v, struct span_state *ss)
{
	const struct sl_choice *c = &k->out->c[v];

	k->w[v].fixed = true;
	if (!c->spans || !has_own_sl(c))
		return;
	ss->mask |= (uint16_t)(1u << c->sl);
	if (c->why == SLW_PINNED && ss->pinned[c->sl] < 0)
		ss->pinned[c->sl] = (long)v;
}

struct order {
	size_t i;
	bool spans;
	size_t degree;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->spans != y->spans)
		return x->spans ? -1 : 1;
	if (x->degree != y->degree)
		return x->degree > y->degree ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int lowest(unsigned mask)
{
	int sl;

	for (sl = 0; sl <= SL_MAX; sl++)
		if (mask & (1u << sl))
			return sl;
	return -1;
}

static int assign(struct work *k)
{
	const struct sl_opts *o = &k->out->o;
	struct order *ord = calloc(k->n + 1, sizeof(*ord));
	struct span_state ss;
	size_t i, nord = 0;

	if (!ord)
		return -ENOMEM;
	ss.mask = 0;
	for (i = 0; i <= SL_MAX; i++)
		ss.pinned[i] = -1;
	/* 1. pinned */
	for (i = 0; i < k->n; i++) {
		struct sl_choice *c = &k->out->c[i];

		c->sl = -1;
		c->why = SLW_NO_VMS;
		if (k->nets[i].pinned < 0 || k->nets[i].pinned > SL_MAX)
			continue;
		c->sl = k->nets[i].pinned;
		c->why = SLW_PINNED;
		decided(k, i, &ss);
	}
	/* 2. kept, unless a pinned network it conflicts with has it */
	for (i = 0; i < k->n; i++) {
		struct sl_choice *c = &k->out->c[i];
		int inst = k->nets[i].installed;
		struct taken t = { 0, -1, inst };

		if (k->w[i].fixed || !k->w[i].vms || inst < 0 || inst > SL_MAX)
			continue;
		if (inst == o->best_effort) {
			c->lost = SLL_BEST_EFFORT;
			continue;
		}
		if (!(o->pool & (1u << inst))) {
			c->lost = SLL_NOT_IN_POOL;
			continue;
		}
		taken_by(k, i, &ss, &t);
		if (t.pinned_taker >= 0) {
			c->lost = SLL_PINNED;
			c->taker = (size_t)t.pinned_taker;
			continue;
		}
		c->sl = inst;
		c->why = SLW_KEPT;
		decided(k, i, &ss);
	}
	/* 3. and 4. the others with VMs, in their order */
	for (i = 0; i < k->n; i++)
		if (k->w[i].vms && !k->w[i].fixed) {
			ord[nord].i = i;
			ord[nord].spans = k->out->c[i].spans;
			ord[nord++].degree = k->out->c[i].nconflicts;
		}
	qsort(ord, nord, sizeof(*ord), cmp_order);
	for (i = 0; i < nord; i++) {
		size_t v = ord[i].i;
		struct sl_choice *c = &k->out->c[v];
		struct taken t = { 0, -1, -1 };
		int sl;

		taken_by(k, v, &ss, &t);
		sl = lowest(o->pool & ~(unsigned)t.mask);
		if (sl >= 0) {
			c->sl = sl;
			c->why = SLW_NEW;
		} else {
			c->sl = o->best_effort;
			c->why = SLW_BEST_EFFORT;
			k->out->shared[k->out->nshared++] = v;
		}
		decided(k, v, &ss);
	}
	free(ord);
	qsort(k->out->shared, k->out->nshared, sizeof(*k->out->shared),
	      cmp_size);
	return 0;
}

struct clash_list {
	struct sl_clash *v;
	size_t n, cap;
	int r;
};

static void add_clash(struct clash_list *l, size_t a, size_t b, int host)
{
	if (l->r)
		return;
	if (ALLOC_GROW(l->v, l->n + 1, l->cap)) {
		l->r = -ENOMEM;
		return;
	}
	l->v[l->n].a = a < b ? a : b;
	l->v[l->n].b = a < b ? b : a;
	l->v[l->n++].host = host;
}

/* Two networks of one SL of their own (the best-effort SL is everyone's,
 * a network pinned to it too). */
static bool same_own_sl(const struct work *k, const struct sl_choice *a,
			const struct sl_choice *b)
{
	return has_own_sl(a) && has_own_sl(b) && a->sl == b->sl &&
	       a->sl != k->out->o.best_effort;
}

static void find_clash(struct work *k, size_t v, size_t u, int host, void *arg)
{
	if (u > v && same_own_sl(k, &k->out->c[v], &k->out->c[u]))
		add_clash(arg, v, u, host);
}

static int cmp_clash(const void *x, const void *y)
{
	const struct sl_clash *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b < b->b ? -1 : a->b > b->b;
}

/* Pairs that conflict and have one SL of their own. */
static int clashes(struct work *k)
{
	struct clash_list l = { 0 };
	size_t i, j, at, *one;
	int sl;

	for (i = 0; i < k->n && !l.r; i++)
		if (k->w[i].vms)
			each_host_conflict(k, i, find_clash, &l);
	/* those that span, by SL: pairs within one SL only */
	one = calloc(k->nspan + 1, sizeof(*one));
	if (!one)
		l.r = -ENOMEM;
	for (sl = 0; sl <= SL_MAX && !l.r; sl++) {
		size_t n = 0;

		for (i = 0; i < k->nspan; i++)
			if (has_own_sl(&k->out->c[k->span[i]]) &&
			    k->out->c[k->span[i]].sl == sl &&
			    sl != k->out->o.best_effort)
				one[n++] = k->span[i];
		for (i = 0; i < n && !l.r; i++)
			for (j = i + 1; j < n && !l.r; j++)
				add_clash(&l, one[i], one[j], -1);
	}
	free(one);
	if (l.r) {
		free(l.v);
		return l.r;
	}
	if (l.n) /* l.v is NULL when there is none */
		qsort(l.v, l.n, sizeof(*l.v), cmp_clash);
	for (i = 0, at = 0; i < l.n; i++)
		if (!at || l.v[i].a != l.v[at - 1].a ||
		    l.v[i].b != l.v[at - 1].b)
			l.v[at++] = l.v[i];
	k->out->clash = l.v;
	k->out->nclash = at;
	return 0;
}

int sl_plan_make(const struct slplan_net *nets, size_t n,
		 const struct slplan_host *hosts, size_t nhosts,
		 const struct sl_opts *o, struct sl_plan *out)
{
	struct work k = { .nets = nets,
			  .n = n,
			  .hosts = hosts,
			  .nhosts = nhosts,
			  .out = out };
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	out->o = *o;
	out->n = n;
	out->c = calloc(n + 1, sizeof(*out->c));
	out->shared = calloc(n + 1, sizeof(*out->shared));
	k.w = calloc(n + 1, sizeof(*k.w));
	k.stamp = calloc(n + 1, sizeof(*k.stamp));
	r = out->c && out->shared && k.w && k.stamp ? placement(&k) : -ENOMEM;
	for (i = 0; !r && i < n; i++)
		conflicts_of(&k, i);
	if (!r)
		r = assign(&k);
	if (!r)
		r = clashes(&k);
	for (i = 0; k.w && i < n; i++)
		free(k.w[i].hosts);
	free(k.w);
	free(k.stamp);
	free(k.hidx);
	free(k.group);
	free(k.pairs);
	free(k.span);
	if (r)
		sl_plan_free(out);
	return r;
}

void sl_plan_free(struct sl_plan *p)
{
	free(p->c);
	free(p->shared);
	free(p->clash);
	memset(p, 0, sizeof(*p));
}

/* --- words ----------------------------------------------------------------- */

static int add_where(struct strbuf *sb, int host)
{
	if (host < 0)
		return sb_adds(sb, " (both span leaves)");
	return sb_addf(sb, " (HOST %d)", host);
}

int sl_plan_explain(const struct sl_plan *p, const struct slplan_net *nets,
		    size_t i, struct strbuf *out)
{
	const struct sl_choice *c = &p->c[i];
	char pool[SL_LIST_STRLEN];
	size_t j;
	int r = 0;

	sl_list_fmt(p->o.pool, pool);
	switch (c->why) {
	case SLW_NO_VMS:
		return sb_addf(out, "no VMs: no SL of its own, best effort "
				    "until it has some");
	case SLW_PINNED:
		r = sb_addf(out, "IB_SL %d set on the network", c->sl);
		break;
	case SLW_KEPT:
		r = sb_adds(out, "kept, its installed SL");
		break;
	case SLW_NEW:
	case SLW_BEST_EFFORT:
		if (c->why == SLW_NEW)
			r = sb_addf(out,
				    "new: the lowest of SLs %s no network it "
				    "conflicts with has",
				    pool);
		else
			r = sb_addf(out,
				    "best effort: each of SLs %s is taken by "
				    "a network it conflicts with",
				    pool);
		if (!r && c->lost == SLL_NOT_IN_POOL)
			r = sb_addf(out,
				    " (its installed SL %d is not one of "
				    "them)",
				    nets[i].installed);
		else if (!r && c->lost == SLL_PINNED)
			r = sb_addf(out, " (its installed SL %d is %s's IB_SL)",
				    nets[i].installed, nets[c->taker].label);
		else if (!r && c->lost == SLL_BEST_EFFORT)
			r = sb_adds(out, " (it was on best effort)");
		break;
	}
	if (!r)
		r = sb_addf(out, "; VMs on %zu host%s", c->nhosts,
			    c->nhosts == 1 ? "" : "s");
	if (!r && c->nleaves)
		r = sb_addf(out, " under %zu lea%s", c->nleaves,
			    c->nleaves == 1 ? "f" : "ves");
	if (!r && c->unknown)
		r = sb_adds(out, ", a leaf not known");
	if (!r && c->spans)
		r = sb_adds(out, " (spans)");
	if (!r && !c->nconflicts)
		return sb_adds(out, "; conflicts with none");
	if (!r)
		r = sb_addf(out, "; conflicts with %zu:", c->nconflicts);
	for (j = 0; j < c->nshown && !r; j++) {
		const struct sl_choice *o = &p->c[c->shown[j].net];

		r = sb_addf(out, "%s %s", j ? "," : "",
			    nets[c->shown[j].net].label);
		if (!r && o->sl >= 0)
			r = sb_addf(out, " SL %d", o->sl);
		if (!r)
			r = add_where(out, c->shown[j].host);
	}
	if (!r && c->nconflicts > c->nshown)
		r = sb_adds(out, ", ...");
	return r;
}

#define WARN_NAMED 20

int sl_plan_warnings(const struct sl_plan *p, const struct slplan_net *nets,
		     struct strbuf *out)
{
	char pool[SL_LIST_STRLEN];
	size_t i;
	int r = 0;

	sl_list_fmt(p->o.pool, pool);
	if (p->nshared) {
		r = sb_addf(out, "SL plan: no SL of %s is free for", pool);
		for (i = 0; i < p->nshared && i < WARN_NAMED && !r; i++)
			r = sb_addf(out, "%s %s", i ? "," : "",
				    nets[p->shared[i]].label);
		if (!r && p->nshared > WARN_NAMED)
			r = sb_addf(out, " and %zu more",
				    p->nshared - WARN_NAMED);
		if (!r)
			r = sb_addf(out,
				    ": each is taken by a network %s can share "
				    "a link with, so %s the best-effort SL %d "
				    "(place %s under fewer leaves, or give the "
				    "clusters more SLs: ONEIB_SLS)\n",
				    p->nshared == 1 ? "it" : "they",
				    p->nshared == 1 ? "it gets" : "they share",
				    p->o.best_effort,
				    p->nshared == 1 ? "it" : "them");
	}
	if (p->nclash && !r) {
		r = sb_adds(out, "SL plan: networks that can share a link "
				 "have one SL:");
		for (i = 0; i < p->nclash && i < WARN_NAMED && !r; i++) {
			const struct sl_clash *c = &p->clash[i];

			r = sb_addf(out, "%s %s and %s SL %d", i ? ";" : "",
				    nets[c->a].label, nets[c->b].label,
				    p->c[c->a].sl);
			if (!r)
				r = add_where(out, c->host);
		}
		if (!r && p->nclash > WARN_NAMED)
			r = sb_addf(out, "; and %zu more",
				    p->nclash - WARN_NAMED);
		if (!r)
			r = sb_adds(out, ": an SL is kept while its network "
					 "has VMs (or pinned by IB_SL), so "
					 "their traffic shares a class until "
					 "one of them has none\n");
	}
	return r;
}
