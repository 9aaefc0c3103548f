// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "guest/context.h"
#include "core/log.h"
#include "core/strbuf.h"

struct parser {
	const char *t;
	size_t len, pos;
	unsigned long line;
	struct context *c;
	struct context_var *v; /* in file order until the end */
	size_t n, alloc;
	struct strbuf val;
};

static void issue(struct parser *p, unsigned long line, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);

static void issue(struct parser *p, unsigned long line, const char *fmt, ...)
{
	struct context *c = p->c;

	if (c->nissues < CONTEXT_ISSUES_KEPT) {
		char *s = c->issue[c->nissues];
		int n = snprintf(s, CONTEXT_ISSUE_LEN, "line %lu: ", line);
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(s + n, CONTEXT_ISSUE_LEN - (size_t)n, fmt, ap);
		va_end(ap);
	}
	c->nissues++;
}

static bool at(const struct parser *p, char ch)
{
	return p->pos < p->len && p->t[p->pos] == ch;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

static bool name_start(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	       ch == '_';
}

static bool name_char(char ch)
{
	return name_start(ch) || (ch >= '0' && ch <= '9');
}

/* Past the end of the current line (its '\n' included). */
static void skip_line(struct parser *p)
{
	const char *nl = memchr(p->t + p->pos, '\n', p->len - p->pos);

	p->pos = nl ? (size_t)(nl - p->t) + 1 : p->len;
	if (nl)
		p->line++;
}

/* The line starting at from, sanitized for a message: "rm -rf /". */
static struct san_str line_text(const struct parser *p, size_t from)
{
	char buf[SANITIZE_MAX];
	size_t n = 0;

	while (from + n < p->len && n < sizeof(buf) - 1 &&
	       p->t[from + n] != '\n')
		n++;
	memcpy(buf, p->t + from, n);
	buf[n] = '\0';
	/* more than str_sanitize keeps: it marks the cut with "..." */
	return str_sanitize(buf);
}

static int add_var(struct parser *p, const char *name, size_t nlen)
{
	struct context_var *v;

	if (ALLOC_GROW(p->v, p->n + 1, p->alloc))
		return -ENOMEM;
	v = &p->v[p->n];
	v->name = strndup(name, nlen);
	v->value = strdup(sb_str(&p->val));
	v->seq = p->n;
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

/*
 * The value after NAME=, into p->val: '...' pieces and \' up to a blank,
 * the end of the line or of the text. 0, 1 when the quote never closes
 * (the text is used up), -EINVAL when it is no quoted value at all,
 * -ENOMEM.
 */
static int value(struct parser *p)
{
	sb_reset(&p->val);
	if (!at(p, '\''))
		return -EINVAL;
	for (;;) {
		if (at(p, '\'')) {
			const char *s = p->t + p->pos + 1;
			const char *q = memchr(s, '\'', p->len - p->pos - 1);
			size_t i;

			if (!q) {
				p->pos = p->len;
				return 1;
			}
			for (i = 0; s + i < q; i++)
				if (s[i] == '\n')
					p->line++;
			if (sb_add(&p->val, s, (size_t)(q - s)))
				return -ENOMEM;
			p->pos = (size_t)(q - p->t) + 1;
		} else if (at(p, '\\') && p->pos + 1 < p->len &&
			   p->t[p->pos + 1] == '\'') {
			if (sb_add(&p->val, "'", 1))
				return -ENOMEM;
			p->pos += 2;
		} else {
			return 0;
		}
	}
}

/* One line (or more, for a value spanning lines) from p->pos. */
static int one(struct parser *p)
{
	size_t start, name, nlen;
	unsigned long line = p->line;
	int r;

	while (p->pos < p->len && is_blank(p->t[p->pos]))
		p->pos++;
	if (p->pos == p->len)
		return 0;
	if (at(p, '\n') || at(p, '#')) {
		skip_line(p);
		return 0;
	}
	start = name = p->pos;
	if (!name_start(p->t[p->pos]))
		goto bad;
	while (p->pos < p->len && name_char(p->t[p->pos]))
		p->pos++;
	nlen = p->pos - name;
	if (!at(p, '='))
		goto bad;
	p->pos++;
	r = value(p);
	if (r == -ENOMEM)
		return r;
	if (r == -EINVAL)
		goto bad;
	if (r == 1) {
		issue(p, line,
		      "%.*s: unterminated quote: the rest of the file "
		      "is ignored",
		      (int)(nlen > 64 ? 64 : nlen), p->t + name);
		return 0;
	}
	while (p->pos < p->len && is_blank(p->t[p->pos]))
		p->pos++;
	if (p->pos < p->len && !at(p, '\n')) {
		issue(p, line, "%.*s: text after the closing quote: '%s'",
		      (int)(nlen > 64 ? 64 : nlen), p->t + name,
		      line_text(p, p->pos).s);
		skip_line(p);
		return 0;
	}
	skip_line(p);
	if (memchr(sb_str(&p->val), '\0', p->val.len)) {
		issue(p, line, "%.*s: NUL byte in the value",
		      (int)(nlen > 64 ? 64 : nlen), p->t + name);
		return 0;
	}
	return add_var(p, p->t + name, nlen);
bad:
	issue(p, line, "not NAME='value': '%s'", line_text(p, start).s);
	p->pos = start;
	skip_line(p);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct context_var *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	/* equal names: the one from later in the file sorts last, whatever
	 * qsort does with equals (it need not keep their order) */
	if (!r)
		r = x->seq < y->seq ? -1 : x->seq > y->seq;
	return r;
}

static void free_vars(struct context_var *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

int context_parse(const char *text, size_t len, struct context *c)
{
	struct parser p = { .t = text, .len = len, .line = 1, .c = c };
	size_t i, k;
	int r = 0;

	memset(c, 0, sizeof(*c));
	while (p.pos < p.len && r == 0)
		r = one(&p);
	sb_release(&p.val);
	if (r) {
		free_vars(p.v, p.n);
		memset(c, 0, sizeof(*c));
		return r;
	}
	/* sort by name, file order kept among equals, then keep the last */
	if (p.n > 1)
		qsort(p.v, p.n, sizeof(*p.v), by_name);
	for (i = k = 0; i < p.n; i++) {
		if (i + 1 < p.n && !strcmp(p.v[i].name, p.v[i + 1].name)) {
			free(p.v[i].name);
			free(p.v[i].value);
			continue;
		}
		p.v[k++] = p.v[i];
	}
	c->v = p.v;
	c->n = k;
	return 0;
}

int context_load(const char *path, struct context *c, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	memset(c, 0, sizeof(*c));
	r = sb_read_file(&sb, path, CONTEXT_MAX);
	if (r == -EFBIG)
		err_set(err, errlen, "%s: larger than %zu MiB: not a context",
			path, CONTEXT_MAX >> 20);
	else if (r)
		err_set(err, errlen, "%s: %s", path, strerror(-r));
	if (!r) {
		r = context_parse(sb.buf ? sb.buf : "", sb.len, c);
		if (r)
			err_set(err, errlen, "%s: %s", path, strerror(-r));
	}
	sb_release(&sb);
	return r;
}

const char *context_get(const struct context *c, const char *name)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(name, c->v[mid].name);

		if (!r)
			return c->v[mid].value;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void context_free(struct context *c)
{
	free_vars(c->v, c->n);
	memset(c, 0, sizeof(*c));
}
