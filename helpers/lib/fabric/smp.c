// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "fabric/mad.h"
#include "fabric/smp.h"

#define CLASS_SMI_DR 0x81
#define METHOD_GET 0x01
#define ATTR_NODE_DESC 0x0010
#define ATTR_NODE_INFO 0x0011
#define ATTR_SWITCH_INFO 0x0012
#define ATTR_PORT_INFO 0x0015
#define ATTR_PKEY_TABLE 0x0016
#define NODE_SWITCH 2
#define DATA 64
#define INITIAL_PATH 128

struct smp_ctx {
	int fd, agent, timeout;
	uint32_t tid;
	uint64_t mkey;
	void *umad;
};

struct hop_path {
	uint8_t port[SMP_MAX_HOPS + 1]; /* [1..hops], [0] unused */
	int hops;
	/* the switch port the last hop left from: what an end port there
	 * is cabled to */
	uint64_t sw_guid;
	uint16_t sw_enf_cap;
};

static void path_str(const struct hop_path *path, char *out, size_t len)
{
	size_t at;
	int i;

	at = (size_t)snprintf(out, len, "0");
	for (i = 1; i <= path->hops && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, ",%d",
				       path->port[i]);
}

/* Get attr/mod along path; the 64 bytes of attribute data into data. */
static int smp_get(struct smp_ctx *c, const struct hop_path *path,
		   uint16_t attr, uint32_t mod, uint8_t *data, char *err,
		   size_t errlen)
{
	uint8_t *mad = umad_get_mad(c->umad);
	char where[3 * SMP_MAX_HOPS + 4];
	uint32_t tid = ++c->tid;
	int len, i, st;

	memset(c->umad, 0, umad_size() + MAD_LEN);
	mad[0] = 1; /* base version */
	mad[1] = CLASS_SMI_DR;
	mad[2] = 1; /* class version */
	mad[3] = METHOD_GET;
	mad[7] = (uint8_t)path->hops; /* hop pointer 0, hop count */
	put32(mad + 12, tid);
	put16(mad + 16, attr);
	put32(mad + 20, mod);
	put64(mad + 24, c->mkey);
	put16(mad + 32, 0xffff); /* DrSLID, DrDLID: permissive */
	put16(mad + 34, 0xffff);
	for (i = 1; i <= path->hops; i++)
		mad[INITIAL_PATH + i] = path->port[i];
	umad_set_addr(c->umad, 0xffff, 0, 0, 0);
	path_str(path, where, sizeof(where));
	if (umad_send(c->fd, c->agent, c->umad, MAD_LEN, c->timeout, 2) < 0) {
		err_set(err, errlen, "SMP to %s: send failed", where);
		return -EIO;
	}
	for (;;) {
		len = MAD_LEN;
		if (umad_recv(c->fd, c->umad, &len, c->timeout * 4) < 0) {
			err_set(err, errlen, "SMP to %s: no answer", where);
			return -ETIMEDOUT;
		}
		if (be64(mad + 8) == tid || (uint32_t)be64(mad + 8) == tid)
			break; /* the kernel put our agent in the high half */
	}
	st = umad_status(c->umad);
	if (st) {
		err_set(err, errlen, "SMP to %s: %s", where,
			st == ETIMEDOUT ? "timed out" : strerror(st));
		return -(st > 0 ? st : EIO);
	}
	if (be16(mad + 4) & 0x7fff) {
		err_set(err, errlen,
			"SMP attribute 0x%04x to %s: MAD status 0x%04x", attr,
			where, be16(mad + 4) & 0x7fff);
		return -EPROTO;
	}
	memcpy(data, mad + DATA, 64);
	return 0;
}

struct node_info {
	uint8_t type, nports, local_port;
	uint16_t pcap;
	uint64_t node_guid, port_guid;
};

static int node_info(struct smp_ctx *c, const struct hop_path *path,
		     struct node_info *ni, char *err, size_t errlen)
{
	uint8_t d[64];
	int r = smp_get(c, path, ATTR_NODE_INFO, 0, d, err, errlen);

	if (r)
		return r;
	ni->type = d[2];
	ni->nports = d[3];
	ni->node_guid = be64(d + 12);
	ni->port_guid = be64(d + 20);
	ni->pcap = be16(d + 28);
	ni->local_port = d[36];
	return 0;
}

