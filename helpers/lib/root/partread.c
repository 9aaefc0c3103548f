// SPDX-License-Identifier: Apache-2.0
/* partitions.conf read as opensm reads it (partconf.h, partconf_parse). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "root/partconf.h"
#include "root/partconf_priv.h"

/*
 * opensm's reading (osm_prtn_config.c, osm_prtn_config_parse_file and what
 * it calls, 3.3.23 = master), in its own words where they matter, as this
 * reader follows it:
 *   - fgets() a line (a longer one refused, see partconf.h), cut it at its
 *     first '#', then take definitions from it: skip ' ', '\t', '\n'; the
 *     text up to the next ';' (or the line's end) is one piece; a piece
 *     with no open definition must hold the header up to ':' (else
 *     "no partition definition found"); the piece's members go to the open
 *     definition; a ';' closes it, and the next piece starts right after.
 *   - A piece that is empty (';' first) makes opensm step over the ';' and
 *     read the rest of the line, and then past its end, as members: what
 *     it finds there are leftovers of earlier lines, so it takes the file
 *     or not by chance: refused.
 *   - Tokens are split at ','; each trimmed of ' ', '\t', '\n' and cut at
 *     its first '=' (each side trimmed again).
 */

/* a range of the text */
struct span {
	const char *s;
	size_t n;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

static struct span trim(const char *s, size_t n)
{
	struct span t = { s, n };

