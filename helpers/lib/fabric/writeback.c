// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/onetmpl.h"
#include "fabric/leafpack.h"
#include "fabric/railfit.h"
#include "fabric/schedreq.h"
#include "fabric/topology.h"
#include "fabric/vfcount.h"
#include "fabric/writeback.h"

#define ERRLEN 512

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* One update, its text what fill writes into a memory stream. */
static int add(struct wb_plan *p, enum wb_kind kind, int id,
	       void (*fill)(FILE *f, const void *arg), const void *arg)
{
	struct wb_update *u;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	fill(f, arg);
	if (fclose(f) || !text) {
		free(text);
		return -ENOMEM;
	}
	if (ALLOC_GROW(p->u, p->n + 1, p->alloc)) {
		free(text);
		return -ENOMEM;
	}
	u = &p->u[p->n++];
	u->kind = kind;
	u->id = id;
	u->text = text;
	return 0;
}

static void fill_host(FILE *f, const void *arg)
{
	const long *c = arg;

	tmpl_attr_long(f, "IB_VFS_USED", c[HC_USED]);
	tmpl_attr_long(f, "IB_VFS_AVAIL", c[HC_AVAIL]);
	tmpl_attr_long(f, "IB_SYNC_VMS", c[HC_SYNC_VMS]);
	tmpl_attr_long(f, "IB_SYNC_SUM", c[HC_SYNC_SUM]);
	if (c[HC_RAILS_AVAIL] >= 0)
		tmpl_attr_long(f, "IB_RAILS_AVAIL", c[HC_RAILS_AVAIL]);
}

static void fill_context(FILE *f, const void *arg)
{
	fputs("CONTEXT=[", f);
	/* tmpl_attr's line without its newline, inside the vector */
	{
		char *a = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&a, &n);

		if (m) {
			tmpl_attr(m, "ONEIB_TOPOLOGY", arg);
			fclose(m);
		}
		if (a && n && a[n - 1] == '\n')
			a[--n] = '\0';
		fputs(a ? a : "", f);
		free(a);
	}
	fputs("]\n", f);
}

static void fill_vm(FILE *f, const void *arg)
{
	tmpl_attr(f, "SCHED_REQUIREMENTS", arg);
}

static int plan_hosts(struct cloud_facts *f, struct wb_plan *p)
{
	size_t i;
	int r = 0;

	for (i = 0; i < f->nhosts && !r; i++) {
		const struct host_fact *h = &f->hosts[i];
		long c[HC_COUNT];

		if (vfcount_host(f, h, c)) {
			r = sb_addf(&p->notes,
				    "HOST %d (%s): VMS holds a VM the listing "
				    "does not: counted at the next run\n",
				    h->id, f->texts[h->name]);
			continue;
		}
		if (!vfcount_current(h, c))
			r = add(p, WB_HOST, h->id, fill_host, c);
	}
	return r;
}

/*
 * A VM with IB_AFFINITY required and PCI devices: the hosts where its
 * NICs would get VFs beside the devices oned would give it (railfit.h),
 * into w (*hosts malloc'd, ascending). A host that cannot be counted now
 * (its VMS names a VM the listing lacks) is left out until the next run.
 */
static int beside_hosts(const struct cloud_facts *f, const struct vm_fact *v,
			struct schedreq_want *w, int **hosts)
{
	size_t i;

	*hosts = NULL;
	if (!railfit_required(f, v))
		return 0;
	w->beside = true;
	*hosts = calloc(f->nhosts + 1, sizeof(**hosts));
	if (!*hosts)
		return -ENOMEM;
	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];
		struct railfit rf;
		int r;

		if (!h->schedulable || !h->nrails)
			continue;
		r = railfit_init(&rf, f, h);
		if (r == -ENOMEM)
			return r;
		if (!r && railfit_vm(&rf, f, v, false))
			(*hosts)[w->nhosts++] = h->id;
		railfit_free(&rf);
	}
	if (w->nhosts > 1)
		qsort(*hosts, w->nhosts, sizeof(**hosts), cmp_int);
	w->hosts = *hosts;
	return 0;
}

