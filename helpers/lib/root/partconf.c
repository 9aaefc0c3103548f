// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "root/partconf.h"

#define HEADER                                                                 \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"
#define NOTE "# refused: "
#define DEFAULT_LINE "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

/* --- the model --------------------------------------------------------------
 */

void partitions_free(struct partitions *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->p[i].guids);
	free(m->p);
	for (i = 0; i < m->nnotes; i++)
		free(m->notes[i]);
	free(m->notes);
	memset(m, 0, sizeof(*m));
}

size_t partitions_members(const struct partitions *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->p[i].n;
	return n;
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

/* --- rendering --------------------------------------------------------------
 */

static int render_one(const struct partition *p, struct strbuf *out)
{
	size_t i;
	int r;

	r = sb_addf(out, "%s=0x%04x", p->name, p->pkey);
	if (!r && p->ipoib)
		r = sb_adds(out, ", ipoib");
	if (!r && p->mtu)
		r = sb_addf(out, ", mtu=%d", p->mtu);
	if (!r && p->rate)
		r = sb_addf(out, ", rate=%d", p->rate);
	if (!r && p->sl >= 0)
		r = sb_addf(out, ", sl=%d", p->sl);
	if (!r)
		r = sb_adds(out, " :\n");
	/* "\t0x0002c90300a1b2c1=full,\n" without printf: the bulk of a
	 * large file */
	for (i = 0; i < p->n && !r; i++) {
		static const char hex[] = "0123456789abcdef";
		const char *end = i + 1 < p->n ? "=full,\n" : "=full ;\n";
		char line[32] = "\t0x";
		int d;

		for (d = 0; d < 16; d++)
			line[3 + d] = hex[(p->guids[i] >> (60 - 4 * d)) & 0xf];
		memcpy(line + 19, end, strlen(end) + 1);
		r = sb_adds(out, line);
	}
	if (!r && !p->n)
		r = sb_adds(out, "\t;\n");
	return r;
}

int partconf_render(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, HEADER);

	for (i = 0; i < m->nnotes && !r; i++)
		r = sb_addf(out, NOTE "%s\n", m->notes[i]);
	if (!r)
		r = sb_adds(out, DEFAULT_LINE);
	for (i = 0; i < m->n && !r; i++)
		r = render_one(&m->p[i], out);
	return r;
}

/* --- the strict reader ------------------------------------------------------
 */

enum tok_kind { TOK_EOF, TOK_WORD, TOK_EQ, TOK_COMMA, TOK_COLON, TOK_SEMI };

#define WORD_MAX 80

struct lexer {
	const char *s, *end;
	int line;
	enum tok_kind kind;
	char word[WORD_MAX];
	struct partitions *out;
	char *err;
	size_t errlen;
};

static int lex_fail(struct lexer *lx, const char *what)
{
	err_set(lx->err, lx->errlen, "partitions.conf line %d: %s", lx->line,
		what);
	return -EINVAL;
}

/*
 * What opensm can only misread: a byte other than printable ASCII, tab or
 * newline (NUL would end our reading early, '\r' would stick to a token),
 * or a line it would cut.
 */