	while (t.n && is_blank(*t.s)) {
		t.s++;
		t.n--;
	}
	while (t.n && is_blank(t.s[t.n - 1]))
		t.n--;
	return t;
}

/* NAME[=VALUE] */
struct tok {
	struct span name, val;
	bool has_val;
};

static struct tok split_tok(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	struct tok t;

	t.has_val = eq != NULL;
	t.name = trim(s, eq ? (size_t)(eq - s) : n);
	t.val = eq ? trim(eq + 1, n - (size_t)(eq - s) - 1)
		   : (struct span){ s + n, 0 };
	return t;
}

/* opensm's strncmp(word, kw, strlen(word)): word is kw or a prefix of it,
 * "" included */
static bool prefix_of(struct span w, const char *kw)
{
	return w.n <= strlen(kw) && !memcmp(w.s, kw, w.n);
}

static bool is_word(struct span w, const char *kw)
{
	return w.n == strlen(kw) && !memcmp(w.s, kw, w.n);
}

/* A definition as read. */
struct rdef {
	uint16_t pkey;
	char wname[PARTCONF_OLD_NAME_MAX + 1]; /* as written, cut to fit */
	size_t wname_len; /* as written */
	bool ipoib, mtu_set, rate_set, indx0;
	bool extra; /* what one-ib's form cannot hold: scope, Q_Key, mgid, ... */
	unsigned mtu, rate;
	int sl; /* -1: not given */
	enum pmember defm;
	enum porigin origin;
	int line;
	size_t ent0, nent; /* its entries in the reader's */
	const char *text; /* its first byte */
	size_t textn;
	size_t seq;
};

struct reader {
	const char *label;
	unsigned flags;
	char *err;
	size_t errlen;
	struct partitions *out;
	int line;
	enum porigin pending; /* the last "# from: " mark's */
	struct rdef *defs;
	size_t ndefs, capdefs;
	struct pentry *ent;
	size_t nent, capent;
	long cur; /* the open definition, -1 none */
	const char *content_end; /* of the open one: after its last byte */
	int mgid_comment; /* its last piece's line when that is an mgid=
			   * reading its comment as flags, else 0 */
	char buf[PARTCONF_LINE_MAX + 2]; /* a token, NUL-terminated */
};

static int fail(struct reader *rd, int line, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);
static int fail(struct reader *rd, int line, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err_set(rd->err, rd->errlen, "%s line %d: %s", rd->label, line, what);
	return -EINVAL;
}

static int nomem(struct reader *rd)
{
	err_set(rd->err, rd->errlen, "%s: out of memory", rd->label);
	return -ENOMEM;
}

/* The token, NUL-terminated, for strtoul and friends (a line fits). */
static const char *cstr(struct reader *rd, struct span w)
{
	memcpy(rd->buf, w.s, w.n);
	rd->buf[w.n] = '\0';
	return rd->buf;
}

/* The token quoted in a message: cut, no byte outside printable ASCII. */
static struct san_str quote(struct reader *rd, struct span w)
{
	return str_sanitize(cstr(rd, w));
}

/* A "# refused: " note or a "# from: " mark, outside a definition. */
static int comment(struct reader *rd, const char *s, size_t len)
{
	size_t nl = strlen(PARTCONF_NOTE), fl = strlen(PARTCONF_FROM), i;
	int o;

	if (rd->flags & PARTCONF_STATIC)
		return 0; /* the operator's comments are only comments */
	for (i = 0; i < len; i++)
		if (s[i] != '\t' && (s[i] < 0x20 || s[i] > 0x7e))
			return 0; /* not one-ib's: ours are ASCII */
	if (len > nl && !memcmp(s, PARTCONF_NOTE, nl))
		return partconf_add_note(rd->out, s + nl, len - nl) ? nomem(rd)
								    : 0;
	if (len <= fl || memcmp(s, PARTCONF_FROM, fl))
		return 0;
	for (o = PO_ONEIB; o <= PO_STATIC_HOSTS; o++)
		if (len - fl == strlen(partconf_origin_text[o]) &&
		    !memcmp(s + fl, partconf_origin_text[o], len - fl))
			rd->pending = (enum porigin)o;
	return 0;
}

/* strtoul(s, &end, 0) read whole, as opensm checks a key: 0 or -1 */
static int whole_ul(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return end == s || *end ? -1 : 0;
}

/*
 * A header flag, as partition_add_flag and parse_group_flag take it: the
 * group's flags first, each by the prefix written ("" is mtu, "s" scope),
 * then ipoib, defmember (prefixes), indx0 (whole); the rest ignored.
 */
static void header_flag(struct reader *rd, struct rdef *d, struct tok t)
{
	struct span w = t.name;
	unsigned long v;
	char *end;

	if (prefix_of(w, "mtu")) {
		if (t.has_val) {
			d->mtu = (unsigned)strtoul(cstr(rd, t.val), NULL, 0);
			d->mtu_set = true;
		}
	} else if (prefix_of(w, "rate")) {
		if (t.has_val) {
			d->rate = (unsigned)strtoul(cstr(rd, t.val), NULL, 0);
			d->rate_set = true;
		}
	} else if (prefix_of(w, "scope") || prefix_of(w, "Q_Key") ||
		   prefix_of(w, "TClass")) {
		d->extra = true; /* the broadcast group's, not one-ib's */
	} else if (prefix_of(w, "sl")) {
		if (!t.has_val || !t.val.n)
			return;
		v = (unsigned)strtoul(cstr(rd, t.val), &end, 0);
		if (v <= 15 && (!*end || *end == ' ' || *end == '\t'))
			d->sl = (int)v;
	} else if (prefix_of(w, "FlowLabel")) {
		d->extra = true;
	} else if (prefix_of(w, "ipoib")) {
		d->ipoib = true;
	} else if (prefix_of(w, "defmember")) {
		struct span m = t.val;

		if (!t.has_val ||
		    !(prefix_of(m, "limited") || prefix_of(m, "both") ||
		      prefix_of(m, "full")))
			return;
		d->defm = prefix_of(m, "full")	 ? PM_FULL
			  : prefix_of(m, "both") ? PM_BOTH
						 : PM_LIMITED;
	} else {
		/* indx0, and flags opensm does not know and ignores */
		if (is_word(w, "indx0"))
			d->indx0 = true;
		d->extra = true;
	}
}

/* The header "NAME[=PKEY][, FLAG[=VALUE]]..." of [s, e). */
static int read_header(struct reader *rd, struct rdef *d, const char *s,
		       const char *e)
{
	const char *comma = memchr(s, ',', (size_t)(e - s));
	struct tok t = split_tok(s, (size_t)((comma ? comma : e) - s));
	struct span name = t.name, id = t.val;
	bool has_id = t.has_val;
	unsigned long v;

	/* a name that starts with a digit and has no key is the key */
	if (!has_id && name.n && name.s[0] >= '0' && name.s[0] <= '9') {
		id = name;
		name.n = 0;
		has_id = true;
	}
	d->wname_len = name.n;
	memcpy(d->wname, name.s,
	       name.n < sizeof(d->wname) ? name.n : sizeof(d->wname) - 1);
	if (!has_id)
		return fail(rd, rd->line,
			    "partition %s has no P_Key: opensm would choose "
			    "one itself, from what it ran before, which "
			    "one-ib can neither know nor keep from tenant "
			    "networks (write %s=0x...)",
			    quote(rd, name).s, quote(rd, name).s);
	/* "" too: strtoul reads nothing of it */
	if (whole_ul(cstr(rd, id), &v))
		return fail(rd, rd->line,
			    "P_Key '%s' is not a number opensm reads "
			    "(strtoul, base 0): it refuses the file",
			    quote(rd, id).s);
	d->pkey = (uint16_t)((uint16_t)v & 0x7fff);
	if (!d->pkey)
		return fail(rd, rd->line,
			    "P_Key %s is 0 to opensm (bit 15 dropped): it "
			    "would choose one itself, which one-ib can neither "
			    "know nor keep from tenant networks",
			    quote(rd, id).s);
	while (comma) {
		const char *next;

		s = comma + 1;
		next = memchr(s, ',', (size_t)(e - s));
		header_flag(rd, d,
			    split_tok(s, (size_t)((next ? next : e) - s)));
		comma = next;
	}
	return 0;
}

/* One member token: a GUID or a keyword, NAME[=MEMBERSHIP]; colon: its
 * piece has a ':' (a header read as members: a ';' missing before it). */
static int add_member(struct reader *rd, struct rdef *d, struct tok t,
		      bool colon)
{
	static const char *const kws[] = { "ALL", "ALL_CAS", "ALL_SWITCHES",
					   "ALL_ROUTERS", "SELF" };
	struct pentry e = { .kind = PENTRY_GUID, .line = rd->line };
	unsigned k;
	char *end;

	/* nothing, and NONE (any prefix of it) */
	if (!t.name.n || prefix_of(t.name, "NONE"))
		return 0;
	for (k = 0; k < PKW_COUNT && e.kind == PENTRY_GUID; k++)
		if (prefix_of(t.name, kws[k]))
			e.kind = (uint8_t)k;
	if (e.kind == PENTRY_GUID) {
		e.guid = strtoull(cstr(rd, t.name), &end, 0);
		if (!e.guid || *end)
			return fail(rd, rd->line,
				    "'%s' is no port GUID (0x..., or decimal) "
				    "and no member keyword: opensm refuses "
				    "the file%s",
				    quote(rd, t.name).s,
				    colon ? " (a ';' missing before it?)" : "");
	}
	if (!t.has_val) {
		e.pm = (uint8_t)d->defm;
		e.dflt = true;
	} else {
		e.pm = prefix_of(t.val, "full")	  ? PM_FULL
		       : prefix_of(t.val, "both") ? PM_BOTH
						  : PM_LIMITED;
	}
	e.indx0 = d->indx0;
	if (ALLOC_GROW(rd->ent, rd->nent + 1, rd->capent))
		return nomem(rd);
	rd->ent[rd->nent++] = e;
	d->nent++;
	return 0;
}

/*
 * "mgid=GID[,FLAG...]": opensm creates the group (or skips it, logging an
 * error) and takes the rest of the piece as its flags; the definition goes
 * on. Its flags are read from after the GID's ',': with none, from after
 * the piece's end, i.e. what follows its ';' on the line, its comment, or
 * an earlier line's leftovers.
 */
static int read_mgid(struct reader *rd, struct rdef *d, struct tok t, bool last,
		     bool by_semi, const char *hash, const char *le)
{
	unsigned char gid[16];
	const char *c;

	if (!t.has_val)
		return fail(rd, rd->line,
			    "mgid without '=GID': opensm would crash reading "
			    "it");
	if (inet_pton(AF_INET6, cstr(rd, t.val), gid) != 1 || gid[0] != 0xff)
		return fail(rd, rd->line,
			    "mgid %s is no multicast GID: opensm creates no "
			    "group and may read its flags as a new partition",
			    quote(rd, t.val).s);
	d->extra = true;
	rd->mgid_comment = 0;
	if (!last || (rd->flags & PARTCONF_ANY))
		return 0;
	if (by_semi)
		return fail(rd, rd->line,
			    "mgid=%s is last before ';': opensm reads what "
			    "follows the ';' as its flags; end it with ',' or "
			    "give it a flag",
			    quote(rd, t.val).s);
	if (!hash)
		return fail(rd, rd->line,
			    "mgid=%s ends its line: opensm reads what an "
			    "earlier line left in its buffer as its flags; end "
			    "it with ',' or give it a flag",
			    quote(rd, t.val).s);
	/* the comment read as flags: opensm's own example does it */
	for (c = hash + 1; c < le; c++)
		if (*c != '\t' && (*c < 0x20 || *c > 0x7e))
			return fail(rd, rd->line,
				    "byte 0x%02x in the comment after an "
				    "mgid=, which opensm reads as its flags: "
				    "not printable ASCII",
				    (unsigned char)*c);
	rd->mgid_comment = rd->line;
	return 0;
}

/* The members of a piece, [s, e), into the open definition. */
static int read_members(struct reader *rd, struct rdef *d, const char *s,
			const char *e, bool by_semi, const char *hash,
			const char *le)
{
	bool colon = memchr(s, ':', (size_t)(e - s)) != NULL;

	rd->mgid_comment = 0;
	for (;;) {
		const char *comma = memchr(s, ',', (size_t)(e - s));
		struct tok t = split_tok(s, (size_t)((comma ? comma : e) - s));
		int r;

		if (is_word(t.name, "mgid"))
			/* the rest of the piece is the group's */
			return read_mgid(rd, d, t, !comma, by_semi, hash, le);
		r = add_member(rd, d, t, colon);
		if (r || !comma)
			return r;
		s = comma + 1;
	}
}

/* Closes the open definition: its text ends where its content does. */
static void close_def(struct reader *rd)
{
	struct rdef *d = &rd->defs[rd->cur];

	d->textn = (size_t)(rd->content_end - d->text);
	rd->cur = -1;
}

/* A piece [s, e) of a line: s is no blank, e its ';' or the line's end. */
static int read_piece(struct reader *rd, const char *s, const char *e,
		      bool by_semi, const char *hash, const char *le)
{
	struct rdef *d;
	const char *ms = s;
	int r;

	if (rd->cur < 0) {
		const char *colon = memchr(s, ':', (size_t)(e - s));

		if (!colon)
			return fail(rd, rd->line,
				    "no ':' ends the header of a partition on "
				    "this line: opensm reads a header whole, "
				    "on one line, and refuses the file");
		if (ALLOC_GROW(rd->defs, rd->ndefs + 1, rd->capdefs))
			return nomem(rd);
		d = &rd->defs[rd->ndefs];
		memset(d, 0, sizeof(*d));
		d->sl = -1;
		d->defm = PM_LIMITED;
		d->line = rd->line;
		d->text = s;
		d->ent0 = rd->nent;
		d->origin = rd->flags & PARTCONF_STATIC ? PO_STATIC
							: rd->pending;
		rd->pending = PO_UNKNOWN;
		rd->cur = (long)rd->ndefs++;
		r = read_header(rd, d, s, colon);
		if (r)
			return r;
		ms = colon + 1;
	}
	d = &rd->defs[rd->cur];
	r = read_members(rd, d, ms, e, by_semi, hash, le);
	/* where the definition's text ends, so far: the piece's last byte
	 * that is no blank (s is none) */
	while (e > s && is_blank(e[-1]))
		e--;
	rd->content_end = e;
	if (!r && by_semi)
		close_def(rd);
	return r;
}

/* One line [s, le), without its newline. */
static int read_line(struct reader *rd, const char *s, const char *le)
{
	const char *hash = memchr(s, '#', (size_t)(le - s)), *c, *ce;
	int r;

	ce = hash ? hash : le;
	if (le - s > PARTCONF_LINE_MAX)
		return fail(rd, rd->line,
			    "longer than the %d characters opensm reads as "
			    "one line",
			    PARTCONF_LINE_MAX);
	for (c = s; c < le; c++) {
		unsigned char b = (unsigned char)*c;

		/* a comment may hold anything opensm skips: not NUL, which
		 * would end the text here */
		if (b && (c >= ce || b == '\t' || (b >= 0x20 && b <= 0x7e)))
			continue;
		return fail(rd, rd->line,
			    "byte 0x%02x is not printable ASCII%s", b,
			    b == '\r' ? " (a carriage return: opensm reads "
					"it as part of a word)"
				      : "");
	}
	while (s < ce) {
		const char *semi;

		while (s < ce && is_blank(*s))
			s++;
		if (s == ce)
			break;
		semi = memchr(s, ';', (size_t)(ce - s));
		/* a file somebody else wrote (one-ib, before t0430, too):
		 * read as it looks, it is only read */
		if (semi == s && (rd->flags & PARTCONF_ANY)) {
			if (rd->cur >= 0)
				close_def(rd);
			s++;
			continue;
		}
		if (semi == s)
			return fail(rd, rd->line,
				    "';' with nothing before it: opensm then "
				    "reads on past it, and past the line's end "
				    "(what earlier lines left), and takes the "
				    "file or not by chance; end the partition "
				    "on the line of its last member");
		r = read_piece(rd, s, semi ? semi : ce, semi != NULL, hash, le);
		if (r)
			return r;
		s = semi ? semi + 1 : ce;
	}
	if (hash && rd->cur < 0)
		return comment(rd, hash, (size_t)(le - hash));
	return 0;
}

/* --- the file read: its definitions into partitions --------------------------
 */

static int cmp_def(const void *a, const void *b, void *arg)
{
	const struct rdef *v = arg, *x = &v[*(const size_t *)a],
			  *y = &v[*(const size_t *)b];

	if (x->pkey != y->pkey)
		return x->pkey < y->pkey ? -1 : 1;
	/* the file's order */
	return x < y ? -1 : x > y;
}

/* The three kinds of origin a file one-ib writes may not mix in a key. */
static const char *origin_class(enum porigin o)
{
	return o == PO_ONEIB	 ? "one-ib's"
	       : o == PO_UNKNOWN ? "unmarked"
				 : "the static file's";
}

/*
 * One-ib's form of carried p, read from the one definition d, in place:
 * no flag but ipoib, mtu, rate and sl, its keywords first, each once and
 * in their order, then each GUID once (so the lists are what opensm reads
 * of it). 1 converted, 0 not one-ib's form (p untouched, *why says
 * what), -ENOMEM.
 */
static int to_oneib_form(struct reader *rd, struct partition *p,
			 const struct rdef *d, const char **why)
{
	size_t name_max = rd->flags & PARTCONF_ANY ? PARTCONF_OLD_NAME_MAX
						   : PARTCONF_NAME_MAX;
	struct partition o;
	unsigned next = 0;
	uint64_t *g;
	size_t i, ng = 0;

	*why = "its name is longer than the 31 characters opensm keeps";
	if (d->wname_len > name_max)
		return 0;
	*why = "a flag or an mgid= one-ib does not write";
	if (d->extra || (d->mtu_set && (d->mtu < 1 || d->mtu > 5)) ||
	    (d->rate_set && (d->rate < 2 || d->rate > 24)))
		return 0;
	*why = "no name, or the default partition under another";
	if (p->ndefs != 1 || !d->wname_len ||
	    (p->pkey == PKEY_DEFAULT_PARTITION && strcmp(d->wname, "Default")))
		return 0;
	*why = "keywords not first, each once, in their order";
	for (i = 0; i < p->nent; i++) {
		unsigned k = p->ent[i].kind;

		if (k != PENTRY_GUID && k < next)
			return 0; /* a keyword twice, out of order, after a GUID */
		next = k + 1;
	}
	*why = "a GUID twice";
	g = malloc((p->nent + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (i = 0; i < p->nent; i++)
		if (p->ent[i].kind == PENTRY_GUID)
			g[ng++] = p->ent[i].guid;
	qsort(g, ng, sizeof(*g), partconf_cmp_u64);
	for (i = 1; i < ng && g[i] != g[i - 1]; i++)
		;
	free(g);
	if (ng && i < ng)
		return 0; /* a GUID twice */
	memset(&o, 0, sizeof(o));
	memcpy(o.name, d->wname, d->wname_len + 1);
	o.pkey = p->pkey;
	o.ipoib = d->ipoib;
	o.mtu = d->mtu_set ? (int)d->mtu : 0;
	o.rate = d->rate_set ? (int)d->rate : 0;
	o.sl = d->sl;
	o.origin = p->origin;
	o.line = p->line;
	o.guids = malloc((ng + 1) * sizeof(*o.guids));
	o.limited = malloc((ng + 1) * sizeof(*o.limited));
	if (!o.guids || !o.limited) {
		partition_free(&o);
		return -ENOMEM;
	}
	for (i = 0; i < p->nent; i++) {
		const struct pentry *e = &p->ent[i];

		if (e->kind != PENTRY_GUID)
			o.kw[e->kind] = e->pm;
		else if (e->pm & PM_FULL)
			o.guids[o.n++] = e->guid;
		if (e->kind == PENTRY_GUID && (e->pm & PM_LIMITED))
			o.limited[o.nlimited++] = e->guid;
	}
	qsort(o.guids, o.n, sizeof(*o.guids), partconf_cmp_u64);
	qsort(o.limited, o.nlimited, sizeof(*o.limited), partconf_cmp_u64);
	partition_free(p);
	*p = o;
	return 1;
}

/* The definitions of group v[0..n) (one key) as one carried partition. */
static int build(struct reader *rd, const size_t *v, size_t n,
		 struct partition *p)
{
	const struct rdef *first = &rd->defs[v[0]];
	size_t i, k = 0, nent = 0;

	memset(p, 0, sizeof(*p));
	p->pkey = first->pkey;
	p->line = first->line;
	p->sl = rd->defs[v[n - 1]].sl; /* each definition sets it */
	p->origin = first->origin;
	/* opensm's name: the first one's, cut to 31, or the key */
	if (p->pkey == PKEY_DEFAULT_PARTITION)
		snprintf(p->name, sizeof(p->name), "Default");
	else if (first->wname_len)
		memcpy(p->name, first->wname, /* strncpy of 31 */
		       first->wname_len < PARTCONF_NAME_MAX
			       ? first->wname_len
			       : PARTCONF_NAME_MAX);
	else
		snprintf(p->name, sizeof(p->name), "%04x", p->pkey);
	for (i = 0; i < n; i++) {
		const struct rdef *d = &rd->defs[v[i]];

		nent += d->nent;
		if (d->origin == PO_STATIC_HOSTS)
			p->origin = PO_STATIC_HOSTS;
		if (d->ipoib && !p->ipoib) {
			/* the broadcast group: its first definition's */
			p->ipoib = true;
			p->mtu = d->mtu_set ? (uint8_t)d->mtu : 0;
			p->rate = d->rate_set ? (uint8_t)d->rate : 0;
		}
	}
	p->defs = calloc(n, sizeof(*p->defs));
	p->ent = malloc((nent + 1) * sizeof(*p->ent));
	if (!p->defs || !p->ent)
		return nomem(rd);
	for (i = 0; i < n; i++) {
		const struct rdef *d = &rd->defs[v[i]];
		struct pdef *pd = &p->defs[p->ndefs];

		pd->text = strndup(d->text, d->textn);
		if (!pd->text)
			return nomem(rd);
		pd->origin = d->origin;
		pd->seq = d->seq;
		pd->nent = d->nent;
		pd->indx0 = d->indx0;
		pd->line = d->line;
		p->ndefs++;
		if (d->nent)
			memcpy(p->ent + k, rd->ent + d->ent0,
			       d->nent * sizeof(*p->ent));
		k += d->nent;
	}
	p->nent = k;
	return partconf_summarise(p) ? nomem(rd) : 0;
}

/*
 * Nothing of the operator's, nor one-ib's default partition, makes a
 * tenant port a full member (design decision 11); a network's own
 * partition may. The cloud's hosts' partition (its mark) takes no tenant
 * port at all.
 */
static int check_tenants(struct reader *rd, const struct partition *p)
{
	struct tenant_hit h;
	/* (one-ib's partitions are checked to be in one-ib's form after) */
	bool own = !(rd->flags & PARTCONF_STATIC) && p->origin == PO_ONEIB &&
		   p->pkey != PKEY_DEFAULT_PARTITION;
	int r;

	if (rd->flags & PARTCONF_ANY)
		return 0;
	r = partition_tenant_hit(p, PM_FULL, &h);
	if (r == 1 && !h.guid)
		return fail(rd, h.line,
			    "%s=%s would make every tenant VF a full member of "
			    "%s (0x%04x)",
			    partconf_keyword[h.kind],
			    partconf_member_word[h.pm], p->name, p->pkey);
	if (r == 1 && !own) {
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		guid_fmt_hex(h.guid, g);
		guid_describe(h.guid, desc);
		return fail(rd, h.line,
			    "%s (%s) is a tenant VF's port GUID: never a full "
			    "member of %s%s (0x%04x)",
			    g, desc,
			    rd->flags & PARTCONF_STATIC ? "the operator's "
							: "",
			    p->name, p->pkey);
	}
	if (r < 0)
		return nomem(rd);
	if (p->origin != PO_STATIC_HOSTS)
		return 0;
	r = partition_tenant_hit(p, PM_LIMITED, &h);
	if (r < 0)
		return nomem(rd);
	if (r == 1 && !h.guid)
		return fail(rd, h.line,
			    "%s=%s makes every tenant VF a member of %s "
			    "(0x%04x), the partition of the cloud's hosts",
			    partconf_keyword[h.kind],
			    partconf_member_word[h.pm], p->name, p->pkey);
	if (r == 1) {
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		guid_fmt_hex(h.guid, g);
		guid_describe(h.guid, desc);
		return fail(rd, h.line,
			    "%s (%s) is a tenant VF's port GUID: no member of "
			    "%s (0x%04x), the partition of the cloud's hosts",
			    g, desc, p->name, p->pkey);
	}
	return 0;
}

/*
 * A file one-ib writes: one-ib's partitions once, and no key holding
 * partitions of two origins; the first definition (in the file's order)
 * that breaks it is named. v: the definitions by key, then file order.
 */
static int check_twice(struct reader *rd, const size_t *v)
{
	size_t i, j, bad = (size_t)-1, was = 0;
	char what[32];

	for (i = 0; i < rd->ndefs; i = j) {
		const struct rdef *first = &rd->defs[v[i]];

		for (j = i + 1;
		     j < rd->ndefs && rd->defs[v[j]].pkey == first->pkey; j++) {
			const struct rdef *d = &rd->defs[v[j]];

			if ((d->origin == PO_ONEIB ||
			     first->origin == PO_ONEIB ||
			     strcmp(origin_class(d->origin),
				    origin_class(first->origin))) &&
			    v[j] < bad) {
				bad = v[j];
				was = v[i];
			}
		}
	}
	if (bad == (size_t)-1)
		return 0;
	if (rd->defs[bad].pkey == PKEY_DEFAULT_PARTITION)
		snprintf(what, sizeof(what), "the default partition");
	else
		snprintf(what, sizeof(what), "P_Key 0x%04x",
			 rd->defs[bad].pkey);
	return fail(rd, rd->defs[bad].line,
		    "%s given twice (line %d, %s, and here, %s)", what,
		    rd->defs[was].line, origin_class(rd->defs[was].origin),
		    origin_class(rd->defs[bad].origin));
}

/* The definitions of one key v[0..n) into a partition of out. */
static int settle_group(struct reader *rd, const size_t *v, size_t n,
			size_t *cap)
{
	struct partitions *out = rd->out;
	const struct rdef *first = &rd->defs[v[0]];
	bool zero = !(rd->flags & (PARTCONF_STATIC | PARTCONF_ANY));
	struct partition p;
	int r;

	r = build(rd, v, n, &p);
	if (!r)
		r = check_tenants(rd, &p);
	if (!r && !(rd->flags & PARTCONF_STATIC) && p.origin != PO_STATIC &&
	    p.origin != PO_STATIC_HOSTS) {
		const char *why = "";

		r = to_oneib_form(rd, &p, first, &why);
		if (r == -ENOMEM)
			r = nomem(rd);
		else if (!r && zero && p.origin == PO_ONEIB)
			r = fail(rd, p.line,
				 "partition %s (0x%04x), marked one-ib's, is "
				 "not as oneib-partitions writes it: %s",
				 p.name, p.pkey, why);
		else
			r = 0;
	}
	if (r) {
		partition_free(&p);
		return r;
	}
	if (p.pkey == PKEY_DEFAULT_PARTITION) {
		out->def_line = first->line;
		if (partconf_builtin_default(&p)) {
			partition_free(&p); /* one-ib's own: the model's NULL */
			return 0;
		}
		out->def = malloc(sizeof(*out->def));
		if (!out->def) {
			partition_free(&p);
			return nomem(rd);
		}
		*out->def = p;
		return 0;
	}
	if (ALLOC_GROW(out->p, out->n + 1, *cap)) {
		partition_free(&p);
		return nomem(rd);
	}
	out->p[out->n++] = p;
	return 0;
}

static int cmp_pdef_seq(const void *a, const void *b)
{
	const struct pdef *x = *(struct pdef *const *)a,
			  *y = *(struct pdef *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The carried definitions numbered 0, 1, ... in the file's order. */
static int number_carried(struct reader *rd)
{
	struct partitions *m = rd->out;
	struct pdef **v;
	size_t i, j, n = 0;

	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);

		n += p ? p->ndefs : 0;
	}
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return nomem(rd);
	for (i = 0, n = 0; i <= m->n; i++) {
		struct partition *p = i < m->n ? &m->p[i] : m->def;

		for (j = 0; p && j < p->ndefs; j++)
			v[n++] = &p->defs[j];
	}
	qsort(v, n, sizeof(*v), cmp_pdef_seq);
	for (i = 0; i < n; i++)
		v[i]->seq = i;
	free(v);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct partition *x = *(struct partition *const *)a,
			       *y = *(struct partition *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Names: the static file's not of one-ib's form; in a file one-ib writes,
 * one-ib's each once (partition_vnet_id finds a network's by its name).
 */
static int check_names(struct reader *rd)
{
	const struct partitions *m = rd->out;
	const struct partition **v;
	size_t i, n = 0;
	int r = 0;

	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);

		if (p && (rd->flags & PARTCONF_STATIC) &&
		    partition_vnet_id(p->name) >= 0)
			return fail(rd, p->line,
				    "partition name %s: names vnet<ID>... and "
				    "one_vnet_... are one-ib's networks'",
				    p->name);
	}
	if (rd->flags & (PARTCONF_STATIC | PARTCONF_ANY))
		return 0;
	v = malloc((m->n + 2) * sizeof(*v));
	if (!v)
		return nomem(rd);
	for (i = 0; i <= m->n; i++)
		if (partitions_at(m, i))
			v[n++] = partitions_at(m, i);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	for (i = 1; i < n && !r; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name) &&
		    (v[i]->origin == PO_ONEIB || v[i - 1]->origin == PO_ONEIB))
			r = fail(rd, v[i]->line,
				 "partition name %s given twice", v[i]->name);
	free(v);
	return r;
}

/* The definitions read into out: by key, each key's in file order. */
static int settle(struct reader *rd)
{
	size_t *v = malloc((rd->ndefs + 1) * sizeof(*v)), i, j, cap = 0,
	       seq = 0;
	int r = 0;

	if (!v)
		return nomem(rd);
	for (i = 0; i < rd->ndefs; i++) {
		rd->defs[i].seq = seq++; /* renumbered once settled */
		v[i] = i;
	}
	if (rd->ndefs)
		qsort_r(v, rd->ndefs, sizeof(*v), cmp_def, rd->defs);
	if (!(rd->flags & (PARTCONF_STATIC | PARTCONF_ANY)))
		r = check_twice(rd, v);
	for (i = 0; i < rd->ndefs && !r; i = j) {
		for (j = i + 1; j < rd->ndefs &&
				rd->defs[v[j]].pkey == rd->defs[v[i]].pkey;
		     j++)
			;
		r = settle_group(rd, v + i, j - i, &cap);
	}
	free(v);
	if (!r)
		r = number_carried(rd);
	return r ? r : check_names(rd);
}

int partconf_parse_as(const char *label, const char *text, size_t len,
		      unsigned flags, struct partitions *out, char *err,
		      size_t errlen)
{
	struct reader *rd = calloc(1, sizeof(*rd));
	const char *s = text, *end = text + len;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!rd) {
		err_set(err, errlen, "%s: out of memory", label);
		return -ENOMEM;
	}
	rd->label = label;
	rd->flags = flags;
	rd->err = err;
	rd->errlen = errlen;
	rd->out = out;
	rd->line = 1;
	rd->cur = -1;
	out->oneib =
		(len >= strlen(PARTCONF_HEADER) &&
		 !memcmp(text, PARTCONF_HEADER, strlen(PARTCONF_HEADER))) ||
		(len >= strlen(PARTCONF_OLD_HEADER) &&
		 !memcmp(text, PARTCONF_OLD_HEADER,
			 strlen(PARTCONF_OLD_HEADER)));
	while (s < end && !r) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		r = read_line(rd, s, le);
		s = nl ? nl + 1 : end;
		rd->line += !r && nl;
	}
	/*
	 * opensm keeps a definition the file ends in without ';' (what it
	 * read of it is in force): so does one-ib, closing it, unless its
	 * last piece read its comment as an mgid's flags (the ';' would
	 * change that).
	 */
	if (!r && rd->cur >= 0 && rd->mgid_comment)
		r = fail(rd, rd->mgid_comment,
			 "the file ends inside a partition, after an mgid= "
			 "whose flags opensm reads from its comment: end the "
			 "partition with ';'");
	if (!r && rd->cur >= 0)
		close_def(rd);
	if (!r)
		r = settle(rd);
	free(rd->defs);
	free(rd->ent);
	free(rd);
	if (r)
		partitions_free(out);
	return r;
}

int partconf_parse(const char *text, size_t len, unsigned flags,
		   struct partitions *out, char *err, size_t errlen)
{
	return partconf_parse_as("partitions.conf", text, len, flags, out, err,
				 errlen);
}
