// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/grow.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/partitions.h"
#include "fabric/partwork.h"
#include "fabric/poolread.h"

#define NOTE_MAX 512

/* --- small containers ------------------------------------------------------ */

/* --- names ----------------------------------------------------------------- */

/*
 * "vnet7_tenant_b__lab__2": the ID first, so cutting the rest to opensm's
 * 31 characters never makes two names equal.
 */
static void partition_name(char *buf, size_t size, int id,
			   const struct san_str *name)
{
	size_t n, i;

	n = (size_t)snprintf(buf, size, "vnet%d", id);
	if (!name->s[0] || n + 2 > PARTCONF_NAME_MAX)
		return;
	buf[n++] = '_';
	for (i = 0; name->s[i] && n < PARTCONF_NAME_MAX && n + 1 < size; i++) {
		char c = name->s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_';

		buf[n++] = ok ? c : '_';
	}
	buf[n] = '\0';
}

static int note_add(struct work *w, int kind, int a, int b, const char *fmt,
		    ...) ONEIB_PRINTF(5, 6);
static int note_add(struct work *w, int kind, int a, int b, const char *fmt,
		    ...)
{
	char line[NOTE_MAX];
	struct note *n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (ALLOC_GROW(w->notes, w->nnotes + 1, w->capnotes))
		return -ENOMEM;
	n = &w->notes[w->nnotes];
	n->kind = kind;
	n->a = a;
	n->b = b;
	n->text = strdup(line);
	if (!n->text)
		return -ENOMEM;
	w->nnotes++;
	return 0;
}

