// SPDX-License-Identifier: Apache-2.0
/*
 * opensm's partitions.conf and the one reader of it (partconf.h), read as
 * opensm 3.3.23 reads it (osm_prtn_config.c): the forms opensm takes, each
 * with opensm's meaning (entries in order, the last one for a port
 * winning; keywords, memberships and flags by the prefix written; keys
 * and GUIDs in any base; a key in two definitions one partition; mgid=
 * lines); the files opensm rejects, or reads differently from what they
 * say (a lone ';', a header split before its ':', an mgid= reading its
 * flags past its line, '\r', NUL, a line it would cut), each refused with
 * its line; what one-ib cannot know (a partition without a key); the
 * operator's static file carried verbatim and read back the same; every
 * way a file could leave a tenant port a full member, or any member of
 * the cloud's hosts' partition, refused with its line; the refusal notes
 * and origin marks, the round-trip check of the renderer and the
 * canonical check of the root installer.
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
#define STAT "# from: the static file\n"
#define HOSTS "# from: the static file, with the cloud's hosts\n"
#define DEF ONEIB "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

/* the shared fabric's ports (tests/e2e/data/fabric-shared.net) */
#define SM 0x0002c90300000001ULL
#define STOR1 0x0002c903000a0001ULL
#define STOR2 0x0002c903000b0001ULL
#define LOGIN 0x0002c903000c0001ULL
#define NODE02 0x248a070300002001ULL
#define VM10 0x02000000000a0000ULL

static int parse(const char *text, unsigned flags, struct partitions *m,
		 char *err)
{
	return partconf_parse(text, strlen(text), flags, m, err, 256);
}

/* The static file's reading of text: it must be taken. */
static void take(const char *text, struct partitions *m)
{
	char err[256] = "";

	if (partconf_parse_as("site.conf", text, strlen(text), PARTCONF_STATIC,
			      m, err, sizeof(err)))
		fail_msg("'%s' refused: %s", text, err);
}

