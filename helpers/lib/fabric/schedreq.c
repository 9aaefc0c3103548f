// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/schedreq.h"

/* The free-VF term, up to its count: TERM_HEAD "N" */
#define TERM_HEAD                                                              \
	"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "      \
	"TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > "
#define RAILS_HEAD " & IB_RAILS_AVAIL > "
#define BESIDE_HEAD " & \"/HOST["
#define BESIDE_TAIL "]/ID\" > -1"
#define BESIDE_NONE " & IB_BESIDE = \"" SCHEDREQ_NONE_BESIDE "\""
#define LEAF_HEAD " & IB_LEAVES = \"*,"
#define LEAF_TAIL ",*\""
#define USER_HEAD " & ("

/* s starts with p: what follows it, else NULL */
static const char *skip(const char *s, const char *p)
{
	size_t n = strlen(p);

	return strncmp(s, p, n) ? NULL : s + n;
}

/* " & IB_LEAVES = \"*,X,*\"" at s: the leaf term, *s moved past it */
static void parse_leaf(const char **s, struct schedreq *out)
{
	const char *p = skip(*s, LEAF_HEAD), *q;
	char g[GUID_STRLEN];
	size_t n;

	if (!p)
		return;
	if ((q = skip(p, SCHEDREQ_GATE LEAF_TAIL))) {
		out->has = SR_GATE;
		*s = q;
		return;
	}
	/* 0x and 16 hex digits, as the probe writes IB_LEAVES */
	n = strspn(p, "0123456789abcdefx");
	if (n != 18 || !(q = skip(p + n, LEAF_TAIL)))
		return;
	memcpy(g, p, n);
	g[n] = '\0';
	if (guid_parse_hex(g, &out->leaf) || !out->leaf)
		return;
	out->has = SR_LEAF;
	*s = q;
}

/*
 * Why the user's text s[0..n) cannot be wrapped in parentheses, or NULL
 * when it can (schedreq.h): quotes that pair up, parentheses outside them
 * that close only what they opened, and all of it.
 */
static const char *unwrappable(const char *s, size_t n)
{
	bool quoted = false;
	long depth = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\\')
			return "holds a newline or a backslash";
		if (s[i] == '"')
			quoted = !quoted;
		else if (!quoted && s[i] == '(')
			depth++;
		else if (!quoted && s[i] == ')' && --depth < 0)
			return "closes a parenthesis it did not open";
	}
	if (quoted)
		return "leaves a quote open";
	return depth ? "leaves a parenthesis open" : NULL;
}

/* " & IB_RAILS_AVAIL > N" at *s: the rail term, *s moved past it */
static void parse_rails(const char **s, struct schedreq *out)
{
	const char *p = skip(*s, RAILS_HEAD);
	char *end;

	if (!p || *p < '0' || *p > '9')
		return;
	out->rails = strtol(p, &end, 10);
	*s = end;
}

/*
 * The beside term at *s, *s moved past it: " & IB_BESIDE = ..." (none),
 * or " & \"/HOST[ID = 3 or ID = 7]/ID\" > -1", its IDs as one-ib writes
 * them (ascending, decimal): anything else is not one-ib's.
 */
static void parse_beside(const char **s, struct schedreq *out)
{
	const char *p = skip(*s, BESIDE_NONE), *q;
	long last = -1;

	if (p) {
		out->beside = true;
		*s = p;
		return;
	}
	p = skip(*s, BESIDE_HEAD);
	if (!p)
		return;
	for (;;) {
		char *end;
		long id;

		q = skip(p, "ID = ");
		if (!q || *q < '0' || *q > '9')
			return;
		id = strtol(q, &end, 10);
		if (id <= last)
			return;
		last = id;
		p = end;
		if ((q = skip(p, BESIDE_TAIL))) {
			out->beside = true;
			*s = q;
			return;
		}
		p = skip(p, " or ");
		if (!p)
			return;
	}
}

