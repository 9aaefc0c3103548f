// SPDX-License-Identifier: Apache-2.0
/*
 * opensm's QoS policy as one-ib writes it (root/qospolicy.h): the policy of
 * a set of partitions, its exact text, and the root installer's strict
 * reading, which takes that text and nothing else: every shape opensm
 * would drop the whole policy for (or read differently) is refused with a
 * line naming where.
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

#include "root/qospolicy.h"

#define HEAD                                                                   \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"  \
	"# the SL of every partition that has one (sl=), by P_Key\n"

static const char sample[] = HEAD "qos-ulps\n"
				  "\tdefault : 0\n"
				  "\tany, pkey 0x0101,0x0105-0x0106 : 1\n"
				  "\tany, pkey 0x0102 : 2\n"
				  "\tany, pkey 0x7fff : 5\n"
				  "end-qos-ulps\n";

static void from_partitions_renders_sample(void **state)
{
	struct partition p[6] = { 0 }, def = { 0 };
	struct partitions m = { .p = p, .n = 6, .def = &def };
	struct strbuf sb = STRBUF_INIT;
	struct qos_policy q;
	static const struct {
		uint16_t pkey;
		int sl;
	} in[] = { { 0x0101, 1 }, { 0x0102, 2 }, { 0x0103, -1 },
		   { 0x0105, 1 }, { 0x0106, 1 }, { 0x0200, -1 } };
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {
		p[i].pkey = in[i].pkey;
		p[i].sl = in[i].sl;
	}
	def.pkey = 0x7fff;
	def.sl = 5;
	assert_int_equal(qospolicy_from_partitions(&m, 0, &q), 0);
	assert_int_equal(q.n, 5);
	assert_int_equal(qospolicy_render(&q, &sb), 0);
	assert_string_equal(sb_str(&sb), sample);
	qospolicy_free(&q);
	sb_release(&sb);
}

static void sample_reads_back(void **state)
{
	struct qos_policy q;
	char err[256] = "";

	(void)state;
	assert_int_equal(qospolicy_canonical(sample, strlen(sample), &q, err,
					     sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(q.default_sl, 0);
	assert_int_equal(q.n, 5);
	assert_int_equal(q.r[0].pkey, 0x0101);
	assert_int_equal(q.r[0].sl, 1);
	assert_int_equal(q.r[2].pkey, 0x0105);
	assert_int_equal(q.r[3].pkey, 0x0106);
	assert_int_equal(q.r[3].sl, 1);
	assert_int_equal(q.r[4].sl, 5);
	qospolicy_free(&q);
}

/* No partition with an SL: the default alone, which opensm requires. */
static void empty_policy(void **state)
{
	static const char want[] = HEAD "qos-ulps\n\tdefault : "
					"3\nend-qos-ulps\n";
	struct partitions m = { 0 };
	struct strbuf sb = STRBUF_INIT;
	struct qos_policy q;
	char err[256];

	(void)state;
	assert_int_equal(qospolicy_from_partitions(&m, 3, &q), 0);
	assert_int_equal(qospolicy_render(&q, &sb), 0);
	assert_string_equal(sb_str(&sb), want);
	qospolicy_free(&q);
	assert_int_equal(
		qospolicy_canonical(sb.buf, sb.len, &q, err, sizeof(err)), 0);
	qospolicy_free(&q);
	sb_release(&sb);
}

/* Many partitions on one SL: ranges, QOSPOLICY_RANGES_PER_LINE a line,
 * read back the same. */
