// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "root/partconf.h"
#include "root/partconf_priv.h"

#define NOTE PARTCONF_NOTE
#define FROM PARTCONF_FROM
#define DEFAULT_LINE "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

const char *const partconf_keyword[PKW_COUNT] = {
	[PKW_ALL] = "ALL",
	[PKW_ALL_CAS] = "ALL_CAS",
	[PKW_ALL_SWITCHES] = "ALL_SWITCHES",
	[PKW_ALL_ROUTERS] = "ALL_ROUTERS",
	[PKW_SELF] = "SELF",
};

const char *const partconf_member_word[] = {
	[PM_NONE] = "none",
	[PM_LIMITED] = "limited",
	[PM_FULL] = "full",
	[PM_BOTH] = "both",
};

const char *const partconf_origin_text[] = {
	[PO_UNKNOWN] = NULL,
	[PO_ONEIB] = "one-ib",
	[PO_STATIC] = "the static file",
	[PO_STATIC_HOSTS] = "the static file, with the cloud's hosts",
};

/* --- the model --------------------------------------------------------------
 */

static void defs_free(struct pdef *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].text);
	free(d);
}

void partition_free(struct partition *p)
{
	if (!p)
		return;
	free(p->guids);
	free(p->limited);
	defs_free(p->defs, p->ndefs);
	free(p->ent);
	p->guids = p->limited = NULL;
	p->defs = NULL;
	p->ent = NULL;
	p->n = p->nlimited = p->ndefs = p->nent = 0;
}

void partitions_free(struct partitions *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		partition_free(&m->p[i]);
	free(m->p);
	partition_free(m->def);
	free(m->def);
	for (i = 0; i < m->nnotes; i++)
		free(m->notes[i]);
	free(m->notes);
	memset(m, 0, sizeof(*m));
}

size_t partitions_members(const struct partitions *m)
{
	size_t i, n = m->def ? m->def->n + m->def->nlimited : 0;

	for (i = 0; i < m->n; i++)
		n += m->p[i].n + m->p[i].nlimited;
	return n;
}

static void *copy_mem(const void *v, size_t n, size_t size)
{
	void *c = malloc((n + 1) * size);

	if (c && n)
		memcpy(c, v, n * size);
	return c;
}

int partition_copy(struct partition *out, const struct partition *p)
{
	size_t i;

	*out = *p;
	out->defs = NULL;
	out->ndefs = 0;
	out->guids = copy_mem(p->guids, p->n, sizeof(*p->guids));
	out->limited = copy_mem(p->limited, p->nlimited, sizeof(*p->limited));
	out->ent = copy_mem(p->ent, p->nent, sizeof(*p->ent));
	if (!out->guids || !out->limited || !out->ent)
		goto nomem;
	if (p->ndefs) {
		out->defs = calloc(p->ndefs, sizeof(*out->defs));
		if (!out->defs)
			goto nomem;
	}
	for (i = 0; i < p->ndefs; i++) {
		out->defs[i] = p->defs[i];
		out->defs[i].text = strdup(p->defs[i].text);
		if (!out->defs[i].text)
			goto nomem;
		out->ndefs++;
	}
	return 0;
nomem:
	partition_free(out);
	return -ENOMEM;
}

const struct partition *partitions_find(const struct partitions *m,
					uint16_t pkey)
{
	size_t lo = 0, hi = m->n;

	pkey &= 0x7fff;
	if (pkey == PKEY_DEFAULT_PARTITION)
		return m->def;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->p[mid].pkey < pkey)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->p[lo].pkey == pkey ? &m->p[lo] : NULL;
}

const struct partition *partitions_find_name(const struct partitions *m,
					     const char *name)
{
	size_t i;

	if (m->def && !strcmp(name, m->def->name))
		return m->def;
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->p[i].name, name))
			return &m->p[i];
	return NULL;
}