/* one-ib's terms and the user's part at p (after the VF term) */
static bool ours(const char *p, struct schedreq *out)
{
	size_t n;
	const char *q;

	parse_rails(&p, out);
	parse_beside(&p, out);
	q = skip(p, LEAF_HEAD SCHEDREQ_REFUSED LEAF_TAIL);

	if (q) {
		out->has = SR_REFUSED;
		out->user = q;
		out->ulen = 0;
		return !*q;
	}
	parse_leaf(&p, out);
	out->user = p;
	out->ulen = 0;
	if (!*p)
		return true;
	n = strlen(p);
	if (!skip(p, USER_HEAD) || n <= strlen(USER_HEAD) || p[n - 1] != ')')
		return false;
	out->user = p + strlen(USER_HEAD);
	out->ulen = n - strlen(USER_HEAD) - 1;
	/* "(A) | (B)" is no one part: that closing ')' is not ours */
	return !unwrappable(out->user, out->ulen);
}

int schedreq_parse(const char *req, struct schedreq *out)
{
	const char *p = skip(req, TERM_HEAD);
	char *end;

	*out = (struct schedreq){
		.vfs = -1, .rails = -1, .user = req, .ulen = strlen(req)
	};
	if (p && *p >= '0' && *p <= '9') {
		out->vfs = strtol(p, &end, 10);
		if (ours(end, out))
			return 0;
		/* edited: all of it the user's */
		*out = (struct schedreq){
			.vfs = -1, .rails = -1, .user = req, .ulen = strlen(req)
		};
	}
	return unwrappable(out->user, out->ulen) ? -EINVAL : 0;
}

char *schedreq_format(const struct schedreq *r)
{
	struct strbuf sb = STRBUF_INIT;
	int e = 0;

	if (r->vfs >= 0) {
		size_t i;

		e |= sb_addf(&sb, TERM_HEAD "%ld", r->vfs);
		if (r->rails >= 0)
			e |= sb_addf(&sb, RAILS_HEAD "%ld", r->rails);
		if (r->beside && !r->nhosts)
			e |= sb_adds(&sb, BESIDE_NONE);
		for (i = 0; r->beside && i < r->nhosts; i++)
			e |= sb_addf(&sb, "%sID = %d", i ? " or " : BESIDE_HEAD,
				     r->hosts[i]);
		if (r->beside && r->nhosts)
			e |= sb_adds(&sb, BESIDE_TAIL);
		if (r->has == SR_GATE)
			e |= sb_adds(&sb, LEAF_HEAD SCHEDREQ_GATE LEAF_TAIL);
		if (r->has == SR_REFUSED)
			e |= sb_adds(&sb, LEAF_HEAD SCHEDREQ_REFUSED LEAF_TAIL);
		if (r->has == SR_LEAF) {
			char g[GUID_STRLEN];

			guid_fmt_hex(r->leaf, g);
			e |= sb_addf(&sb, LEAF_HEAD "%s" LEAF_TAIL, g);
		}
		if (r->ulen)
			e |= sb_adds(&sb, USER_HEAD);
	}
	e |= sb_add(&sb, r->user, r->ulen);
	if (r->vfs >= 0 && r->ulen)
		e |= sb_adds(&sb, ")");
	if (e) {
		sb_release(&sb);
		return NULL;
	}
	return sb.buf ? sb.buf : strdup("");
}

int schedreq_update(int vm, const char *old, const struct schedreq_want *w,
		    char **out, char *err, size_t errlen)
{
	enum schedreq_leaf has = w->has;
	struct schedreq r;
	const char *why = NULL;

	*out = NULL;
	if (schedreq_parse(old, &r)) {
		why = unwrappable(r.user, r.ulen);
		err_set(err, errlen,
			"VM %d: SCHED_REQUIREMENTS '%s' %s: the VM waits, "
			"refused, until its owner sets one that can be wrapped "
			"(onevm update)",
			vm, str_sanitize(old).s, why);
		has = SR_REFUSED;
	}
	/* refused stays refused: only its owner's new text lifts it */
	if (r.has == SR_REFUSED)
		has = SR_REFUSED;
	r.vfs = w->nics - 1;
	r.rails = w->rails >= 2 ? w->rails - 1 : -1;
	r.beside = w->beside;
	r.hosts = w->hosts;
	r.nhosts = w->beside ? w->nhosts : 0;
	r.has = has;
	r.leaf = has == SR_LEAF ? w->leaf : 0;
	if (has == SR_REFUSED)
		r.ulen = 0; /* nothing of the user's can be written back */
	*out = schedreq_format(&r);
	if (!*out)
		return -ENOMEM;
	if (strcmp(*out, old))
		return 1;
	free(*out);
	*out = NULL;
	return 0;
}