static int cmp_by_id(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

const struct by_id *partwork_find_id(const struct by_id *v, size_t n, int id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

static struct net *net_of(const struct work *w, int id)
{
	const struct by_id *b = partwork_find_id(w->ids, w->nnets, id);

	return b ? &w->nets[b->i] : NULL;
}

/* Every InfiniBand network once, by ID; the installed partitions by ID. */
static int index_nets(struct work *w)
{
	const struct cloud_facts *f = w->f;
	const struct partitions *in = w->o->installed;
	size_t i;

	w->nnets = f->nv;
	w->nets = calloc(f->nv + 1, sizeof(*w->nets));
	w->ids = calloc(f->nv + 1, sizeof(*w->ids));
	w->inst = calloc((in ? in->n : 0) + 1, sizeof(*w->inst));
	if (!w->nets || !w->ids || !w->inst)
		return -ENOMEM;
	for (i = 0; i < f->nv; i++) {
		w->nets[i].f = &f->v[i];
		w->nets[i].part = -1;
		w->nets[i].status = f->v[i].ready ? NET_FRESH : NET_PENDING;
		w->ids[i].id = f->v[i].id;
		w->ids[i].i = i;
	}
	qsort(w->ids, w->nnets, sizeof(*w->ids), cmp_by_id);
	for (i = 1; i < w->nnets; i++)
		if (w->ids[i].id == w->ids[i - 1].id) {
			err_set(w->err, w->errlen,
				"VNET pool: VNET %d listed twice",
				w->ids[i].id);
			return -EINVAL;
		}
	for (i = 0; in && i < in->n; i++) {
		int id = partition_vnet_id(in->p[i].name);

		if (id < 0)
			continue;
		w->inst[w->ninst].id = id;
		w->inst[w->ninst++].i = i;
	}
	qsort(w->inst, w->ninst, sizeof(*w->inst), cmp_by_id);
	for (i = 0; i < w->nnets; i++) {
		struct net *n = &w->nets[i];
		const struct by_id *b =
			partwork_find_id(w->inst, w->ninst, n->f->id);

		n->inst = b ? &in->p[b->i] : NULL;
		if (n->f->parent >= 0) {
			n->status = NET_RESERVATION;
			continue;
		}
		if (n->status == NET_FRESH && n->f->bad != FACT_NONE) {
			n->status = NET_BAD;
			n->why = strdup(f->texts[n->f->bad]);
			if (!n->why)
				return -ENOMEM;
		}
	}
	return 0;
}

static uint16_t base_of(const struct net *n)
{
	return pkey_base(n->f->a.pkey);
}

const char *partwork_stat_label(const struct work *w)
{
	return w->o->stat_label ? w->o->stat_label : "the static file";
}

/* A network's reason, without the outcome (make_partitions adds it). */
static int net_bad(struct net *n, const char *fmt, ...) ONEIB_PRINTF(2, 3);
static int net_bad(struct net *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&n->why, fmt, ap);
	va_end(ap);
	if (r < 0) {
		n->why = NULL;
		return -ENOMEM;
	}
	n->status = NET_BAD;
	return 0;
}

/* Every ConnectX-3 PF port of the cloud, sorted (is_pf). */
static int collect_pf(struct work *w)
{
	const struct cloud_facts *f = w->f;
	size_t h, j, n = 0;

	for (h = 0; h < f->nhosts; h++)
		n += f->hosts[h].npf;
	w->pf = calloc(n + 1, sizeof(*w->pf));
	if (!w->pf)
		return -ENOMEM;
	for (h = 0; h < f->nhosts; h++)
		for (j = 0; j < f->hosts[h].npf; j++)
			w->pf[w->npf++] = f->hosts[h].pf[j];
	qsort(w->pf, w->npf, sizeof(*w->pf), guid_cmp);
	return 0;
}

static bool is_pf(const struct work *w, uint64_t g)
{
	return bsearch(&g, w->pf, w->npf, sizeof(*w->pf), guid_cmp) != NULL;
}

/* The host whose PF port g is: "HOST 1 (node01)". */
static void host_of_port(const struct work *w, uint64_t g, char *buf,
			 size_t len)
{
	const struct cloud_facts *f = w->f;
	size_t h, k;

	snprintf(buf, len, "a host");
	for (h = 0; h < f->nhosts; h++)
		for (k = 0; k < f->hosts[h].nports; k++)
			if (f->hosts[h].ports[k] == g) {
				snprintf(buf, len, "HOST %d (%s)",
					 f->hosts[h].id,
					 f->texts[f->hosts[h].name]);
				return;
			}
}

/*
 * The hosts partition: one of the static file's, by a name no other of
 * its partitions has, and one no tenant port is in as opensm reads it
 * (through ALL or ALL_CAS, opensm's own ALL=limited in the default
 * partition, or its GUID listed, even limited): the hypervisors, full
 * members there, would be reachable from that VM.
 */
static int check_hosts(struct work *w)
{
	const char *hp = w->o->hosts_partition;
	const struct partition *hosts = partitions_find_name(w->stat, hp);
	char g[GUID_STRLEN], desc[GUID_DESC_LEN];
	struct tenant_hit h;

	if (!hosts) {
		err_set(w->err, w->errlen,
			"ONEIB_HOSTS_PARTITION '%s' is no partition of %s",
			str_sanitize(hp).s,
			w->o->stat ? partwork_stat_label(w)
				   : "the static file (none)");
		return -EINVAL;
	}
	if (partitions_named(w->stat, hp) > 1) {
		err_set(w->err, w->errlen,
			"ONEIB_HOSTS_PARTITION '%s' names %zu partitions of "
			"%s: give the hosts' one a name of its own",
			str_sanitize(hp).s, partitions_named(w->stat, hp),
			partwork_stat_label(w));
		return -EINVAL;
	}
	switch (partition_tenant_hit(hosts, PM_LIMITED, &h)) {
	case 0:
		return 0;
	case 1:
		break;
	default:
		return -ENOMEM;
	}
	if (!h.guid) {
		err_set(w->err, w->errlen,
			"%s line %d: ONEIB_HOSTS_PARTITION %s has every tenant "
			"VF as a member (%s): give the hosts a partition no "
			"tenant joins",
			partwork_stat_label(w), h.line, hosts->name,
			partconf_keyword[h.kind]);
		return -EINVAL;
	}
	guid_fmt_hex(h.guid, g);
	guid_describe(h.guid, desc);
	err_set(w->err, w->errlen,
		"%s line %d: %s (%s) is a tenant VF's port GUID: no member of "
		"ONEIB_HOSTS_PARTITION %s, whose hypervisors it would reach",
		partwork_stat_label(w), h.line, g, desc, hosts->name);
	return -EINVAL;
}

/*
 * The static file against the cloud: the hosts partition (check_hosts),
 * and none of its partitions may take a partition a network holds on the
 * fabric now (its installed one): the operator's members would join a
 * tenant's partition. A network that merely asks for a reserved key is
 * left out instead (reserve_keys): the operator wins.
 */
static int check_static(struct work *w)
{
	size_t i;
	int r = w->o->hosts_partition ? check_hosts(w) : 0;

	if (r)
		return r;
	for (i = 0; i < w->nnets; i++) {
		const struct net *n = &w->nets[i];
		const struct partition *sp;
		char label[VNET_LABEL_MAX];

		if (!n->inst || n->status == NET_PENDING)
			continue;
		sp = partitions_find(w->stat, n->inst->pkey);
		if (!sp)
			continue;
		vnet_fact_label(n->f, label);
		err_set(w->err, w->errlen,
			"%s line %d: partition %s takes P_Key 0x%04x, the "
			"installed partition of %s: give the operator's "
			"partition another key",
			partwork_stat_label(w), sp->line, sp->name, sp->pkey,
			label);
		return -EINVAL;
	}
	return 0;
}

/* A network asking for a key of the static file is left out. */
static int reserve_keys(struct work *w)
{
	size_t i;
	int r = 0;

	for (i = 0; i < w->nnets && !r; i++) {
		struct net *n = &w->nets[i];
		const struct partition *sp;
		char label[VNET_LABEL_MAX], pk[PKEY_STRLEN];

		if (n->status != NET_FRESH)
			continue;
		sp = partitions_find(w->stat, base_of(n));
		if (!sp)
			continue;
		vnet_fact_label(n->f, label);
		pkey_fmt(n->f->a.pkey, pk);
		r = net_bad(n,
			    "%s: IB_PKEY %s is partition 0x%04x, the static "
			    "file's (%s)",
			    label, pk, sp->pkey, sp->name);
	}
	return r;
}

/* The static partition a service network names, or NULL (also when two
 * have that name: check_services says so). */
static const struct partition *service_partition(const struct work *w,
						 const struct net *n)
{
	if (!ibattr_has(&n->f->a, IBA_SERVICE_PARTITION) ||
	    partitions_named(w->stat, n->f->a.svc_part) != 1)
		return NULL;
	return partitions_find_name(w->stat, n->f->a.svc_part);
}

/*
 * A service network's endpoints must be there and may not be a
 * ConnectX-3 host's port: the VFs that port carries share its table, and
 * would become full members of the network, reaching each other.
 */
static int check_services(struct work *w)
{
	size_t i, j;
	int r = 0;

	for (i = 0; i < w->nnets && !r; i++) {
		struct net *n = &w->nets[i];
		const struct ib_attrs *a = &n->f->a;
		const struct partition *sp = service_partition(w, n);
		char label[VNET_LABEL_MAX], g[GUID_STRLEN], host[128];
		uint64_t bad = 0;

		if (n->status != NET_FRESH)
			continue;
		vnet_fact_label(n->f, label);
		if (ibattr_has(a, IBA_SERVICE_PARTITION) && !sp) {
			size_t named = partitions_named(w->stat, a->svc_part);

			r = named > 1 ? net_bad(n,
						"%s: IB_SERVICE_PARTITION '%s' "
						"names %zu partitions of %s",
						label, a->svc_part, named,
						partwork_stat_label(w))
				      : net_bad(n,
						"%s: IB_SERVICE_PARTITION '%s' "
						"is no partition of %s",
						label, a->svc_part,
						w->o->stat
							? partwork_stat_label(w)
							: "the static file "
							  "(none)");
			continue;
		}
		for (j = 0; j < a->nsvc && !bad; j++)
			if (is_pf(w, a->svc[j]))
				bad = a->svc[j];
		if (sp) {
			uint64_t *ep;
			size_t nep;

			if (partition_full_members(sp, &ep, &nep))
				return -ENOMEM;
			for (j = 0; j < nep && !bad; j++)
				if (is_pf(w, ep[j]))
					bad = ep[j];
			free(ep);
		}
		if (!bad)
			continue;
		guid_fmt_hex(bad, g);
		host_of_port(w, bad, host, sizeof(host));
		r = net_bad(n,
			    "%s: service endpoint %s is %s's ConnectX-3 port, "
			    "whose VFs would all be full members",
			    label, g, host);
	}
	return r;
}

static int cmp_net_base(const void *a, const void *b)
{
	const struct net *x = *(struct net *const *)a,
			 *y = *(struct net *const *)b;

	if (base_of(x) != base_of(y))
		return base_of(x) < base_of(y) ? -1 : 1;
	return x->f->id < y->f->id ? -1 : x->f->id > y->f->id;
}

/*
 * Two networks on one partition would merge two tenants: the one that held
 * it in the installed file keeps it, the others are left out; when none
 * held it, all are.
 */
static int settle_collisions(struct work *w)
{
	struct net **v = calloc(w->nnets + 1, sizeof(*v));
	size_t n = 0, i, j, k;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < w->nnets; i++)
		if (w->nets[i].status == NET_FRESH)
			v[n++] = &w->nets[i];
	qsort(v, n, sizeof(*v), cmp_net_base);
	for (i = 0; i < n; i = j) {
		struct net *holder = NULL;

		for (j = i + 1; j < n && base_of(v[j]) == base_of(v[i]); j++)
			;
		if (j - i == 1)
			continue;
		for (k = i; k < j; k++)
			if (v[k]->inst && v[k]->inst->pkey == base_of(v[k]))
				holder = v[k];
		for (k = i; k < j; k++) {
			const struct net *other =
				holder ? holder : v[k == i ? i + 1 : i];
			char me[VNET_LABEL_MAX], it[VNET_LABEL_MAX];
			char pk[PKEY_STRLEN];

			if (v[k] == holder)
				continue;
			vnet_fact_label(v[k]->f, me);
			vnet_fact_label(other->f, it);
			pkey_fmt(v[k]->f->a.pkey, pk);
			if (asprintf(&v[k]->why,
				     "%s: IB_PKEY %s is partition 0x%04x, %s "
				     "%s",
				     me, pk, base_of(v[k]),
				     holder ? "held by" : "also claimed by",
				     it) < 0) {
				v[k]->why = NULL;
				free(v);
				return -ENOMEM;
			}
			v[k]->status = NET_BAD;
		}
	}
	free(v);
	return 0;
}