static void bad(const char *text, unsigned flags, const char *want)
{
	struct partitions m;
	char err[256] = "";

	assert_int_equal(partconf_parse(text, strlen(text), flags, &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_null(m.p);
	assert_null(m.def);
	assert_null(m.notes);
	if (!strstr(err, want))
		fail_msg("'%s': '%s' does not contain '%s'", text, err, want);
}

/* What opensm makes port g (a CA, or the SM's port) in partition pkey. */
static enum pmember ca(const struct partitions *m, uint16_t pkey, uint64_t g)
{
	const struct partition *p = partitions_find(m, pkey);

	assert_non_null(p);
	return partition_port(p, g, PCLASS_CA, g == SM);
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

	/* opensm's grammar: any order, either case, short numbers, the
	 * membership bit of a partition's key masked, members and keywords
	 * of every kind, the default partition anywhere */
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

/*
 * opensm applies a partition's entries in order, the last one for a port
 * winning (osm_prtn_add_port takes the port out of both tables first):
 * the two examples, measured on the real opensm (t0422).
 */
static void member_order_is_opensms(void **state)
{
	struct partitions m;

	(void)state;
	take("storage=0x0200, ipoib : 0x0002c903000a0001=full, "
	     "0x0002c903000b0001=full, ALL_CAS=limited ;\n",
	     &m);
	assert_int_equal(ca(&m, 0x0200, STOR1), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0200, STOR2), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0200, VM10), PM_LIMITED);
	/* a switch's port: ALL_CAS does not reach it */
	assert_int_equal(partition_port(partitions_find(&m, 0x0200), STOR1,
					PCLASS_SWITCH, false),
			 PM_FULL);
	partitions_free(&m);

	take("Default=0x7fff, ipoib : SELF=full, ALL=limited ;\n", &m);
	assert_int_equal(ca(&m, 0x7fff, SM), PM_LIMITED);
	assert_int_equal(ca(&m, 0x7fff, STOR1), PM_LIMITED);
	partitions_free(&m);
	/* the other way round: the SM's port full */
	take("Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n", &m);
	assert_int_equal(ca(&m, 0x7fff, SM), PM_FULL);
	partitions_free(&m);
	/* without a rule for it, opensm's own default partition */
	take("Default=0x7fff, ipoib : 0x0002c903000a0001=full ;\n", &m);
	assert_int_equal(ca(&m, 0x7fff, SM), PM_FULL);
	assert_int_equal(ca(&m, 0x7fff, STOR1), PM_FULL);
	assert_int_equal(ca(&m, 0x7fff, STOR2), PM_LIMITED);
	partitions_free(&m);

	/* a GUID twice, a key in two definitions: the last entry wins, the
	 * first definition's name, the last one's sl */
	take("infra=0x105, sl=3 : 0x0002c903000a0001=limited,\n"
	     "  0x0002c903000a0001=full, 0x0002c903000b0001=full ;\n"
	     "storage=0x200 : 0x0002c903000a0001=full ;\n"
	     "x=0x8105, sl=1 : 0x0002c903000b0001=limited ;\n",
	     &m);
	assert_int_equal(m.n, 2);
	assert_string_equal(partitions_find(&m, 0x0105)->name, "infra");
	assert_int_equal(partitions_find(&m, 0x0105)->ndefs, 2);
	assert_int_equal(partitions_find(&m, 0x0105)->sl, 1);
	assert_int_equal(ca(&m, 0x0105, STOR1), PM_FULL);
	assert_int_equal(ca(&m, 0x0105, STOR2), PM_LIMITED);
	assert_null(partitions_find_name(&m, "x"));
	partitions_free(&m);
}

/* The forms opensm takes, each with opensm's meaning. */
static void opensm_forms_taken(void **state)
{
	struct partitions m;
	const struct partition *p;

	(void)state;
	/* names as opensm keeps them: any printable bytes but = , : ; #,
	 * cut to 31; none: the key; the default partition is "Default" */
	take("stor.age/x@y z=0x0200 : 0x0002c903000a0001=full ;\n"
	     "5lab=0x0300 : ;\n"
	     "abcdefghijklmnopqrstuvwxyz0123456789=0x0301 : ;\n"
	     "=0x0302 : ;\n"
	     "0x0303 : ;\n"
	     "default=0x7fff : ALL=limited ;\n"
	     "Default=0x0304 : ;\n",
	     &m);
	assert_string_equal(partitions_find(&m, 0x0200)->name, "stor.age/x@y "
							       "z");
	assert_string_equal(partitions_find(&m, 0x0300)->name, "5lab");
	assert_string_equal(partitions_find(&m, 0x0301)->name, "abcdefghijklmno"
							       "pqrstuvwxyz0123"
							       "4");
	assert_string_equal(partitions_find(&m, 0x0302)->name, "0302");
	assert_string_equal(partitions_find(&m, 0x0303)->name, "0303");
	assert_non_null(m.def);
	assert_string_equal(m.def->name, "Default");
	assert_string_equal(partitions_find(&m, 0x0304)->name, "Default");
	assert_int_equal(partitions_named(&m, "Default"), 2);
	partitions_free(&m);

	/* keys with strtoul, base 0: decimal, octal, cut to 16 bits, bit 15
	 * dropped; GUIDs with strtoull, base 0 */
	take("a=257 : 12345 ;\nb=0402 : 0777 ;\nc=0x18103 : "
	     "0X0002C903000A0001 ;\n",
	     &m);
	assert_non_null(partitions_find(&m, 0x0101));
	assert_non_null(partitions_find(&m, 0x0102));
	assert_non_null(partitions_find(&m, 0x0103));
	assert_int_equal(ca(&m, 0x0101, 12345), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0102, 0777), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0103, STOR1), PM_LIMITED);
	partitions_free(&m);

	/* memberships by the prefix written ("=" and "f" full, "b" both,
	 * anything else limited); keywords too ("A" ALL, "ALL_" ALL_CAS,
	 * "S" SELF, "N".."NONE" and empty tokens nothing) */
	take("a=0x101 : 0x1=f, 0x2=, 0x3=b, 0x4=limi, 0x5=half, 0x6 ;\n"
	     "b=0x102 : ALL_S=f, ALL_R=limited, S=fu, N, NONE, ,, 0x7 ;\n"
	     "c=0x103, defmember=b : ALL_S ;\n"
	     "d=0x104, defmember= : 0x8 ;\n"
	     "e=0x105 : A=l ;\n",
	     &m);
	assert_int_equal(ca(&m, 0x0101, 1), PM_FULL);
	assert_int_equal(ca(&m, 0x0101, 2), PM_FULL);
	assert_int_equal(ca(&m, 0x0101, 3), PM_BOTH);
	assert_int_equal(ca(&m, 0x0101, 4), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0101, 5), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0101, 6), PM_LIMITED);
	p = partitions_find(&m, 0x0102);
	assert_int_equal(partition_port(p, 9, PCLASS_SWITCH, false), PM_FULL);
	assert_int_equal(partition_port(p, 9, PCLASS_ROUTER, false),
			 PM_LIMITED);
	assert_int_equal(ca(&m, 0x0102, SM), PM_FULL);
	assert_int_equal(ca(&m, 0x0102, 9), PM_NONE);
	assert_int_equal(ca(&m, 0x0102, 7), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0103, STOR1), PM_NONE);
	assert_int_equal(partition_port(partitions_find(&m, 0x0103), STOR1,
					PCLASS_SWITCH, false),
			 PM_BOTH);
	assert_int_equal(ca(&m, 0x0104, 8), PM_FULL);
	assert_int_equal(ca(&m, 0x0105, STOR1), PM_LIMITED);
	partitions_free(&m);

	/* flags opensm takes and one-ib does not render itself: carried */
	take("a=0x101, ipoib, mtu=5, rate=7, sl=2, scope=5, scope=2, "
	     "Q_Key=0x0b1b, TClass=0, FlowLabel=1, indx0, unknown=1 :\n"
	     "    mgid=ff12:401b::1,sl=1,rate=7,mtu=5   # an IPv4 group\n"
	     "    mgid=ff12:601b::16    # MLDv2-capable routers\n"
	     "    ALL=full,\n" /* the SM's own, and switches, only: */
	     "    ALL_CAS=limited ;\n"
	     "b=0x102 : mgid=ff12::1, ALL_SWITCHES=full, 0x0002c903000a0001 "
	     ";\n",
	     &m);
	p = partitions_find(&m, 0x0101);
	assert_int_equal(p->sl, 2);
	assert_true(p->ipoib);
	assert_int_equal(p->mtu, 5);
	assert_int_equal(p->nent, 2);
	assert_true(p->ent[0].indx0);
	assert_int_equal(ca(&m, 0x0101, STOR1), PM_LIMITED);
	/* an mgid= takes the rest of its piece as the group's flags */
	assert_int_equal(partitions_find(&m, 0x0102)->nent, 0);
	partitions_free(&m);

	/* a file that ends in a definition without ';': opensm keeps what
	 * it read of it, and so does one-ib */
	take("storage=0x0200 : 0x0002c903000a0001=full,\n"
	     "    0x0002c903000b0001=full    # stor2\n# the end\n",
	     &m);
	assert_int_equal(ca(&m, 0x0200, STOR2), PM_FULL);
	assert_string_equal(partitions_find(&m, 0x0200)->defs[0].text,
			    "storage=0x0200 : 0x0002c903000a0001=full,\n"
			    "    0x0002c903000b0001=full");
	partitions_free(&m);

	/* UTF-8 and '\r' in a comment: opensm skips them */
	take("# caf\xc3\xa9\r\nstorage=0x0200 : ; # \xc2\xa9\n", &m);
	partitions_free(&m);
}

