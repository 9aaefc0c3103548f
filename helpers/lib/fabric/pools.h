/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OpenNebula pool documents the partitions renderer reads, as they come
 * from `onevm list -x`, `onehost list -x` and `onevnet list -x`: one per
 * file, or all of them one after another on standard input
 *
 *   { onevm list -x; onehost list -x; onevnet list -x; } | oneib-pkey ...
 *
 * streamed: a large cloud's listings are hundreds of megabytes, and the
 * renderer holds neither them nor a tree of them, only one VM, host or
 * network at a time. pool_stream finds where each document starts (after
 * an XML declaration, comments, whitespace) and ends (its root's end tag,
 * CDATA sections and comments skipped, so a "</VM_POOL>" inside a tenant's
 * CDATA value does not end it), and hands libxml2 the bytes of one
 * document at a time through pool_stream_read. A pool listed in several
 * documents (pages) is simply read document after document.
 */
#ifndef ONEIB_POOLS_H
#define ONEIB_POOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pool_kind { POOL_VM, POOL_HOST, POOL_VNET, POOL_KINDS };

extern const char *const pool_root_name[POOL_KINDS];

#define POOL_STREAM_BUF 65536

struct pool_stream {
	FILE *f;
	const char *origin; /* "vms.xml", "standard input" */
	uint64_t before; /* bytes of the input before buf */
	size_t at, len;
	bool eof;
	int kind; /* of the current document */
	int state, count, copy;
	bool done; /* the current document's end was handed out */
	char prev;
	char err[256]; /* why pool_stream_read returned -1 */
	char buf[POOL_STREAM_BUF];
};

void pool_stream_init(struct pool_stream *s, FILE *f, const char *origin);

/*
 * Moves to the next document: 1 with *kind set, 0 at the end of the input,
 * or -EINVAL / -EIO with one line in err, e.g.
 *   standard input: byte 1234: expected <VM_POOL>, <HOST_POOL> or <VNET_POOL>
 */
int pool_stream_next(struct pool_stream *s, enum pool_kind *kind, char *err,
		     size_t errlen);

/*
 * libxml2's xmlInputReadCallback over the current document: its bytes, 0
 * after its root's end tag, -1 (reason in s->err) when the input ends
 * first or cannot be read.
 */
int pool_stream_read(void *ctx, char *out, int len);

#endif
