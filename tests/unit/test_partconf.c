// SPDX-License-Identifier: Apache-2.0
/*
 * opensm's partitions.conf and the one reader of it (partconf.h): the
 * layouts it reads, everything it refuses (what opensm would read
 * differently: '\r', NUL, lines it would cut, names it would cut, a P_Key
 * given twice), the refusal notes and origin marks, the round-trip check
 * of the renderer and the canonical check of the root installer; the
 * operator's static file: opensm's own grammar normalised, and every way
 * it could make a tenant port a full member refused with its line.
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
#define ONEIB "# from: one-ib\n"
#define DEF ONEIB "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

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
			       "# from: one-ib\n"
			       "vnet5=0x0101,ipoib,sl=0:"
			       "0x02000000002a0000"
			       "=full, # c\n "
			       "0x02000000002a0001=full;\n"
			       "x=0x0102,ipoib:;",
			       0, &m, err),
			 0);
	assert_int_equal(m.n, 2);
	assert_null(m.def); /* one-ib's own default partition */
	assert_int_equal(m.def_line, 2);
	assert_false(m.oneib);
	assert_string_equal(m.p[0].name, "vnet5");
	assert_int_equal(m.p[0].origin, PO_ONEIB);
	assert_int_equal(m.p[0].sl, 0);
	assert_int_equal(m.p[0].n, 2);
	assert_int_equal(m.p[1].n, 0);
	assert_int_equal(m.p[1].origin, PO_UNKNOWN);
	assert_int_equal(m.nnotes, 0);
	partitions_free(&m);

	/* opensm's grammar as one-ib reads it: any order, either case, short
	 * numbers, the membership bit of a partition's key masked, members
	 * and keywords of every kind, the default partition anywhere */
	assert_int_equal(parse("b=0x8102 : 0xA=limited, ALL_SWITCHES=full,\n"
			       "  0x9=both, 0x2C90300000001, SELF ;\n"
			       "Default=0x7fff, ipoib, sl=1 : ALL=limited, "
			       "0x0002c903000a0001=full ;\n"
			       "a=0x1, defmember=full : 0x5, 0x4=limited ;\n",
			       0, &m, err),
			 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.p[0].name, "a");
	assert_int_equal(m.p[0].n, 1);
	assert_true(m.p[0].guids[0] == 5);
	assert_int_equal(m.p[0].nlimited, 1);
	assert_true(m.p[0].limited[0] == 4);
	assert_int_equal(m.p[1].pkey, 0x0102);
	assert_int_equal(m.p[1].kw[PKW_ALL_SWITCHES], PM_FULL);
	assert_int_equal(m.p[1].kw[PKW_SELF], PM_LIMITED);
	assert_int_equal(m.p[1].n, 1); /* 0x9 */
	assert_int_equal(m.p[1].nlimited, 3); /* 0x9, 0xa, 0x2c9... */
	assert_int_equal(partition_member(&m.p[1], 9), PM_BOTH);
	assert_int_equal(partition_member(&m.p[1], 0x2c90300000001ull),
			 PM_LIMITED);
	assert_non_null(m.def);
	assert_int_equal(m.def->sl, 1);
	assert_int_equal(m.def->kw[PKW_ALL], PM_LIMITED);
	assert_int_equal(m.def_line, 3);
	assert_ptr_equal(partitions_find(&m, 0x8102), &m.p[1]);
	assert_ptr_equal(partitions_find(&m, 0xffff), m.def);
	assert_ptr_equal(partitions_find_name(&m, "a"), &m.p[0]);
	assert_null(partitions_find(&m, 0x0103));
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

