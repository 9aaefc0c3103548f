// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/log.h"
#include "fabric/partverify.h"

struct membership {
	uint64_t guid;
	uint16_t pkey; /* full member: 0x8000 set */
};

static int cmp_membership(const void *a, const void *b)
{
	const struct membership *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return x < y ? -1 : x > y;
}

/* one-ib's default partition: every port limited, the SM's full */
static const struct partition builtin_default = {
	.name = "Default",
	.pkey = PKEY_DEFAULT_PARTITION,
	.ipoib = true,
	.sl = -1,
	.kw = { [PKW_ALL] = PM_LIMITED, [PKW_SELF] = PM_FULL },
};

static const struct partition *part_at(const struct partitions *m, size_t i)
{
	const struct partition *p = partitions_at(m, i);

	return p ? p : &builtin_default;
}

static void push(struct membership *v, size_t *n, uint64_t g, uint16_t pkey,
		 enum pmember pm)
{
	if (pm & PM_FULL) {
		v[*n].guid = g;
		v[(*n)++].pkey = (uint16_t)(pkey | 0x8000);
	}
	if (pm & PM_LIMITED) {
		v[*n].guid = g;
		v[(*n)++].pkey = pkey;
	}
}

/*
 * Does port membership in p take more than a look at p's lists (keywords,
 * opensm's own default partition, or a carried partition's entries, in
 * their order)? Then wanted() asks partition_port for every port.
 */
static bool whole(const struct partition *p)
{
	size_t k;

	if (p->ndefs || p->pkey == PKEY_DEFAULT_PARTITION)
		return true;
	for (k = 0; k < PKW_COUNT; k++)
		if (p->kw[k])
			return true;
	return false;
}

/*
 * Every (member GUID, entry) of the model's lists, sorted by GUID: what
 * a port listed there should hold (the partitions whole() names aside)
 * and the member GUIDs counted. A carried partition's listed GUIDs count
 * by their last entry.
 */
static struct membership *memberships(const struct partitions *m,
				      bool allow_both, size_t *n)
{
	size_t i, j, total = 1;
	struct membership *v;

	for (i = 0; i <= m->n; i++)
		total += part_at(m, i)->n + part_at(m, i)->nlimited;
	v = malloc(total * sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i <= m->n; i++) {
		const struct partition *p = part_at(m, i);

		for (j = 0; j < p->n; j++)
			push(v, n, p->guids[j], p->pkey, PM_FULL);
		/* "both" without allow_both_pkeys: opensm's full only */
		for (j = 0; j < p->nlimited; j++)
			if (allow_both ||
			    !(partition_member(p, p->limited[j]) & PM_FULL))
				push(v, n, p->limited[j], p->pkey, PM_LIMITED);
	}
	qsort(v, *n, sizeof(*v), cmp_membership);
	return v;
}

static size_t first_of(const struct membership *v, size_t n, uint64_t g)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].guid < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The entries port fp should hold, sorted and unique, in *want: as opensm
 * reads each partition (partition_port: its entries in order, the last
 * one for the port winning; "both" both entries, as with
 * allow_both_pkeys). whole[pkey]: the partitions asked that way.
 */