size_t partitions_named(const struct partitions *m, const char *name)
{
	size_t i, n = m->def && !strcmp(name, m->def->name);

	for (i = 0; i < m->n; i++)
		n += !strcmp(m->p[i].name, name);
	return n;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t g)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == g;
}

enum pmember partition_member(const struct partition *p, uint64_t g)
{
	return (in_sorted(p->guids, p->n, g) ? PM_FULL : PM_NONE) |
	       (in_sorted(p->limited, p->nlimited, g) ? PM_LIMITED : PM_NONE);
}

/* The smaller head of the two lists; a GUID in both ("both") is one. */
enum pmember partition_next_member(const struct partition *p,
				   struct member_iter *it, uint64_t *g)
{
	unsigned pm = PM_NONE;

	if (it->i == p->n && it->j == p->nlimited)
		return PM_NONE;
	*g = it->j == p->nlimited || (it->i < p->n &&
				      p->guids[it->i] <= p->limited[it->j])
		     ? p->guids[it->i]
		     : p->limited[it->j];
	if (it->i < p->n && p->guids[it->i] == *g) {
		pm |= PM_FULL;
		it->i++;
	}
	if (it->j < p->nlimited && p->limited[it->j] == *g) {
		pm |= PM_LIMITED;
		it->j++;
	}
	return (enum pmember)pm;
}

static int insert_sorted(uint64_t **v, size_t *n, uint64_t g)
{
	uint64_t *grown;
	size_t at = *n;

	if (in_sorted(*v, *n, g))
		return 0;
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	while (at && grown[at - 1] > g) {
		grown[at] = grown[at - 1];
		at--;
	}
	grown[at] = g;
	*v = grown;
	(*n)++;
	return 0;
}

static void remove_sorted(uint64_t *v, size_t *n, uint64_t g)
{
	size_t i;

	for (i = 0; i < *n && v[i] != g; i++)
		;
	if (i == *n)
		return;
	memmove(v + i, v + i + 1, (*n - i - 1) * sizeof(*v));
	(*n)--;
}

int partition_add_member(struct partition *p, uint64_t g, enum pmember pm)
{
	if (pm == PM_FULL) {
		remove_sorted(p->limited, &p->nlimited, g);
		return insert_sorted(&p->guids, &p->n, g);
	}
	if (in_sorted(p->guids, p->n, g))
		return 0;
	return insert_sorted(&p->limited, &p->nlimited, g);
}

int partconf_add_note(struct partitions *m, const char *s, size_t len)
{
	if (ALLOC_GROW(m->notes, m->nnotes + 1, m->capnotes))
		return -ENOMEM;
	m->notes[m->nnotes] = strndup(s, len);
	if (!m->notes[m->nnotes])
		return -ENOMEM;
	m->nnotes++;
	return 0;
}

int partitions_add_note(struct partitions *m, const char *note)
{
	return partconf_add_note(m, note, strlen(note));
}

bool partconf_builtin_default(const struct partition *p)
{
	static const uint8_t kw[PKW_COUNT] = {
		[PKW_ALL] = PM_LIMITED, [PKW_SELF] = PM_FULL
	};

	return !p->ndefs && p->ipoib && !p->mtu && !p->rate && p->sl < 0 &&
	       !p->n && !p->nlimited && !memcmp(p->kw, kw, sizeof(kw)) &&
	       !strcmp(p->name, "Default");
}

/* --- opensm's reading of a partition -------------------------------------- */

static bool kw_applies(unsigned kind, enum pclass c, bool sm)
{
	switch (kind) {
	case PKW_ALL:
		return true;
	case PKW_ALL_CAS:
		return c == PCLASS_CA;
	case PKW_ALL_SWITCHES:
		return c == PCLASS_SWITCH;
	case PKW_ALL_ROUTERS:
		return c == PCLASS_ROUTER;
	case PKW_SELF:
		return sm;
	}
	return false;
}

