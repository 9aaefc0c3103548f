// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "root/qospolicy.h"

#define HEADER                                                                 \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"  \
	"# the SL of every partition that has one (sl=), by P_Key\n"
#define BEGIN "qos-ulps\n"
#define END "end-qos-ulps\n"
#define LABEL "qos-policy.conf"
/* opensm's lexer has no limit; one-ib's lines are far shorter */
#define LINE_MAX_LEN 1024

void qospolicy_free(struct qos_policy *p)
{
	if (!p)
		return;
	free(p->r);
	memset(p, 0, sizeof(*p));
}

static int cmp_rule(const void *a, const void *b)
{
	const struct qos_rule *x = a, *y = b;

	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

int qospolicy_from_partitions(const struct partitions *m, int default_sl,
			      struct qos_policy *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->default_sl = default_sl;
	out->r = calloc(m->n + 2, sizeof(*out->r));
	if (!out->r)
		return -ENOMEM;
	for (i = 0; i <= m->n; i++) {
		const struct partition *p = partitions_at(m, i);

		if (!p || p->sl < 0 || p->sl > 15)
			continue;
		out->r[out->n].pkey = p->pkey;
		out->r[out->n++].sl = (uint8_t)p->sl;
	}
	qsort(out->r, out->n, sizeof(*out->r), cmp_rule);
	return 0;
}

/* --- writing --------------------------------------------------------------- */

int qospolicy_render(const struct qos_policy *p, struct strbuf *out)
{
	int sl, r = sb_addf(out, HEADER BEGIN "\tdefault : %d\n",
			    p->default_sl);
	size_t i, j;

	for (sl = 0; sl <= 15 && !r; sl++) {
		size_t ranges = 0;

		for (i = 0; i < p->n && !r; i = j) {
			if (p->r[i].sl != sl) {
				j = i + 1;
				continue;
			}
			/* a run of adjacent keys with this SL */
			for (j = i + 1; j < p->n && p->r[j].sl == sl &&
					p->r[j].pkey == p->r[j - 1].pkey + 1;
			     j++)
				;
			if (ranges == QOSPOLICY_RANGES_PER_LINE) {
				r = sb_addf(out, " : %d\n", sl);
				ranges = 0;
			}
			if (!r)
				r = sb_adds(out, ranges ? "," : "\tany, pkey ");
			if (!r)
				r = sb_addf(out, "0x%04x", p->r[i].pkey);
			if (!r && j - i > 1)
				r = sb_addf(out, "-0x%04x", p->r[j - 1].pkey);
			ranges++;
		}
		if (ranges && !r)
			r = sb_addf(out, " : %d\n", sl);
	}
	return r ? r : sb_adds(out, END);
}

/* --- reading --------------------------------------------------------------- */

struct reader {
	const char *s, *end;
	size_t line;
	char *err;
	size_t errlen;
};

static int bad(struct reader *rd, const char *l, size_t n, const char *why)
{
	char shown[64];

	for (; n && *l == '\t'; l++, n--)
		; /* the indent, which would show as '?' */
	snprintf(shown, sizeof(shown), "%.*s", (int)(n < 48 ? n : 48), l);
	err_set(rd->err, rd->errlen, LABEL " line %zu: '%s%s': %s", rd->line,
		str_sanitize(shown).s, n > 48 ? "..." : "", why);
	return -EINVAL;
}

/* The next line, without its '\n'; 0, or -EINVAL at the end of the text
 * or for a line no opensm file of ours has. */
static int next_line(struct reader *rd, const char **l, size_t *n)
{
	const char *eol;
	size_t i;

	if (rd->s >= rd->end) {
		err_set(rd->err, rd->errlen,
			LABEL ": ends after line %zu, before \"end-qos-ulps\"",
			rd->line);
		return -EINVAL;
	}
	rd->line++;
	eol = memchr(rd->s, '\n', (size_t)(rd->end - rd->s));
	if (!eol) {
		err_set(rd->err, rd->errlen,
			LABEL " line %zu: no newline at its end (opensm's "
			      "lexer needs one)",
			rd->line);
		return -EINVAL;
	}
	*l = rd->s;
	*n = (size_t)(eol - rd->s);
	rd->s = eol + 1;
	if (*n > LINE_MAX_LEN)
		return bad(rd, *l, *n, "longer than one-ib writes a line");
	for (i = 0; i < *n; i++) {
		unsigned char c = (unsigned char)(*l)[i];

		if (c != '\t' && (c < 0x20 || c > 0x7e))
			return bad(rd, *l, *n,
				   "a character opensm's file never holds");
	}
	return 0;
}

/* "12" -> 12, at most 0..15, moving *p past it. */
static int read_sl(const char **p, const char *end, int *sl)
{
	int v = 0, digits = 0;

	while (*p < end && **p >= '0' && **p <= '9' && digits < 2) {
		v = v * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	if (!digits || v > 15 || (*p < end && **p >= '0' && **p <= '9'))
		return -EINVAL;
	*sl = v;
	return 0;
}

/* "0x0101" (exactly four hex digits) -> 0x0101, moving *p past it. */
static int read_pkey(const char **p, const char *end, unsigned *pkey)
{
	unsigned v = 0;
	int i;

	if (end - *p < 6 || (*p)[0] != '0' || (*p)[1] != 'x')
		return -EINVAL;
	for (i = 2; i < 6; i++) {
		int d = hex_digit((*p)[i]);

		if (d < 0 || ((*p)[i] >= 'A' && (*p)[i] <= 'F'))
			return -EINVAL;
		v = v << 4 | (unsigned)d;
	}
	*p += 6;
	*pkey = v;
	return 0;
}

static bool skip(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

/* "\tany, pkey 0x0101,0x0105-0x0106 : 1" into out. */
static int read_rule(struct reader *rd, const char *l, size_t n,
		     struct qos_policy *out, size_t *cap)
{
	const char *p = l, *end = l + n;
	size_t first = out->n, i;
	int sl;

	if (!skip(&p, end, "\tany, pkey "))
		return bad(rd, l, n, "only \"any, pkey\" rules");
	for (;;) {
		unsigned lo, hi, k;

		if (read_pkey(&p, end, &lo))
			return bad(rd, l, n, "not a P_Key of four hex digits");
		hi = lo;
		if (skip(&p, end, "-") && read_pkey(&p, end, &hi))
			return bad(rd, l, n, "not a P_Key of four hex digits");
		if (!lo || lo > 0x7fff || hi > 0x7fff || hi < lo)
			return bad(rd, l, n, "not partitions 0x0001-0x7fff");
		/* more keys than partitions exist: some are there twice */
		if (out->n + (hi - lo) >= 0x7fff)
			return bad(rd, l, n, "a P_Key in two rules");
		for (k = lo; k <= hi; k++) {
			if (ALLOC_GROW(out->r, out->n + 1, *cap)) {
				err_set(rd->err, rd->errlen, "out of memory");
				return -ENOMEM;
			}
			out->r[out->n].pkey = (uint16_t)k;
			out->r[out->n++].sl = 0;
		}
		if (!skip(&p, end, ","))
			break;
	}
	if (!skip(&p, end, " : ") || read_sl(&p, end, &sl) || p != end)
		return bad(rd, l, n, "not \"... : <SL 0..15>\"");
	for (i = first; i < out->n; i++)
		out->r[i].sl = (uint8_t)sl;
	return 0;
}

int qospolicy_parse(const char *text, size_t len, struct qos_policy *out,
		    char *err, size_t errlen)
{
	struct reader rd = { text, text + len, 0, err, errlen };
	const char *l, *p;
	size_t n, cap = 0, i;
	int r;

	memset(out, 0, sizeof(*out));
	/* the comments, the section, its default */
	if (len < strlen(HEADER) || memcmp(text, HEADER, strlen(HEADER))) {
		err_set(err, errlen,
			LABEL ": not written by oneib-partitions (its first "
			      "lines differ)");
		return -EINVAL;
	}
	rd.s += strlen(HEADER);
	rd.line = 2;
	if ((r = next_line(&rd, &l, &n)))
		return r;
	if (n != strlen(BEGIN) - 1 || memcmp(l, BEGIN, n))
		return bad(&rd, l, n, "not \"qos-ulps\"");
	if ((r = next_line(&rd, &l, &n)))
		return r;
	p = l;
	if (!skip(&p, l + n, "\tdefault : ") ||
	    read_sl(&p, l + n, &out->default_sl) || p != l + n)
		return bad(&rd, l, n, "not \"default : <SL 0..15>\"");
	for (;;) {
		if ((r = next_line(&rd, &l, &n)))
			break;
		if (n == strlen(END) - 1 && !memcmp(l, END, n))
			break;
		if ((r = read_rule(&rd, l, n, out, &cap)))
			break;
	}
	if (!r && rd.s != rd.end)
		r = bad(&rd, rd.s, (size_t)(rd.end - rd.s),
			"after \"end-qos-ulps\"");
	if (!r && out->n)
		qsort(out->r, out->n, sizeof(*out->r), cmp_rule);
	for (i = 1; !r && i < out->n; i++)
		if (out->r[i].pkey == out->r[i - 1].pkey) {
			err_set(err, errlen,
				LABEL ": P_Key 0x%04x in two rules: opensm "
				      "takes the first, one-ib never writes "
				      "both",
				out->r[i].pkey);
			r = -EINVAL;
		}
	if (r)
		qospolicy_free(out);
	return r;
}

int qospolicy_canonical(const char *text, size_t len, struct qos_policy *out,
			char *err, size_t errlen)
{
	struct strbuf again = STRBUF_INIT;
	size_t line;
	int r = qospolicy_parse(text, len, out, err, errlen);

	if (r)
		return r;
	if (qospolicy_render(out, &again)) {
		err_set(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if ((line = sb_differs_at_line(&again, text, len))) {
		err_set(err, errlen,
			LABEL " line %zu: not as oneib-partitions writes it "
			      "(order, ranges or blanks differ)",
			line);
		r = -EINVAL;
	}
	sb_release(&again);
	if (r)
		qospolicy_free(out);
	return r;
}
