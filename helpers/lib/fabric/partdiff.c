// SPDX-License-Identifier: Apache-2.0
/* Two partitions.conf compared for what opensm enforces (partdiff.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/conffile.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/partdiff.h"

static const char *const membership[] = {
	[PM_NONE] = "none",
	[PM_LIMITED] = "a limited member",
	[PM_FULL] = "a full member",
	[PM_BOTH] = "a full and a limited member",
};

/* one-ib's own default partition: ALL=limited, SELF=full (partconf.h) */
static const struct partition *default_of(const struct partitions *m,
					  struct partition *own)
{
	if (m->def)
		return m->def;
	memset(own, 0, sizeof(*own));
	snprintf(own->name, sizeof(own->name), "Default");
	own->pkey = PKEY_DEFAULT_PARTITION;
	own->ipoib = true;
	own->sl = -1;
	own->kw[PKW_ALL] = PM_LIMITED;
	own->kw[PKW_SELF] = PM_FULL;
	return own;
}

/* "sl=3", or "none" for a flag not given */
static void flag_fmt(const char *name, int v, char *buf, size_t len)
{
	if (v < 0 || (v == 0 && strcmp(name, "sl")))
		snprintf(buf, len, "no %s", name);
	else
		snprintf(buf, len, "%s=%d", name, v);
}

/*
 * The first thing that differs between two partitions of one P_Key, in
 * what opensm enforces: false when none does.
 */
static bool first_difference(const struct partition *a,
			     const struct partition *b, const char *la,
			     const char *lb, char *why, size_t len)
{
	static const char *const flag[] = { "mtu", "rate", "sl" };
	const int va[] = { a->mtu, a->rate, a->sl },
		  vb[] = { b->mtu, b->rate, b->sl };
	struct member_iter ia = { 0, 0 }, ib = { 0, 0 };
	enum pmember ma, mb;
	uint64_t ga = 0, gb = 0;
	size_t i;

	if (a->ipoib != b->ipoib) {
		err_set(why, len, "%s in the %s file, %s in %s",
			a->ipoib ? "ipoib" : "no ipoib", la,
			b->ipoib ? "ipoib" : "no ipoib", lb);
		return true;
	}
	for (i = 0; i < 3; i++)
		if (va[i] != vb[i]) {
			char fa[24], fb[24];

			flag_fmt(flag[i], va[i], fa, sizeof(fa));
			flag_fmt(flag[i], vb[i], fb, sizeof(fb));
			err_set(why, len, "%s in the %s file, %s in %s", fa, la,
				fb, lb);
			return true;
		}
	for (i = 0; i < PKW_COUNT; i++)
		if (a->kw[i] != b->kw[i]) {
			err_set(why, len, "%s is %s in the %s file, %s in %s",
				partconf_keyword[i], membership[a->kw[i] & 3],
				la, membership[b->kw[i] & 3], lb);
			return true;
		}
	ma = partition_next_member(a, &ia, &ga);
	mb = partition_next_member(b, &ib, &gb);
	while (ma || mb) {
		uint64_t g;
		enum pmember xa = PM_NONE, xb = PM_NONE;

		if (ma && (!mb || ga <= gb)) {
			g = ga;
			xa = ma;
		} else {
			g = gb;
		}
		if (mb && gb == g)
			xb = mb;
		if (xa != xb) {
			char s[GUID_STRLEN], d[GUID_DESC_LEN];

			guid_fmt_hex(g, s);
			guid_describe(g, d);
			err_set(why, len,
				"%s%s%s%s is %s in the %s file, %s in %s", s,
				strcmp(d, "-") ? " (" : "",
				strcmp(d, "-") ? d : "",
				strcmp(d, "-") ? ")" : "", membership[xa], la,
				membership[xb], lb);
			return true;
		}
		if (xa)
			ma = partition_next_member(a, &ia, &ga);
		if (xb)
			mb = partition_next_member(b, &ib, &gb);
	}
	if (strcmp(a->name, b->name)) {
		err_set(why, len, "named %s in %s", b->name, lb);
		return true;
	}
	return false;
}

size_t partdiff(const struct partitions *want, const struct partitions *got,
		const char *want_label, const char *got_label, char *why,
		size_t whylen)
{
	struct partition own_a, own_b;
	const struct partition *a, *b;
	char first[768] = "", what[640];
	size_t i = 0, j = 0, n = 0;

	/* both sorted by P_Key (partconf.h): one pass over the union */
	while (i < want->n || j < got->n) {
		a = i < want->n ? &want->p[i] : NULL;
		b = j < got->n ? &got->p[j] : NULL;
		if (a && b && a->pkey == b->pkey) {
			i++, j++;
			if (!first_difference(a, b, want_label, got_label, what,
					      sizeof(what)))
				continue;
		} else if (a && (!b || a->pkey < b->pkey)) {
			i++;
			b = NULL;
			err_set(what, sizeof(what), "in the %s file, not in %s",
				want_label, got_label);
		} else {
			j++;
			a = b;
			err_set(what, sizeof(what), "in %s, not in the %s file",
				got_label, want_label);
		}
		if (!n++)
			snprintf(first, sizeof(first), "%s (0x%04x): %s",
				 a->name, a->pkey, what);
	}
	a = default_of(want, &own_a);
	b = default_of(got, &own_b);
	if (first_difference(a, b, want_label, got_label, what, sizeof(what)) &&
	    !n++)
		snprintf(first, sizeof(first), "%s (0x%04x): %s", a->name,
			 a->pkey, what);
	if (n > 1)
		err_set(why, whylen, "%s (and %zu more partition%s)", first,
			n - 1, n == 2 ? "" : "s");
	else
		err_set(why, whylen, "%s", first);
	return n;
}

enum partdiff_state partdiff_text(const struct partitions *want,
				  const char *text, size_t len,
				  const char *want_label, const char *got_label,
				  char *why, size_t whylen)
{
	struct partitions got;
	size_t n;

	if (why && whylen)
		why[0] = '\0';
	if (!len)
		return PARTDIFF_NONE;
	if (partconf_parse(text, len, PARTCONF_ANY, &got, why, whylen))
		return PARTDIFF_UNREADABLE;
	n = partdiff(want, &got, want_label, got_label, why, whylen);
	partitions_free(&got);
	return n ? PARTDIFF_DIFFERS : PARTDIFF_SAME;
}

enum partdiff_state partdiff_file(const struct partitions *want,
				  const char *path, const char *want_label,
				  const char *got_label, char *why,
				  size_t whylen)
{
	struct strbuf sb = STRBUF_INIT;
	enum partdiff_state st;
	int r = sb_read_file(&sb, path, CONFFILE_MAX);

	if (r == -ENOENT) {
		st = PARTDIFF_NONE;
		err_set(why, whylen, "%s", strerror(-r));
	} else if (r) {
		st = PARTDIFF_UNREADABLE;
		err_set(why, whylen, "%s", strerror(-r));
	} else {
		st = partdiff_text(want, sb.buf, sb.len, want_label, got_label,
				   why, whylen);
	}
	sb_release(&sb);
	return st;
}
