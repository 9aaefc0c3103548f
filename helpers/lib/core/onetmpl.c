// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>

#include "core/onetmpl.h"

/*
 * OpenNebula's template lexer takes a quoted value up to the first '"' not
 * preceded by '\', and its parser turns only \" back into '"' (one:
 * src/parsers/template_parser.l, template_syntax.y unescape). So:
 *   '"'        -> \"
 *   '\'        as it is, except right before the closing quote, which it
 *              would escape: the value would run on to the next quote,
 *              lines later. A value ending in '\' gets a space after it.
 *   "]]>"      -> "]] >": anywhere on a line it makes the lexer read a
 *              CDATA token, and the whole template is refused
 *   controls   -> ' ' (a newline would start a new attribute)
 */
static void put_value(FILE *f, const char *s)
{
	char prev = '\0', prev2 = '\0';

	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			c = ' ';
		if (c == '"')
			fputc('\\', f);
		else if (c == '>' && prev == ']' && prev2 == ']')
			fputc(' ', f);
		fputc(c, f);
		prev2 = prev;
		prev = (char)c;
	}
	if (prev == '\\')
		fputc(' ', f);
	fputc('"', f);
}

void tmpl_attr(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s=", key);
	put_value(f, value);
	fputc('\n', f);
}

void tmpl_attr_long(FILE *f, const char *key, long long value)
{
	fprintf(f, "%s=%lld\n", key, value);
}

void tmpl_vec_begin(struct tmpl_vec *v, FILE *f, const char *name)
{
	v->f = f;
	v->first = true;
	fprintf(f, "%s=[ ", name);
}

void tmpl_vec_add(struct tmpl_vec *v, const char *key, const char *value)
{
	fprintf(v->f, "%s%s=", v->first ? "" : ", ", key);
	put_value(v->f, value);
	v->first = false;
}

void tmpl_vec_add_long(struct tmpl_vec *v, const char *key, long long value)
{
	fprintf(v->f, "%s%s=\"%lld\"", v->first ? "" : ", ", key, value);
	v->first = false;
}

void tmpl_vec_end(struct tmpl_vec *v)
{
	fputs(" ]\n", v->f);
}