static void refuses_what_the_grammar_does_not_hold(void **state)
{
	(void)state;
	bad("Default=0x7fff, ipoib : ALL=limited, SEL=full ;", 0,
	    "line 1: 'SEL' is no port GUID 0x<16 hex> and no member keyword");
	bad(DEF "a=0x0101, ipoib : 0x0002c90300a1b2c1=full", 0,
	    "line 3: expected ',' or ';'");
	bad(DEF "a=0x0101, ipoib : 0x10002c90300a1b2c1=full ;", 0,
	    "is no port GUID");
	bad(DEF "a=0x0101, ipoib : 0x0002c90300a1b2c1=half ;", 0,
	    "expected full, limited or both");
	bad(DEF "a=0x0101, ipoib : 0x0000000000000000=full ;", 0,
	    "is no port GUID");
	bad(DEF "a=0x0101 : 0x0002c90300a1b2c1=full, ;", 0,
	    "expected a member");
	bad(DEF "a=0x0101 : 0x5=full,\n 0x5=limited ;", 0,
	    "line 4: 0x0000000000000005 given twice in a");
	bad(DEF "a=0x0101 : ALL, ALL=limited ;", 0, "ALL given twice in a");
	bad(DEF "a=0x0102, ipoib : ;\nb=0x8102, ipoib : ;", 0,
	    "line 4: P_Key 0x0102 given twice (a, line 3, and b)");
	bad(DEF "a=0x0102, ipoib : ;\na=0x0103, ipoib : ;", 0,
	    "line 4: partition name a given twice");
	bad(DEF DEF, 0,
	    "line 4: the default partition given twice (line 2 and here)");
	bad(DEF "a=0x7fff, ipoib : ;", 0,
	    "the default partition is "
	    "Default=0x7fff, and only it");
	bad("Default=0x0101 : ;", 0, "the default partition is");
	bad(DEF "a=0x0000, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=0x18101, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=257, ipoib : ;", 0, "expected a P_Key");
	bad(DEF "a=0x0101, ipoib, ipoib : ;", 0,
	    "unknown or repeated flag 'ipoib'");
	bad(DEF "a=0x0101, ipoib, mtu=6 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, sl=16 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, rate=25 : ;", 0, "flag value out of range");
	bad(DEF "a=0x0101, ipoib, defmember=half : ;", 0,
	    "expected full, limited or both");
	bad(DEF "a=0x0101, ipoib, indx0 : ;", 0,
	    "unknown or repeated flag 'indx0' (one-ib reads ipoib, mtu, "
	    "rate, sl and defmember)");
	bad(DEF "a=0x0101, scope=2 : ;", 0, "unknown or repeated flag 'scope'");
	bad(DEF "a=0x0101 : mgid=ff12:401b::1 ;", 0, "'mgid' is no port GUID");
	bad(DEF "5a=0x0101, ipoib : ;", 0, "expected a partition name");
}

/* Nothing but a network's own partition makes a tenant port full. */
static void refuses_tenant_ports_full(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	bad(DEF "a=0x0101, ipoib : ALL=full ;", 0,
	    "line 3: ALL=full would make every tenant VF a full member of a "
	    "(0x0101)");
	bad("Default=0x7fff : ALL=both ;", 0,
	    "line 1: ALL=both would make every tenant VF");
	bad(DEF "a=0x0101, defmember=full : ALL_CAS ;", 0,
	    "ALL_CAS=full would make every tenant VF");
	/* the default partition and the operator's are not a network's */
	bad("Default=0x7fff : ALL=limited, 0x02000000000a0000=full ;", 0,
	    "line 1: 0x02000000000a0000 (VM 10 NIC 0) is a tenant VF's port "
	    "GUID: never a full member of Default (0x7fff)");
	bad(DEF "# from: the static file\nstor=0x0200 :\n"
		"\t0x0200c0fffea80105=full ;\n",
	    0, "line 5: 0x0200c0fffea80105 (MAC 02:00:c0:a8:01:05 (old GUID))");
	bad(DEF "a=0x0101 : 0x02000000000a0000=full ;", 0,
	    "never a full member of a (0x0101)");
	/* a network's own partition: yes; limited anywhere: yes */
	assert_int_equal(parse(DEF ONEIB "a=0x0101 : 0x02000000000a0000=full "
					 ";\n# from: the static file\n"
					 "s=0x0200 : "
					 "0x02000000000a0001=limited "
					 ";\n",
			       0, &m, err),
			 0);
	assert_int_equal(m.p[1].origin, PO_STATIC);
	partitions_free(&m);
	/* what somebody else wrote is read as it is (adoption) */
	assert_int_equal(parse("Default=0x7fff : ALL=full ;\nx=0x0200 : "
			       "0x02000000000a0000=full ;",
			       PARTCONF_ANY, &m, err),
			 0);
	assert_int_equal(m.def->kw[PKW_ALL], PM_FULL);
	partitions_free(&m);
}