static int wanted(const struct partitions *m, const struct fabric_port *fp,
		  uint16_t sm_lid, const struct membership *v, size_t nv,
		  const bool *whole_pkey, bool allow_both, uint16_t **want,
		  size_t *nw)
{
	size_t i = first_of(v, nv, fp->port_guid), j, k, n = 0, nwhole = 0;
	enum pclass c = fp->type == SMP_NODE_ROUTER ? PCLASS_ROUTER : PCLASS_CA;
	bool sm = fp->lid && fp->lid == sm_lid;
	uint16_t *w;

	for (k = 0; k <= m->n; k++)
		nwhole += whole(part_at(m, k));
	for (j = i; j < nv && v[j].guid == fp->port_guid; j++)
		;
	w = malloc((j - i + 2 * nwhole + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (; i < j; i++)
		if (!whole_pkey[v[i].pkey & 0x7fff])
			w[n++] = v[i].pkey;
	for (k = 0; k <= m->n; k++) {
		const struct partition *p = part_at(m, k);
		enum pmember pm;

		if (!whole(p))
			continue;
		pm = partition_port(p, fp->port_guid, c, sm);
		if (pm == PM_BOTH && !allow_both)
			pm = PM_FULL;
		if (pm & PM_FULL)
			w[n++] = (uint16_t)(p->pkey | 0x8000);
		if (pm & PM_LIMITED)
			w[n++] = p->pkey;
	}
	qsort(w, n, sizeof(*w), cmp_u16);
	for (i = 0, k = 0; i < n; i++)
		if (!k || w[i] != w[k - 1])
			w[k++] = w[i];
	*want = w;
	*nw = k;
	return 0;
}

static bool holds(const uint16_t *have, size_t n, uint16_t k)
{
	return bsearch(&k, have, n, sizeof(*have), cmp_u16) != NULL;
}

/*
 * A port whose entries do not fit: its own table (PartitionCap), or the
 * switch port's enforcement table. 1 with *c filled, 0 when it fits.
 */
static int check_capacity(const struct fabric_port *fp, const uint16_t *want,
			  size_t nw, const uint16_t *have, size_t nh,
			  struct port_capacity *c)
{
	size_t i;

	if ((!fp->pcap || nw <= fp->pcap) &&
	    (!fp->sw_enf_cap || nw <= fp->sw_enf_cap))
		return 0;
	c->port = fp;
	c->need = nw;
	c->dropped = malloc((nw + 1) * sizeof(*c->dropped));
	if (!c->dropped)
		return -ENOMEM;
	for (i = 0; i < nw; i++)
		if (!holds(have, nh, want[i]))
			c->dropped[c->ndropped++] = want[i];
	return 1;
}

/* One end port against the model: 1 with *d filled when it differs. */
static int check_port(const struct partitions *m, const struct fabric_port *fp,
		      uint16_t sm_lid, const struct membership *v, size_t nv,
		      const bool *whole_pkey, bool allow_both,
		      struct port_drift *d, struct verify_result *res)
{
	uint16_t *want, *have;
	size_t nw, i;
	bool diff;
	int r = wanted(m, fp, sm_lid, v, nv, whole_pkey, allow_both, &want,
		       &nw);

	if (r)
		return r;
	have = malloc((fp->npkeys + 1) * sizeof(*have));
	if (!have) {
		free(want);
		return -ENOMEM;
	}
	if (fp->npkeys)
		memcpy(have, fp->pkeys, fp->npkeys * sizeof(*have));
	qsort(have, fp->npkeys, sizeof(*have), cmp_u16);
	r = check_capacity(fp, want, nw, have, fp->npkeys,
			   &res->cap[res->ncap]);
	if (r < 0) {
		free(want);
		free(have);
		return r;
	}
	res->ncap += (size_t)r;
	diff = nw != fp->npkeys;
	for (i = 0; i < nw && !diff; i++)
		diff = want[i] != have[i];
	if (!diff) {
		free(want);
		free(have);
		return 0;
	}
	d->port = fp;
	d->have = have;
	d->nhave = fp->npkeys;
	d->want = want;
	d->nwant = nw;
	return 1;
}

int partitions_verify(const struct partitions *m, const struct fabric *f,
		      bool allow_both, struct verify_result *res)
{
	size_t nv, i;
	struct membership *v = memberships(m, allow_both, &nv);
	uint64_t *ports = malloc((f->n + 1) * sizeof(*ports));
	bool *whole_pkey = calloc(0x8000, sizeof(*whole_pkey));
	int r = 0;

	memset(res, 0, sizeof(*res));
	res->drift = calloc(f->n + 1, sizeof(*res->drift));
	res->cap = calloc(f->n + 1, sizeof(*res->cap));
	res->unknown = malloc((nv + 1) * sizeof(*res->unknown));
	res->default_full = calloc(f->n + 1, sizeof(*res->default_full));
	if (!v || !ports || !whole_pkey || !res->drift || !res->cap ||
	    !res->unknown || !res->default_full) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i <= m->n; i++)
		whole_pkey[part_at(m, i)->pkey] = whole(part_at(m, i));
	for (i = 0; i < f->n; i++)
		ports[i] = f->p[i].port_guid;
	qsort(ports, f->n, sizeof(*ports), guid_cmp);
	for (i = 0; i < f->n && r >= 0; i++) {
		const struct fabric_port *fp = &f->p[i];
		size_t k;

		r = check_port(m, fp, f->sm_lid, v, nv, whole_pkey, allow_both,
			       &res->drift[res->ndrift], res);
		if (r > 0)
			res->ndrift++;
		for (k = 0; guid_assignable(fp->port_guid) && k < fp->npkeys;
		     k++)
			if (fp->pkeys[k] == (0x8000 | PKEY_DEFAULT_PARTITION)) {
				res->default_full[res->ndefault_full++] = fp;
				break;
			}
	}
	/* Members the SM could not find: VMs whose VF is not up yet,
	 * ConnectX-3 alias GUIDs, which are never ports of their own, mlx5
	 * virtual ports. */
	for (i = 0; i < nv && r >= 0; i++) {
		if (i && v[i].guid == v[i - 1].guid)
			continue;
		if (bsearch(&v[i].guid, ports, f->n, sizeof(*ports),
			    guid_cmp)) {
			res->present++;
		} else {
			res->absent++;
			if (guid_assignable(v[i].guid))
				res->unknown[res->nunknown++] = v[i].guid;
		}
	}
	r = r < 0 ? r : 0;
out:
	free(v);
	free(ports);
	free(whole_pkey);
	if (r)
		verify_result_free(res);
	return r;
}

void verify_result_free(struct verify_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->ndrift; i++) {
		free(res->drift[i].have);
		free(res->drift[i].want);
	}
	for (i = 0; i < res->ncap; i++)
		free(res->cap[i].dropped);
	free(res->drift);
	free(res->cap);
	free(res->unknown);
	free(res->default_full);
	memset(res, 0, sizeof(*res));
}

