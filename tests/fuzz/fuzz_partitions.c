// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: what `oneib-partitions render` reads (the three pool listings,
 * names and values written by tenants, and the installed file it keeps a
 * refused network's partition from) and the strict partitions.conf reader
 * the root installer trusts. No crash, no leak; a refusal always leaves an
 * error line; whatever the listings give renders to a file the strict
 * reader reads back as that same model and the installer's canonical
 * check accepts (so the install-time checks only ever fail on a bug, never
 * on input); and no GUID of a tenant NIC is ever in two partitions. From
 * the same facts the leaf of each VM to be placed (fabric/leafpack.h): a
 * leaf term only for those, only a leaf some host is under; and their
 * cluster's map, which reads back as addresses of that cluster only, each
 * under a leaf some host is under, the VM's own among them.
 *
 * The same bytes as the operator's static file (read as opensm reads
 * it): it never leaves a tenant port a full member, and whatever of it is
 * taken renders, with two hosts (their PF GUIDs from the input) in its
 * first partition as the hosts partition, to a file the installer's
 * canonical check accepts, in which opensm's reading of every static
 * partition is the static file's, entry for entry, the hosts' ports
 * appended after them, full.
 *
 * Input: first byte = options (bit 0 legacy GUIDs, bits 1-7 cloud id),
 * then the listings; the same bytes are also read as an installed file.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/topomap.h"
#include "fabric/leafpack.h"
#include "fabric/partitions.h"
#include "fabric/poolread.h"
#include "fabric/topology.h"
#include "fabric/vfcount.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_leaf(const struct cloud_facts *f, uint64_t g)
{
	size_t h, i;

	for (h = 0; h < f->nhosts; h++)
		for (i = 0; i < f->hosts[h].nports; i++)
			if (f->hosts[h].leaves[i] == g)
				return 1;
	return 0;
}

/*
 * The cluster maps (fabric/topology.h): only for a VM given a leaf, and
 * what the guest reads back (core/topomap.h) is a map of that VM's own
 * cluster's addresses, itself among them when it has one.
 */
static void maps_written(const struct cloud_facts *f,
			 const struct leaf_pick *pick)
{
	char **topo = calloc(f->nvms + 1, sizeof(*topo)), err[256];
	size_t i, j, k, n;

	if (!topo || topology_plan(f, pick, topo))
		abort();
	for (i = 0; i < f->nvms; i++) {
		struct topo_entry *e = NULL;
		bool self = false;

		if (!topo[i])
			continue;
		/* "" takes a stale map back (no member has an address) */
		if (pick[i].has != SR_LEAF ||
		    topomap_parse(topo[i], &e, &n, err, sizeof(err)))
			abort();
		for (j = 0; j < n; j++) {
			/* (under its leaf unless a listing gave another VM
			 * of the cluster its address too) */
			self |= f->vms[i].has_ip && e[j].ip == f->vms[i].ip;
			for (k = 0; k < f->nvms; k++)
				if (f->vms[k].has_ip &&
				    f->vms[k].ip == e[j].ip &&
				    f->vms[k].net == f->vms[i].net)
					break;
			if (k == f->nvms || !is_leaf(f, e[j].leaf))
				abort();
		}
		if (f->vms[i].has_ip && !self)
			abort();
		free(e);
		free(topo[i]);
	}
	free(topo);
}

static void leaves_chosen(struct cloud_facts *f)
{
	struct leaf_pick *pick = calloc(f->nvms + 1, sizeof(*pick));
	size_t i;

	if (vfcount_prepare(f))
		abort();
	if (!pick || leafpack_plan(f, pick))
		abort();
	for (i = 0; i < f->nvms; i++) {
		if (!pick[i].to_place && pick[i].has != SR_NO_LEAF)
			abort();
		if (pick[i].has == SR_LEAF &&
		    (!pick[i].leaf || !is_leaf(f, pick[i].leaf)))
			abort();
	}
	maps_written(f, pick);
	free(pick);
}

static int is_pf(const struct cloud_facts *f, uint64_t g)
{
	size_t h, i;

	for (h = 0; h < f->nhosts; h++)
		for (i = 0; i < f->hosts[h].npf; i++)
			if (f->hosts[h].pf[i] == g)
				return 1;
	return 0;
}

/* Every GUID but a ConnectX-3 host port's in one partition at most. */
static void one_partition_per_nic_guid(const struct partitions *m,
				       const struct cloud_facts *f)
{
	size_t i, j, k, l;

	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->p[i].n; j++) {
			uint64_t g = m->p[i].guids[j];

			if (is_pf(f, g))
				continue;
			for (k = i + 1; k < m->n; k++)
				for (l = 0; l < m->p[k].n; l++)
					if (m->p[k].guids[l] == g)
						abort();
		}
}

#define FUZZ_HOST(id)                                                          \
	"<HOST><ID>" #id "</ID><NAME>h" #id "</NAME><CLUSTER_ID>0</"           \
					    "CLUSTER_ID>"                      \
	"<TEMPLATE><IB_PF><PORT>1</PORT><PORT_GUID>0x%016llx</PORT_GUID>"      \
	"<DRIVER>mlx5_core</DRIVER><LINK_LAYER>InfiniBand</LINK_LAYER>"        \
	"</IB_PF></TEMPLATE></HOST>"

static bool same_entry(const struct pentry *a, const struct pentry *b)
{
	return a->kind == b->kind && a->guid == b->guid && a->pm == b->pm &&
	       a->indx0 == b->indx0;
}

