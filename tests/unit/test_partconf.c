// SPDX-License-Identifier: Apache-2.0
/*
 * partitions.conf as one-ib writes it and the strict reader of it
 * (partconf.h): the layouts it reads, everything it refuses (what we never
 * write, and what opensm would read differently: '\r', NUL, lines it would
 * cut, names it would cut), the refusal notes, the round-trip check of the
 * renderer and the canonical check of the root installer.
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

#include "root/partconf.h"

#define HEAD                                                                   \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"
#define DEF "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

static int parse(const char *text, unsigned flags, struct partitions *m,
		 char *err)
{
	return partconf_parse(text, strlen(text), flags, m, err, 256);
}

static void accepts_comments_and_layout(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(parse("# head\n  Default = 0x7fff ,ipoib: "
			       "ALL=limited"
			       ",SELF=full;# tail\n"
			       "vnet5=0x0101,ipoib,sl=0:"
			       "0x02000000002a0000"
			       "=full, # c\n "
			       "0x02000000002a0001=full;\n"
			       "x=0x0102,ipoib:;",
			       0, &m, err),
			 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.p[0].name, "vnet5");
	assert_int_equal(m.p[0].sl, 0);
	assert_int_equal(m.p[0].n, 2);
	assert_int_equal(m.p[1].n, 0);
	assert_int_equal(m.nnotes, 0);
	partitions_free(&m);
}

static void bad(const char *text, unsigned flags, const char *want)
{
	struct partitions m;
	char err[256] = "";

	assert_int_equal(partconf_parse(text, strlen(text), flags, &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_null(m.p);
	assert_null(m.notes);
	if (!strstr(err, want))
		fail_msg("'%s' does not contain '%s'", err, want);
}

static void refuses_what_we_never_write(void **state)
{
	(void)state;
	bad("", 0, "line 1: expected 'Default=0x7fff");
	bad("Default=0x7fff, ipoib : ALL=limited, SEL=full ;", 0,
	    "expected 'Default");
	bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80105=full", 0,
	    "line 2: expected ',' or ';'");
	bad(DEF "a=0x0101, ipoib : 0x200c0fffea80105=full ;", 0,
	    "expected a port GUID");
	bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80105=limited ;", 0,
	    "expected '=full'");
	bad(DEF "a=0x0101, ipoib : 0x0000000000000000=full ;", 0,
	    "expected a port GUID");
	bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80107=full,\n"
		"0x0200c0fffea80105=full ;",
	    0, "line 3: members not in increasing order");
	bad(DEF "a=0x0102, ipoib : ;\nb=0x0101, ipoib : ;", 0,
	    "line 3: partitions not in increasing P_Key order");
	bad(DEF "a=0x0101, ipoib : ;\nb=0x0101, ipoib : ;", 0,
	    "not in increasing P_Key order");
	bad(DEF "a=0x7fff, ipoib : ;", 0, "expected a P_Key 0x0001..0x7ffe");
	bad(DEF "a=0x0000, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=0x8101, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=257, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=0x0101, ipoib, ipoib : ;", 0, "unknown or repeated flag");
	bad(DEF "a=0x0101, ipoib, mtu=6 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, sl=16 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, rate=25 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, indx0 : ;", 0, "unknown or repeated flag");
	bad(DEF "a=0x0101, ipoib : ALL=full ;", 0, "expected a port GUID");
	bad(DEF "5a=0x0101, ipoib : ;", 0, "expected a partition name");
}

/* What opensm's own reader would take differently from ours. */
static void refuses_what_opensm_reads_differently(void **state)
{
	char name32[64], line[4200], *big;
	struct partitions m;
	char err[256] = "";
	size_t n;

	(void)state;
	bad(DEF "a\x01=0x0101 : ;", 0, "line 2: byte 0x01 is not printable");
	bad(DEF "a=0x0101, ipoib :\r\n\t;", 0, "line 2: byte 0x0d");
	bad(DEF "# caf\xc3\xa9\n", 0, "line 2: byte 0xc3");
	/* NUL: a C reader stops there, opensm reads on */
	assert_int_equal(partconf_parse(DEF "\0x", strlen(DEF) + 2, 0, &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 2: byte 0x00"));

	/* 31 characters are a name, 32 are cut by opensm */
	snprintf(name32, sizeof(name32), "%s",
		 "vnet1_abcdefghijklmnopqrstuvwxyz");
	assert_int_equal(strlen(name32), 32);
	snprintf(line, sizeof(line), DEF "%s=0x0101, ipoib :\n\t;\n", name32);
	bad(line, 0,
	    "line 2: partition name longer than the 31 characters "
	    "opensm keeps");
	/* names written before the limit are still read back (--installed) */
	assert_int_equal(parse(line, PARTCONF_OLD_NAMES, &m, err), 0);
	assert_string_equal(m.p[0].name, name32);
	partitions_free(&m);
	name32[31] = '\0';
	snprintf(line, sizeof(line), DEF "%s=0x0101, ipoib :\n\t;\n", name32);
	assert_int_equal(parse(line, 0, &m, err), 0);
	partitions_free(&m);

	/* a comment line of 4094 characters: opensm would read its end as
	 * a line of its own */
	n = strlen(DEF);
	big = malloc(n + 4096);
	assert_non_null(big);
	memcpy(big, DEF, n);
	big[n] = '#';
	memset(big + n + 1, 'x', 4092);
	big[n + 4093] = '\0';
	assert_int_equal(parse(big, 0, &m, err), 0); /* 4093: fits */
	partitions_free(&m);
	big[n + 4093] = 'x';
	big[n + 4094] = '\0';
	bad(big, 0, "line 2: longer than the 4093 characters opensm reads");
	free(big);
}

static void notes_round_trip(void **state)
{
	struct partitions m = { 0 }, back;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(partitions_add_note(&m, "VNET 7 (b): IB_SL '16' is "
						 "not a service level 0..15; "
						 "left out"),
			 0);
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD "# refused: VNET 7 (b): IB_SL '16' is "
					 "not a service level 0..15; left "
					 "out\n" DEF);
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	assert_int_equal(parse(sb.buf, 0, &back, err), 0);
	assert_int_equal(back.nnotes, 1);
	assert_string_equal(back.notes[0], m.notes[0]);
	partitions_free(&back);
	/* a note that is not in the text: no round trip */
	assert_int_equal(partitions_add_note(&m, "second"), 0);
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "partitions.conf does not round-trip: the "
				 "refusal notes differ");
	sb_release(&sb);
	partitions_free(&m);
}