/*
 * Port g's membership, and the line of the entry that gave it (the
 * partition's own line for one-ib's form and opensm's default partition).
 * opensm makes its default partition "ALL=limited, SELF=full" before it
 * reads the file (osm_prtn.c, prtn_make_default).
 */
static enum pmember port_state(const struct partition *p, uint64_t g,
			       enum pclass c, bool sm, int *line)
{
	unsigned pm = PM_NONE, k;

	*line = 0;
	if (p->pkey == PKEY_DEFAULT_PARTITION) {
		pm = sm ? PM_FULL : PM_LIMITED;
		*line = p->line;
	}
	if (p->ndefs) {
		size_t i;

		for (i = 0; i < p->nent; i++) {
			const struct pentry *e = &p->ent[i];

			if (e->kind == PENTRY_GUID
				    ? e->guid == g
				    : kw_applies(e->kind, c, sm)) {
				pm = e->pm;
				*line = e->line;
			}
		}
		return (enum pmember)pm;
	}
	/* one-ib's form: the keywords in their order, then the GUIDs */
	for (k = 0; k < PKW_COUNT; k++)
		if (p->kw[k] && kw_applies(k, c, sm)) {
			pm = p->kw[k];
			*line = p->line;
		}
	if (g && partition_member(p, g)) {
		pm = partition_member(p, g);
		*line = p->line;
	}
	return (enum pmember)pm;
}

enum pmember partition_port(const struct partition *p, uint64_t g,
			    enum pclass c, bool sm)
{
	int line;

	return port_state(p, g, c, sm, &line);
}

/* What a tenant port (a CA, not the SM's) p does not list is in p. */
static enum pmember partition_tenant(const struct partition *p, int *line)
{
	/* no GUID is 0: the entries that name no GUID */
	return port_state(p, 0, PCLASS_CA, false, line);
}

/* The index of the last entry applying to every port of class c (sm:
 * the SM's), -1 when none does. */
static long last_kw(const struct partition *p, enum pclass c, bool sm)
{
	size_t i = p->nent;

	while (i--)
		if (p->ent[i].kind != PENTRY_GUID &&
		    kw_applies(p->ent[i].kind, c, sm))
			return (long)i;
	return -1;
}

/* A GUID entry's place, to find each GUID's last entry after sorting. */
struct gidx {
	uint64_t guid;
	size_t i;
};

static int cmp_gidx(const void *a, const void *b)
{
	const struct gidx *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Each GUID p's entries list, with the index of its last entry, sorted by
 * GUID (*n of them; NULL and 0 when none). -ENOMEM.
 */
static int last_guid_entries(const struct partition *p, struct gidx **out,
			     size_t *n)
{
	struct gidx *v = malloc((p->nent + 1) * sizeof(*v));
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (i = 0; i < p->nent; i++)
		if (p->ent[i].kind == PENTRY_GUID) {
			v[k].guid = p->ent[i].guid;
			v[k++].i = i;
		}
	if (k)
		qsort(v, k, sizeof(*v), cmp_gidx);
	for (i = 0, *n = 0; i < k; i++) {
		if (*n && v[*n - 1].guid == v[i].guid)
			v[*n - 1].i = v[i].i; /* sorted: a later entry */
		else
			v[(*n)++] = v[i];
	}
	*out = v;
	return 0;
}

int partition_full_members(const struct partition *p, uint64_t **out, size_t *n)
{
	static const enum pclass cls[] = { PCLASS_CA, PCLASS_SWITCH,
					   PCLASS_ROUTER };
	long kw[3][2];
	struct gidx *v;
	size_t i, k, nv;
	int r, c, sm;

	*out = NULL;
	*n = 0;
	if (!p->ndefs) {
		/* one-ib's form: a listed GUID's entry comes after the
		 * keywords, it wins wherever the port is */
		*out = copy_mem(p->guids, p->n, sizeof(*p->guids));
		if (!*out)
			return -ENOMEM;
		*n = p->n;
		return 0;
	}
	r = last_guid_entries(p, &v, &nv);
	if (r)
		return r;
	for (c = 0; c < 3; c++)
		for (sm = 0; sm < 2; sm++)
			kw[c][sm] = last_kw(p, cls[c], sm);
	*out = malloc((nv + 1) * sizeof(**out));
	if (!*out) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < nv; i++) {
		bool full = true;

		for (c = 0; c < 3 && full; c++)
			for (sm = 0; sm < 2 && full; sm++) {
				k = kw[c][sm] > (long)v[i].i ? (size_t)kw[c][sm]
							     : v[i].i;
				full = (p->ent[k].pm & PM_FULL) != 0;
			}
		if (full)
			(*out)[(*n)++] = v[i].guid;
	}
	free(v);
	return 0;
}