/*
 * "both" is a full membership as well as a limited one (opensm gives the
 * port both entries): a tenant port listed so is a full member, refused
 * wherever full is, spelt on the member or by defmember, in the
 * operator's static file and in a file one-ib writes (the installer's
 * grammar) alike; limited stays allowed in both.
 */
static void refuses_tenant_ports_both(void **state)
{
	/* %s: the membership, "both" refused, "limited" taken */
	static const struct {
		const char *text;
		unsigned flags;
	} cases[] = {
		{ "infra=0x0105, ipoib : 0x02000000000a0001=%s ;\n",
		  PARTCONF_STATIC },
		{ "infra=0x0105, defmember=%s : 0x02000000000a0001 ;\n",
		  PARTCONF_STATIC },
		{ "Default=0x7fff : ALL=limited, 0x02000000000a0001=%s ;\n",
		  PARTCONF_STATIC },
		{ "infra=0x0105 : 0x0200c0fffea80105=%s ;\n",
		  PARTCONF_STATIC }, /* the old MAC form */
		{ HEAD DEF "# from: the static file\ninfra=0x0105, ipoib :\n"
			   "\t0x02000000000a0001=%s ;\n",
		  0 },
		{ HEAD "# from: the static file\nDefault=0x7fff, ipoib :\n"
		       "\tALL=limited,\n\t0x02000000000a0001=%s ;\n",
		  0 },
		{ DEF "x=0x0105, defmember=%s : 0x02000000000a0001 ;\n", 0 },
	};
	struct partitions m;
	char text[512], err[256] = "";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		snprintf(text, sizeof(text), cases[i].text, "both");
		bad(text, cases[i].flags,
		    "is a tenant VF's port GUID: never a full member of");
		snprintf(text, sizeof(text), cases[i].text, "limited");
		if (parse(text, cases[i].flags, &m, err))
			fail_msg("'%s': %s", text, err);
		partitions_free(&m);
	}
}