static int check_bytes(const char *text, size_t len, char *err, size_t errlen)
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
				"partitions.conf line %d: byte 0x%02x is not "
				"printable ASCII",
				line, c);
			return -EINVAL;
		}
		if (++col > PARTCONF_LINE_MAX) {
			err_set(err, errlen,
				"partitions.conf line %d: longer than the %d "
				"characters opensm reads as one line",
				line, PARTCONF_LINE_MAX);
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

/* Whitespace and "# ..." up to the end of the line are skipped; a
 * "# refused: ..." comment is kept as a note. */
static int lex_next(struct lexer *lx)
{
	size_t n = 0;

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
			size_t nl = strlen(NOTE);

			if (!eol)
				eol = lx->end;
			if ((size_t)(eol - lx->s) > nl &&
			    !memcmp(lx->s, NOTE, nl) &&
			    add_note(lx->out, lx->s + nl,
				     (size_t)(eol - lx->s) - nl)) {
				lex_fail(lx, "out of memory");
				return -ENOMEM;
			}
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

static int expect(struct lexer *lx, enum tok_kind k, const char *word,
		  const char *what)
{
	int r = lex_next(lx);

	if (r)
		return r;
	if (lx->kind != k || (word && strcmp(lx->word, word)))
		return lex_fail(lx, what);
	return 0;
}

/* "0x" and exactly digits lowercase hex digits, as we print them. */
static int hex_exact(const char *s, int digits, uint64_t *out)
{
	uint64_t v = 0;
	int i;

	if (s[0] != '0' || s[1] != 'x' || (int)strlen(s) != digits + 2)
		return -EINVAL;
	for (i = 2; i < digits + 2; i++) {
		int d = hex_digit(s[i]);

		if (d < 0 || (s[i] >= 'A' && s[i] <= 'F'))
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int small_uint(struct lexer *lx, int lo, int hi, int *out)
{
	int r = expect(lx, TOK_EQ, NULL, "expected '=' after a flag");

	if (!r)
		r = expect(lx, TOK_WORD, NULL, "expected a flag value");
	if (r)
		return r;
	if (dec_parse_int(lx->word, out) || *out < lo || *out > hi ||
	    (lx->word[0] == '0' && lx->word[1]))
		return lex_fail(lx, "flag value out of range");
	return 0;
}

static bool name_ok(const char *s)
{
	if (!*s || !strcmp(s, "Default"))
		return false;
	if (*s >= '0' && *s <= '9')
		return false; /* opensm would take it as a P_Key */
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

static int parse_flags(struct lexer *lx, struct partition *p)
{
	bool seen_mtu = false, seen_rate = false, seen_sl = false;

	for (;;) {
		int r = lex_next(lx);
		if (r)
			return r;
		if (lx->kind == TOK_COLON)
			break;
		if (lx->kind != TOK_COMMA)
			return lex_fail(lx, "expected ',' or ':'");
		r = expect(lx, TOK_WORD, NULL, "expected a flag");
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
		} else {
			return lex_fail(lx, "unknown or repeated flag");
		}
		if (r)
			return r;
	}
	return 0;
}

static int push_guid(struct partition *p, size_t *cap, uint64_t g)
{
	if (ALLOC_GROW(p->guids, p->n + 1, *cap))
		return -ENOMEM;
	p->guids[p->n++] = g;
	return 0;
}

static int parse_members(struct lexer *lx, struct partition *p)
{
	size_t cap = 0;
	int r = lex_next(lx);

	if (!r && lx->kind == TOK_SEMI)
		return 0;
	while (!r) {
		uint64_t v;

		if (lx->kind != TOK_WORD || hex_exact(lx->word, 16, &v) || !v)
			return lex_fail(lx, "expected a port GUID 0x<16 hex>");
		if (p->n && v <= p->guids[p->n - 1])
			return lex_fail(lx, "members not in increasing order");
		r = expect(lx, TOK_EQ, NULL, "expected '=full'");
		if (!r)
			r = expect(lx, TOK_WORD, "full", "expected '=full'");
		if (!r && push_guid(p, &cap, v)) {
			lex_fail(lx, "out of memory");
			return -ENOMEM;
		}
		if (!r)
			r = lex_next(lx);
		if (r || lx->kind == TOK_SEMI)
			break;
		if (lx->kind != TOK_COMMA)
			r = lex_fail(lx, "expected ',' or ';'");
		else
			r = lex_next(lx);
	}
	return r;
}

static int parse_default(struct lexer *lx)
{
	static const struct {
		enum tok_kind k;
		const char *w;
	} want[] = {
		{ TOK_WORD, "Default" }, { TOK_EQ, NULL },
		{ TOK_WORD, "0x7fff" },	 { TOK_COMMA, NULL },
		{ TOK_WORD, "ipoib" },	 { TOK_COLON, NULL },
		{ TOK_WORD, "ALL" },	 { TOK_EQ, NULL },
		{ TOK_WORD, "limited" }, { TOK_COMMA, NULL },
		{ TOK_WORD, "SELF" },	 { TOK_EQ, NULL },
		{ TOK_WORD, "full" },	 { TOK_SEMI, NULL },
	};
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]) && !r; i++)
		r = expect(lx, want[i].k, want[i].w,
			   "expected 'Default=0x7fff, ipoib : ALL=limited, "
			   "SELF=full ;' first");
	return r;
}

static int parse_one(struct lexer *lx, size_t *cap, size_t name_max)
{
	struct partitions *out = lx->out;
	struct partition *p;
	uint64_t pk;
	int r;

	if (lx->kind != TOK_WORD || !name_ok(lx->word))
		return lex_fail(lx, "expected a partition name");
	if (strlen(lx->word) > name_max)
		return lex_fail(lx, name_max == PARTCONF_NAME_MAX
					    ? "partition name longer than the "
					      "31 characters opensm keeps"
					    : "partition name too long");
	if (ALLOC_GROW(out->p, out->n + 1, *cap)) {
		lex_fail(lx, "out of memory");
		return -ENOMEM;
	}
	p = &out->p[out->n++];
	memset(p, 0, sizeof(*p));
	p->sl = -1;
	memcpy(p->name, lx->word, strlen(lx->word) + 1);
	r = expect(lx, TOK_EQ, NULL, "expected '=' and a P_Key");
	if (!r)
		r = expect(lx, TOK_WORD, NULL, "expected a P_Key");
	if (r)
		return r;
	if (hex_exact(lx->word, 4, &pk) || pk == 0 || pk >= 0x7fff)
		return lex_fail(lx, "expected a P_Key 0x0001..0x7ffe");
	p->pkey = (uint16_t)pk;
	if (out->n > 1 && p->pkey <= out->p[out->n - 2].pkey)
		return lex_fail(lx, "partitions not in increasing P_Key order");
	r = parse_flags(lx, p);
	if (!r)
		r = parse_members(lx, p);
	return r;
}

int partconf_parse(const char *text, size_t len, unsigned flags,
		   struct partitions *out, char *err, size_t errlen)
{
	struct lexer lx = { .s = text,
			    .end = text + len,
			    .line = 1,
			    .out = out,
			    .err = err,
			    .errlen = errlen };
	size_t cap = 0, name_max = flags & PARTCONF_OLD_NAMES
					   ? PARTCONF_OLD_NAME_MAX
					   : PARTCONF_NAME_MAX;
	int r;

	memset(out, 0, sizeof(*out));
	r = check_bytes(text, len, err, errlen);
	if (!r)
		r = parse_default(&lx);
	while (!r) {
		r = lex_next(&lx);
		if (r || lx.kind == TOK_EOF)
			break;
		r = parse_one(&lx, &cap, name_max);
	}
	if (r)
		partitions_free(out);
	return r;
}

/* --- comparing ------------------------------------------------------------- */

static bool partition_equal(const struct partition *a,
			    const struct partition *b)
{
	return !strcmp(a->name, b->name) && a->pkey == b->pkey &&
	       a->ipoib == b->ipoib && a->mtu == b->mtu && a->rate == b->rate &&
	       a->sl == b->sl && a->n == b->n &&
	       (!a->n || !memcmp(a->guids, b->guids, a->n * sizeof(*a->guids)));
}

bool partitions_equal(const struct partitions *a, const struct partitions *b)
{
	size_t i;

	if (a->n != b->n || a->nnotes != b->nnotes)
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
	if (i < m->n)
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
	size_t i, line = 1;
	int r = partconf_parse(text, len, 0, out, err, errlen);

	if (r)
		return r;
	if (partconf_render(out, &again)) {
		err_set(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if (again.len != len || memcmp(again.buf, text, len)) {
		for (i = 0; i < len && i < again.len && text[i] == again.buf[i];
		     i++)
			line += text[i] == '\n';
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