static int plan_vms(struct cloud_facts *f, struct wb_plan *p)
{
	struct leaf_pick *pick = calloc(f->nvms + 1, sizeof(*pick));
	char **topo = calloc(f->nvms + 1, sizeof(*topo));
	char err[ERRLEN];
	size_t i;
	int r = !pick || !topo || leafpack_plan(f, pick) ||
				topology_plan(f, pick, topo)
			? -ENOMEM
			: 0;

	for (i = 0; !r && i < f->nvms; i++) {
		const struct vm_fact *v = &f->vms[i];
		struct schedreq_want w;
		int *hosts = NULL;
		char *req = NULL;

		if (!pick[i].to_place)
			continue;
		err[0] = '\0';
		w = (struct schedreq_want){ .nics = v->ib_nics,
					    .rails = railfit_need(f, v),
					    .has = pick[i].has,
					    .leaf = pick[i].leaf };
		r = beside_hosts(f, v, &w, &hosts);
		if (!r)
			r = schedreq_update(
				v->id,
				v->req == FACT_NONE ? "" : f->texts[v->req], &w,
				&req, err, sizeof(err));
		free(hosts);
		hosts = NULL;
		/* refused: said once, as the refusal is written */
		if (r >= 0 && err[0] && sb_addf(&p->warnings, "%s\n", err))
			r = -ENOMEM;
		if (r > 0) {
			/* the cluster's map before the leaf term that lifts
			 * the gate: the updates are applied in order */
			r = topo[i] ? add(p, WB_CONTEXT, v->id, fill_context,
					  topo[i])
				    : 0;
			if (!r)
				r = add(p, WB_VM, v->id, fill_vm, req);
		}
		free(req);
	}
	for (i = 0; topo && i < f->nvms; i++)
		free(topo[i]);
	free(topo);
	free(pick);
	return r;
}

int writeback_plan(struct cloud_facts *f, struct wb_plan *out, char *err,
		   size_t errlen)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = cloud_facts_complete(f, 1u << POOL_VM | 1u << POOL_HOST, err,
				 errlen);
	if (r)
		return r;
	r = vfcount_prepare(f);
	if (!r)
		r = plan_hosts(f, out);
	if (!r)
		r = plan_vms(f, out);
	if (r) {
		writeback_free(out);
		err_set(err, errlen, "%s", strerror(-r));
	}
	return r;
}

void writeback_free(struct wb_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->u[i].text);
	free(p->u);
	sb_release(&p->notes);
	sb_release(&p->warnings);
	memset(p, 0, sizeof(*p));
}

int writeback_text(const struct wb_plan *p, struct strbuf *out)
{
	static const char *const kind[] = { "host", "ctx", "vm" };
	const char *s = sb_str(&p->notes);
	size_t i;
	int r = 0;

	for (i = 0; i < p->n && !r; i++) {
		const char *t = p->u[i].text;

		if (p->u[i].kind == WB_CONTEXT) /* the vector's inside */
			t += strlen("CONTEXT=[");
		r = sb_addf(out, "%s %d ", kind[p->u[i].kind], p->u[i].id);
		/* one line: the attributes' newlines become blanks */
		for (; *t && !r; t++) {
			if (p->u[i].kind == WB_CONTEXT && !strcmp(t, "]\n"))
				break;
			r = sb_add(out, *t == '\n' ? " " : t, 1);
		}
		while (!r && out->len && out->buf[out->len - 1] == ' ')
			out->buf[--out->len] = '\0';
		if (!r)
			r = sb_adds(out, "\n");
	}
	while (*s && !r) {
		size_t n = strcspn(s, "\n");

		r = sb_addf(out, "# %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
	return r;
}