static struct partition *new_partition(struct work *w, struct net *n)
{
	struct partition *p;

	if (ALLOC_GROW(w->out->p, w->out->n + 1, w->capp))
		return NULL;
	p = &w->out->p[w->out->n];
	memset(p, 0, sizeof(*p));
	partition_name(p->name, sizeof(p->name), n->f->id, &n->f->name);
	n->part = (long)w->out->n++;
	return p;
}

/*
 * A partition per network: its own for a good one, the installed one for
 * a bad one (unless the cloud gave its key to a good network since).
 */
static int make_partitions(struct work *w)
{
	size_t i, j;

	for (i = 0; i < w->nnets; i++) {
		struct net *n = &w->nets[i];
		const struct ib_attrs *a = &n->f->a;
		struct partition *p;

		if (n->status != NET_FRESH)
			continue;
		p = new_partition(w, n);
		if (!p)
			return -ENOMEM;
		p->origin = PO_ONEIB;
		p->pkey = pkey_base(a->pkey);
		p->ipoib = true;
		p->mtu = ibattr_has(a, IBA_MTU) ? ibattr_mtu_enum(a->mtu) : 0;
		p->rate = ibattr_has(a, IBA_RATE) ? a->rate : 0;
		p->sl = ibattr_has(a, IBA_SL) ? a->sl : -1;
	}
	for (i = 0; i < w->nnets; i++) {
		struct net *n = &w->nets[i], *taker = NULL;
		char me[VNET_LABEL_MAX], it[VNET_LABEL_MAX];
		struct partition *p;
		int r;

		if (n->status != NET_BAD)
			continue;
		vnet_fact_label(n->f, me);
		for (j = 0; n->inst && j < w->nnets; j++)
			if (w->nets[j].status == NET_FRESH &&
			    base_of(&w->nets[j]) == n->inst->pkey)
				taker = &w->nets[j];
		if (!n->inst) {
			r = note_add(w, 0, n->f->id, 0,
				     "%s; left out, no partition (none was "
				     "installed)",
				     n->why);
		} else if (taker) {
			vnet_fact_label(taker->f, it);
			r = note_add(w, 0, n->f->id, 0,
				     "%s; left out, and its installed "
				     "partition "
				     "0x%04x is now %s's: no partition",
				     n->why, n->inst->pkey, it);
		} else {
			r = note_add(w, 0, n->f->id, 0,
				     "%s; left out, its installed partition "
				     "0x%04x kept",
				     n->why, n->inst->pkey);
		}
		if (r)
			return r;
		if (!n->inst || taker)
			continue;
		p = new_partition(w, n);
		if (!p)
			return -ENOMEM;
		p->origin = PO_ONEIB;
		p->pkey = n->inst->pkey;
		p->ipoib = n->inst->ipoib;
		p->mtu = n->inst->mtu;
		p->rate = n->inst->rate;
		p->sl = n->inst->sl;
	}
	return 0;
}

