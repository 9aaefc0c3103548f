// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/log.h"
#include "fabric/onerpc.h"

#define TAG_MAX                                                                \
	32 /* the longest tag looked at: "methodResponse", "?xml ...": skipped */
#define MSG_MAX 400 /* what is kept of oned's message */

struct rpc_in {
	FILE *in;
	unsigned long long at; /* bytes read */
	char *err;
	size_t errlen;
};

static int get(struct rpc_in *r)
{
	int c = getc_unlocked(r->in);

	if (c != EOF)
		r->at++;
	return c;
}

static int bad(struct rpc_in *r, const char *what)
{
	if (ferror(r->in)) {
		err_set(r->err, r->errlen, "reading oned's answer failed");
		return -EIO;
	}
	err_set(r->err, r->errlen, "not an XML-RPC answer: byte %llu: %s",
		r->at, what);
	return -EINVAL;
}

/*
 * The next tag, whitespace before it skipped, its name (and a leading '/'
 * or trailing '/') in name; declarations and comments skipped. 0, or
 * -EINVAL (text where a tag should be, the end of the input).
 */
static int next_tag(struct rpc_in *r, char name[TAG_MAX])
{
	for (;;) {
		size_t n = 0;
		int c;

		while ((c = get(r)) == ' ' || c == '\t' || c == '\n' ||
		       c == '\r')
			;
		if (c != '<')
			return bad(r, c == EOF ? "it ends early"
					       : "text where a tag should be");
		while ((c = get(r)) != '>' && c != EOF)
			if (n < TAG_MAX - 1)
				name[n++] = (char)c;
		if (c == EOF)
			return bad(r, "it ends inside a tag");
		name[n] = '\0';
		if (name[0] != '?' && name[0] != '!')
			return 0;
	}
}

static int expect(struct rpc_in *r, const char *want)
{
	char name[TAG_MAX];
	int rc = next_tag(r, name);

	if (rc)
		return rc;
	if (strcmp(name, want)) {
		char what[TAG_MAX + 32];

		snprintf(what, sizeof(what), "expected <%s>", want);
		return bad(r, what);
	}
	return 0;
}

/* A character reference's code point in UTF-8 into out; its length, or 0. */
static size_t utf8(unsigned long cp, char out[4])
{
	if (!cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* After '&': the entity's text into out; its length, or -EINVAL. */
static int entity(struct rpc_in *r, char out[4])
{
	static const struct {
		const char *name;
		char c;
	} named[] = { { "lt", '<' },
		      { "gt", '>' },
		      { "amp", '&' },
		      { "quot", '"' },
		      { "apos", '\'' } };
	char name[12];
	size_t n = 0, i;
	int c;

	while ((c = get(r)) != ';') {
		if (c == EOF || c == '<' || n == sizeof(name) - 1)
			return bad(r, "an entity is not closed");
		name[n++] = (char)c;
	}
	name[n] = '\0';
	if (name[0] == '#') {
		bool hex = name[1] == 'x';
		const char *p = name + 1 + hex;
		unsigned long cp = 0;
		size_t len;

		for (; *p; p++) {
			int d = *p >= '0' && *p <= '9'		? *p - '0'
				: hex && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
				: hex && *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
								: -1;

			if (d < 0)
				return bad(r, "a character reference is not a "
					      "number");
			cp = cp * (hex ? 16 : 10) + (unsigned long)d;
		}
		len = p > name + 1 + hex ? utf8(cp, out) : 0;
		return len ? (int)len
			   : bad(r, "a character reference is not a character");
	}
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i].name)) {
			out[0] = named[i].c;
			return 1;
		}
	return bad(r, "an entity other than &lt; &gt; &amp; &quot; &apos;");
}

/*
 * A value's text up to its end tag (</string>, </i4>...), unescaped: to
 * out, or (out NULL) its first MSG_MAX - 1 bytes into msg, one line.
 */
static int text(struct rpc_in *r, FILE *out, char msg[MSG_MAX],
		const char *type)
{
	char name[TAG_MAX + 2]; /* "/" and a tag name */

	size_t n = 0;
	int c;

	while ((c = get(r)) != '<') {
		char buf[4];
		int len = 1, i;

		if (c == EOF)
			return bad(r, "it ends inside its string");
		buf[0] = (char)c;
		if (c == '&' && (len = entity(r, buf)) < 0)
			return len;
		for (i = 0; i < len; i++) {
			if (out) {
				if (putc_unlocked(buf[i], out) == EOF) {
					err_set(r->err, r->errlen,
						"writing the document failed");
					return -EIO;
				}
			} else if (n < MSG_MAX - 1) {
				msg[n++] = buf[i] == '\n' || buf[i] == '\r'
						   ? ' '
						   : buf[i];
			}
		}
	}
	if (msg)
		msg[n] = '\0';
	/* the '<' read: the end tag from it */
	ungetc('<', r->in);
	r->at--;
	snprintf(name, sizeof(name), "/%s", type);
	return expect(r, name);
}

