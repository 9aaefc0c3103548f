// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "root/partconf.h"

#define HEADER                                                                 \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"
/* what one-ib wrote before the privilege split */
#define OLD_HEADER                                                             \
	"# oneib-pkey partitions: generated from the cloud's state, do not "   \
	"edit\n"
#define NOTE "# refused: "
#define FROM "# from: "
#define DEFAULT_LINE "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

const char *const partconf_keyword[PKW_COUNT] = {
	[PKW_ALL] = "ALL",
	[PKW_ALL_CAS] = "ALL_CAS",
	[PKW_ALL_SWITCHES] = "ALL_SWITCHES",
	[PKW_ALL_ROUTERS] = "ALL_ROUTERS",
	[PKW_SELF] = "SELF",
};

static const char *const member_word[] = {
	[PM_NONE] = "none",
	[PM_LIMITED] = "limited",
	[PM_FULL] = "full",
	[PM_BOTH] = "both",
};

static const char *const origin_text[] = {
	[PO_UNKNOWN] = NULL,
	[PO_ONEIB] = "one-ib",
	[PO_STATIC] = "the static file",
	[PO_STATIC_HOSTS] = "the static file, with the cloud's hosts",
};

/* --- the model --------------------------------------------------------------
 */

void partition_free(struct partition *p)
{
	if (!p)
		return;
	free(p->guids);
	free(p->limited);
	p->guids = p->limited = NULL;
	p->n = p->nlimited = 0;
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

static uint64_t *copy_u64(const uint64_t *v, size_t n)
{
	uint64_t *c = malloc((n + 1) * sizeof(*c));

	if (c && n)
		memcpy(c, v, n * sizeof(*c));
	return c;
}

int partition_copy(struct partition *out, const struct partition *p)
{
	*out = *p;
	out->guids = copy_u64(p->guids, p->n);
	out->limited = copy_u64(p->limited, p->nlimited);
	if (!out->guids || !out->limited) {
		partition_free(out);
		return -ENOMEM;
	}
	return 0;
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

static int add_note(struct partitions *m, const char *s, size_t len)
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
	return add_note(m, note, strlen(note));
}

/* one-ib's own default partition: every port limited, the SM's full. */
static bool is_builtin_default(const struct partition *p)
{
	static const uint8_t kw[PKW_COUNT] = {
		[PKW_ALL] = PM_LIMITED, [PKW_SELF] = PM_FULL
	};

	return p->ipoib && !p->mtu && !p->rate && p->sl < 0 && !p->n &&
	       !p->nlimited && !memcmp(p->kw, kw, sizeof(kw));
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
	len = strlen(member_word[pm]);
	memcpy(line + at, member_word[pm], len);
	at += len;
	memcpy(line + at, last ? " ;\n" : ",\n", last ? 4 : 3);
	return sb_adds(out, line);
}

static int render_one(const struct partition *p, struct strbuf *out)
{
	struct member_iter it = { 0, 0 };
	size_t nkw = 0, k;
	enum pmember pm;
	uint64_t g;
	int r = 0;

	if (p->origin != PO_UNKNOWN) {
		r = sb_adds(out, FROM);
		if (!r)
			r = sb_adds(out, origin_text[p->origin]);
		if (!r)
			r = sb_adds(out, "\n");
	}
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
			    member_word[p->kw[k]],
			    !nkw && !p->n && !p->nlimited ? " ;" : ",");
	}
	/* the two sorted lists merged: one line per GUID */
	while (!r && (pm = partition_next_member(p, &it, &g)))
		r = render_guid(out, g, pm,
				it.i == p->n && it.j == p->nlimited);
	return r;
}

int partconf_render(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, HEADER);

	for (i = 0; i < m->nnotes && !r; i++)
		r = sb_addf(out, NOTE "%s\n", m->notes[i]);
	if (!r)
		r = m->def ? render_one(m->def, out)
			   : sb_adds(out, FROM "one-ib\n" DEFAULT_LINE);
	for (i = 0; i < m->n && !r; i++)
		r = render_one(&m->p[i], out);
	return r;
}

int partconf_render_ufm(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, HEADER);

	for (i = 0; i < m->nnotes && !r; i++)
		r = sb_addf(out, NOTE "%s\n", m->notes[i]);
	for (i = 0; i < m->n && !r; i++)
		r = render_one(&m->p[i], out);
	return r;
}

/* --- the reader ------------------------------------------------------------- */

enum tok_kind { TOK_EOF, TOK_WORD, TOK_EQ, TOK_COMMA, TOK_COLON, TOK_SEMI };

#define WORD_MAX 80