static int add_entry(struct work *w, uint64_t g, size_t part, long src,
		     enum pmember pm)
{
	struct entry *e;

	if (ALLOC_GROW(w->e, w->ne + 1, w->cape))
		return -ENOMEM;
	e = w->e;
	e[w->ne].guid = g;
	e[w->ne].part = (uint32_t)part;
	e[w->ne].src = src;
	e[w->ne].pm = (uint8_t)pm;
	e[w->ne++].drop = false;
	return 0;
}

/* How a network's VMs (and ConnectX-3 ports) are members of it. */
static enum pmember net_member(const struct net *n)
{
	return n->f->a.limited ? PM_LIMITED : PM_FULL;
}

static bool in_cluster(const struct vnet_fact *v, int cluster)
{
	size_t i;

	for (i = 0; i < v->nclusters; i++)
		if (v->clusters[i] == cluster)
			return true;
	return false;
}

/* A ConnectX-3 host's PF ports join every good network of its cluster. */
static int host_entries(struct work *w)
{
	const struct cloud_facts *f = w->f;
	size_t h, i, j;
	int r = 0;

	for (h = 0; h < f->nhosts && !r; h++) {
		const struct host_fact *hf = &f->hosts[h];

		if (!hf->npf)
			continue; /* no ConnectX-3 port: nothing to provision */
		for (i = 0; i < w->nnets && !r; i++) {
			const struct net *net = &w->nets[i];

			if (net->status != NET_FRESH ||
			    !in_cluster(net->f, hf->cluster))
				continue;
			for (j = 0; j < hf->npf && !r; j++)
				r = add_entry(w, hf->pf[j], (size_t)net->part,
					      SRC_PF, net_member(net));
		}
	}
	return r;
}

/*
 * A network's service endpoints: full members. Those of its static
 * partition are the GUIDs opensm makes full members of it whatever port
 * they are (partition_full_members: a server listed full and then made
 * limited by a later ALL_CAS=limited is no endpoint).
 */
static int service_entries(struct work *w)
{
	size_t i, j, nep;
	uint64_t *ep;
	int r = 0;

	for (i = 0; i < w->nnets && !r; i++) {
		const struct net *n = &w->nets[i];
		const struct partition *sp = service_partition(w, n);

		if (n->status != NET_FRESH)
			continue;
		for (j = 0; j < n->f->a.nsvc && !r; j++)
			r = add_entry(w, n->f->a.svc[j], (size_t)n->part,
				      SRC_SERVICE, PM_FULL);
		if (r || !sp)
			continue;
		r = partition_full_members(sp, &ep, &nep);
		for (j = 0; j < nep && !r; j++)
			r = add_entry(w, ep[j], (size_t)n->part, SRC_SERVICE,
				      PM_FULL);
		free(ep);
	}
	return r;
}

