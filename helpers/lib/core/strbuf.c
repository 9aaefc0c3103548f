// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/strbuf.h"

int sb_grow(struct strbuf *sb, size_t extra)
{
	if (extra > SIZE_MAX / 2 - sb->len)
		return -ENOMEM;
	return ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
}

int sb_add(struct strbuf *sb, const char *data, size_t len)
{
	int r = sb_grow(sb, len);

	if (r)
		return r;
	if (len) /* an empty strbuf's buf may be NULL */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sb_adds(struct strbuf *sb, const char *s)
{
	return sb_add(sb, s, strlen(s));
}

int sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	r = sb_grow(sb, (size_t)n);
	if (r)
		return r;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

size_t sb_differs_at_line(const struct strbuf *sb, const char *text, size_t len)
{
	size_t i, line = 1;

	if (sb->len == len && (!len || !memcmp(sb->buf, text, len)))
		return 0;
	for (i = 0; i < len && i < sb->len && text[i] == sb->buf[i]; i++)
		line += text[i] == '\n';
	return line;
}

int sb_read(struct strbuf *sb, FILE *f, size_t max)
{
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb->len + n > max)
			return -EFBIG;
		if (sb_add(sb, buf, n))
			return -ENOMEM;
	}
	return ferror(f) ? -EIO : 0;
}

int sb_read_file(struct strbuf *sb, const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	int r;

	if (!f)
		return -errno;
	r = sb_read(sb, f, max);
	fclose(f);
	return r;
}