/* What opensm refuses (then every port falls back to its default). */
static void opensm_rejects(void **state)
{
	(void)state;
	/* the header on one line, up to its ':' */
	bad("storage=0x0200,\n  ipoib : 0x0002c903000a0001=full ;\n",
	    PARTCONF_STATIC, "line 1: no ':' ends the header of a partition");
	bad("storage=0x0200 ;\n", PARTCONF_STATIC,
	    "line 1: no ':' ends the header");
	/* a ';' missing: the next header read as a member */
	bad("a=0x0101 : 0x0002c903000a0001=full\nb=0x0102 : 0x5 ;\n",
	    PARTCONF_STATIC,
	    "line 2: 'b' is no port GUID (0x..., or decimal) and no member "
	    "keyword: opensm refuses the file (a ';' missing before it?)");
	bad("a=0x0101 : 0x0002c903000a0001 0x0002c903000b0001 ;\n",
	    PARTCONF_STATIC,
	    "line 1: '0x0002c903000a0001 0x0002c903000b0001' "
	    "is no port GUID");
	bad("a=0x0101 : 0x0 ;\n", PARTCONF_STATIC, "'0x0' is no port GUID");
	bad("a=0x0101 : 0x12g4 ;\n", PARTCONF_STATIC, "'0x12g4' is no port");
	bad("a=0x0101 : all ;\n", PARTCONF_STATIC, "'all' is no port GUID");
	bad("a=0x0101 : SELFISH ;\n", PARTCONF_STATIC, "'SELFISH' is no port");
	/* NVIDIA's mgroup blocks: a bad port GUID to opensm 3.3.23 */
	bad("a=0x0101 :\n  mgroup={ mgid=ff12::1 } ;\n", PARTCONF_STATIC,
	    "line 2: 'mgroup' is no port GUID");
	/* keys strtoul does not read whole */
	bad("a=0x01z1 : ;\n", PARTCONF_STATIC,
	    "line 1: P_Key '0x01z1' is not a number opensm reads");
	bad("a= : ;\n", PARTCONF_STATIC, "line 1: P_Key '' is not a number");
	bad("1abc : ;\n", PARTCONF_STATIC, "P_Key '1abc' is not a number");
	/* an mgid opensm cannot read */
	bad("a=0x0101 :\n  mgid, ALL ;\n", PARTCONF_STATIC,
	    "line 2: mgid without '=GID': opensm would crash");
	bad("a=0x0101 : mgid=fe80::1,sl=1 ;\n", PARTCONF_STATIC,
	    "line 1: mgid fe80::1 is no multicast GID");
	bad("a=0x0101 : mgid=nonsense ;\n", PARTCONF_STATIC,
	    "mgid nonsense is no multicast GID");
}