/* The non-empty entries (low 15 bits set) of a CA port's P_Key table. */
static int pkey_table(struct smp_ctx *c, const struct hop_path *path,
		      uint16_t cap, struct fabric_port *fp, char *err,
		      size_t errlen)
{
	uint16_t blocks = (uint16_t)((cap + 31) / 32), b;
	uint8_t d[64];
	int i;

	fp->pkeys = calloc(cap ? cap : 1, sizeof(*fp->pkeys));
	if (!fp->pkeys)
		return -ENOMEM;
	for (b = 0; b < blocks; b++) {
		int r = smp_get(c, path, ATTR_PKEY_TABLE, b, d, err, errlen);
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

static int end_port(struct smp_ctx *c, const struct hop_path *path,
		    const struct node_info *ni, struct fabric *f, char *err,
		    size_t errlen)
{
	struct fabric_port *fp;
	uint8_t d[64];
	int r, i;

	if (ALLOC_GROW(f->p, f->n + 1, f->alloc))
		return -ENOMEM;
	fp = &f->p[f->n++];
	memset(fp, 0, sizeof(*fp));
	fp->node_guid = ni->node_guid;
	fp->port_guid = ni->port_guid;
	fp->port_num = ni->local_port;
	fp->type = ni->type;
	fp->pcap = ni->pcap;
	if (path->hops) {
		fp->sw_guid = path->sw_guid;
		fp->sw_port = path->port[path->hops];
		fp->sw_enf_cap = path->sw_enf_cap;
	}
	r = smp_get(c, path, ATTR_PORT_INFO, ni->local_port, d, err, errlen);
	if (r)
		return r;
	fp->lid = be16(d + 16);
	if (!path->hops)
		f->sm_lid = be16(d + 18);
	r = smp_get(c, path, ATTR_NODE_DESC, 0, d, err, errlen);
	if (r)
		return r;
	for (i = 0; i < 64 && d[i]; i++)
		fp->desc[i] = d[i] >= 0x20 && d[i] < 0x7f ? (char)d[i] : '?';
	fp->desc[i] = '\0';
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

static int walk(struct smp_ctx *c, struct fabric *f, char *err, size_t errlen)
{
	struct hop_path *queue = NULL;
	struct seen seen = { 0 };
	size_t head = 0, tail = 1, qcap = 0;
	int r = 0;

	if (ALLOC_GROW(queue, 1, qcap))
		return -ENOMEM;
	memset(queue, 0, sizeof(*queue));
	while (head < tail && !r) {
		struct hop_path path = queue[head++];
		struct node_info ni;
		uint16_t enf = 0;
		uint8_t d[64];
		int p;

		r = node_info(c, &path, &ni, err, errlen);
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
			/* SwitchInfo PartitionEnforcementCap, bytes 14-15 */
			r = smp_get(c, &path, ATTR_SWITCH_INFO, 0, d, err,
				    errlen);
			if (r)
				break;
			enf = be16(d + 14);
			/* the local port is cabled to the first switch, at
			 * the port our SMP came in by */
			if (path.hops == 1 && f->n &&
			    f->p[0].port_guid == f->local_guid) {
				f->p[0].sw_guid = ni.node_guid;
				f->p[0].sw_port = ni.local_port;
				f->p[0].sw_enf_cap = enf;
			}
		}
		for (p = 1; p <= ni.nports && !r; p++) {
			if (path.hops && ni.type == NODE_SWITCH &&
			    p == ni.local_port)
				continue; /* where we came from */
			if (path.hops >= SMP_MAX_HOPS)
				break;
			if (ni.type != NODE_SWITCH && p != ni.local_port)
				continue; /* the local CA: its own port only */
			r = smp_get(c, &path, ATTR_PORT_INFO, (uint32_t)p, d,
				    err, errlen);
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
			queue[tail].sw_guid =
				ni.type == NODE_SWITCH ? ni.node_guid : 0;
			queue[tail].sw_enf_cap = enf;
			tail++;
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
	struct smp_ctx c = {
		.fd = -1, .agent = -1, .timeout = timeout_ms, .mkey = mkey
	};
	int r;

	memset(f, 0, sizeof(*f));
	if (umad_init() < 0) {
		err_set(err, errlen,
			"libibumad: cannot initialise (no "
			"ib_umad module?)");
		return -ENODEV;
	}
	c.fd = umad_open_port(ca, port);
	if (c.fd < 0) {
		err_set(err, errlen,
			"%s port %d: cannot open its umad device: %s",
			ca ? ca : "first InfiniBand device", port,
			strerror(-c.fd));
		umad_done();
		return c.fd;
	}
	c.agent = umad_register(c.fd, CLASS_SMI_DR, 1, 0, NULL);
	c.umad = calloc(1, umad_size() + MAD_LEN);
	if (c.agent < 0 || !c.umad) {
		err_set(err, errlen, "libibumad: cannot register an SMP agent");
		r = -EIO;
	} else {
		r = walk(&c, f, err, errlen);
	}
	free(c.umad);
	if (c.agent >= 0)
		umad_unregister(c.fd, c.agent);
	umad_close_port(c.fd);
	umad_done();
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