int partconf_summarise(struct partition *p)
{
	struct gidx *v;
	size_t i, nv;
	int r = last_guid_entries(p, &v, &nv);

	if (r)
		return r;
	memset(p->kw, 0, sizeof(p->kw));
	for (i = 0; i < p->nent; i++)
		if (p->ent[i].kind != PENTRY_GUID)
			p->kw[p->ent[i].kind] = p->ent[i].pm;
	free(p->guids);
	free(p->limited);
	p->n = p->nlimited = 0;
	p->guids = malloc((nv + 1) * sizeof(*p->guids));
	p->limited = malloc((nv + 1) * sizeof(*p->limited));
	if (!p->guids || !p->limited) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < nv; i++) {
		if (p->ent[v[i].i].pm & PM_FULL)
			p->guids[p->n++] = v[i].guid;
		if (p->ent[v[i].i].pm & PM_LIMITED)
			p->limited[p->nlimited++] = v[i].guid;
	}
	free(v);
	return 0;
}

int partition_tenant_hit(const struct partition *p, enum pmember want,
			 struct tenant_hit *hit)
{
	struct gidx *v = NULL;
	size_t i, nv = 0, best = (size_t)-1;
	long kw, k;
	int line, r;

	memset(hit, 0, sizeof(*hit));
	hit->pm = partition_tenant(p, &line);
	if (hit->pm & want) {
		hit->kind = PKW_ALL;
		hit->line = line;
		kw = p->ndefs ? last_kw(p, PCLASS_CA, false) : -1;
		if (kw >= 0)
			hit->kind = p->ent[kw].kind;
		else if (!p->ndefs && p->kw[PKW_ALL_CAS])
			hit->kind = PKW_ALL_CAS;
		return 1;
	}
	if (!p->ndefs) {
		struct member_iter it = { 0, 0 };
		enum pmember pm;
		uint64_t g;

		while ((pm = partition_next_member(p, &it, &g)))
			if ((pm & want) && guid_assignable(g)) {
				hit->guid = g;
				hit->kind = PENTRY_GUID;
				hit->pm = pm;
				hit->line = p->line;
				return 1;
			}
		return 0;
	}
	r = last_guid_entries(p, &v, &nv);
	if (r)
		return r;
	kw = last_kw(p, PCLASS_CA, false);
	for (i = 0; i < nv; i++) {
		if (!guid_assignable(v[i].guid))
			continue;
		k = kw > (long)v[i].i ? kw : (long)v[i].i;
		if ((p->ent[k].pm & want) && (size_t)k < best) {
			best = (size_t)k;
			hit->guid = v[i].guid;
			hit->kind = PENTRY_GUID;
			hit->pm = (enum pmember)p->ent[k].pm;
			hit->line = p->ent[k].line;
		}
	}
	free(v);
	return best != (size_t)-1;
}

/* --- rendering --------------------------------------------------------------
 */

