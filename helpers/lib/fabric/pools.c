// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "fabric/pools.h"

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

/*
 * The first '<' in [p, stop), or NULL: eight bytes at a time (a listing
 * has a '<' every dozen bytes or so, too close for memchr's setup to pay).
 */
static const char *find_lt(const char *p, const char *stop)
{
	const uint64_t ones = 0x0101010101010101ull, lt = ones * '<';

	while (stop - p >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		w ^= lt; /* a '<' byte is now 0 */
		if ((w - ones) & ~w & (ones << 7)) {
			while (*p != '<')
				p++;
			return p;
		}
		p += 8;
	}
	for (; p < stop; p++)
		if (*p == '<')
			return p;
	return NULL;
}

/*
 * How many bytes from s->at (at most room) need no state: text, ordinary
 * tags and CDATA sections that close within them, up to the first '<'
 * that may start a comment, a PI, the root's end tag or a CDATA section
 * not closed yet ("<!--", "<?", "</VM_POOL", "<![CDATA[..."), or one too
 * near the end of the buffer to tell (markup() reads on). That is nearly
 * all of a listing: OpenNebula writes every value as CDATA.
 */
static size_t plain_run(const struct pool_stream *s, size_t room)
{
	const char *name = pool_root_name[s->kind];
	size_t n = strlen(name);
	const char *at = s->buf + s->at, *p = at, *lt, *close;
	const char *stop = at + (s->len - s->at < room ? s->len - s->at : room);
	const char *sure = s->buf + s->len - (s->eof ? 0 : LOOKAHEAD);

	while ((lt = find_lt(p, stop))) {
		size_t left = (size_t)(s->buf + s->len - lt); /* from '<' */

		if (lt >= sure || left < 2 || lt[1] == '?')
			return (size_t)(lt - at);
		if (lt[1] == '!') {
			if (left < 9 || lt[2] != '[' ||
			    memcmp(lt, "<![CDATA[", 9))
				return (size_t)(lt - at);
			if (stop - lt < 12)
				return (size_t)(lt - at);
			close = memmem(lt + 9, (size_t)(stop - lt) - 9, "]]>",
				       3);
			if (!close)
				return (size_t)(lt - at);
			p = close + 3;
			continue;
		}
		if (lt[1] == '/' &&
		    (left <= n + 2 ||
		     (lt[2] == name[0] && !memcmp(lt + 2, name, n) &&
		      delim(s, (size_t)(lt + 2 + n - s->buf)))))
			return (size_t)(lt - at);
		p = lt + 1;
	}
	return (size_t)(stop - at);
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
		if (s->state == CDATA && !s->copy && !s->count) {
			/* OpenNebula writes every value as CDATA: its text up
			 * to "]]>" at once (the ']'s and the '>' go through
			 * step(), which closes the section) */
			size_t k = s->len - s->at;
			const char *at = s->buf + s->at, *p;

			if (k > (size_t)(len - n))
				k = (size_t)(len - n);
			p = memmem(at, k, "]]>", 3);
			if (p)
				k = (size_t)(p - at);
			while (!p && k && at[k - 1] == ']')
				k--;
			if (k) {
				memcpy(out + n, at, k);
				s->at += k;
				n += (int)k;
				s->prev = out[n - 1];
				continue;
			}
		}
		if (s->state == TEXT && !s->copy) {
			/* most of a document: text and ordinary tags, up to
			 * the next markup that needs a look */
			size_t run = plain_run(s, (size_t)(len - n));

			if (run) {
				memcpy(out + n, s->buf + s->at, run);
				s->at += run;
				n += (int)run;
				s->prev = out[n - 1];
				continue;
			}
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
