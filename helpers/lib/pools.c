// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "log.h"
#include "pools.h"

const char *const pool_root_name[POOL_KINDS] = { "VM_POOL", "HOST_POOL",
						 "VNET_POOL" };

/* What the byte at s->at belongs to, inside a document. */
enum { ROOT_TAG, TEXT, CDATA, COMMENT, PI, END_TAG };

/* The longest thing looked at in one piece: "</VNET_POOL" plus one. */
#define LOOKAHEAD 16

void pool_stream_init(struct pool_stream *s, FILE *f, const char *origin)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->origin = origin;
	s->kind = -1;
}

/* At least n bytes from s->at in the buffer, unless the input ends. */
static size_t avail(struct pool_stream *s, size_t n)
{
	if (s->len - s->at >= n || s->eof)
		return s->len - s->at;
	memmove(s->buf, s->buf + s->at, s->len - s->at);
	s->before += s->at;
	s->len -= s->at;
	s->at = 0;
	while (s->len < n && !s->eof) {
		size_t got = fread(s->buf + s->len, 1, sizeof(s->buf) - s->len,
				   s->f);

		s->len += got;
		if (!got)
			s->eof = true;
	}
	return s->len - s->at;
}

static bool starts(const struct pool_stream *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->len - s->at >= n && !memcmp(s->buf + s->at, lit, n);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* After a name: whitespace, '>', '/' (or the end: the caller fails). */
static bool delim(const struct pool_stream *s, size_t at)
{
	return at < s->len &&
	       (is_space(s->buf[at]) || s->buf[at] == '>' || s->buf[at] == '/');
}

/* Skips to just past close; false if the input ends first. */
static bool skip_past(struct pool_stream *s, const char *close)
{
	size_t n = strlen(close);

	for (;;) {
		if (avail(s, n) < n)
			return false;
		if (starts(s, close)) {
			s->at += n;
			return true;
		}
		s->at++;
	}
}

static int root_kind(struct pool_stream *s)
{
	int k;

	for (k = 0; k < POOL_KINDS; k++) {
		size_t n = strlen(pool_root_name[k]);

		if (s->len - s->at > n + 1 && s->buf[s->at] == '<' &&
		    !memcmp(s->buf + s->at + 1, pool_root_name[k], n) &&
		    delim(s, s->at + 1 + n))
			return k;
	}
	return -1;
}

int pool_stream_next(struct pool_stream *s, enum pool_kind *kind, char *err,
		     size_t errlen)
{
	if (s->kind >= 0 && !s->done) {
		err_set(err, errlen, "%s: <%s> not read to its end", s->origin,
			pool_root_name[s->kind]);
		return -EINVAL;
	}
	for (;;) {
		const char *close = NULL;

		if (!avail(s, LOOKAHEAD)) {
			if (ferror(s->f)) {
				err_set(err, errlen, "%s: read error",
					s->origin);
				return -EIO;
			}
			return 0;
		}
		if (is_space(s->buf[s->at])) {
			s->at++;
			continue;
		}
		if (starts(s, "<?"))
			close = "?>";
		else if (starts(s, "<!--"))
			close = "-->";
		if (close) {
			if (!skip_past(s, close)) {
				err_set(err, errlen,
					"%s: a comment or declaration is not "
					"closed",
					s->origin);
				return -EINVAL;
			}
			continue;
		}
		s->kind = root_kind(s);
		if (s->kind < 0) {
			err_set(err, errlen,
				"%s: byte %llu: expected <VM_POOL>, "
				"<HOST_POOL> or <VNET_POOL>",
				s->origin,
				(unsigned long long)(s->before + s->at + 1));
			return -EINVAL;
		}
		*kind = (enum pool_kind)s->kind;
		s->state = ROOT_TAG;
		s->done = false;
		s->copy = 0;
		s->prev = 0;
		return 1;
	}
}

/* At a '<' in text: what starts here, and how many bytes it spans. */
static void markup(struct pool_stream *s)
{
	const char *name = pool_root_name[s->kind];
	size_t n = strlen(name);

	avail(s, LOOKAHEAD);
	s->count = 0;
	if (starts(s, "<![CDATA[")) {
		s->state = CDATA;
		s->copy = 9;
	} else if (starts(s, "<!--")) {
		s->state = COMMENT;
		s->copy = 4;
	} else if (starts(s, "<?")) {
		s->state = PI;
		s->copy = 2;
	} else if (s->len - s->at > n + 2 && s->buf[s->at + 1] == '/' &&
		   !memcmp(s->buf + s->at + 2, name, n) &&
		   delim(s, s->at + 2 + n)) {
		s->state = END_TAG;
		s->copy = (int)(n + 2);
	} else {
		s->copy = 1;
	}
}

/* The state after byte c (not one of a token's first bytes). */
static void step(struct pool_stream *s, char c)
{
	switch (s->state) {
	case ROOT_TAG:
		if (c == '>') {
			s->done = s->prev == '/';
			s->state = TEXT;
		}
		break;
	case CDATA: /* "]]>", also after "]]]" */
		if (c == '>' && s->count >= 2)
			s->state = TEXT;
		s->count = c == ']' ? s->count + 1 : 0;
		break;
	case COMMENT:
		if (c == '>' && s->count >= 2)
			s->state = TEXT;
		s->count = c == '-' ? s->count + 1 : 0;
		break;
	case PI:
		if (c == '>' && s->prev == '?')
			s->state = TEXT;
		break;
	case END_TAG:
		s->done = c == '>';
		break;
	default:
		break;
	}
	s->prev = c;
}

int pool_stream_read(void *ctx, char *out, int len)
{
	struct pool_stream *s = ctx;
	int n = 0;

	while (n < len && !s->done) {
		char c;

		if (s->at == s->len && !avail(s, 1)) {
			snprintf(s->err, sizeof(s->err),
				 "%s: <%s> has no end tag%s", s->origin,
				 pool_root_name[s->kind],
				 ferror(s->f) ? " (read error)" : "");
			return -1;
		}
		if (s->state == TEXT && !s->copy && s->buf[s->at] != '<') {
			/* most of a document: text up to the next markup */
			size_t room = (size_t)(len - n), run = s->len - s->at;
			const char *lt;

			if (run > room)
				run = room;
			lt = memchr(s->buf + s->at, '<', run);
			if (lt)
				run = (size_t)(lt - (s->buf + s->at));
			memcpy(out + n, s->buf + s->at, run);
			s->at += run;
			n += (int)run;
			s->prev = out[n - 1];
			continue;
		}
		if (s->state == TEXT && !s->copy)
			markup(s);
		c = s->buf[s->at++];
		out[n++] = c;
		if (s->copy) {
			s->copy--;
			s->prev = c;
		} else {
			step(s, c);
		}
	}
	return n;
}
