// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return x < y ? -1 : x > y;
}

/* Every (member GUID, full P_Key) of the model, sorted by GUID. */
static struct membership *memberships(const struct partitions *m, size_t *n)
{
	struct membership *v = malloc((partitions_members(m) + 1) * sizeof(*v));
	size_t i, j;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->p[i].n; j++) {
			v[*n].guid = m->p[i].guids[j];
			v[(*n)++].pkey = (uint16_t)(m->p[i].pkey | 0x8000);
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

/* One end port against the model: 1 with *d filled when it differs. */
static int check_port(const struct fabric_port *fp, uint16_t sm_lid,
		      const struct membership *v, size_t nv,
		      struct port_drift *d)
{
	size_t i = first_of(v, nv, fp->port_guid), j, nw = 0;
	uint16_t *want, *have;
	bool diff = false;

	for (j = i; j < nv && v[j].guid == fp->port_guid; j++)
		;
	want = malloc((j - i + 1) * sizeof(*want));
	have = malloc((fp->npkeys + 1) * sizeof(*have));
	if (!want || !have) {
		free(want);
		free(have);
		return -ENOMEM;
	}
	want[nw++] = fp->lid && fp->lid == sm_lid ? 0xffff : 0x7fff;
	for (; i < j; i++)
		want[nw++] = v[i].pkey;
	if (fp->npkeys)
		memcpy(have, fp->pkeys, fp->npkeys * sizeof(*have));
	qsort(have, fp->npkeys, sizeof(*have), cmp_u16);
	qsort(want, nw, sizeof(*want), cmp_u16);
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
		      struct verify_result *res)
{
	size_t nv, i;
	struct membership *v = memberships(m, &nv);
	uint64_t *ports = malloc((f->n + 1) * sizeof(*ports));
	int r = 0;

	memset(res, 0, sizeof(*res));
	res->drift = calloc(f->n + 1, sizeof(*res->drift));
	if (!v || !ports || !res->drift) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < f->n; i++)
		ports[i] = f->p[i].port_guid;
	qsort(ports, f->n, sizeof(*ports), cmp_u64);
	for (i = 0; i < f->n && r >= 0; i++) {
		r = check_port(&f->p[i], f->sm_lid, v, nv,
			       &res->drift[res->ndrift]);
		if (r > 0)
			res->ndrift++;
	}
	/* Members the SM could not find: VMs whose VF is not up yet, or
	 * ConnectX-3 alias GUIDs, which are never ports of their own. */
	for (i = 0; i < nv && r >= 0; i++) {
		if (i && v[i].guid == v[i - 1].guid)
			continue;
		if (bsearch(&v[i].guid, ports, f->n, sizeof(*ports), cmp_u64))
			res->present++;
		else
			res->absent++;
	}
	r = r < 0 ? r : 0;
out:
	free(v);
	free(ports);
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
	free(res->drift);
	memset(res, 0, sizeof(*res));
}