static const char canonical[] = HEAD DEF "vnet5_a=0x0101, ipoib, mtu=4 :\n"
					 "\t0x02000000002a0000=full,\n"
					 "\t0x02000000002b0000=full ;\n"
					 "vnet7_b=0x0102, ipoib :\n"
					 "\t;\n";

static void check_catches_a_difference(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(canonical, 0, &m, err), 0);
	m.p[0].guids[0]++;
	assert_int_equal(partconf_check(canonical, strlen(canonical), &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "partitions.conf does not round-trip: "
				 "partition vnet5_a (0x0101) differs");
	m.p[0].guids[0]--;
	m.n = 1;
	assert_int_equal(partconf_check(canonical, strlen(canonical), &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "partitions.conf does not round-trip: 2 "
				 "partitions read back, 1 expected");
	m.n = 2;
	partitions_free(&m);
}

/* The installer's question: exactly what the renderer writes? */
static void canonical_only(void **state)
{
	static const char *const variants[] = {
		/* the grammar reads each, the renderer never writes them */
		HEAD DEF "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			 "\t0x02000000002a0000=full, 0x02000000002b0000=full "
			 ";\n"
			 "vnet7_b=0x0102, ipoib :\n\t;\n",
		DEF "vnet5_a=0x0101, ipoib, mtu=4 :\n"
		    "\t0x02000000002a0000=full,\n"
		    "\t0x02000000002b0000=full ;\n"
		    "vnet7_b=0x0102, ipoib :\n\t;\n",
		HEAD "# hand-edited\n" DEF "vnet5_a=0x0101, ipoib, mtu=4 :\n"
		     "\t0x02000000002a0000=full,\n"
		     "\t0x02000000002b0000=full ;\n"
		     "vnet7_b=0x0102, ipoib :\n\t;\n",
		HEAD DEF "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			 "\t0x02000000002a0000=full,\n"
			 "\t0x02000000002b0000=full ;\n"
			 "vnet7_b=0x0102, ipoib :\n\t;",
	};
	struct partitions m;
	char err[256] = "";
	size_t i;

	(void)state;
	assert_int_equal(partconf_canonical(canonical, strlen(canonical), &m,
					    err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(partitions_members(&m), 2);
	partitions_free(&m);
	for (i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		assert_int_equal(parse(variants[i], 0, &m, err), 0);
		partitions_free(&m);
		assert_int_equal(partconf_canonical(variants[i],
						    strlen(variants[i]), &m,
						    err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "not as oneib-partitions writes "
					    "it"));
		assert_null(m.p);
	}
	/* the line where it stops being ours */
	assert_int_equal(partconf_canonical(variants[0], strlen(variants[0]),
					    &m, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "partitions.conf line 4: not as "
				 "oneib-partitions writes it (comments, blanks "
				 "or order differ)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_comments_and_layout),
		cmocka_unit_test(refuses_what_we_never_write),
		cmocka_unit_test(refuses_what_opensm_reads_differently),
		cmocka_unit_test(notes_round_trip),
		cmocka_unit_test(check_catches_a_difference),
		cmocka_unit_test(canonical_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