/* st, the static file as read, carried into a file and read back. */
static void static_file_carried(const struct partitions *st, const uint8_t *d,
				size_t n)
{
	static const char vms[] = "<VM_POOL/>", vnets[] = "<VNET_POOL/>";
	const char *hp = st->n ? st->p[0].name : NULL;
	struct render_opts o = { .stat = st, .hosts_partition = hp };
	struct partitions m, back;
	struct strbuf text = STRBUF_INIT;
	char hosts[1024], err[256] = "";
	uint64_t g1 = 0x248a070300000000ULL | (n ? d[0] : 1),
		 g2 = 0x248a070300010000ULL | (n > 1 ? d[1] : 2);
	size_t i, j;

	for (i = 0; i <= st->n; i++) {
		const struct partition *p = partitions_at(st, i);
		struct tenant_hit h;

		/* nothing of the operator's leaves a tenant VF full */
		if (p && partition_tenant_hit(p, PM_FULL, &h))
			abort();
	}
	snprintf(hosts, sizeof(hosts),
		 "<HOST_POOL>" FUZZ_HOST(1) FUZZ_HOST(2) "</HOST_POOL>",
		 (unsigned long long)g1, (unsigned long long)g2);
	if (partitions_build(vms, strlen(vms), hosts, strlen(hosts), vnets,
			     strlen(vnets), &o, &m, err, sizeof(err))) {
		if (!err[0])
			abort();
		return;
	}
	if (partconf_render(&m, &text) ||
	    partconf_check(text.buf, text.len, &m, err, sizeof(err)) ||
	    partconf_canonical(text.buf, text.len, &back, err, sizeof(err)))
		abort();
	for (i = 0; i <= st->n; i++) {
		const struct partition *p = partitions_at(st, i);
		const struct partition *q = p ? partitions_find(&back, p->pkey)
					      : NULL;
		bool is_hosts = hp && !i;

		if (!p)
			continue;
		/* opensm reads what the operator wrote, then the hosts */
		if (!q || q->ndefs != p->ndefs || q->nent < p->nent)
			abort();
		for (j = 0; j < p->nent; j++)
			if (!same_entry(&p->ent[j], &q->ent[j]))
				abort();
		for (; j < q->nent; j++)
			if (!is_hosts || q->ent[j].kind != PENTRY_GUID ||
			    q->ent[j].pm != PM_FULL)
				abort();
		if (is_hosts &&
		    (partition_port(q, g1, PCLASS_CA, false) != PM_FULL ||
		     partition_port(q, g2, PCLASS_CA, true) != PM_FULL))
			abort();
	}
	partitions_free(&back);
	partitions_free(&m);
	sb_release(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pool_stream s;
	struct cloud_facts f = { 0 };
	struct partitions m = { 0 }, back = { 0 }, inst = { 0 }, st = { 0 };
	struct render_opts o = { .cloud_id = 0 };
	struct strbuf text = STRBUF_INIT;
	char err[256] = "";
	enum pool_kind kind;
	FILE *in = NULL;
	int r = 0;

	if (size < 1)
		return 0;
	o.legacy_guids = data[0] & 1;
	o.cloud_id = data[0] >> 1;
	data++;
	size--;
	/* the strict reader, both ways it is used */
	if (partconf_parse((const char *)data, size, 0, &back, err,
			   sizeof(err)) &&
	    !err[0])
		abort();
	partitions_free(&back);
	err[0] = '\0';
	if (partconf_canonical((const char *)data, size, &back, err,
			       sizeof(err)) &&
	    !err[0])
		abort();
	partitions_free(&back);
	if (!partconf_parse((const char *)data, size, PARTCONF_ANY, &inst, err,
			    sizeof(err))) {
		o.installed = &inst;
		/* adoption never crashes, and names what it counts */
		char names[128];

		if (partitions_foreign(&inst, NULL, names, sizeof(names)) &&
		    !names[0])
			abort();
	}
	err[0] = '\0';
	/* the same bytes as the operator's static file, carried through */
	if (!partconf_parse_as("static", (const char *)data, size,
			       PARTCONF_STATIC, &st, err, sizeof(err))) {
		static_file_carried(&st, data, size);
		o.stat = &st;
		o.hosts_partition = st.n ? st.p[0].name : NULL;
	} else if (!err[0]) {
		abort();
	}
	err[0] = '\0';

	in = size ? fmemopen((void *)data, size, "r") : NULL;
	if (!in)
		goto out;
	pool_stream_init(&s, in, "fuzz");
	while ((r = pool_stream_next(&s, &kind, err, sizeof(err))) == 1) {
		r = poolread_doc(&f, -1, pool_stream_read, &s, "fuzz", err,
				 sizeof(err));
		if (r)
			break;
	}
	if (r) {
		if (!err[0])
			abort();
		goto out;
	}
	leaves_chosen(&f);
	if (partitions_desired(&f, &o, &m, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	one_partition_per_nic_guid(&m, &f);
	if (partconf_render(&m, &text) ||
	    partconf_check(text.buf, text.len, &m, err, sizeof(err)) ||
	    partconf_canonical(text.buf, text.len, &back, err, sizeof(err)))
		abort();
out:
	if (in)
		fclose(in);
	cloud_facts_free(&f);
	partitions_free(&m);
	partitions_free(&back);
	partitions_free(&inst);
	partitions_free(&st);
	sb_release(&text);
	return 0;
}