/* The first port (from `from` on) whose table holds entry k or, with
 * any, k's partition in either form. */
static const struct fabric_port *holder(const struct fabric *f, size_t from,
					uint16_t k, bool any, size_t *at)
{
	size_t i, j;

	for (i = from; i < f->n; i++)
		for (j = 0; j < f->p[i].npkeys; j++)
			if (f->p[i].pkeys[j] == k ||
			    (any &&
			     (f->p[i].pkeys[j] & 0x7fff) == (k & 0x7fff))) {
				*at = i;
				return &f->p[i];
			}
	return NULL;
}

static int ask_sl(const struct fabric *f, const struct partition *p,
		  struct sa_conn *sa, struct sl_check *c, char *err,
		  size_t errlen)
{
	const uint16_t full = (uint16_t)(p->pkey | 0x8000);
	const struct fabric_port *a, *b;
	struct sa_path rec;
	size_t at, at2;
	int r;

	memset(c, 0, sizeof(*c));
	c->p = p;
	a = holder(f, 0, full, false, &at);
	if (!a)
		return 0;
	b = holder(f, 0, full, true, &at2);
	while (b && b == a)
		b = holder(f, at2 + 1, full, true, &at2);
	c->src = a->port_guid;
	c->dst = b ? b->port_guid : a->port_guid;
	r = sa_path_get(sa, c->src, c->dst, full, &rec, c->why, sizeof(c->why));
	if (r < 0) {
		err_set(err, errlen, "%s", c->why);
		return r;
	}
	c->found = r;
	c->sl = rec.sl;
	return 0;
}

int partitions_verify_sa(const struct partitions *m, const struct fabric *f,
			 const struct verify_result *res, struct sa_conn *sa,
			 struct sa_result *out, char *err, size_t errlen)
{
	size_t i;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->sl = calloc(m->n + 2, sizeof(*out->sl));
	out->unknown = malloc((res->nunknown + 1) * sizeof(*out->unknown));
	if (!out->sl || !out->unknown) {
		sa_result_free(out);
		return -ENOMEM;
	}
	for (i = 0; i <= m->n && !r; i++) {
		const struct partition *p = part_at(m, i);

		if (p->sl < 0)
			continue;
		r = ask_sl(f, p, sa, &out->sl[out->nsl], err, errlen);
		out->nsl++;
	}
	/* a path from here to each: the SA knows the port, or not */
	for (i = 0; i < res->nunknown && !r; i++) {
		struct sa_path rec;
		char why[128];

		r = sa_path_get(sa, f->local_guid, res->unknown[i], 0, &rec,
				why, sizeof(why));
		if (r < 0)
			err_set(err, errlen, "%s", why);
		else if (!r)
			out->unknown[out->nunknown++] = res->unknown[i];
		r = r < 0 ? r : 0;
	}
	if (r)
		sa_result_free(out);
	return r;
}

void sa_result_free(struct sa_result *out)
{
	free(out->sl);
	free(out->unknown);
	memset(out, 0, sizeof(*out));
}
