/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A growable, always NUL-terminated byte buffer (after git's strbuf), used
 * instead of fixed char arrays wherever the length is not bounded by the
 * kernel's own format.
 */
#ifndef ONEIB_STRBUF_H
#define ONEIB_STRBUF_H

#include <stddef.h>
#include <stdio.h>

#include "core/log.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT                                                            \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

int sb_grow(struct strbuf *sb, size_t extra);
int sb_add(struct strbuf *sb, const char *data, size_t len);
int sb_adds(struct strbuf *sb, const char *s);
int sb_addf(struct strbuf *sb, const char *fmt, ...) ONEIB_PRINTF(2, 3);
/* All of f (or the file at path) appended; -EFBIG past max bytes. */
int sb_read(struct strbuf *sb, FILE *f, size_t max);
int sb_read_file(struct strbuf *sb, const char *path, size_t max);
void sb_reset(struct strbuf *sb);
void sb_release(struct strbuf *sb);
/* "" when nothing was ever added, never NULL. */
const char *sb_str(const struct strbuf *sb);
/*
 * 0 when sb holds exactly text, else the line of text (from 1) where they
 * first differ: what a strict reader names when a file is not the text it
 * renders back ("a\nb\n" against "a\nc\n" -> 2).
 */
size_t sb_differs_at_line(const struct strbuf *sb, const char *text,
			  size_t len);

#endif