/* "\t0x0002c90300a1b2c1=full,\n" without printf: the bulk of a large file */
static int render_guid(struct strbuf *out, uint64_t g, enum pmember pm,
		       bool last)
{
	static const char hex[] = "0123456789abcdef";
	char line[40] = "\t0x";
	size_t at = 19, len;
	int d;

	for (d = 0; d < 16; d++)
		line[3 + d] = hex[(g >> (60 - 4 * d)) & 0xf];
	line[at++] = '=';
	len = strlen(partconf_member_word[pm]);
	memcpy(line + at, partconf_member_word[pm], len);
	at += len;
	memcpy(line + at, last ? " ;\n" : ",\n", last ? 4 : 3);
	return sb_adds(out, line);
}

static int render_from(enum porigin o, struct strbuf *out)
{
	int r;

	if (o == PO_UNKNOWN)
		return 0;
	r = sb_adds(out, FROM);
	if (!r)
		r = sb_adds(out, partconf_origin_text[o]);
	if (!r)
		r = sb_adds(out, "\n");
	return r;
}

/* A partition of one-ib's form. */
static int render_one(const struct partition *p, struct strbuf *out)
{
	struct member_iter it = { 0, 0 };
	size_t nkw = 0, k;
	enum pmember pm;
	uint64_t g;
	int r = render_from(p->origin, out);

	if (!r)
		r = sb_addf(out, "%s=0x%04x", p->name, p->pkey);
	if (!r && p->ipoib)
		r = sb_adds(out, ", ipoib");
	if (!r && p->mtu)
		r = sb_addf(out, ", mtu=%d", p->mtu);
	if (!r && p->rate)
		r = sb_addf(out, ", rate=%d", p->rate);
	if (!r && p->sl >= 0)
		r = sb_addf(out, ", sl=%d", p->sl);
	for (k = 0; k < PKW_COUNT; k++)
		nkw += p->kw[k] != PM_NONE;
	/*
	 * No member: " : ;" on the header's line. opensm 3.3.23 refuses a
	 * lone "\t;" line after a header (osm_prtn_config.c reads past the
	 * line's end: "PARSE ERROR: no partition definition found") and then
	 * falls back to its default configuration, every tenant partition
	 * gone (measured, t0430).
	 */
	if (!r && !nkw && !p->n && !p->nlimited)
		return sb_adds(out, " : ;\n");
	if (!r)
		r = sb_adds(out, " :\n");
	for (k = 0; k < PKW_COUNT && !r; k++) {
		if (p->kw[k] == PM_NONE)
			continue;
		nkw--;
		r = sb_addf(out, "\t%s=%s%s\n", partconf_keyword[k],
			    partconf_member_word[p->kw[k]],
			    !nkw && !p->n && !p->nlimited ? " ;" : ",");
	}
	/* the two sorted lists merged: one line per GUID */
	while (!r && (pm = partition_next_member(p, &it, &g)))
		r = render_guid(out, g, pm,
				it.i == p->n && it.j == p->nlimited);
	return r;
}

/* A carried definition of the file, in the file's order. */
struct carried {
	const struct pdef *d;
};

static int cmp_carried(const void *a, const void *b)
{
	const struct carried *x = a, *y = b;

	return x->d->seq < y->d->seq ? -1 : x->d->seq > y->d->seq;
}

/* The carried definitions: as written, each with its mark, then " ;";
 * the default partition's too when with_def. */
static int render_carried(const struct partitions *m, bool with_def,
			  struct strbuf *out)
{
	struct carried *v;
	size_t i, j, n = 0;
	int r = 0;

	for (i = 0; i < m->n + with_def; i++) {
		const struct partition *p = partitions_at(m, i);

		n += p ? p->ndefs : 0;
	}
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0, n = 0; i < m->n + with_def; i++) {
		const struct partition *p = partitions_at(m, i);

		for (j = 0; p && j < p->ndefs; j++)
			v[n++].d = &p->defs[j];
	}
	qsort(v, n, sizeof(*v), cmp_carried);
	for (i = 0; i < n && !r; i++) {
		r = render_from(v[i].d->origin, out);
		if (!r)
			r = sb_adds(out, v[i].d->text);
		if (!r)
			r = sb_adds(out, " ;\n");
	}
	free(v);
	return r;
}