/* What opensm reads differently from what it says: refused. */
static void opensm_misreads(void **state)
{
	char line[4200], *big;
	struct partitions m;
	char err[256] = "";
	size_t n;

	(void)state;
	/* a lone ';': opensm reads on past it, into what earlier lines left
	 * in its buffer (t0422: refused or not by those bytes) */
	bad("storage=0x0200 :\n  0x0002c903000a0001=full\n;\n", PARTCONF_STATIC,
	    "line 3: ';' with nothing before it");
	bad(DEF ONEIB "vnet5_a=0x0101, ipoib :\n\t;\n", 0,
	    "line 5: ';' with nothing before it");
	bad("a=0x0101 : 0x5 ;;\n", PARTCONF_STATIC,
	    "line 1: ';' with nothing before it");
	bad("a=0x0101 : 0x5 ; ;\n", PARTCONF_STATIC,
	    "line 1: ';' with nothing before it");
	/* ... which a file of before (one-ib wrote it, once) may hold:
	 * read as it looks, only read */
	assert_int_equal(parse(DEF ONEIB "vnet5_a=0x0101, ipoib :\n\t;\n",
			       PARTCONF_ANY, &m, err),
			 0);
	assert_int_equal(m.n, 1);
	partitions_free(&m);
	/* an mgid= whose flags opensm reads from past its text */
	bad("a=0x0101 : mgid=ff12::1 ;\n", PARTCONF_STATIC,
	    "line 1: mgid=ff12::1 is last before ';': opensm reads what "
	    "follows the ';' as its flags");
	bad("a=0x0101 :\n  mgid=ff12::1\n  ALL ;\n", PARTCONF_STATIC,
	    "line 2: mgid=ff12::1 ends its line: opensm reads what an earlier "
	    "line left in its buffer");
	bad("a=0x0101 :\n  mgid=ff12::1 # caf\xc3\xa9\n  ALL ;\n",
	    PARTCONF_STATIC, "line 2: byte 0xc3 in the comment after an mgid=");
	bad("a=0x0101 :\n  ALL, mgid=ff12::1  # sl=1\n", PARTCONF_STATIC,
	    "line 2: the file ends inside a partition, after an mgid=");
	/* ... with a flag, or the empty one, it reads its own */
	take("a=0x0101 : mgid=ff12::1, ;\n", &m);
	partitions_free(&m);

	/* bytes opensm reads otherwise than they look */
	bad(DEF "a\x01=0x0101 : ;", 0, "line 3: byte 0x01 is not printable");
	bad(DEF "a=0x0101, ipoib : ;\r\n", 0,
	    "line 3: byte 0x0d is not printable ASCII (a carriage return: "
	    "opensm reads it as part of a word)");
	bad("infra=0x0105 : 0x0002c903000a0001=full\xc2\xa0;\n",
	    PARTCONF_STATIC, "line 1: byte 0xc2 is not printable");
	/* NUL: a C reader stops there, opensm reads on */
	assert_int_equal(partconf_parse(DEF "\0x", strlen(DEF) + 2, 0, &m, err,
					sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "line 3: byte 0x00"));
	assert_int_equal(partconf_parse(DEF "# \0x", strlen(DEF) + 4, 0, &m,
					err, sizeof(err)),
			 -EINVAL);

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

	/* one-ib's own partitions keep the 31 characters opensm keeps */
	snprintf(line, sizeof(line), DEF ONEIB "%s=0x0101, ipoib : ;\n",
		 "vnet1_abcdefghijklmnopqrstuvwxyz");
	bad(line, 0,
	    "line 4: partition vnet1_abcdefghijklmnopqrstuvwxy (0x0101), "
	    "marked one-ib's, is not as oneib-partitions writes it: its name "
	    "is "
	    "longer than the 31 characters opensm keeps");
	/* names written before the limit are still read back (--installed) */
	assert_int_equal(parse(line, PARTCONF_ANY, &m, err), 0);
	assert_string_equal(m.p[0].name, "vnet1_abcdefghijklmnopqrstuvwxyz");
	partitions_free(&m);
}

