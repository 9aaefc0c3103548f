// SPDX-License-Identifier: Apache-2.0
/* The operator's static file and adoption (partstatic.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/conffile.h"
#include "core/log.h"
#include "core/pkey.h"
#include "core/strbuf.h"
#include "fabric/partstatic.h"

/* Did one-ib write p of installed (see partitions.h)? */
static bool written_by_oneib(const struct partitions *installed,
			     const struct partition *p, bool have_static)
{
	if (!installed->oneib)
		return false;
	if (p->origin == PO_STATIC || p->origin == PO_STATIC_HOSTS)
		return have_static;
	return p->pkey != PKEY_DEFAULT_PARTITION &&
	       partition_vnet_id(p->name) >= 0;
}

size_t partitions_foreign(const struct partitions *installed,
			  const struct partitions *stat, char *buf, size_t len)
{
	size_t i, n = 0, at = 0;

	if (len)
		buf[0] = '\0';
	for (i = 0; i <= installed->n; i++) {
		const struct partition *p = partitions_at(installed, i);

		/* one-ib's own default partition reads as NULL */
		if (!p || written_by_oneib(installed, p, stat != NULL))
			continue;
		if (stat && (p == installed->def
				     ? stat->def_line != 0
				     : partitions_find(stat, p->pkey) != NULL))
			continue; /* moved into the static file */
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at,
					       "%s%s (0x%04x)", n ? ", " : "",
					       p->name, p->pkey);
		n++;
	}
	return n;
}

int partitions_read_static(const char *path, struct partitions *out, char *err,
			   size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	int r = sb_read_file(&sb, path, CONFFILE_MAX);

	memset(out, 0, sizeof(*out));
	if (r)
		err_set(err, errlen, "%s: %s", path, strerror(-r));
	else
		r = partconf_parse_as(path, sb.buf, sb.len, PARTCONF_STATIC,
				      out, err, errlen);
	sb_release(&sb);
	return r;
}
