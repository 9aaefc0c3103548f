// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "fabric/qosverify.h"
#include "root/qospolicy.h"

const char *qos_fault_text(enum qos_fault f)
{
	switch (f) {
	case QF_DROPPED:
		return "dropped (VL 15)";
	case QF_NO_SUCH_VL:
		return "a VL beyond the port's operational VLs";
	case QF_NO_WEIGHT:
		return "a VL with no arbitration weight, never sent";
	case QF_NONE:
		break;
	}
	return "in force";
}

static bool holds_key(const struct fabric_port *fp, uint16_t pkey)
{
	size_t j;

	for (j = 0; j < fp->npkeys; j++)
		if ((fp->pkeys[j] & 0x7fff) == pkey)
			return true;
	return false;
}

/* Does port fp hold the key of a partition of m with an SL? */
static bool matters(const struct partitions *m, const struct fabric_port *fp)
{
	size_t i;

	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);

		if (p && p->sl >= 0 && holds_key(fp, p->pkey))
			return true;
	}
	return false;
}

static int read_one(struct smp_port *s, const struct fabric_port *fp,
		    struct port_tables *t, char *err, size_t errlen)
{
	struct smp_path sw = fp->path;
	int r;

	memset(t, 0, sizeof(*t));
	t->port = fp;
	r = smp_sl2vl(s, &fp->path, 0, t->sl2vl, err, errlen);
	if (!r)
		r = smp_vlarb(s, &fp->path, 0, &t->arb, err, errlen);
	if (r || !fp->sw_in_port || fp->path.hops < 1)
		return r;
	/* the switch: one hop less, packets from where the walk came in to
	 * the port toward fp */
	sw.hops--;
	r = smp_sl2vl(s, &sw, (uint32_t)fp->sw_in_port << 8 | fp->sw_port,
		      t->sw_sl2vl, err, errlen);
	if (!r)
		r = smp_vlarb(s, &sw, fp->sw_port, &t->sw_arb, err, errlen);
	t->sw = !r;
	return r;
}

int qos_verify_read(const char *ca, int port, int timeout_ms, uint64_t mkey,
		    const struct fabric *f, const struct partitions *m,
		    struct port_tables **out, size_t *npt, char *err,
		    size_t errlen)
{
	struct smp_port s;
	size_t i;
	int r;

	*out = calloc(f->n + 1, sizeof(**out));
	*npt = 0;
	if (!*out) {
		err_set(err, errlen, "QoS tables: out of memory");
		return -ENOMEM;
	}
	r = smp_open(&s, ca, port, timeout_ms, err, errlen);
	if (r)
		return r;
	s.mkey = mkey;
	for (i = 0; i < f->n && !r; i++) {
		if (!matters(m, &f->p[i]))
			continue;
		r = read_one(&s, &f->p[i], &(*out)[*npt], err, errlen);
		if (!r)
			(*npt)++;
	}
	smp_close(&s);
	return r;
}

/* One side's fault for SL sl: map, arbitration, OperVLs code. */
static enum qos_fault fault_of(const uint8_t map[16], const struct smp_vlarb *a,
			       uint8_t oper, int sl, uint8_t *vl)
{
	int vls = smp_data_vls(oper);

	*vl = map[sl];
	if (*vl == 15)
		return QF_DROPPED;
	if (vls && *vl >= vls)
		return QF_NO_SUCH_VL;
	if (!a->low[*vl] && !a->high[*vl])
		return QF_NO_WEIGHT;
	return QF_NONE;
}

static void least(unsigned *have, bool *seen, unsigned w)
{
	if (!*seen || w < *have)
		*have = w;
	*seen = true;
}

static void judge_class(struct qos_class *c, const struct port_tables *pt,
			size_t npt)
{
	const int sl = c->p->sl;
	bool seen[4] = { false, false, false, false };
	size_t i;

	c->vl = -2; /* none yet */
	for (i = 0; i < npt; i++) {
		const struct port_tables *t = &pt[i];
		enum qos_fault f;
		uint8_t vl;
		int side;

		if (!holds_key(t->port, c->p->pkey))
			continue;
		c->nports++;
		for (side = 0; side < 2; side++) {
			if (side && !t->sw)
				continue;
			f = side ? fault_of(t->sw_sl2vl, &t->sw_arb,
					    t->port->sw_vls.oper_vls, sl, &vl)
				 : fault_of(t->sl2vl, &t->arb,
					    t->port->vls.oper_vls, sl, &vl);
			c->vl = c->vl == -2 || c->vl == vl ? vl : -1;
			if (side) {
				c->sw = true;
				least(&c->sw_low, &seen[2], t->sw_arb.low[vl]);
				least(&c->sw_high, &seen[3],
				      t->sw_arb.high[vl]);
			} else {
				least(&c->low, &seen[0], t->arb.low[vl]);
				least(&c->high, &seen[1], t->arb.high[vl]);
			}
			if (f == QF_NONE)
				continue;
			if (!c->nfaults++) {
				c->fault_port = t->port;
				c->fault_sw = side;
				c->fault = f;
				c->fault_vl = vl;
			}
		}
	}
	if (c->vl == -2)
		c->vl = -1;
}