/* A member as read, for the rules that need its line. */
struct member {
	uint64_t guid;
	enum pmember pm;
	int line;
};

struct lexer {
	const char *s, *end;
	int line;
	enum tok_kind kind;
	char word[WORD_MAX];
	struct partitions *out;
	unsigned flags;
	const char *label;
	enum porigin pending; /* the last "# from: " comment's */
	struct member *mem; /* the members of the partition being read */
	size_t nmem, capmem;
	char *err;
	size_t errlen;
};

static int lex_fail(struct lexer *lx, const char *what)
{
	err_set(lx->err, lx->errlen, "%s line %d: %s", lx->label, lx->line,
		what);
	return -EINVAL;
}

static int lex_failf(struct lexer *lx, int line, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);
static int lex_failf(struct lexer *lx, int line, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	err_set(lx->err, lx->errlen, "%s line %d: %s", lx->label, line, what);
	return -EINVAL;
}

/*
 * What opensm can only misread: a byte other than printable ASCII, tab or
 * newline (NUL would end our reading early, '\r' would stick to a token),
 * or a line it would cut.
 */
static int check_bytes(const char *label, const char *text, size_t len,
		       char *err, size_t errlen)
{
	size_t i, col = 0;
	int line = 1;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n') {
			line++;
			col = 0;
			continue;
		}
		if (c != '\t' && (c < 0x20 || c > 0x7e)) {
			err_set(err, errlen,
				"%s line %d: byte 0x%02x is not printable "
				"ASCII",
				label, line, c);
			return -EINVAL;
		}
		if (++col > PARTCONF_LINE_MAX) {
			err_set(err, errlen,
				"%s line %d: longer than the %d characters "
				"opensm reads as one line",
				label, line, PARTCONF_LINE_MAX);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_sep(char c)
{
	return c == '=' || c == ',' || c == ':' || c == ';' || c == '#' ||
	       c == ' ' || c == '\t' || c == '\n';
}

/* A comment: a "# refused: ..." note, a "# from: ..." mark, or nothing. */
static int comment(struct lexer *lx, const char *s, size_t len)
{
	size_t nl = strlen(NOTE), fl = strlen(FROM);
	int o;

	if (lx->flags & PARTCONF_STATIC)
		return 0; /* the operator's comments are only comments */
	if (len > nl && !memcmp(s, NOTE, nl)) {
		if (add_note(lx->out, s + nl, len - nl)) {
			lex_fail(lx, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (len <= fl || memcmp(s, FROM, fl))
		return 0;
	for (o = PO_ONEIB; o <= PO_STATIC_HOSTS; o++)
		if (len - fl == strlen(origin_text[o]) &&
		    !memcmp(s + fl, origin_text[o], len - fl))
			lx->pending = (enum porigin)o;
	return 0;
}

/* Whitespace and "# ..." up to the end of the line are skipped. */
static int lex_next(struct lexer *lx)
{
	size_t n = 0;
	int r;

	for (;;) {
		if (lx->s == lx->end)
			break;
		if (*lx->s == '\n')
			lx->line++;
		if (*lx->s == ' ' || *lx->s == '\t' || *lx->s == '\n') {
			lx->s++;
		} else if (*lx->s == '#') {
			const char *eol =
				memchr(lx->s, '\n', (size_t)(lx->end - lx->s));

			if (!eol)
				eol = lx->end;
			r = comment(lx, lx->s, (size_t)(eol - lx->s));
			if (r)
				return r;
			lx->s = eol;
		} else {
			break;
		}
	}
	if (lx->s == lx->end) {
		lx->kind = TOK_EOF;
		return 0;
	}
	switch (*lx->s) {
	case '=':
		lx->kind = TOK_EQ;
		break;
	case ',':
		lx->kind = TOK_COMMA;
		break;
	case ':':
		lx->kind = TOK_COLON;
		break;
	case ';':
		lx->kind = TOK_SEMI;
		break;
	default:
		while (lx->s + n < lx->end && !is_sep(lx->s[n])) {
			if (n + 1 >= WORD_MAX)
				return lex_fail(lx, "word too long");
			lx->word[n] = lx->s[n];
			n++;
		}
		lx->word[n] = '\0';
		lx->s += n;
		lx->kind = TOK_WORD;
		return 0;
	}
	lx->s++;
	return 0;
}

static int expect(struct lexer *lx, enum tok_kind k, const char *what)
{
	int r = lex_next(lx);

	if (r)
		return r;
	if (lx->kind != k)
		return lex_fail(lx, what);
	return 0;
}

/* "0x" and 1..digits hex digits, either case: opensm reads it with strtoul */
static int hex_word(const char *s, int digits, uint64_t *out)
{
	uint64_t v = 0;
	size_t i, len = strlen(s);

	if (len < 3 || len > (size_t)digits + 2 || s[0] != '0' ||
	    (s[1] != 'x' && s[1] != 'X'))
		return -EINVAL;
	for (i = 2; i < len; i++) {
		int d = hex_digit(s[i]);

		if (d < 0)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int small_uint(struct lexer *lx, int lo, int hi, int *out)
{
	int r = expect(lx, TOK_EQ, "expected '=' after a flag");

	if (!r)
		r = expect(lx, TOK_WORD, "expected a flag value");
	if (r)
		return r;
	if (dec_parse_int(lx->word, out) || *out < lo || *out > hi ||
	    (lx->word[0] == '0' && lx->word[1]))
		return lex_fail(lx, "flag value out of range");
	return 0;
}

/* "full", "limited", "both" -> enum pmember, or PM_NONE */
static enum pmember member_of(const char *w)
{
	int m;

	for (m = PM_LIMITED; m <= PM_BOTH; m++)
		if (!strcmp(w, member_word[m]))
			return (enum pmember)m;
	return PM_NONE;
}

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	if (*s >= '0' && *s <= '9')
		return false; /* opensm would take it as a P_Key */
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

static int parse_flags(struct lexer *lx, struct partition *p, enum pmember *def)
{
	bool seen_mtu = false, seen_rate = false, seen_sl = false,
	     seen_def = false;

	for (;;) {
		int r = lex_next(lx);
		if (r)
			return r;
		if (lx->kind == TOK_COLON)
			break;
		if (lx->kind != TOK_COMMA)
			return lex_fail(lx, "expected ',' or ':'");
		r = expect(lx, TOK_WORD, "expected a flag");
		if (r)
			return r;
		if (!strcmp(lx->word, "ipoib") && !p->ipoib) {
			p->ipoib = true;
		} else if (!strcmp(lx->word, "mtu") && !seen_mtu) {
			seen_mtu = true;
			r = small_uint(lx, 1, 5, &p->mtu);
		} else if (!strcmp(lx->word, "rate") && !seen_rate) {
			seen_rate = true;
			r = small_uint(lx, 2, 24, &p->rate);
		} else if (!strcmp(lx->word, "sl") && !seen_sl) {
			seen_sl = true;
			r = small_uint(lx, 0, 15, &p->sl);
		} else if (!strcmp(lx->word, "defmember") && !seen_def) {
			seen_def = true;
			r = expect(lx, TOK_EQ, "expected '=' after defmember");
			if (!r)
				r = expect(lx, TOK_WORD,
					   "expected full, limited or both");
			if (!r && !(*def = member_of(lx->word)))
				r = lex_fail(lx, "expected full, limited or "
						 "both");
		} else {
			return lex_failf(lx, lx->line,
					 "unknown or repeated flag '%s' "
					 "(one-ib reads ipoib, mtu, rate, sl "
					 "and defmember)",
					 str_sanitize(lx->word).s);
		}
		if (r)
			return r;
	}
	return 0;
}

static int keyword_of(const char *w)
{
	int k;

	for (k = 0; k < PKW_COUNT; k++)
		if (!strcmp(w, partconf_keyword[k]))
			return k;
	return -1;
}

/* Who may make a tenant port a full member here: a network's own. */
static bool tenant_full_ok(const struct lexer *lx, const struct partition *p)
{
	if (lx->flags & PARTCONF_ANY)
		return true;
	if (lx->flags & PARTCONF_STATIC)
		return false;
	return p->origin == PO_ONEIB && p->pkey != PKEY_DEFAULT_PARTITION;
}

/*
 * One member: "0x...[=full|limited|both]" or a keyword. Leaves the token
 * after it (',' or ';') read.
 */
static int parse_member(struct lexer *lx, struct partition *p, enum pmember def)
{
	char word[WORD_MAX];
	enum pmember pm = def;
	int kw, line = lx->line, r;
	uint64_t g = 0;

	if (lx->kind != TOK_WORD)
		return lex_fail(lx, "expected a member (a port GUID 0x..., "
				    "ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS "
				    "or SELF)");
	memcpy(word, lx->word, sizeof(word));
	/* GUIDs are the bulk of a large file: no keyword compares for them */
	kw = word[0] == '0' ? -1 : keyword_of(word);
	if (kw < 0 && (hex_word(word, 16, &g) || !g))
		return lex_failf(lx, line,
				 "'%s' is no port GUID 0x<16 hex> and no "
				 "member keyword",
				 str_sanitize(word).s);
	r = lex_next(lx);
	if (!r && lx->kind == TOK_EQ) {
		r = expect(lx, TOK_WORD, "expected full, limited or both");
		if (!r && !(pm = member_of(lx->word)))
			r = lex_fail(lx, "expected full, limited or both");
		if (!r)
			r = lex_next(lx);
	}
	if (r)
		return r;
	if (kw >= 0) {
		if (p->kw[kw])
			return lex_failf(lx, line, "%s given twice in %s", word,
					 p->name);
		if ((kw == PKW_ALL || kw == PKW_ALL_CAS) && (pm & PM_FULL) &&
		    !(lx->flags & PARTCONF_ANY))
			return lex_failf(lx, line,
					 "%s=%s would make every tenant VF a "
					 "full member of %s (0x%04x)",
					 word, member_word[pm], p->name,
					 p->pkey);
		p->kw[kw] = (uint8_t)pm;
		return 0;
	}
	if ((pm & PM_FULL) && guid_assignable(g) && !tenant_full_ok(lx, p)) {
		char desc[GUID_DESC_LEN];

		guid_describe(g, desc);
		return lex_failf(lx, line,
				 "%s (%s) is a tenant VF's port GUID: never a "
				 "full member of %s%s (0x%04x)",
				 word, desc,
				 lx->flags & PARTCONF_STATIC ? "the operator's "
							     : "",
				 p->name, p->pkey);
	}
	if (ALLOC_GROW(lx->mem, lx->nmem + 1, lx->capmem)) {
		lex_fail(lx, "out of memory");
		return -ENOMEM;
	}
	lx->mem[lx->nmem].guid = g;
	lx->mem[lx->nmem].pm = pm;
	lx->mem[lx->nmem++].line = line;
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The members read, sorted into p's two lists; a GUID twice is refused. */
static int settle_members(struct lexer *lx, struct partition *p)
{
	size_t i, nf = 0, nl = 0;

	if (lx->nmem)
		qsort(lx->mem, lx->nmem, sizeof(*lx->mem), cmp_member);
	for (i = 0; i < lx->nmem; i++) {
		if (i && lx->mem[i].guid == lx->mem[i - 1].guid) {
			char g[GUID_STRLEN];

			guid_fmt_hex(lx->mem[i].guid, g);
			return lex_failf(lx, lx->mem[i].line,
					 "%s given twice in %s", g, p->name);
		}
		nf += (lx->mem[i].pm & PM_FULL) != 0;
		nl += (lx->mem[i].pm & PM_LIMITED) != 0;
	}
	p->guids = malloc((nf + 1) * sizeof(*p->guids));
	p->limited = malloc((nl + 1) * sizeof(*p->limited));
	if (!p->guids || !p->limited) {
		lex_fail(lx, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < lx->nmem; i++) {
		if (lx->mem[i].pm & PM_FULL)
			p->guids[p->n++] = lx->mem[i].guid;
		if (lx->mem[i].pm & PM_LIMITED)
			p->limited[p->nlimited++] = lx->mem[i].guid;
	}
	lx->nmem = 0;
	return 0;
}

static int parse_members(struct lexer *lx, struct partition *p,
			 enum pmember def)
{
	int r = lex_next(lx);

	if (!r && lx->kind == TOK_SEMI)
		return settle_members(lx, p);
	while (!r) {
		r = parse_member(lx, p, def);
		if (r || lx->kind == TOK_SEMI)
			break;
		if (lx->kind != TOK_COMMA)
			r = lex_fail(lx, "expected ',' or ';'");
		else
			r = lex_next(lx);
	}
	return r ? r : settle_members(lx, p);
}

/* The name and P_Key: "Default" is 0x7fff and 0x7fff is "Default". */
static int parse_head(struct lexer *lx, struct partition *p, size_t name_max)
{
	uint64_t pk;
	int r;

	if (lx->kind != TOK_WORD || !name_ok(lx->word))
		return lex_fail(lx, "expected a partition name");
	if (strlen(lx->word) > name_max)
		return lex_fail(lx, name_max == PARTCONF_NAME_MAX
					    ? "partition name longer than the "
					      "31 characters opensm keeps"
					    : "partition name too long");
	if ((lx->flags & PARTCONF_STATIC) && partition_vnet_id(lx->word) >= 0)
		return lex_failf(lx, lx->line,
				 "partition name %s: names vnet<ID>... and "
				 "one_vnet_... are one-ib's networks'",
				 lx->word);
	memcpy(p->name, lx->word, strlen(lx->word) + 1);
	p->line = lx->line;
	p->origin = lx->flags & PARTCONF_STATIC ? PO_STATIC : lx->pending;
	lx->pending = PO_UNKNOWN;
	r = expect(lx, TOK_EQ, "expected '=' and a P_Key");
	if (!r)
		r = expect(lx, TOK_WORD, "expected a P_Key");
	if (r)
		return r;
	/* opensm masks the membership bit of a partition's key */
	if (hex_word(lx->word, 4, &pk) || !(pk & 0x7fff))
		return lex_fail(lx, "expected a P_Key 0x0001..0x7fff");
	p->pkey = (uint16_t)(pk & 0x7fff);
	if ((p->pkey == PKEY_DEFAULT_PARTITION) != !strcmp(p->name, "Default"))
		return lex_fail(lx, "the default partition is "
				    "Default=0x7fff, and only it");
	return 0;
}

static int parse_one(struct lexer *lx, size_t *cap, size_t name_max)
{
	struct partitions *out = lx->out;
	struct partition one, *p = &one;
	enum pmember def = PM_LIMITED;
	int r;

	memset(p, 0, sizeof(*p));
	p->sl = -1;
	r = parse_head(lx, p, name_max);
	if (!r)
		r = parse_flags(lx, p, &def);
	if (!r)
		r = parse_members(lx, p, def);
	if (r) {
		partition_free(p);
		return r;
	}
	if (p->pkey == PKEY_DEFAULT_PARTITION) {
		if (out->def_line) {
			r = lex_failf(lx, p->line,
				      "the default partition given twice (line "
				      "%d and here)",
				      out->def_line);
			partition_free(p);
			return r;
		}
		out->def_line = p->line;
		if (is_builtin_default(p)) {
			partition_free(p); /* one-ib's own: the model's NULL */
			return 0;
		}
		out->def = malloc(sizeof(*out->def));
		if (!out->def) {
			partition_free(p);
			lex_fail(lx, "out of memory");
			return -ENOMEM;
		}
		*out->def = one;
		return 0;
	}
	if (ALLOC_GROW(out->p, out->n + 1, *cap)) {
		partition_free(p);
		lex_fail(lx, "out of memory");
		return -ENOMEM;
	}
	out->p[out->n++] = one;
	return 0;
}

static int cmp_partition(const void *a, const void *b)
{
	const struct partition *x = a, *y = b;

	if (x->pkey != y->pkey)
		return x->pkey < y->pkey ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
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

/* One partition per P_Key and per name: opensm would merge the two. */
static int settle_partitions(struct lexer *lx)
{
	struct partitions *m = lx->out;
	struct partition **v;
	size_t i;
	int r = 0;

	if (m->n)
		qsort(m->p, m->n, sizeof(*m->p), cmp_partition);
	for (i = 1; i < m->n; i++)
		if (m->p[i].pkey == m->p[i - 1].pkey)
			return lex_failf(lx, m->p[i].line,
					 "P_Key 0x%04x given twice (%s, line "
					 "%d, and %s)",
					 m->p[i].pkey, m->p[i - 1].name,
					 m->p[i - 1].line, m->p[i].name);
	v = malloc((m->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < m->n; i++)
		v[i] = &m->p[i];
	if (m->n)
		qsort(v, m->n, sizeof(*v), cmp_name);
	for (i = 1; i < m->n && !r; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			r = lex_failf(lx, v[i]->line,
				      "partition name %s given twice",
				      v[i]->name);
	free(v);
	return r;
}

int partconf_parse_as(const char *label, const char *text, size_t len,
		      unsigned flags, struct partitions *out, char *err,
		      size_t errlen)
{
	struct lexer lx = { .s = text,
			    .end = text + len,
			    .line = 1,
			    .out = out,
			    .flags = flags,
			    .label = label,
			    .err = err,
			    .errlen = errlen };
	size_t cap = 0, name_max = flags & PARTCONF_ANY ? PARTCONF_OLD_NAME_MAX
							: PARTCONF_NAME_MAX;
	int r;

	memset(out, 0, sizeof(*out));
	r = check_bytes(label, text, len, err, errlen);
	out->oneib = (len >= strlen(HEADER) &&
		      !memcmp(text, HEADER, strlen(HEADER))) ||
		     (len >= strlen(OLD_HEADER) &&
		      !memcmp(text, OLD_HEADER, strlen(OLD_HEADER)));
	while (!r) {
		r = lex_next(&lx);
		if (r || lx.kind == TOK_EOF)
			break;
		r = parse_one(&lx, &cap, name_max);
	}
	if (!r)
		r = settle_partitions(&lx);
	free(lx.mem);
	if (r == -ENOMEM)
		err_set(err, errlen, "%s: out of memory", label);
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
					a->nlimited * sizeof(*a->limited)));
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
