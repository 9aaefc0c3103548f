// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>

#include "onetmpl.h"

static void put_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		/* A newline would start a new attribute: fold it. */
		fputc(*s == '\n' ? ' ' : *s, f);
	}
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