/*
 * The operator's partitions as the static file has them, carried (their
 * text as written), the default one too; the hosts partition with every
 * InfiniBand PF port of the cloud appended to its last definition, as
 * full members (opensm's last entry wins: they stay full).
 */
static int static_partitions(struct work *w)
{
	const struct partitions *st = w->stat;
	const char *hp = w->o->hosts_partition;
	struct partition *hosts = NULL;
	uint64_t *ports;
	size_t i, h, k, n = 0;
	int r = 0;

	for (i = 0; i < st->n && !r; i++) {
		struct partition *p;

		if (ALLOC_GROW(w->out->p, w->out->n + 1, w->capp))
			return -ENOMEM;
		p = &w->out->p[w->out->n];
		r = partition_copy(p, &st->p[i]);
		if (r)
			return r;
		w->out->n++;
		p->origin = PO_STATIC;
		p->line = 0;
		if (hp && !strcmp(p->name, hp))
			hosts = p;
	}
	if (st->def) {
		w->out->def = malloc(sizeof(*w->out->def));
		if (!w->out->def || partition_copy(w->out->def, st->def)) {
			free(w->out->def);
			w->out->def = NULL;
			return -ENOMEM;
		}
		w->out->def->origin = PO_STATIC;
		w->out->def->line = 0;
		if (hp && !strcmp(st->def->name, hp))
			hosts = w->out->def;
	}
	if (!hosts)
		return 0;
	hosts->origin = PO_STATIC_HOSTS;
	if (hosts->ndefs)
		hosts->defs[hosts->ndefs - 1].origin = PO_STATIC_HOSTS;
	for (h = 0; h < w->f->nhosts; h++)
		n += w->f->hosts[h].nports;
	ports = malloc((n + 1) * sizeof(*ports));
	if (!ports)
		return -ENOMEM;
	for (h = 0, n = 0; h < w->f->nhosts; h++)
		for (k = 0; k < w->f->hosts[h].nports; k++)
			ports[n++] = w->f->hosts[h].ports[k];
	r = partition_append_full(hosts, ports, n);
	free(ports);
	return r;
}

static int nic_out(struct work *w, size_t i, const struct net *net,
		   const char *fmt, ...) ONEIB_PRINTF(4, 5);
static int nic_out(struct work *w, size_t i, const struct net *net,
		   const char *fmt, ...)
{
	const struct nic_fact *n = &w->f->nics[i];
	char why[NOTE_MAX], label[VNET_LABEL_MAX];
	va_list ap;

	if (w->nic_out[i])
		return 0;
	w->nic_out[i] = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!net)
		return note_add(w, 1, n->vm, n->nic, "%s; left out", why);
	vnet_fact_label(net->f, label);
	return note_add(w, 1, n->vm, n->nic, "%s; left out of %s", why, label);
}

/*
 * NIC i is on a reservation *net: its parent's, when the parent is an
 * InfiniBand network of the pool and the reservation keeps its partition
 * (*net then the parent); else it is left out (*net NULL).
 */
static int reserved_by(struct work *w, size_t i, const struct net **net)
{
	const struct nic_fact *n = &w->f->nics[i];
	const struct net *res = *net, *p = net_of(w, res->f->parent);
	char label[VNET_LABEL_MAX];

	*net = NULL;
	vnet_fact_label(res->f, label);
	if (!p || p->status == NET_RESERVATION)
		return nic_out(w, i, NULL,
			       "VM %d NIC %d: %s is a reservation of VNET %d, "
			       "no InfiniBand network of the pool",
			       n->vm, n->nic, label, res->f->parent);
	if (ibattr_has(&res->f->a, IBA_PKEY) &&
	    pkey_base(res->f->a.pkey) != base_of(p))
		return nic_out(w, i, p,
			       "VM %d NIC %d: %s, a reservation of it, holds "
			       "partition 0x%04x, not its 0x%04x",
			       n->vm, n->nic, label, pkey_base(res->f->a.pkey),
			       base_of(p));
	*net = p;
	return 0;
}

