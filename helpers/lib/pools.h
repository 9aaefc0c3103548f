/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The three OpenNebula pool documents the partitions renderer reads, as
 * they come from `onevm list -x`, `onehost list -x` and `onevnet list -x`:
 * one per file, or all of them one after another on standard input
 *
 *   { onevm list -x; onehost list -x; onevnet list -x; } | oneib-pkey ...
 *
 * Each document may start with an XML declaration and comments. Several
 * documents of one pool (a listing fetched page by page) are merged into
 * one: the children of every <VM_POOL> go, in order, into a single
 * <VM_POOL>. Nothing is parsed here beyond finding where a document ends
 * (CDATA sections and comments are skipped, so a "</VM_POOL>" inside a
 * user's CDATA value does not end it); libxml2 parses the merged text.
 */
#ifndef ONEIB_POOLS_H
#define ONEIB_POOLS_H

#include <stddef.h>

#include "strbuf.h"

enum pool_kind { POOL_VM, POOL_HOST, POOL_VNET, POOL_KINDS };

struct pools {
	struct strbuf doc[POOL_KINDS]; /* children only until pools_finish */
	int count[POOL_KINDS]; /* documents seen */
};

#define POOLS_INIT                                                             \
	{                                                                      \
		{ STRBUF_INIT, STRBUF_INIT, STRBUF_INIT },                     \
		{                                                              \
			0, 0, 0                                                \
		}                                                              \
	}

/*
 * Adds every document of text (named origin in messages: a file name or
 * "standard input"). 0, or -EINVAL / -ENOMEM with one line in err, e.g.
 *   standard input: byte 1234: expected <VM_POOL>, <HOST_POOL> or <VNET_POOL>
 *   vms.xml: <VM_POOL> has no end tag
 */
int pools_add(struct pools *p, const char *origin, const char *text, size_t len,
	      char *err, size_t errlen);

/* Wraps each pool into one document; -EINVAL when one was never given. */
int pools_finish(struct pools *p, char *err, size_t errlen);

void pools_release(struct pools *p);

#endif