/* What one-ib cannot know: the key opensm would make up. */
static void refuses_keyless(void **state)
{
	(void)state;
	bad("# the lab\nlab : 0x0002c903000a0001=full ;\n", PARTCONF_STATIC,
	    "line 2: partition lab has no P_Key: opensm would choose one "
	    "itself, from what it ran before, which one-ib can neither know "
	    "nor keep from tenant networks (write lab=0x...)");
	bad("Default : ALL=limited ;\n", PARTCONF_STATIC,
	    "partition Default has no P_Key");
	bad(" : ALL=limited ;\n", PARTCONF_STATIC, "partition  has no P_Key");
	bad("lab=0 : ;\n", PARTCONF_STATIC,
	    "line 1: P_Key 0 is 0 to opensm (bit 15 dropped)");
	bad("lab=0x8000 : ;\n", PARTCONF_ANY, "P_Key 0x8000 is 0 to opensm");
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
	bad("a=0x0101 : A=f ;", PARTCONF_STATIC,
	    "line 1: ALL=full would make every tenant VF");
	bad("a=0x0101 : ALL_=, 0x5 ;", PARTCONF_STATIC,
	    "line 1: ALL_CAS=full would make every tenant VF");
	/* the last entry counts: full again after a limited one */
	bad("a=0x0101 :\n ALL_CAS=limited,\n ALL=full ;", PARTCONF_STATIC,
	    "line 3: ALL=full would make every tenant VF");
	/* the default partition and the operator's are not a network's */
	bad("Default=0x7fff : ALL=limited, 0x02000000000a0000=full ;", 0,
	    "line 1: 0x02000000000a0000 (VM 10 NIC 0) is a tenant VF's port "
	    "GUID: never a full member of Default (0x7fff)");
	bad(DEF "# from: the static file\nstor=0x0200 :\n"
		"\t0x0200c0fffea80105=full ;\n",
	    0, "line 5: 0x0200c0fffea80105 (MAC 02:00:c0:a8:01:05 (old GUID))");
	bad(DEF "a=0x0101 : 0x02000000000a0000=full ;", 0,
	    "never a full member of a (0x0101)");
	/* in any base, by "=", by defmember, after a limited entry */
	bad("a=0x0101 : 144115188076511232=f ;", PARTCONF_STATIC,
	    "0x02000000000a0000 (VM 10 NIC 0) is a tenant VF's port GUID");
	bad("a=0x0101 : 0x02000000000a0000= ;", PARTCONF_STATIC,
	    "0x02000000000a0000 (VM 10 NIC 0) is a tenant VF's port GUID");
	bad("a=0x0101 :\n 0x02000000000a0000=limited,\n"
	    " 0x02000000000a0000=full ;",
	    PARTCONF_STATIC, "line 3: 0x02000000000a0000 (VM 10 NIC 0)");
	bad("a=0x0101 : 0x5 ;\na=0x0101, defmember=f : 0x02000000000a0000 ;",
	    PARTCONF_STATIC, "line 2: 0x02000000000a0000 (VM 10 NIC 0)");

	/* what opensm reads last is limited: taken */
	assert_int_equal(parse("a=0x0101 : ALL_CAS=full, ALL_CAS=limited,\n"
			       "  0x02000000000a0000=full, "
			       "0x02000000000a0000=l ;",
			       PARTCONF_STATIC, &m, err),
			 0);
	assert_int_equal(ca(&m, 0x0101, VM10), PM_LIMITED);
	partitions_free(&m);
	/* ... and a keyword after the GUID counts for it too */
	assert_int_equal(parse("a=0x0101 : 0x02000000000a0000=full,\n"
			       "  ALL_CAS=limited ;",
			       PARTCONF_STATIC, &m, err),
			 0);
	assert_int_equal(ca(&m, 0x0101, VM10), PM_LIMITED);
	partitions_free(&m);
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

/*
 * The cloud's hosts' partition, as the installer reads its mark: no
 * tenant port in it at all, not even limited (it would reach every
 * hypervisor), nor through a keyword.
 */
static void hosts_mark_takes_no_tenant(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	bad(HEAD DEF HOSTS "infra=0x0105 :\n\t0x0002c903000a0001=full,\n"
			   "\t0x02000000000a0000=limited,\n"
			   "\t0x248a070300002001=full ;\n",
	    0,
	    "line 7: 0x02000000000a0000 (VM 10 NIC 0) is a tenant VF's port "
	    "GUID: no member of infra (0x0105), the partition of the cloud's "
	    "hosts");
	bad(HEAD DEF HOSTS "infra=0x0105 : ALL_CAS=limited,\n"
			   "\t0x248a070300002001=full ;\n",
	    0,
	    "line 5: ALL_CAS=limited makes every tenant VF a member of infra "
	    "(0x0105), the partition of the cloud's hosts");
	/* the same as the static file's: the renderer's rules (its
	 * ONEIB_HOSTS_PARTITION) decide */
	assert_int_equal(parse(HEAD DEF STAT "infra=0x0105 : ALL_CAS=limited,\n"
					     "\t0x248a070300002001=full ;\n",
			       0, &m, err),
			 0);
	partitions_free(&m);
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
	/* a note inside a definition is the operator's comment */
	assert_int_equal(parse(HEAD DEF STAT "a=0x0101 :\n"
					     "# refused: not a note\n"
					     "  0x5 ;\n",
			       0, &back, err),
			 0);
	assert_int_equal(back.nnotes, 0);
	partitions_free(&back);
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
			       ";\n" ONEIB "vnet7_b=0x0102, ipoib : ;\n",
		DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			  "\t0x02000000002a0000=full,\n"
			  "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			  "0x0102, ipoib : ;\n",
		HEAD "# hand-edited\n" DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 "
		     ":\n"
		     "\t0x02000000002a0000=full,\n"
		     "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b=0x0102, "
		     "ipoib : ;\n",
		HEAD DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			       "\t0x02000000002a0000=full,\n"
			       "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, ipoib : ;",
		HEAD DEF ONEIB "vnet5_a=0x8101, ipoib, mtu=4 :\n"
			       "\t0x02000000002a0000=full,\n"
			       "\t0x02000000002b0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, ipoib : ;\n",
		HEAD DEF ONEIB "vnet5_a=0x0101, ipoib, mtu=4 :\n"
			       "\t0x02000000002b0000=full,\n"
			       "\t0x02000000002a0000=full ;\n" ONEIB "vnet7_b="
			       "0x0102, ipoib : ;\n",
		/* one-ib's after the static file's: the renderer's order is
		 * the default, the carried ones, then one-ib's by key */
		HEAD DEF ONEIB "vnet7_b=0x0102, ipoib : ;\n" STAT "s=0x0200 : "
			       "0x5 ;\n",
		/* the static file's comment kept, the mark's blanks not */
		HEAD DEF "#  from: the static file\ns=0x0200 : 0x5 ;\n",
		HEAD DEF STAT "s=0x0200 : 0x5;\n",
		HEAD DEF STAT "  s=0x0200 : 0x5 ;\n",
	};
	/* a network's partition without its mark is nobody's: its tenant
	 * GUIDs may not be full members there */
	static const char unmarked[] = HEAD DEF "vnet5_a=0x0101, ipoib, mtu=4 "
						":\n"
						"\t0x02000000002a0000=full,\n"
						"\t0x02000000002b0000=full "
						";\n" ONEIB "vnet7_b=0x0102, "
						"ipoib : ;\n";
	/* carried text, comments inside it and all, is the operator's */
	static const char carried[] = HEAD DEF STAT
		"infra=0x105, ipoib, defmember=full : # mine\n"
		"    0x0002C903000C0001,   # login\n"
		"# from: one-ib\n"
		"    A=l ;\n" STAT "storage=0x0200 : 0x0002c903000a0001=f "
		";\n" ONEIB "vnet7_b=0x0102, ipoib : ;\n";
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
		if (parse(variants[i], 0, &m, err))
			fail_msg("variant %zu: %s", i, err);
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
	assert_int_equal(partconf_canonical(carried, strlen(carried), &m, err,
					    sizeof(err)),
			 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(partitions_find(&m, 0x0105)->nent, 2);
	assert_int_equal(ca(&m, 0x0105, LOGIN), PM_LIMITED);
	assert_int_equal(ca(&m, 0x0200, STOR1), PM_FULL);
	partitions_free(&m);
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
		"storage=0x0200, sl=2 : 0x0002c903000b0001=full ; lab=0x300 :"
		" ;\n";
	struct partitions m, back;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(partconf_parse_as("site.conf", text, strlen(text),
					   PARTCONF_STATIC, &m, err,
					   sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 0);
	assert_int_equal(m.n, 3);
	assert_non_null(m.def);
	assert_int_equal(m.def->origin, PO_STATIC);
	assert_int_equal(m.def->n, 1);
	assert_int_equal(m.p[0].origin, PO_STATIC);
	assert_int_equal(m.p[0].line, 4);
	assert_int_equal(m.p[0].pkey, 0x0105);
	assert_int_equal(m.p[0].n, 2);
	assert_int_equal(m.p[1].line, 7);
	assert_int_equal(m.p[1].sl, 2);
	assert_int_equal(m.p[2].line, 7);
	/* rendered: as written, in the file's order, marked, and read back
	 * the same */
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD STAT "Default=0x7fff, ipoib : "
					      "ALL=limited, SELF=full,\n"
					      "    0x0002c903000a0001=full "
					      ";\n" STAT "infra=0x105, ipoib, "
					      "defmember=full :\n"
					      "    0x248A070300001001, "
					      "0x0002c903000c0001 ;\n" STAT
					      "storage=0x0200, sl=2 : "
					      "0x0002c903000b0001=full "
					      ";\n" STAT "lab=0x300 : ;\n");
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	assert_int_equal(
		partconf_canonical(sb.buf, sb.len, &back, err, sizeof(err)), 0);
	assert_true(partitions_equal(&m, &back));
	partitions_free(&back);
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

/*
 * The cloud's hosts at the end of the operator's partition: after its
 * last entry (the last one wins: full), on lines of their own, sorted, a
 * port already full not again; read back as the same partition.
 */
static void hosts_appended(void **state)
{
	static const uint64_t ports[] = { 0x248a070300003001ULL, NODE02,
					  0x0002c90300001001ULL, NODE02,
					  STOR1 };
	struct partitions m, back;
	struct partition *p;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	take("infra=0x0105, ipoib : 0x0002c903000a0001=full,\n"
	     "   0x248a070300002001=limited, ALL_SWITCHES=full ;\n"
	     "infra=0x105 : 0x0002c903000c0001=full ;\n",
	     &m);
	p = &m.p[0];
	assert_int_equal(partition_append_full(p, ports, 5), 0);
	assert_string_equal(p->defs[1].text, "infra=0x105 : "
					     "0x0002c903000c0001=full,\n"
					     "\t0x0002c90300001001=full,\n"
					     "\t0x248a070300002001=full,\n"
					     "\t0x248a070300003001=full");
	assert_int_equal(p->nent, 7);
	assert_int_equal(partition_port(p, NODE02, PCLASS_CA, false), PM_FULL);
	p->origin = p->defs[1].origin = PO_STATIC_HOSTS;
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	assert_int_equal(
		partconf_canonical(sb.buf, sb.len, &back, err, sizeof(err)), 0);
	assert_true(partitions_equal(&m, &back));
	partitions_free(&back);
	partitions_free(&m);
	sb_release(&sb);
	/* after ':' or ',' no second comma */
	take("infra=0x0105 : ;\n", &m);
	assert_int_equal(partition_append_full(&m.p[0], ports, 1), 0);
	assert_string_equal(m.p[0].defs[0].text, "infra=0x0105 :\n"
						 "\t0x248a070300003001=full");
	partitions_free(&m);
}

/* One-ib's form: keywords, limited and "both" members, an empty
 * partition: the canonical text, read back to the same model. */
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
	free(p.guids);
	p.guids = NULL;
	p.n = 0;
	p.origin = PO_UNKNOWN;
	assert_int_equal(partconf_render(&m, &sb), 0);
	assert_string_equal(sb.buf, HEAD DEF "vnet9_storage=0x0109, ipoib, "
					     "sl=2 :\n"
					     "\tALL_SWITCHES=full,\n"
					     "\t0x02000000000a0001=limited "
					     ";\n");
	assert_int_equal(partconf_check(sb.buf, sb.len, &m, err, sizeof(err)),
			 0);
	partition_free(&p);
	sb_release(&sb);
}

/* A file one-ib writes: one-ib's partitions once, one kind per key. */
static void rendered_file_keys(void **state)
{
	(void)state;
	bad(DEF DEF, 0,
	    "line 4: the default partition given twice (line 2, one-ib's, and "
	    "here, one-ib's)");
	bad(DEF ONEIB "a=0x0102, ipoib : ;\n" STAT "b=0x8102, ipoib : ;", 0,
	    "line 6: P_Key 0x0102 given twice (line 4, one-ib's, and here, "
	    "the static file's)");
	bad(DEF STAT "a=0x0102 : ;\n" HOSTS "b=0x0102 : ;\nc=0x0102 : ;", 0,
	    "line 7: P_Key 0x0102 given twice (line 4, the static file's, and "
	    "here, unmarked)");
	bad(DEF ONEIB "a=0x0102, ipoib : ;\n" ONEIB "a=0x0103, ipoib : ;", 0,
	    "line 6: partition name a given twice");
	bad(DEF ONEIB "a=0x0101, ipoib, indx0 : ;", 0,
	    "line 4: partition a (0x0101), marked one-ib's, is not as "
	    "oneib-partitions writes it");
	bad(DEF ONEIB "a=0x0101 : 0x5, ALL ;", 0,
	    "writes it: keywords not first, each once, in their order");
	bad(DEF ONEIB "a=0x0101 : 0x5, 0x5 ;", 0, "writes it: a GUID twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_comments_and_layout),
		cmocka_unit_test(member_order_is_opensms),
		cmocka_unit_test(opensm_forms_taken),
		cmocka_unit_test(opensm_rejects),
		cmocka_unit_test(opensm_misreads),
		cmocka_unit_test(refuses_keyless),
		cmocka_unit_test(refuses_tenant_ports_full),
		cmocka_unit_test(refuses_tenant_ports_both),
		cmocka_unit_test(hosts_mark_takes_no_tenant),
		cmocka_unit_test(static_file),
		cmocka_unit_test(hosts_appended),
		cmocka_unit_test(renders_every_membership),
		cmocka_unit_test(rendered_file_keys),
		cmocka_unit_test(notes_round_trip),
		cmocka_unit_test(check_catches_a_difference),
		cmocka_unit_test(canonical_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