/* What opensm's own reader would take differently from ours. */
static void refuses_what_opensm_reads_differently(void **state)
{
	char name32[64], line[4200], *big;
	struct partitions m;
	char err[256] = "";
	size_t n;

	(void)state;
	bad(DEF "a\x01=0x0101 : ;", 0, "line 3: byte 0x01 is not printable");
	bad(DEF "a=0x0101, ipoib :\r\n\t;", 0, "line 3: byte 0x0d");
	bad(DEF "# caf\xc3\xa9\n", 0, "line 3: byte 0xc3");
	/* NUL: a C reader stops there, opensm reads on */
	assert_int_equal(partconf_parse(DEF "\0x", strlen(DEF) + 2, 0, &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 3: byte 0x00"));

	/* 31 characters are a name, 32 are cut by opensm */
	snprintf(name32, sizeof(name32), "%s",
		 "vnet1_abcdefghijklmnopqrstuvwxyz");
	assert_int_equal(strlen(name32), 32);
	snprintf(line, sizeof(line), DEF "%s=0x0101, ipoib :\n\t;\n", name32);
	bad(line, 0,
	    "line 3: partition name longer than the 31 characters "
	    "opensm keeps");
	/* names written before the limit are still read back (--installed) */
	assert_int_equal(parse(line, PARTCONF_ANY, &m, err), 0);
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
	bad(big, 0, "line 3: longer than the 4093 characters opensm reads");
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

static const char canonical[] = HEAD DEF ONEIB
	"vnet5_a=0x0101, ipoib, mtu=4 :\n"
	"\t0x02000000002a0000=full,\n"
	"\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b=0x0102, ipoib : ;\n";

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
		HEAD DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			       "\t0x02000000002a0000=full, "
			       "0x02000000002b0000=full "
			       ";\n" ONEIB "vnet7_b=0x0102, ipoib :\n\t;\n",
		DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			  "\t0x02000000002a0000=full,\n"
			  "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			  "0x0102, ipoib "
			  ":\n\t;\n",
		HEAD "# hand-edited\n" DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 "
		     ":\n"
		     "\t0x02000000002a0000=full,\n"
		     "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b=0x0102, "
		     "ipoib :\n\t;\n",
		HEAD DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			       "\t0x02000000002a0000=full,\n"
			       "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, "
			       "ipoib "
			       ":\n\t;",
		HEAD DEF ONEIB "vnet5_a=0x8101, ipoib, mtu=4 :\n"
			       "\t0x02000000002a0000=full,\n"
			       "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, "
			       "ipoib "
			       ":\n\t;\n",
		HEAD DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			       "\t0x02000000002b0000=full,\n"
			       "\t0x02000000002a0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, "
			       "ipoib "
			       ":\n\t;\n",
	};
	/* a network's partition without its mark is nobody's: its tenant
	 * GUIDs may not be full members there */
	static const char unmarked[] = HEAD DEF "vnet5_a=0x0101, ipoib, mtu=4 "
						":\n"
						"\t0x02000000002a0000=full,\n"
						"\t0x02000000002b0000=full "
						";\n" ONEIB "vnet7_b=0x0102, "
						"ipoib :\n\t;\n";
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
	assert_int_equal(partconf_canonical(unmarked, strlen(unmarked), &m, err,
					    sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 5: 0x02000000002a0000 (VM 42 NIC 0) "
				    "is a tenant VF's port GUID"));
	/* the line where it stops being ours */
	assert_int_equal(partconf_canonical(variants[0], strlen(variants[0]),
					    &m, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "partitions.conf line 6: not as "
				 "oneib-partitions writes it (comments, blanks "
				 "or order differ)");
}

/* The operator's file: opensm's grammar, one-ib's rules, line numbers. */
static void static_file(void **state)
{
	static const char text[] =
		"# the site's partitions\n"
		"Default=0x7fff, ipoib : ALL=limited, SELF=full,\n"
		"    0x0002c903000a0001=full ;   # storage 1\n"
		"infra=0x105, ipoib, defmember=full :\n"
		"    0x248A070300001001, 0x0002c903000c0001 ;\n"
		"# refused: not a note here\n"
		"storage=0x0200, sl=2 : 0x0002c903000b0001=full ;\n";
	struct partitions m;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(partconf_parse_as("site.conf", text, strlen(text),
					   PARTCONF_STATIC, &m, err,
					   sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 0);
	assert_int_equal(m.n, 2);
	assert_non_null(m.def);
	assert_int_equal(m.def->origin, PO_STATIC);
	assert_int_equal(m.def->n, 1);
	assert_int_equal(m.p[0].origin, PO_STATIC);
	assert_int_equal(m.p[0].line, 4);
	assert_int_equal(m.p[0].pkey, 0x0105);
	assert_int_equal(m.p[0].n, 2);
	assert_int_equal(m.p[1].line, 7);
	/* rendered: normalised, marked, and read back the same */
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD "# from: the static file\n"
					 "Default=0x7fff, ipoib :\n"
					 "\tALL=limited,\n"
					 "\tSELF=full,\n"
					 "\t0x0002c903000a0001=full ;\n"
					 "# from: the static file\n"
					 "infra=0x0105, ipoib :\n"
					 "\t0x0002c903000c0001=full,\n"
					 "\t0x248a070300001001=full ;\n"
					 "# from: the static file\n"
					 "storage=0x0200, sl=2 :\n"
					 "\t0x0002c903000b0001=full ;\n");
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	sb_release(&sb);
	partitions_free(&m);

	/* each refusal names the file and the line */
	static const char vnet[] = "a=0x1 : ;\n\nvnet5_x=0x2 : ;";
	static const char tenant[] = "x=0x1 :\n 0x02000000000a0001=full ;";
	static const char marked[] = ONEIB "x=0x1 : 0x02000000000a0001 ;";

	assert_int_equal(partconf_parse_as("site.conf", vnet, strlen(vnet),
					   PARTCONF_STATIC, &m, err,
					   sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "site.conf line 3: partition name vnet5_x: "
				 "names vnet<ID>... and one_vnet_... are "
				 "one-ib's networks'");
	assert_int_equal(partconf_parse_as("site.conf", tenant, strlen(tenant),
					   PARTCONF_STATIC, &m, err,
					   sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "site.conf line 2: 0x02000000000a0001 (VM 10 "
				 "NIC 1) is a tenant VF's port GUID: never a "
				 "full member of the operator's x (0x0001)");
	/* even in a partition marked as a network's */
	assert_int_equal(partconf_parse_as("site.conf", marked, strlen(marked),
					   PARTCONF_STATIC, &m, err,
					   sizeof(err)),
			 0);
	assert_int_equal(m.p[0].origin, PO_STATIC); /* limited: allowed */
	partitions_free(&m);
}

/* Keywords, limited and "both" members, an empty partition: the
 * canonical text, read back to the same model. */
static void renders_every_membership(void **state)
{
	struct partitions m = { 0 }, back;
	struct partition p = { .name = "vnet9_storage",
			       .pkey = 0x0109,
			       .ipoib = true,
			       .sl = 2,
			       .origin = PO_ONEIB };
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		partition_add_member(&p, 0x02000000000a0001ull, PM_LIMITED), 0);
	assert_int_equal(
		partition_add_member(&p, 0x0002c903000a0001ull, PM_LIMITED), 0);
	/* full replaces limited, as opensm adds a port met twice */
	assert_int_equal(
		partition_add_member(&p, 0x0002c903000a0001ull, PM_FULL), 0);
	assert_int_equal(
		partition_add_member(&p, 0x0002c903000a0001ull, PM_LIMITED), 0);
	assert_int_equal(partition_member(&p, 0x0002c903000a0001ull), PM_FULL);
	m.p = &p;
	m.n = 1;
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD DEF ONEIB "vnet9_storage=0x0109, "
						   "ipoib, sl=2 :\n"
						   "\t0x0002c903000a0001=full,"
						   "\n"
						   "\t0x02000000000a0001="
						   "limited ;\n");
	assert_int_equal(
		partconf_canonical(sb.buf, sb.len, &back, err, sizeof(err)), 0);
	assert_true(partitions_equal(&m, &back));
	partitions_free(&back);
	sb_reset(&sb);
	p.kw[PKW_ALL_SWITCHES] = PM_FULL;
	assert_int_equal(
		partition_add_member(&p, 0x0002c903000b0001ull, PM_LIMITED), 0);
	assert_int_equal(
		partition_add_member(&p, 0x0002c903000b0001ull, PM_FULL), 0);
	p.origin = PO_STATIC_HOSTS;
	free(p.guids);
	p.guids = NULL;
	p.n = 0;
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD DEF "# from: the static file, with "
					     "the cloud's hosts\n"
					     "vnet9_storage=0x0109, ipoib, "
					     "sl=2 :\n"
					     "\tALL_SWITCHES=full,\n"
					     "\t0x02000000000a0001=limited "
					     ";\n");
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	partition_free(&p);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_comments_and_layout),
		cmocka_unit_test(refuses_what_the_grammar_does_not_hold),
		cmocka_unit_test(refuses_tenant_ports_full),
		cmocka_unit_test(refuses_tenant_ports_both),
		cmocka_unit_test(static_file),
		cmocka_unit_test(renders_every_membership),
		cmocka_unit_test(refuses_what_opensm_reads_differently),
		cmocka_unit_test(notes_round_trip),
		cmocka_unit_test(check_catches_a_difference),
		cmocka_unit_test(canonical_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