/* Each NIC of a good network: its GUID(s), or why it has none. */
static int nic_entries(struct work *w)
{
	const struct cloud_facts *f = w->f;
	size_t i;
	int r = 0;

	for (i = 0; i < f->nnics && !r; i++) {
		const struct nic_fact *n = &f->nics[i];
		const struct net *net = n->net == FACT_NONE ? NULL
							    : net_of(w, n->net);
		char why[256];
		uint64_t g;

		/*
		 * `onevm list -x` lists a NIC without VN_MAD: a NIC is
		 * InfiniBand when its network is, whatever the form.
		 */
		if (!net && n->ib && n->bad != FACT_NONE)
			r = nic_out(w, i, NULL, "%s", f->texts[n->bad]);
		else if (!net && n->ib)
			r = nic_out(w, i, NULL,
				    "VM %d NIC %d: network %d is not an "
				    "InfiniBand network of the pool",
				    n->vm, n->nic, n->net);
		if (!r && net && net->status == NET_RESERVATION)
			r = reserved_by(w, i, &net);
		if (r || !net || net->status != NET_FRESH)
			continue;
		if (n->bad != FACT_NONE) {
			r = nic_out(w, i, net, "%s", f->texts[n->bad]);
			continue;
		}
		if (n->has_pkey && n->pkey.raw != net->f->a.pkey.raw) {
			char pk[PKEY_STRLEN], want[PKEY_STRLEN];

			pkey_fmt(n->pkey, pk);
			pkey_fmt(net->f->a.pkey, want);
			r = nic_out(w, i, net,
				    "VM %d NIC %d: IB_PKEY %s is not its "
				    "network's %s",
				    n->vm, n->nic, pk, want);
			continue;
		}
		if (guid_for_nic_checked((int)w->o->cloud_id, n->vm, n->nic, &g,
					 why, sizeof(why))) {
			r = nic_out(w, i, net, "%s", why);
			continue;
		}
		if (w->o->legacy_guids && !n->has_mac) {
			r = nic_out(w, i, net, "%s (--legacy-guids)",
				    f->texts[n->bad_mac]);
			continue;
		}
		r = add_entry(w, g, (size_t)net->part, (long)i,
			      net_member(net));
		if (!r && w->o->legacy_guids)
			r = add_entry(w, guid_from_mac(n->mac),
				      (size_t)net->part, (long)i,
				      net_member(net));
	}
	return r;
}

/* The members of every kept partition, as installed. */
static int kept_entries(struct work *w)
{
	size_t i, j;
	int r = 0;

	for (i = 0; i < w->nnets && !r; i++) {
		const struct net *n = &w->nets[i];

		if (n->status != NET_BAD || n->part < 0)
			continue;
		for (j = 0; j < n->inst->n && !r; j++)
			r = add_entry(w, n->inst->guids[j], (size_t)n->part,
				      SRC_KEPT, PM_FULL);
		for (j = 0; j < n->inst->nlimited && !r; j++)
			r = add_entry(w, n->inst->limited[j], (size_t)n->part,
				      SRC_KEPT, PM_LIMITED);
	}
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->part != y->part)
		return x->part < y->part ? -1 : 1;
	if (x->pm != y->pm)
		return x->pm < y->pm ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

static bool same_nic(const struct nic_fact *a, const struct nic_fact *b)
{
	return a->vm == b->vm && a->nic == b->nic;
}

/* The network label of an output partition's network. */
static void part_label(const struct work *w, size_t part,
		       char buf[VNET_LABEL_MAX])
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < w->nnets; i++)
		if (w->nets[i].part == (long)part)
			vnet_fact_label(w->nets[i].f, buf);
}

/*
 * One GUID, one partition (decision 2): every NIC whose GUID another NIC
 * (of another VM, NIC or network) or a host port has is left out; a kept
 * partition's member the cloud has elsewhere is dropped.
 */
static int settle_guids(struct work *w)
{
	const struct cloud_facts *f = w->f;
	size_t i, j, k;
	int r = 0;

	if (w->ne)
		qsort(w->e, w->ne, sizeof(*w->e), cmp_entry);
	for (i = 0; i < w->ne && !r; i = j) {
		const struct entry *nic = NULL, *other = NULL;
		bool pf = is_pf(w, w->e[i].guid), parts = false;
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		for (j = i + 1; j < w->ne && w->e[j].guid == w->e[i].guid; j++)
			parts |= w->e[j].part != w->e[i].part;
		/* Does the group hold two different NICs (or one NIC in two
		 * partitions)? */
		for (k = i; k < j; k++) {
			if (w->e[k].src < 0)
				continue;
			if (!nic)
				nic = &w->e[k];
			else if (!other && (w->e[k].part != nic->part ||
					    !same_nic(&f->nics[w->e[k].src],
						      &f->nics[nic->src])))
				other = &w->e[k];
		}
		/* one tenant GUID, one partition: endpoints and ports of
		 * hosts are in many */
		for (k = i; k < j; k++)
			if (w->e[k].src == SRC_KEPT &&
			    guid_assignable(w->e[i].guid) && (nic || parts))
				w->e[k].drop = true;
		if (!nic || (!other && !pf))
			continue;
		guid_fmt_hex(w->e[i].guid, g);
		guid_describe(w->e[i].guid, desc);
		for (k = i; k < j && !r; k++) {
			const struct entry *o = other;
			const struct nic_fact *me;
			char it[VNET_LABEL_MAX];

			if (w->e[k].src < 0)
				continue;
			me = &f->nics[w->e[k].src];
			if (pf) {
				r = nic_out(w, (size_t)w->e[k].src,
					    net_of(w, me->net),
					    "VM %d NIC %d: GUID %s (%s) is a "
					    "ConnectX-3 host's port",
					    me->vm, me->nic, g, desc);
				continue;
			}
			if (same_nic(&f->nics[o->src], me) &&
			    o->part == w->e[k].part)
				o = nic;
			part_label(w, o->part, it);
			r = nic_out(w, (size_t)w->e[k].src, net_of(w, me->net),
				    "VM %d NIC %d: GUID %s (%s) is also VM %d "
				    "NIC %d's, on %s",
				    me->vm, me->nic, g, desc,
				    f->nics[o->src].vm, f->nics[o->src].nic,
				    it);
		}
	}
	return r;
}

