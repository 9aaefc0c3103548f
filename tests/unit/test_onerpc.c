// SPDX-License-Identifier: Apache-2.0
/*
 * oned's XML-RPC answers (fabric/onerpc.h): the document a successful call
 * carries comes out unescaped, byte for byte, as the CLI prints it; the ID
 * an update returns too; a failed call is oned's message in one line; an
 * answer cut short or not XML-RPC at all is refused, naming where.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/xml.h"
#include "fabric/onerpc.h"

#define HEAD                                                                   \
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<methodResponse>\r\n"   \
	"<params>\r\n<param><value><array><data>\r\n"
#define TAIL                                                                   \
	"<value><i4>0</i4></value>\r\n</data></array></value></param>\r\n"     \
	"</params>\r\n</methodResponse>\r\n"
#define ANSWER(ok, value)                                                      \
	HEAD "<value><boolean>" ok "</boolean></value>\r\n" value TAIL

/* in through onerpc_string: its return, what it wrote into out, err */
static int decode(const char *in, char *out, size_t outlen, char *err,
		  size_t errlen)
{
	FILE *i = fmemopen((void *)in, strlen(in), "r");
	FILE *o = fmemopen(out, outlen, "w");
	int r;

	assert_non_null(i);
	assert_non_null(o);
	memset(out, 0, outlen);
	r = onerpc_string(i, o, err, errlen);
	fclose(i);
	fclose(o);
	return r;
}