int partconf_render(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, PARTCONF_HEADER);

	for (i = 0; i < m->nnotes && !r; i++)
		r = sb_addf(out, NOTE "%s\n", m->notes[i]);
	if (!r && !m->def)
		r = sb_adds(out, FROM "one-ib\n" DEFAULT_LINE);
	else if (!r && !m->def->ndefs)
		r = render_one(m->def, out);
	if (!r)
		r = render_carried(m, true, out);
	for (i = 0; i < m->n && !r; i++)
		if (!m->p[i].ndefs)
			r = render_one(&m->p[i], out);
	return r;
}

int partconf_render_ufm(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, PARTCONF_HEADER);

	for (i = 0; i < m->nnotes && !r; i++)
		r = sb_addf(out, NOTE "%s\n", m->notes[i]);
	if (!r)
		r = render_carried(m, false, out);
	for (i = 0; i < m->n && !r; i++)
		if (!m->p[i].ndefs)
			r = render_one(&m->p[i], out);
	return r;
}

/* --- the hosts' ports, at the end of a carried partition -------------------- */

int partconf_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int partition_append_full(struct partition *p, const uint64_t *g, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	struct pdef *d = p->ndefs ? &p->defs[p->ndefs - 1] : NULL;
	uint64_t *add, *full = NULL;
	struct pentry *grown;
	size_t i, k = 0, nfull = 0, len;
	int r;

	if (!d || !n)
		return 0;
	add = copy_mem(g, n, sizeof(*g));
	if (!add)
		return -ENOMEM;
	qsort(add, n, sizeof(*add), partconf_cmp_u64);
	r = partition_full_members(p, &full, &nfull);
	for (i = 0; i < n && !r; i++)
		if ((!k || add[k - 1] != add[i]) &&
		    !in_sorted(full, nfull, add[i]))
			add[k++] = add[i];
	if (r || !k)
		goto out;
	r = -ENOMEM;
	grown = realloc(p->ent, (p->nent + k + 1) * sizeof(*p->ent));
	if (!grown)
		goto out;
	p->ent = grown;
	len = strlen(d->text);
	/* the text ends in a token (";" only comes after one) or ':' ',' */
	if (sb_adds(&sb, d->text) ||
	    (d->text[len - 1] != ':' && d->text[len - 1] != ',' &&
	     sb_adds(&sb, ",")))
		goto out;
	for (i = 0; i < k; i++) {
		char hex[GUID_STRLEN];
		struct pentry *e = &p->ent[p->nent + i];

		guid_fmt_hex(add[i], hex);
		if (sb_addf(&sb, "%s\n\t%s=full", i ? "," : "", hex))
			goto out;
		memset(e, 0, sizeof(*e));
		e->guid = add[i];
		e->kind = PENTRY_GUID;
		e->pm = PM_FULL;
		e->indx0 = d->indx0;
	}
	free(d->text);
	d->text = sb.buf;
	sb.buf = NULL;
	sb.len = sb.alloc = 0;
	p->nent += k;
	d->nent += k;
	r = partconf_summarise(p);
out:
	sb_release(&sb);
	free(add);
	free(full);
	return r;
}

/* --- names -------------------------------------------------------------------
 */

/* digits up to '_' or the end -> the number, or -1 */
static int id_prefix(const char *s)
{
	int id = 0;

	if (*s < '0' || *s > '9' || (*s == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (id > (0x7fffffff - (*s - '0')) / 10)
			return -1;
		id = id * 10 + (*s - '0');
	}
	return *s == '\0' || *s == '_' ? id : -1;
}

int partition_vnet_id(const char *name)
{
	if (!strncmp(name, "vnet", 4))
		return id_prefix(name + 4);
	if (!strncmp(name, "one_vnet_", 9))
		return id_prefix(name + 9);
	return -1;
}

/* --- comparing ------------------------------------------------------------- */

static bool entries_equal(const struct pentry *a, const struct pentry *b,
			  size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].guid != b[i].guid || a[i].kind != b[i].kind ||
		    a[i].pm != b[i].pm || a[i].dflt != b[i].dflt ||
		    a[i].indx0 != b[i].indx0)
			return false;
	return true;
}

