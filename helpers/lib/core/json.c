// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>

#include "core/json.h"

void json_init(struct json *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->need_comma[0] = false;
}

/* Runs of characters that need no escape go out in one fwrite. */
static void put_string(FILE *f, const char *s)
{
	const unsigned char *p, *run;

	fputc('"', f);
	for (p = run = (const unsigned char *)s; *p; p++) {
		if (*p != '"' && *p != '\\' && *p >= 0x20)
			continue;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), f);
		run = p + 1;
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fprintf(f, "\\u%04x", *p);
	}
	if (p > run)
		fwrite(run, 1, (size_t)(p - run), f);
	fputc('"', f);
}

static void key_prefix(struct json *w, const char *key)
{
	if (w->need_comma[w->depth])
		fputc(',', w->f);
	w->need_comma[w->depth] = true;
	if (key) {
		put_string(w->f, key);
		fputc(':', w->f);
	}
}

static void open_(struct json *w, const char *key, char open, char close)
{
	key_prefix(w, key);
	fputc(open, w->f);
	if (w->depth + 1 < JSON_MAX_DEPTH) {
		w->depth++;
		w->need_comma[w->depth] = false;
		w->closer[w->depth] = close;
	}
}

void json_obj(struct json *w, const char *key)
{
	open_(w, key, '{', '}');
}

void json_arr(struct json *w, const char *key)
{
	open_(w, key, '[', ']');
}

void json_end(struct json *w)
{
	if (w->depth == 0)
		return;
	fputc(w->closer[w->depth], w->f);
	w->depth--;
	if (w->depth == 0)
		fputc('\n', w->f);
}

void json_str(struct json *w, const char *key, const char *v)
{
	key_prefix(w, key);
	put_string(w->f, v);
}

void json_str_or_null(struct json *w, const char *key, const char *v)
{
	if (!v || !*v)
		json_null(w, key);
	else
		json_str(w, key, v);
}

void json_int(struct json *w, const char *key, long long v)
{
	/* "%lld" without fprintf: discovery writes thousands of numbers. */
	char buf[24], *p = buf + sizeof(buf);
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v
				     : (unsigned long long)v;

	key_prefix(w, key);
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), w->f);
}

void json_int_or_null(struct json *w, const char *key, long long v)
{
	if (v < 0)
		json_null(w, key);
	else
		json_int(w, key, v);
}

void json_null(struct json *w, const char *key)
{
	key_prefix(w, key);
	fputs("null", w->f);
}

void json_bool(struct json *w, const char *key, bool v)
{
	key_prefix(w, key);
	fputs(v ? "true" : "false", w->f);
}