static void document_unescaped(void **state)
{
	char out[512], err[256];

	(void)state;
	assert_int_equal(decode(ANSWER("1", "<value><string>&lt;VM_POOL&gt;&lt;"
					    "VM&gt;"
					    "&lt;NAME&gt;&lt;![CDATA[a &amp; b "
					    "&quot;c&apos; "
					    "&#233;&#x1F600;]]&gt;&lt;/"
					    "NAME&gt;&lt;/VM&gt;\n&lt;/"
					    "VM_POOL&gt;"
					    "</string></value>\r\n"),
				out, sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "<VM_POOL><VM><NAME><![CDATA[a & b \"c' "
				 "\xc3\xa9\xf0\x9f\x98\x80]]></NAME></VM>\n"
				 "</VM_POOL>");
	assert_string_equal(err, "");
}

static void empty_and_id(void **state)
{
	char out[64], err[256];

	(void)state;
	assert_int_equal(decode(ANSWER("1", "<value><string/></value>"), out,
				sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "");
	assert_int_equal(decode(ANSWER("1", "<value><string></string></value>"),
				out, sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "");
	/* one.vm.update answers with the VM's ID */
	assert_int_equal(decode(ANSWER("1", "<value><i4>42</i4></value>"), out,
				sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "42");
	assert_int_equal(decode(ANSWER("1", "<value><int>7</int></value>"), out,
				sizeof(out), err, sizeof(err)),
			 0);
	assert_string_equal(out, "7");
}

static void failure_is_one_line(void **state)
{
	char out[64], err[600], msg[1100];
	char *in;
	size_t inlen;

	(void)state;
	assert_int_equal(decode(ANSWER("0", "<value><string>[one.vmpool."
					    "infoextended] "
					    "User couldn&apos;t be "
					    "authenticated,\n"
					    "aborting call.</string></value>"),
				out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "oned: [one.vmpool.infoextended] User "
				 "couldn't be authenticated, aborting call.");
	assert_string_equal(out, "");
	/* a long message: its start, never more than the line holds */
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	inlen = sizeof(HEAD) + sizeof(msg) + 256;
	in = malloc(inlen);
	assert_non_null(in);
	assert_true(snprintf(in, inlen,
			     ANSWER("0", "<value><string>%s</string></value>"),
			     msg) < (int)inlen);
	assert_int_equal(decode(in, out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_true(strlen(err) < 420);
	assert_int_equal(strncmp(err, "oned: xxxx", 10), 0);
	free(in);
	assert_int_equal(decode("<?xml version=\"1.0\"?><methodResponse><fault>"
				"<value><struct></struct></value></fault>"
				"</methodResponse>",
				out, sizeof(out), err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "oned: an XML-RPC fault (no such call?)");
}

static void refused_answers(void **state)
{
	static const struct {
		const char *in, *err;
	} bad[] = {
		// clang-format off
		{ "<VM_POOL></VM_POOL>",
		  "not an XML-RPC answer: byte 9: expected <methodResponse>" },
		{ "", "not an XML-RPC answer: byte 0: it ends early" },
		{ HEAD "<value><boolean>1</boolean></value><value><string>&lt;VM",
		  "it ends inside its string" },
		{ ANSWER("1", "<value><string>a &foo; b</string></value>"),
		  "an entity other than" },
		{ ANSWER("1", "<value><string>&#0;</string></value>"),
		  "a character reference is not a character" },
		{ ANSWER("1", "<value><string>&#xD800;</string></value>"),
		  "a character reference is not a character" },
		{ ANSWER("1", "<value><string>&#12a;</string></value>"),
		  "a character reference is not a number" },
		{ ANSWER("1", "<value><string>&amp</string></value>"),
		  "an entity is not closed" },
		{ ANSWER("1", "<value><double>1.0</double></value>"),
		  "the second value is not a <string> or <i4>" },
		{ ANSWER("1", "<value><string>a</i4></value>"),
		  "expected </string>" },
		{ HEAD "<value><boolean>yes</boolean></value>",
		  "the first value is not a boolean" },
		{ HEAD "<value><boolean>1</boolean></value><value><string>a</string",
		  "it ends inside a tag" },
		// clang-format on
	};
	char out[64], err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(decode(bad[i].in, out, sizeof(out), err,
					sizeof(err)),
				 -EINVAL);
		if (!strstr(err, bad[i].err))
			fail_msg("case %zu: '%s' lacks '%s'", i, err,
				 bad[i].err);
		assert_non_null(strstr(err, "not an XML-RPC answer"));
	}
}

/*
 * A request as the CLI's client writes one: the session first, then the
 * arguments in order, strings escaped so that XML gives back exactly the
 * text (a tenant's template text in an update), a character XML cannot
 * carry refused.
 */
static void request_as_the_cli_writes_it(void **state)
{
	static const char text[] = "CONTEXT=[A=\"x<y>&z\"]\n";
	struct onerpc_arg args[] = {
		{ .type = ONERPC_INT, .i = 42 },
		{ .type = ONERPC_STRING, .s = text, .s_len = sizeof(text) - 1 },
		{ .type = ONERPC_BOOL, .i = 1 },
		{ .type = ONERPC_INT, .i = -2 },
	};
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";
	xmlDocPtr doc;
	xmlNodePtr n;
	xmlChar *got;

	(void)state;
	assert_int_equal(onerpc_request(&sb, "one.vm.update",
					"oneadmin:s&cr<t>", args, 4),
			 0);
	assert_string_equal(sb_str(&sb), "<?xml "
					 "version=\"1.0\"?><methodCall><"
					 "methodName>one.vm.update"
					 "</"
					 "methodName><params><param><value><"
					 "string>oneadmin:s&amp;cr"
					 "&lt;t&gt;</string></value></"
					 "param><param><value><int>42</int>"
					 "</value></"
					 "param><param><value><string>CONTEXT=["
					 "A=\"x&lt;y&gt;"
					 "&amp;z\"]\n</string></value></"
					 "param><param><value><boolean>1"
					 "</boolean></value></"
					 "param><param><value><int>-2</int></"
					 "value>"
					 "</param></params></methodCall>\n");
	/* read back by an XML parser: the very text */
	doc = xml_read_untrusted(sb.buf, sb.len, "request", err, sizeof(err));
	assert_non_null(doc);
	/* methodCall, params: the session, 42, the text */
	n = xmlDocGetRootElement(doc)->children->next->children->next->next;
	got = xmlNodeGetContent(n);
	assert_string_equal((const char *)got, text);
	xmlFree(got);
	xmlFreeDoc(doc);

	sb_reset(&sb);
	args[1].s = "a\001b";
	args[1].s_len = 3;
	assert_int_equal(onerpc_request(&sb, "one.vm.update", "s", args, 2),
			 -EINVAL);
	sb_reset(&sb);
	assert_int_equal(onerpc_request(&sb, "m", "a\033", NULL, 0), -EINVAL);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(document_unescaped),
		cmocka_unit_test(empty_and_id),
		cmocka_unit_test(failure_is_one_line),
		cmocka_unit_test(refused_answers),
		cmocka_unit_test(request_as_the_cli_writes_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