static bool defs_equal(const struct pdef *a, const struct pdef *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].text, b[i].text) ||
		    a[i].origin != b[i].origin || a[i].seq != b[i].seq ||
		    a[i].nent != b[i].nent || a[i].indx0 != b[i].indx0)
			return false;
	return true;
}

bool partition_equal(const struct partition *a, const struct partition *b)
{
	return !strcmp(a->name, b->name) && a->pkey == b->pkey &&
	       a->ipoib == b->ipoib && a->mtu == b->mtu && a->rate == b->rate &&
	       a->sl == b->sl && a->origin == b->origin &&
	       !memcmp(a->kw, b->kw, sizeof(a->kw)) && a->n == b->n &&
	       a->nlimited == b->nlimited &&
	       (!a->n ||
		!memcmp(a->guids, b->guids, a->n * sizeof(*a->guids))) &&
	       (!a->nlimited || !memcmp(a->limited, b->limited,
					a->nlimited * sizeof(*a->limited))) &&
	       a->ndefs == b->ndefs && defs_equal(a->defs, b->defs, a->ndefs) &&
	       a->nent == b->nent && entries_equal(a->ent, b->ent, a->nent);
}

bool partitions_equal(const struct partitions *a, const struct partitions *b)
{
	size_t i;

	if (a->n != b->n || a->nnotes != b->nnotes || !a->def != !b->def ||
	    (a->def && !partition_equal(a->def, b->def)))
		return false;
	for (i = 0; i < a->n; i++)
		if (!partition_equal(&a->p[i], &b->p[i]))
			return false;
	for (i = 0; i < a->nnotes; i++)
		if (strcmp(a->notes[i], b->notes[i]))
			return false;
	return true;
}

int partconf_check(const char *text, size_t len, const struct partitions *m,
		   char *err, size_t errlen)
{
	struct partitions back;
	size_t i;
	int r = partconf_parse(text, len, 0, &back, err, errlen);

	if (r)
		return r;
	if (partitions_equal(&back, m))
		goto out;
	r = -EINVAL;
	for (i = 0; i < back.n && i < m->n; i++)
		if (!partition_equal(&back.p[i], &m->p[i]))
			break;
	if (!back.def != !m->def ||
	    (m->def && !partition_equal(back.def, m->def)))
		err_set(err, errlen,
			"partitions.conf does not round-trip: the default "
			"partition differs");
	else if (i < m->n)
		err_set(err, errlen,
			"partitions.conf does not round-trip: partition %s "
			"(0x%04x) differs",
			m->p[i].name, m->p[i].pkey);
	else if (back.n != m->n)
		err_set(err, errlen,
			"partitions.conf does not round-trip: %zu partitions "
			"read back, %zu expected",
			back.n, m->n);
	else
		err_set(err, errlen,
			"partitions.conf does not round-trip: the refusal "
			"notes differ");
out:
	partitions_free(&back);
	return r;
}

int partconf_canonical(const char *text, size_t len, struct partitions *out,
		       char *err, size_t errlen)
{
	struct strbuf again = STRBUF_INIT;
	size_t line;
	int r = partconf_parse(text, len, 0, out, err, errlen);

	if (r)
		return r;
	if (partconf_render(out, &again)) {
		err_set(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if ((line = sb_differs_at_line(&again, text, len))) {
		err_set(err, errlen,
			"partitions.conf line %zu: not as oneib-partitions "
			"writes it (comments, blanks or order differ)",
			line);
		r = -EINVAL;
	}
	sb_release(&again);
	if (r)
		partitions_free(out);
	return r;
}

const struct partition *partitions_at(const struct partitions *m, size_t i)
{
	return i < m->n ? &m->p[i] : m->def;
}
