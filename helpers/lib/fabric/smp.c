// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/mad.h"
#include "core/smp.h"
#include "fabric/smp.h"

/* A path of the walk's queue, and the switch port its last hop left from:
 * what an end port there is cabled to. */
struct hop {
	struct smp_path path;
	uint64_t sw_guid;
	uint16_t sw_enf_cap;
	struct smp_port_vls sw_vls; /* PortInfo of the switch port left */
	uint8_t sw_in; /* the switch's port the walk came in by */
};

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
			uint16_t k = be16(d + 2 * i);

			if (k & 0x7fff)
				fp->pkeys[fp->npkeys++] = k;
		}
	}
	return 0;
}

static int end_port(struct smp_port *c, const struct hop *h,
		    const struct smp_node_info *ni, struct fabric *f, char *err,
		    size_t errlen)
{
	const struct smp_path *path = &h->path;
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
	fp->type = ni->type;
	fp->pcap = ni->pcap;
	fp->path = *path;
	if (path->hops) {
		fp->sw_guid = h->sw_guid;
		fp->sw_port = path->port[path->hops];
		fp->sw_enf_cap = h->sw_enf_cap;
		fp->sw_vls = h->sw_vls;
		fp->sw_in_port = h->sw_in;
	}
	r = smp_get(c, path, SMP_ATTR_PORT_INFO, ni->local_port, d, err,
		    errlen);
	if (r)
		return r;
	smp_port_vls(d, &fp->vls);
	fp->lid = be16(d + 16);
	if (!path->hops) {
		f->sm_lid = be16(d + 18);
		f->gid_prefix = be64(d + 8);
	}
	fp->is_sm = be32(d + 20) & SMP_CAP_IS_SM;
	if (fp->is_sm) {
		char why[128];

		/* an SM that does not answer is said, not fatal */
		fp->sm_r = smp_sm_info(c, path, &fp->sm, why, sizeof(why));
	}
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
	struct hop *queue = NULL;
	struct seen seen = { 0 };
	size_t head = 0, tail = 1, qcap = 0;
	int r = 0;

	if (ALLOC_GROW(queue, 1, qcap))
		return -ENOMEM;
	memset(queue, 0, sizeof(*queue));
	while (head < tail && !r) {
		struct hop h = queue[head++];
		const struct smp_path *path = &h.path;
		struct smp_switch_info si = { 0 };
		struct smp_node_info ni;
		uint8_t d[SMP_DATA_LEN];
		int p;

		r = smp_node_info(c, path, &ni, err, errlen);
		if (r)
			break;
		if (!path->hops)
			f->local_guid = ni.port_guid;
		if (ni.type != SMP_NODE_SWITCH) {
			/* CA ports by port GUID: a two-port CA twice */
			if (seen_add(&seen, ni.port_guid, &r))
				r = end_port(c, &h, &ni, f, err, errlen);
			if (path->hops)
				continue; /* nothing is routed through a CA */
		} else if (!seen_add(&seen, ni.node_guid, &r)) {
			continue;
		} else {
			f->switches++;
			r = smp_switch_info(c, path, &si, err, errlen);
			if (r)
				break;
			/* the local port is cabled to the first switch, at
			 * the port our SMP came in by */
			if (path->hops == 1 && f->n &&
			    f->p[0].port_guid == f->local_guid) {
				f->p[0].sw_guid = ni.node_guid;
				f->p[0].sw_port = ni.local_port;
				f->p[0].sw_enf_cap = si.enf_cap;
			}
		}
		for (p = 1; p <= ni.nports && !r; p++) {
			struct hop *next;

			if (path->hops && ni.type == SMP_NODE_SWITCH &&
			    p == ni.local_port)
				continue; /* where we came from */
			if (path->hops >= SMP_MAX_HOPS)
				break;
			if (ni.type != SMP_NODE_SWITCH && p != ni.local_port)
				continue; /* the local CA: its own port only */
			r = smp_get(c, path, SMP_ATTR_PORT_INFO, (uint32_t)p, d,
				    err, errlen);
			if (r)
				break;
			if ((d[32] & 0x0f) < 2)
				continue; /* down: nobody behind it */
			if (ALLOC_GROW(queue, tail + 1, qcap)) {
				r = -ENOMEM;
				break;
			}
			next = &queue[tail++];
			next->path = *path;
			next->path.port[++next->path.hops] = (uint8_t)p;
			next->sw_guid =
				ni.type == SMP_NODE_SWITCH ? ni.node_guid : 0;
			next->sw_enf_cap = si.enf_cap;
			smp_port_vls(d, &next->sw_vls);
			/* from the local CA's switch on: the port our SMPs
			 * came in by, the way traffic from here goes out */
			next->sw_in = ni.type == SMP_NODE_SWITCH && path->hops
					      ? ni.local_port
					      : 0;
		}
	}
	if (r == -ENOMEM)
		err_set(err, errlen, "fabric walk: out of memory");
	free(queue);
	free(seen.g);
	return r;
}

int fabric_scan(const char *ca, int port, int timeout_ms, uint64_t mkey,
		struct fabric *f, char *err, size_t errlen)
{
	struct smp_port c;
	int r;

	memset(f, 0, sizeof(*f));
	r = smp_open(&c, ca, port, timeout_ms, err, errlen);
	if (r)
		return r;
	c.mkey = mkey;
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