/* The members of each network's partition: what is left of the entries. */
static int fill_members(struct work *w)
{
	size_t i, *nf = calloc(w->nparts + 1, sizeof(*nf)),
		  *nl = calloc(w->nparts + 1, sizeof(*nl));

	if (!nf || !nl) {
		free(nf);
		free(nl);
		return -ENOMEM;
	}
	for (i = 0; i < w->ne; i++)
		(w->e[i].pm == PM_FULL ? nf : nl)[w->e[i].part]++;
	for (i = 0; i < w->nparts; i++) {
		struct partition *p = &w->out->p[i];

		p->guids = malloc((nf[i] + 1) * sizeof(uint64_t));
		p->limited = malloc((nl[i] + 1) * sizeof(uint64_t));
		if (!p->guids || !p->limited) {
			free(nf);
			free(nl);
			return -ENOMEM;
		}
	}
	free(nf);
	free(nl);
	/* entries are sorted by GUID: each partition's lists come sorted */
	for (i = 0; i < w->ne; i++) {
		const struct entry *e = &w->e[i];
		struct partition *p = &w->out->p[e->part];
		uint64_t *v = e->pm == PM_FULL ? p->guids : p->limited;
		size_t *n = e->pm == PM_FULL ? &p->n : &p->nlimited;

		if (e->drop || (e->src >= 0 && w->nic_out[e->src]))
			continue;
		if (*n && v[*n - 1] == e->guid)
			continue; /* a PF in two of the clusters, a VM twice */
		v[(*n)++] = e->guid;
	}
	return 0;
}

/* The network a partition index belongs to (fresh or kept), or NULL. */

static const struct net *net_of_part(const struct work *w, uint32_t part)
{
	size_t i;

	for (i = 0; i < w->nnets; i++)
		if (w->nets[i].part == (long)part)
			return &w->nets[i];
	return NULL;
}

static int cmp_part_by_vnet(const void *a, const void *b, void *arg)
{
	const struct work *w = arg;
	const struct net *x = net_of_part(w, *(const uint32_t *)a);
	const struct net *y = net_of_part(w, *(const uint32_t *)b);
	int ix = x ? x->f->id : -1, iy = y ? y->f->id : -1;

	return ix < iy ? -1 : ix > iy;
}

/* Entries membership pm takes in a port's table: both is two. */
static size_t entries_of(enum pmember pm)
{
	return pm == PM_BOTH ? 2 : pm != PM_NONE;
}

/*
 * The entries the operator's partitions (the default one aside) take in
 * ConnectX-3 PF port g's table, as opensm reads them (g is a CA's port,
 * maybe the SM's: the more of the two), the hosts partition one.
 */
static size_t static_keys(const struct work *w, uint64_t g)
{
	const char *hp = w->o->hosts_partition;
	size_t i, n = 0;

	for (i = 0; i < w->stat->n; i++) {
		const struct partition *p = &w->stat->p[i];
		size_t a = entries_of(partition_port(p, g, PCLASS_CA, false)),
		       b = entries_of(partition_port(p, g, PCLASS_CA, true));

		if (hp && !strcmp(p->name, hp))
			a = b = entries_of(PM_FULL);
		n += a > b ? a : b;
	}
	return n;
}

/*
 * ConnectX-3: the default partition plus at most 126 tenant keys on a PF
 * port, less those the static file puts there (its hosts partition: one).
 * A port the cloud would give more keeps the networks with the
 * lowest IDs (the oldest: what already runs there keeps running) and is
 * left out of the others, one note each; a VM of such a network cannot be
 * mapped on that host (deploy fails there, the key not being on the port)
 * while every other tenant follows the cloud. Entries are sorted by GUID
 * and partition; runs before fill_members.
 */
static int limit_mlx4_ports(struct work *w)
{
	const struct cloud_facts *f = w->f;
	size_t i, j, h, k, max, sk;
	uint32_t *parts = NULL;
	size_t capparts = 0;
	int r = 0;

	for (i = 0; i < w->ne && !r; i = j) {
		uint64_t g = w->e[i].guid;
		const char *host = "?";
		char guid[GUID_STRLEN];
		int host_id = -1;
		size_t nparts = 0;

		for (j = i; j < w->ne && w->e[j].guid == g; j++)
			if (!w->e[j].drop &&
			    (!nparts || w->e[j].part != parts[nparts - 1])) {
				if (ALLOC_GROW(parts, nparts + 1, capparts)) {
					free(parts);
					return -ENOMEM;
				}
				parts[nparts++] = w->e[j].part;
			}
		if (!is_pf(w, g))
			continue;
		max = PARTITIONS_MLX4_MAX_PKEYS - 1;
		sk = static_keys(w, g);
		max -= sk < max ? sk : max;
		if (nparts <= max)
			continue;
		qsort_r(parts, nparts, sizeof(*parts), cmp_part_by_vnet, w);
		for (h = 0; h < f->nhosts && host_id < 0; h++)
			for (k = 0; k < f->hosts[h].npf; k++)
				if (f->hosts[h].pf[k] == g) {
					host_id = f->hosts[h].id;
					host = f->texts[f->hosts[h].name];
					break;
				}
		guid_fmt_hex(g, guid);
		for (k = max; k < nparts && !r; k++) {
			const struct net *n = net_of_part(w, parts[k]);
			char label[VNET_LABEL_MAX] = "?";
			size_t e;

			for (e = i; e < j; e++)
				if (w->e[e].part == parts[k])
					w->e[e].drop = true;
			if (n)
				vnet_fact_label(n->f, label);
			r = note_add(w, 0, n ? n->f->id : -1, host_id,
				     "%s: HOST %d (%s) port %s already holds "
				     "the %zu tenant keys a ConnectX-3 port "
				     "can; left out on that port",
				     label, host_id, host, guid, max);
		}
	}
	free(parts);
	return r;
}