int onerpc_string(FILE *in, FILE *out, char *err, size_t errlen)
{
	static const char *const head[] = { "param", "value", "array",
					    "data",  "value", "boolean" };
	struct rpc_in r = { in, 0, err, errlen };
	char name[TAG_MAX], msg[MSG_MAX] = "";
	size_t i;
	int ok, has_text, rc;

	err[0] = '\0';
	if ((rc = expect(&r, "methodResponse")) || (rc = next_tag(&r, name)))
		return rc;
	if (!strcmp(name, "fault")) {
		err_set(err, errlen, "oned: an XML-RPC fault (no such call?)");
		return -EINVAL;
	}
	if (strcmp(name, "params"))
		return bad(&r, "expected <params> or <fault>");
	for (i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if ((rc = expect(&r, head[i])))
			return rc;
	ok = get(&r);
	if (ok != '0' && ok != '1')
		return bad(&r, "the first value is not a boolean");
	if ((rc = expect(&r, "/boolean")) || (rc = expect(&r, "/value")) ||
	    (rc = expect(&r, "value")) || (rc = next_tag(&r, name)))
		return rc;
	/* the document, or the ID an update returns (<i4>, <int>) */
	if (!strcmp(name, "string/"))
		has_text = 0; /* empty */
	else if (!strcmp(name, "string") || !strcmp(name, "i4") ||
		 !strcmp(name, "int"))
		has_text = 1;
	else
		return bad(&r, "the second value is not a <string> or <i4>");
	if (has_text && (rc = text(&r, ok == '1' ? out : NULL, msg, name)))
		return rc;
	if (ok == '0') {
		err_set(err, errlen, "oned: %s", msg[0] ? msg : "(no message)");
		return -EINVAL;
	}
	if (fflush(out)) {
		err_set(err, errlen, "writing the document failed");
		return -EIO;
	}
	return 0;
}

/* --- the request ------------------------------------------------------------ */

static int add_text(struct strbuf *sb, const char *s, size_t len)
{
	size_t i, from = 0;
	int r = 0;

	for (i = 0; i < len && !r; i++) {
		const char *rep = s[i] == '&'	? "&amp;"
				  : s[i] == '<' ? "&lt;"
				  : s[i] == '>' ? "&gt;"
						: NULL;
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			return -EINVAL;
		if (!rep)
			continue;
		r = sb_add(sb, s + from, i - from);
		if (!r)
			r = sb_adds(sb, rep);
		from = i + 1;
	}
	return r ? r : sb_add(sb, s + from, len - from);
}

static int add_string(struct strbuf *sb, const char *s, size_t len)
{
	int r = sb_adds(sb, "<param><value><string>");

	if (!r)
		r = add_text(sb, s, len);
	return r ? r : sb_adds(sb, "</string></value></param>");
}

int onerpc_request(struct strbuf *out, const char *method, const char *session,
		   const struct onerpc_arg *args, size_t n)
{
	size_t i;
	int r = sb_adds(out, "<?xml version=\"1.0\"?><methodCall><methodName>");

	if (!r)
		r = add_text(out, method, strlen(method));
	if (!r)
		r = sb_adds(out, "</methodName><params>");
	if (!r)
		r = add_string(out, session, strlen(session));
	for (i = 0; i < n && !r; i++) {
		const struct onerpc_arg *a = &args[i];

		switch (a->type) {
		case ONERPC_INT:
			r = sb_addf(out,
				    "<param><value><int>%ld</int></value>"
				    "</param>",
				    a->i);
			break;
		case ONERPC_BOOL:
			r = sb_addf(out,
				    "<param><value><boolean>%d</boolean>"
				    "</value></param>",
				    a->i ? 1 : 0);
			break;
		case ONERPC_STRING:
			r = add_string(out, a->s, a->s_len);
			break;
		}
	}
	return r ? r : sb_adds(out, "</params></methodCall>\n");
}