static void long_rules_split(void **state)
{
	struct qos_policy q = { 0 }, back;
	struct strbuf sb = STRBUF_INIT;
	char err[256];
	size_t i, lines = 0;

	(void)state;
	q.r = calloc(100, sizeof(*q.r));
	assert_non_null(q.r);
	for (i = 0; i < 100; i++) {
		q.r[i].pkey = (uint16_t)(0x0100 + 2 * i); /* no ranges */
		q.r[i].sl = 4;
	}
	q.n = 100;
	assert_int_equal(qospolicy_render(&q, &sb), 0);
	for (i = 0; i < sb.len; i++)
		lines += sb.buf[i] == '\n';
	/* 2 comments, qos-ulps, default, 4 rules (32 + 32 + 32 + 4), end */
	assert_int_equal(lines, 2 + 2 + 4 + 1);
	assert_int_equal(qospolicy_canonical(sb.buf, sb.len, &back, err,
					     sizeof(err)),
			 0);
	assert_int_equal(back.n, 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(back.r[i].pkey, q.r[i].pkey);
	qospolicy_free(&back);
	qospolicy_free(&q);
	sb_release(&sb);
}

static void refused(const char *text, const char *want)
{
	struct qos_policy q;
	char err[256] = "";

	assert_int_equal(qospolicy_canonical(text, strlen(text), &q, err,
					     sizeof(err)),
			 -EINVAL);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(q.r);
}

#define ULPS(body) HEAD "qos-ulps\n\tdefault : 0\n" body "end-qos-ulps\n"

/* What opensm would drop the policy for, or read otherwise, and what one-ib
 * never writes: refused, the line named. */
static void hostile_and_broken(void **state)
{
	(void)state;
	refused(ULPS("\tipoib, pkey 0x0101 : 1\n"), "line 5: 'ipoib, pkey "
						    "0x0101 : 1': only \"any, "
						    "pkey\" rules");
	refused(ULPS("\tany, pkey 0x0101 : 16\n"), "line 5");
	refused(ULPS("\tany, pkey 0x0101 1\n"), "not \"... : <SL 0..15>\"");
	refused(ULPS("\tany, pkey 0x8101 : 1\n"), "not partitions "
						  "0x0001-0x7fff");
	refused(ULPS("\tany, pkey 0x0000 : 1\n"), "not partitions "
						  "0x0001-0x7fff");
	refused(ULPS("\tany, pkey 0x0101 : 1\n\tany, pkey 0x0101 : 2\n"),
		"P_Key 0x0101 in two rules");
	refused(ULPS("\tany, pkey 0x0001-0x7fff : 1\n\tany, pkey 0x0001-0x7"
		     "fff : 1\n"),
		"a P_Key in two rules");
	refused(ULPS("\tany, pkey 0x0105-0x0101 : 1\n"), "not partitions "
							 "0x0001-0x7fff");
	refused(ULPS("\tany, pkey 0x01 : 1\n"), "four hex digits");
	refused(ULPS("\tany, pkey 0x010A : 1\n"), "four hex digits");
	refused(ULPS("\tany, service-id 0x10 : 1\n"), "only \"any, pkey\"");
	refused(ULPS("\tany, pkey 0x0102 : 2\n\tany, pkey 0x0101 : 1\n"),
		"not as oneib-partitions writes it");
	refused(ULPS("\tany, pkey 0x0101,0x0102 : 1\n"),
		"not as oneib-partitions writes it"); /* a range, written */
	refused(ULPS("\tany, pkey 0x0101 : 1 \n"), "line 5");
	refused(ULPS("\tany, pkey 0x0101 : 1\r\n"), "a character opensm's file "
						    "never holds");
	refused(HEAD "qos-ulps\n\tany, pkey 0x0101 : 1\nend-qos-ulps\n",
		"not \"default : <SL 0..15>\""); /* AC10 */
	refused(HEAD "qos-ulps\n\tdefault : 0\n", "before \"end-qos-ulps\"");
	refused(HEAD "qos-ulps\n\tdefault : 0\nend-qos-ulps", "no newline at "
							      "its end");
	refused(ULPS("") "qos-levels\n", "after \"end-qos-ulps\"");
	refused(HEAD "port-groups\nend-port-groups\n", "not \"qos-ulps\"");
	refused("qos-ulps\n\tdefault : 0\nend-qos-ulps\n", "not written by "
							   "oneib-partitions");
	refused(ULPS("# a comment of someone's\n"), "only \"any, pkey\"");
	refused("", "not written by oneib-partitions");
	{
		char big[2048];

		snprintf(big, sizeof(big), ULPS("\tany, pkey %01100d : 1\n"),
			 0);
		refused(big, "longer than one-ib writes a line");
	}
}

/*
 * P_Keys are the partitions' 15-bit keys: a range is refused when either
 * end is beyond 0x7fff (its upper end read as a key, a range running into
 * the membership bit would reach 0x8000 and on), however few keys it
 * spans; a range up to 0x7fff itself is read.
 */
static void ranges_end_at_0x7fff(void **state)
{
	static const char *const beyond[] = {
		ULPS("\tany, pkey 0x7ffe-0x8001 : 1\n"),
		ULPS("\tany, pkey 0x7fff-0x8000 : 1\n"),
		ULPS("\tany, pkey 0x0101,0x7ff0-0x8010 : 1\n"),
		ULPS("\tany, pkey 0x0101 : 1\n\tany, pkey 0x7ffe-0x8001 : "
		     "2\n"),
	};
	static const char top[] = ULPS("\tany, pkey 0x7ffe-0x7fff : 1\n");
	struct qos_policy q;
	char err[256] = "";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(beyond) / sizeof(*beyond); i++)
		refused(beyond[i], "not partitions 0x0001-0x7fff");
	/* as many keys as exist, and more: refused too, whichever way */
	refused(ULPS("\tany, pkey 0x0101-0xffff : 1\n"), "line 5");
	assert_int_equal(
		qospolicy_canonical(top, strlen(top), &q, err, sizeof(err)), 0);
	assert_int_equal(q.n, 2);
	assert_int_equal(q.r[0].pkey, 0x7ffe);
	assert_int_equal(q.r[1].pkey, 0x7fff);
	assert_int_equal(q.r[1].sl, 1);
	qospolicy_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(from_partitions_renders_sample),
		cmocka_unit_test(sample_reads_back),
		cmocka_unit_test(empty_policy),
		cmocka_unit_test(long_rules_split),
		cmocka_unit_test(hostile_and_broken),
		cmocka_unit_test(ranges_end_at_0x7fff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
