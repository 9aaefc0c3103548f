// SPDX-License-Identifier: Apache-2.0
/* What every pool element reader uses (poolelem.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/xml.h"
#include "fabric/poolelem.h"

/* --- tree walking ---------------------------------------------------------- */

int pool_leaf_uint(const xmlNode *parent, const char *name, int *out)
{
	char *v;
	int r = xml_only_leaf(parent, name, &v);

	if (!r)
		r = dec_parse_int(v, out) ? -EINVAL : 0;
	free(v);
	return r;
}

bool pool_leaf_is(const xmlNode *parent, const char *name, const char *want)
{
	char *v;
	bool eq = !xml_only_leaf(parent, name, &v) && !strcmp(v, want);

	free(v);
	return eq;
}

static const char *const pool_label[POOL_KINDS] = { "VM", "HOST", "VNET" };

/* The <ID> every element of a pool has; without it nothing is known. */
int pool_elem_id(const xmlNode *e, int kind, size_t nth, int *id, char *err,
		 size_t errlen)
{
	int count, r = pool_leaf_uint(e, "ID", id);

	if (!r)
		return 0;
	xml_child(e, "ID", &count);
	err_set(err, errlen, "%s pool: %s element %zu has %s", pool_label[kind],
		pool_label[kind], nth,
		count == 1 ? "a malformed <ID>" : "no single <ID>");
	return -EINVAL;
}

/* A text kept in the facts; *at its index. */
int pool_keep(struct cloud_facts *f, int *at, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r = cloud_facts_text(f, line);
	if (r < 0)
		return r;
	*at = r;
	return 0;
}
