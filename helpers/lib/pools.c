// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pools.h"

static const char *const root_name[POOL_KINDS] = { "VM_POOL", "HOST_POOL",
						   "VNET_POOL" };

struct scan {
	const char *s;
	size_t len, at;
};

static bool starts(const struct scan *c, const char *lit)
{
	size_t n = strlen(lit);

	return c->len - c->at >= n && !memcmp(c->s + c->at, lit, n);
}

/* Moves past the next occurrence of lit; false when there is none. */
static bool skip_past(struct scan *c, const char *lit)
{
	size_t n = strlen(lit);

	for (; c->len - c->at >= n; c->at++)
		if (!memcmp(c->s + c->at, lit, n)) {
			c->at += n;
			return true;
		}
	c->at = c->len;
	return false;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static bool name_ends(const struct scan *c, size_t at)
{
	return at >= c->len || is_space(c->s[at]) || c->s[at] == '>' ||
	       c->s[at] == '/';
}

/* Comments, CDATA and processing instructions: true when one was skipped. */
static int skip_special(struct scan *c, bool *skipped)
{
	static const char *const open[] = { "<!--", "<![CDATA[", "<?" };
	static const char *const close[] = { "-->", "]]>", "?>" };
	size_t i;

	*skipped = false;
	for (i = 0; i < 3; i++)
		if (starts(c, open[i])) {
			*skipped = true;
			return skip_past(c, close[i]) ? 0 : -EINVAL;
		}
	return 0;
}

/* The end of the start tag at c->at ('<' NAME ...), quotes respected. */
static int start_tag_end(struct scan *c, bool *empty)
{
	char quote = 0;

	for (; c->at < c->len; c->at++) {
		char ch = c->s[c->at];

		if (quote) {
			quote = ch == quote ? 0 : quote;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		} else if (ch == '>') {
			*empty = c->at > 0 && c->s[c->at - 1] == '/';
			c->at++;
			return 0;
		}
	}
	return -EINVAL;
}

/* Finds "</NAME>" at depth 0 of markup; *inner_end is where it starts. */
static int find_end_tag(struct scan *c, const char *name, size_t *inner_end)
{
	size_t n = strlen(name);
	bool skipped;

	while (c->at < c->len) {
		if (c->s[c->at] != '<') {
			c->at++;
			continue;
		}
		if (skip_special(c, &skipped))
			return -EINVAL;
		if (skipped)
			continue;
		if (c->len - c->at > n + 2 && c->s[c->at + 1] == '/' &&
		    !memcmp(c->s + c->at + 2, name, n) &&
		    name_ends(c, c->at + 2 + n)) {
			*inner_end = c->at;
			c->at += 2 + n;
			while (c->at < c->len && is_space(c->s[c->at]))
				c->at++;
			if (c->at >= c->len || c->s[c->at] != '>')
				return -EINVAL;
			c->at++;
			return 0;
		}
		c->at++;
	}
	return -EINVAL;
}

int pools_add(struct pools *p, const char *origin, const char *text, size_t len,
	      char *err, size_t errlen)
{
	struct scan c = { text, len, 0 };
	bool skipped, empty;
	size_t inner, inner_end;
	int k;

	for (;;) {
		int r;

		while (c.at < c.len && is_space(c.s[c.at]))
			c.at++;
		if (c.at >= c.len)
			return 0;
		r = skip_special(&c, &skipped);
		if (r) {
			err_set(err, errlen,
				"%s: a comment, CDATA or declaration is not "
				"closed",
				origin);
			return r;
		}
		if (skipped)
			continue;
		for (k = 0; k < POOL_KINDS; k++)
			if (c.s[c.at] == '<' &&
			    c.len - c.at > strlen(root_name[k]) + 1 &&
			    !memcmp(c.s + c.at + 1, root_name[k],
				    strlen(root_name[k])) &&
			    name_ends(&c, c.at + 1 + strlen(root_name[k])))
				break;
		if (k == POOL_KINDS) {
			err_set(err, errlen,
				"%s: byte %zu: expected <VM_POOL>, "
				"<HOST_POOL> or <VNET_POOL>",
				origin, c.at + 1);
			return -EINVAL;
		}
		if (start_tag_end(&c, &empty)) {
			err_set(err, errlen, "%s: <%s> start tag not closed",
				origin, root_name[k]);
			return -EINVAL;
		}
		inner = c.at;
		inner_end = c.at;
		if (!empty && find_end_tag(&c, root_name[k], &inner_end)) {
			err_set(err, errlen, "%s: <%s> has no end tag", origin,
				root_name[k]);
			return -EINVAL;
		}
		if (sb_add(&p->doc[k], c.s + inner, inner_end - inner)) {
			err_set(err, errlen, "%s: out of memory", origin);
			return -ENOMEM;
		}
		p->count[k]++;
	}
}

int pools_finish(struct pools *p, char *err, size_t errlen)
{
	struct strbuf whole = STRBUF_INIT;
	int k;

	for (k = 0; k < POOL_KINDS; k++)
		if (!p->count[k]) {
			err_set(err, errlen,
				"no <%s> in the input (onevm/onehost/onevnet "
				"list -x)",
				root_name[k]);
			return -EINVAL;
		}
	for (k = 0; k < POOL_KINDS; k++) {
		sb_reset(&whole);
		if (sb_addf(&whole, "<%s>", root_name[k]) ||
		    sb_add(&whole, p->doc[k].buf ? p->doc[k].buf : "",
			   p->doc[k].len) ||
		    sb_addf(&whole, "</%s>\n", root_name[k])) {
			sb_release(&whole);
			err_set(err, errlen, "pools: out of memory");
			return -ENOMEM;
		}
		sb_release(&p->doc[k]);
		p->doc[k] = whole;
		whole = (struct strbuf)STRBUF_INIT;
	}
	return 0;
}

void pools_release(struct pools *p)
{
	int k;

	for (k = 0; k < POOL_KINDS; k++) {
		sb_release(&p->doc[k]);
		p->count[k] = 0;
	}
}