/* Planned SLs a < b that one side's map folds into one VL. */
static void merges_of(const uint8_t map[16], uint16_t sls,
		      const struct fabric_port *fp, bool sw,
		      struct qos_merge tab[16][16])
{
	int a, b;

	for (a = 0; a < 16; a++)
		for (b = a + 1; b < 16; b++) {
			struct qos_merge *q = &tab[a][b];

			if (!(sls & (1u << a)) || !(sls & (1u << b)) ||
			    map[a] != map[b] || map[a] == 15)
				continue;
			if (!q->nports++) {
				q->a = (uint8_t)a;
				q->b = (uint8_t)b;
				q->vl = map[a];
				q->example = fp;
				q->example_sw = sw;
			}
		}
}

int qos_verify_judge(const struct partitions *m, const struct fabric *f,
		     const struct port_tables *pt, size_t npt,
		     struct qos_result *out)
{
	struct qos_merge tab[16][16];
	uint16_t sls = 0;
	size_t i;
	int a, b;

	(void)f;
	memset(out, 0, sizeof(*out));
	memset(tab, 0, sizeof(tab));
	out->c = calloc(m->n + 2, sizeof(*out->c));
	out->m = calloc(16 * 16, sizeof(*out->m));
	if (!out->c || !out->m) {
		qos_result_free(out);
		return -ENOMEM;
	}
	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);

		if (!p || p->sl < 0 || p->sl > 15)
			continue;
		out->c[out->nc].p = p;
		judge_class(&out->c[out->nc], pt, npt);
		if (out->c[out->nc].nports)
			sls |= (uint16_t)(1u << p->sl);
		out->nc++;
	}
	out->nread = npt;
	for (i = 0; i < npt; i++) {
		int v = smp_data_vls(pt[i].port->vls.oper_vls);

		merges_of(pt[i].sl2vl, sls, pt[i].port, false, tab);
		if (v && (!out->min_vls || v < out->min_vls))
			out->min_vls = v;
		if (!pt[i].sw)
			continue;
		merges_of(pt[i].sw_sl2vl, sls, pt[i].port, true, tab);
		v = smp_data_vls(pt[i].port->sw_vls.oper_vls);
		if (v && (!out->min_sw_vls || v < out->min_sw_vls))
			out->min_sw_vls = v;
	}
	for (a = 0; a < 16; a++)
		for (b = a + 1; b < 16; b++)
			if (tab[a][b].nports)
				out->m[out->nm++] = tab[a][b];
	return 0;
}

void qos_result_free(struct qos_result *r)
{
	free(r->c);
	free(r->m);
	memset(r, 0, sizeof(*r));
}

size_t qos_policy_differs(const struct qos_policy *q,
			  const struct partitions *m,
			  const struct partition **first, int *sl)
{
	size_t i, j, n = 0;

	*first = NULL;
	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);
		int got = q->default_sl;

		if (!p || p->sl < 0)
			continue;
		for (j = 0; j < q->n; j++)
			if (q->r[j].pkey == p->pkey)
				got = q->r[j].sl;
		if (got == p->sl)
			continue;
		if (!n++) {
			*first = p;
			*sl = got;
		}
	}
	return n;
}

/* the SL policy q gives P_Key k, and whether by a rule of its own */
static int sl_for(const struct qos_policy *q, uint16_t k, bool *ruled)
{
	size_t j;

	for (j = 0; j < q->n; j++)
		if (q->r[j].pkey == k) {
			*ruled = true;
			return q->r[j].sl;
		}
	*ruled = false;
	return q->default_sl;
}

size_t qos_policy_compare(const struct qos_policy *a,
			  const struct qos_policy *b, const char *la,
			  const char *lb, char *why, size_t whylen)
{
	size_t i = 0, j = 0, n = 0;

	if (why && whylen)
		why[0] = '\0';
	/* every P_Key either has a rule for, in P_Key order */
	while (i < a->n || j < b->n) {
		uint16_t k =
			i < a->n && (j >= b->n || a->r[i].pkey <= b->r[j].pkey)
				? a->r[i].pkey
				: b->r[j].pkey;
		bool ra, rb;
		int sa = sl_for(a, k, &ra), sb = sl_for(b, k, &rb);

		i += i < a->n && a->r[i].pkey == k;
		j += j < b->n && b->r[j].pkey == k;
		if (sa == sb)
			continue;
		if (!n++)
			snprintf(why, whylen,
				 "P_Key 0x%04x: SL %d%s in the %s policy, SL "
				 "%d%s in %s",
				 k, sa, ra ? "" : " (its default)", la, sb,
				 rb ? "" : " (its default)", lb);
	}
	if (a->default_sl != b->default_sl) {
		if (!n)
			snprintf(why, whylen,
				 "default SL %d in the %s policy, %d in %s",
				 a->default_sl, la, b->default_sl, lb);
		n++;
	}
	return n;
}
