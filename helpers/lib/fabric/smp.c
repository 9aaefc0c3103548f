// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/smp.h"
#include "fabric/smp.h"

#define NODE_SWITCH SMP_NODE_SWITCH

/* The non-empty entries (low 15 bits set) of a CA port's P_Key table. */
static int pkey_table(struct smp_port *c, const struct smp_path *path,
		      uint16_t cap, struct fabric_port *fp, char *err,
		      size_t errlen)
{
	uint16_t blocks = (uint16_t)((cap + 31) / 32), b;
	uint8_t d[SMP_DATA_LEN];
	int i;

	fp->pkeys = calloc(cap ? cap : 1, sizeof(*fp->pkeys));
	if (!fp->pkeys)
		return -ENOMEM;
	for (b = 0; b < blocks; b++) {
		int r = smp_get(c, path, SMP_ATTR_PKEY_TABLE, b, d, err,
				errlen);
		if (r)
			return r;
		for (i = 0; i < 32 && b * 32 + i < cap; i++) {
			uint16_t k = smp_be16(d + 2 * i);

			if (k & 0x7fff)
				fp->pkeys[fp->npkeys++] = k;
		}
	}
	return 0;
}

static int end_port(struct smp_port *c, const struct smp_path *path,
		    const struct smp_node_info *ni, struct fabric *f, char *err,
		    size_t errlen)
{
	struct fabric_port *fp;
	uint8_t d[SMP_DATA_LEN];
	int r;

	if (ALLOC_GROW(f->p, f->n + 1, f->alloc))
		return -ENOMEM;
	fp = &f->p[f->n++];
	memset(fp, 0, sizeof(*fp));
	fp->node_guid = ni->node_guid;
	fp->port_guid = ni->port_guid;
	fp->port_num = ni->local_port;
	r = smp_get(c, path, SMP_ATTR_PORT_INFO, ni->local_port, d, err,
		    errlen);
	if (r)
		return r;
	fp->lid = smp_be16(d + 16);
	if (!path->hops)
		f->sm_lid = smp_be16(d + 18);
	r = smp_node_desc(c, path, fp->desc, err, errlen);
	if (r)
		return r;
	return pkey_table(c, path, ni->pcap, fp, err, errlen);
}

struct seen {
	uint64_t *g;
	size_t n, alloc;
};

static bool seen_add(struct seen *s, uint64_t g, int *r)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->g[i] == g)
			return false;
	if (ALLOC_GROW(s->g, s->n + 1, s->alloc)) {
		*r = -ENOMEM;
		return false;
	}
	s->g[s->n++] = g;
	return true;
}

static int walk(struct smp_port *c, struct fabric *f, char *err, size_t errlen)
{
	struct smp_path *queue = NULL;
	struct seen seen = { 0 };
	size_t head = 0, tail = 1, qcap = 0;
	int r = 0;

	if (ALLOC_GROW(queue, 1, qcap))
		return -ENOMEM;
	memset(queue, 0, sizeof(*queue));
	while (head < tail && !r) {
		struct smp_path path = queue[head++];
		struct smp_node_info ni;
		uint8_t d[SMP_DATA_LEN];
		int p;

		r = smp_node_info(c, &path, &ni, err, errlen);
		if (r)
			break;
		if (!path.hops)
			f->local_guid = ni.port_guid;
		if (ni.type != NODE_SWITCH) {
			/* CA ports by port GUID: a two-port CA twice */
			if (seen_add(&seen, ni.port_guid, &r))
				r = end_port(c, &path, &ni, f, err, errlen);
			if (path.hops)
				continue; /* nothing is routed through a CA */
		} else if (!seen_add(&seen, ni.node_guid, &r)) {
			continue;
		} else {
			f->switches++;
		}
		for (p = 1; p <= ni.nports && !r; p++) {
			if (path.hops && ni.type == NODE_SWITCH &&
			    p == ni.local_port)
				continue; /* where we came from */
			if (path.hops >= SMP_MAX_HOPS)
				break;
			if (ni.type != NODE_SWITCH && p != ni.local_port)
				continue; /* the local CA: its own port only */
			r = smp_get(c, &path, SMP_ATTR_PORT_INFO, (uint32_t)p,
				    d, err, errlen);
			if (r)
				break;
			if ((d[32] & 0x0f) < 2)
				continue; /* down: nobody behind it */
			if (ALLOC_GROW(queue, tail + 1, qcap)) {
				r = -ENOMEM;
				break;
			}
			queue[tail] = path;
			queue[tail].port[++queue[tail].hops] = (uint8_t)p;
			tail++;
		}
	}
	if (r == -ENOMEM)
		err_set(err, errlen, "fabric walk: out of memory");
	free(queue);
	free(seen.g);
	return r;
}

int fabric_scan(const char *ca, int port, int timeout_ms, struct fabric *f,
		char *err, size_t errlen)
{
	struct smp_port c;
	int r;

	memset(f, 0, sizeof(*f));
	r = smp_open(&c, ca, port, timeout_ms, err, errlen);
	if (r)
		return r;
	r = walk(&c, f, err, errlen);
	smp_close(&c);
	if (r)
		fabric_free(f);
	return r;
}

void fabric_free(struct fabric *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->p[i].pkeys);
	free(f->p);
	memset(f, 0, sizeof(*f));
}