static int cmp_partition(const void *a, const void *b)
{
	const struct partition *x = a, *y = b;

	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

static int cmp_note(const void *a, const void *b)
{
	const struct note *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int finish(struct work *w)
{
	size_t i;
	int r = 0;

	if (w->out->n)
		qsort(w->out->p, w->out->n, sizeof(*w->out->p), cmp_partition);
	if (w->nnotes)
		qsort(w->notes, w->nnotes, sizeof(*w->notes), cmp_note);
	for (i = 0; i < w->nnotes && !r; i++)
		if (!i || strcmp(w->notes[i].text, w->notes[i - 1].text))
			r = partitions_add_note(w->out, w->notes[i].text);
	return r;
}

int partitions_desired(const struct cloud_facts *f, const struct render_opts *o,
		       struct partitions *out, char *err, size_t errlen)
{
	return partitions_desired_plan(f, o, out, NULL, err, errlen);
}

int partitions_desired_plan(const struct cloud_facts *f,
			    const struct render_opts *o, struct partitions *out,
			    struct partitions_plan *plan, char *err,
			    size_t errlen)
{
	static const struct partitions none;
	struct partitions_plan own;
	struct work w = { .f = f,
			  .o = o,
			  .out = out,
			  .err = err,
			  .errlen = errlen,
			  .stat = o->stat ? o->stat : &none };
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	memset(&own, 0, sizeof(own));
	if (plan)
		memset(plan, 0, sizeof(*plan));
	r = cloud_facts_complete(f, 7, err, errlen);
	if (r)
		return r;
	if (o->cloud_id > GUID_CLOUD_MAX) {
		err_set(err, errlen, "cloud id %u is not in 0..%d", o->cloud_id,
			GUID_CLOUD_MAX);
		return -EINVAL;
	}
	w.nic_out = calloc(f->nnics + 1, sizeof(*w.nic_out));
	r = w.nic_out ? index_nets(&w) : -ENOMEM;
	if (!r)
		r = collect_pf(&w);
	if (!r)
		r = check_static(&w);
	if (!r)
		r = reserve_keys(&w);
	if (!r)
		r = check_services(&w);
	if (!r)
		r = settle_collisions(&w);
	if (!r)
		r = make_partitions(&w);
	w.nparts = out->n;
	if (!r)
		r = static_partitions(&w);
	if (!r)
		r = host_entries(&w);
	if (!r)
		r = nic_entries(&w);
	if (!r)
		r = service_entries(&w);
	if (!r)
		r = kept_entries(&w);
	if (!r)
		r = settle_guids(&w);
	if (!r)
		r = limit_mlx4_ports(&w);
	if (!r)
		r = fill_members(&w);
	if (!r && o->sls)
		r = partwork_plan_sls(&w, plan ? plan : &own);
	if (!r)
		r = finish(&w);
	if (r == -ENOMEM)
		err_set(err, errlen, "partitions: out of memory");
	if (r) {
		partitions_free(out);
		partitions_plan_free(plan);
	}
	partitions_plan_free(&own);
	for (i = 0; i < w.nnotes; i++)
		free(w.notes[i].text);
	free(w.notes);
	for (i = 0; w.nets && i < w.nnets; i++)
		free(w.nets[i].why);
	free(w.nets);
	free(w.ids);
	free(w.inst);
	free(w.pf);
	free(w.e);
	free(w.nic_out);
	return r;
}

int partitions_build(const char *vms, size_t vms_len, const char *hosts,
		     size_t hosts_len, const char *vnets, size_t vnets_len,
		     const struct render_opts *o, struct partitions *out,
		     char *err, size_t errlen)
{
	struct cloud_facts f = { 0 };
	int r;

	memset(out, 0, sizeof(*out));
	/* networks first: the order the messages of the tests expect */
	r = poolread_mem(&f, POOL_VNET, vnets, vnets_len, "VNET pool", err,
			 errlen);
	if (!r)
		r = poolread_mem(&f, POOL_HOST, hosts, hosts_len, "HOST pool",
				 err, errlen);
	if (!r)
		r = poolread_mem(&f, POOL_VM, vms, vms_len, "VM pool", err,
				 errlen);
	if (!r)
		r = partitions_desired(&f, o, out, err, errlen);
	cloud_facts_free(&f);
	return r;
}
