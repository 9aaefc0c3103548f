// SPDX-License-Identifier: Apache-2.0
/*
 * The SL plan (fabric/slplan.h) as a pure function, on a small fabric of
 * two leaves (A: hosts 1, 2, 5; B: hosts 3, 4; host 6 with no known leaf):
 * disjoint clusters share an SL, one spanning both gets its own; SLs stay
 * while VMs come and go; the best-effort SL and its warning when the pool
 * runs out (K + 1 conflicting networks); pins; the settings' refusals; the
 * same input always gives the same plan, whatever the order of its hosts.
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

#include "fabric/slplan.h"

#define LEAF_A 0x0002c90200000a00ull
#define LEAF_B 0x0002c90200000b00ull

static const uint64_t leaf_a[] = { LEAF_A }, leaf_b[] = { LEAF_B },
		      leaf_none[] = { 0 };
static const uint64_t leaf_ab[] = { LEAF_A, LEAF_B };

static const struct slplan_host hosts[] = {
	{ 1, leaf_a, 1 },  { 2, leaf_a, 1 }, { 3, leaf_b, 1 },
	{ 4, leaf_b, 1 },  { 5, leaf_a, 1 }, { 6, leaf_none, 1 },
	{ 7, leaf_ab, 2 }, /* two ports, one under each leaf */
};
#define NHOSTS (sizeof(hosts) / sizeof(hosts[0]))

static struct sl_opts opts(const char *sls, const char *be)
{
	struct sl_opts o;
	char err[128] = "";

	assert_int_equal(sl_opts_parse(sls, be, &o, err, sizeof(err)), 0);
	return o;
}

static struct slplan_net net(int id, const char *label, const int *h, size_t nh)
{
	struct slplan_net n = { id, label, -1, -1, h, nh };

	return n;
}

static const int h12[] = { 1, 2 }, h34[] = { 3, 4 }, h13[] = { 1, 3 },
		 h1[] = { 1 }, h5[] = { 5 }, h3[] = { 3 }, h123[] = { 1, 2, 3 };

static void plan(const struct slplan_net *n, size_t nn, const char *sls,
		 struct sl_plan *p)
{
	struct sl_opts o = opts(sls, "0");

	assert_int_equal(sl_plan_make(n, nn, hosts, NHOSTS, &o, p), 0);
}

static char *explain(const struct sl_plan *p, const struct slplan_net *n,
		     size_t i)
{
	static char buf[512];
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(sl_plan_explain(p, n, i, &sb), 0);
	snprintf(buf, sizeof(buf), "%s", sb_str(&sb));
	sb_release(&sb);
	return buf;
}

static char *warnings(const struct sl_plan *p, const struct slplan_net *n)
{
	static char buf[2048];
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(sl_plan_warnings(p, n, &sb), 0);
	snprintf(buf, sizeof(buf), "%s", sb_str(&sb));
	sb_release(&sb);
	return buf;
}

/* The acceptance's three clusters: a on leaf A, b on leaf B, c on both. */
static void disjoint_share_spanning_apart(void **state)
{
	struct slplan_net n[] = {
		net(5, "VNET 5 (a)", h12, 2),
		net(7, "VNET 7 (b)", h34, 2),
		net(9, "VNET 9 (c)", h13, 2),
	};
	struct sl_plan p;

	(void)state;
	plan(n, 3, "1-7", &p);
	assert_false(p.c[0].spans);
	assert_false(p.c[1].spans);
	assert_true(p.c[2].spans);
	/* c spans, so it is placed first and takes SL 1 */
	assert_int_equal(p.c[2].sl, 1);
	assert_int_equal(p.c[0].sl, 2);
	assert_int_equal(p.c[1].sl, 2);
	assert_int_equal(p.c[0].why, SLW_NEW);
	assert_int_equal(p.c[2].nconflicts, 2);
	assert_int_equal(p.nshared, 0);
	assert_int_equal(p.nclash, 0);
	assert_string_equal(explain(&p, n, 2), "new: the lowest of SLs 1-7 no "
					       "network it conflicts with has; "
					       "VMs on 2 hosts under 2 leaves "
					       "(spans); conflicts with 2: "
					       "VNET 5 (a) SL 2 (HOST 1), VNET "
					       "7 (b) SL 2 (HOST 3)");
	assert_string_equal(explain(&p, n, 0), "new: the lowest of SLs 1-7 no "
					       "network it "
					       "conflicts with has; VMs on 2 "
					       "hosts under 1 leaf; "
					       "conflicts with 1: VNET 9 (c) "
					       "SL 1 (HOST 1)");
	assert_string_equal(warnings(&p, n), "");
	sl_plan_free(&p);
}

/* Sticky: what is installed stays, adding a VM (even one that makes a
 * clash) never moves it, and a network with no VMs lets go of its SL. */
static void installed_sls_stay(void **state)
{
	static const int a_grown[] = { 1, 2, 3 };
	struct slplan_net n[] = {
		net(5, "VNET 5 (a)", a_grown, 3), /* a VM on host 3 now */
		net(7, "VNET 7 (b)", h34, 2),
		net(9, "VNET 9 (c)", h13, 2),
		net(11, "VNET 11 (idle)", NULL, 0),
	};
	struct sl_plan p;

	(void)state;
	n[0].installed = 2;
	n[1].installed = 2;
	n[2].installed = 1;
	n[3].installed = 4;
	plan(n, 4, "1-7", &p);
	assert_int_equal(p.c[0].sl, 2);
	assert_int_equal(p.c[0].why, SLW_KEPT);
	assert_true(p.c[0].spans);
	assert_int_equal(p.c[1].sl, 2);
	assert_int_equal(p.c[2].sl, 1);
	assert_int_equal(p.c[3].sl, -1);
	assert_int_equal(p.c[3].why, SLW_NO_VMS);
	/* a and b now share host 3 on one SL: a clash, said once */
	assert_int_equal(p.nclash, 1);
	assert_int_equal(p.clash[0].a, 0);
	assert_int_equal(p.clash[0].b, 1);
	assert_int_equal(p.clash[0].host, 3);
	assert_string_equal(warnings(&p, n), "SL plan: networks that can share "
					     "a link have one SL: VNET 5 "
					     "(a) and VNET 7 (b) SL 2 (HOST "
					     "3): an SL is kept while its "
					     "network has VMs (or pinned by "
					     "IB_SL), so their traffic shares "
					     "a class until one of them has "
					     "none\n");
	assert_string_equal(explain(&p, n, 3), "no VMs: no SL of its own, best "
					       "effort until it "
					       "has some");
	sl_plan_free(&p);

	/* idle again has VMs: a new SL, its old one is not remembered */
	n[3].hosts = h5;
	n[3].nhosts = 1;
	n[3].installed = -1;
	plan(n, 4, "1-7", &p);
	assert_int_equal(p.c[3].sl, 1);
	assert_int_equal(p.c[3].why, SLW_NEW);
	sl_plan_free(&p);
}

/* K + 1 networks on one host: K get their own, the last best effort,
 * one warning naming it; it gets its own once one is free. */
static void pool_runs_out(void **state)
{
	static char labels[8][32];
	struct slplan_net n[8];
	struct sl_plan p;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++) {
		snprintf(labels[i], sizeof(labels[i]), "VNET %zu (n%zu)",
			 10 + i, i);
		n[i] = net((int)(10 + i), labels[i], h1, 1);
	}
	plan(n, 8, "1-7", &p);
	for (i = 0; i < 7; i++)
		assert_int_equal(p.c[i].sl, (int)i + 1);
	assert_int_equal(p.c[7].sl, 0);
	assert_int_equal(p.c[7].why, SLW_BEST_EFFORT);
	assert_int_equal(p.nshared, 1);
	assert_int_equal(p.nclash, 0);
	assert_string_equal(warnings(&p, n), "SL plan: no SL of 1-7 is free "
					     "for VNET 17 (n7): each is taken "
					     "by a network it can share a link "
					     "with, so it gets the "
					     "best-effort SL 0 (place it under "
					     "fewer leaves, or give the "
					     "clusters more SLs: ONEIB_SLS)\n");
	assert_string_equal(explain(&p, n, 7), "best effort: each of SLs 1-7 "
					       "is taken by a "
					       "network it conflicts with; VMs "
					       "on 1 host under 1 "
					       "leaf; conflicts with 7: VNET "
					       "10 (n0) SL 1 (HOST "
					       "1), VNET 11 (n1) SL 2 (HOST "
					       "1), VNET 12 (n2) SL "
					       "3 (HOST 1), ...");
	sl_plan_free(&p);

	/* n0 leaves; the rest keep theirs, n7 gets SL 1 */
	for (i = 0; i < 8; i++)
		n[i].installed = i < 7 ? (int)i + 1 : 0;
	n[0].hosts = NULL;
	n[0].nhosts = 0;
	plan(n, 8, "1-7", &p);
	for (i = 1; i < 7; i++) {
		assert_int_equal(p.c[i].sl, (int)i + 1);
		assert_int_equal(p.c[i].why, SLW_KEPT);
	}
	assert_int_equal(p.c[7].sl, 1);
	assert_int_equal(p.c[7].lost, SLL_BEST_EFFORT);
	assert_string_equal(warnings(&p, n), "");
	sl_plan_free(&p);
}

/* IB_SL pins; a kept SL that a pinned neighbour takes moves; a kept SL
 * outside the pool moves. */
static void pins_and_pool(void **state)
{
	struct slplan_net n[] = {
		net(5, "VNET 5 (a)", h12, 2),
		net(7, "VNET 7 (b)", h1, 1),
		net(9, "VNET 9 (c)", h5, 1),
	};
	struct sl_plan p;

	(void)state;
	n[0].pinned = 3;
	n[1].installed = 3; /* a was pinned to 3 after b got it */
	n[2].installed = 9;
	plan(n, 3, "1-7", &p);
	assert_int_equal(p.c[0].sl, 3);
	assert_int_equal(p.c[0].why, SLW_PINNED);
	assert_int_equal(p.c[1].sl, 1);
	assert_int_equal(p.c[1].lost, SLL_PINNED);
	assert_int_equal(p.c[1].taker, 0);
	assert_int_equal(p.c[2].sl, 1); /* never meets b */
	assert_int_equal(p.c[2].lost, SLL_NOT_IN_POOL);
	assert_string_equal(explain(&p, n, 1), "new: the lowest of SLs 1-7 no "
					       "network it "
					       "conflicts with has (its "
					       "installed SL 3 is VNET 5 "
					       "(a)'s IB_SL); VMs on 1 host "
					       "under 1 leaf; "
					       "conflicts with 1: VNET 5 (a) "
					       "SL 3 (HOST 1)");
	assert_string_equal(explain(&p, n, 2), "new: the lowest of SLs 1-7 no "
					       "network it "
					       "conflicts with has (its "
					       "installed SL 9 is not "
					       "one of them); VMs on 1 host "
					       "under 1 leaf; "
					       "conflicts with none");
	assert_string_equal(explain(&p, n, 0), "IB_SL 3 set on the network; "
					       "VMs on 2 hosts under "
					       "1 leaf; conflicts with 1: VNET "
					       "7 (b) SL 1 (HOST "
					       "1)");
	sl_plan_free(&p);

	/* two pinned to the best-effort SL on one host share it by design:
	 * no clash; two pinned to SL 3 there do clash */
	n[0].pinned = 0;
	n[1].pinned = 0;
	plan(n, 3, "1-7", &p);
	assert_int_equal(p.nclash, 0);
	sl_plan_free(&p);
	n[0].pinned = 3;
	n[1].pinned = 3;
	plan(n, 3, "1-7", &p);
	assert_int_equal(p.nclash, 1);
	assert_int_equal(p.clash[0].host, 1);
	sl_plan_free(&p);
	n[1].pinned = -1;

	/* a pinned SL outside the pool is the operator's word too; a
	 * network with no VMs keeps its pin */
	n[0].pinned = 12;
	n[0].hosts = NULL;
	n[0].nhosts = 0;
	plan(n, 3, "1-7", &p);
	assert_int_equal(p.c[0].sl, 12);
	assert_int_equal(p.c[0].why, SLW_PINNED);
	sl_plan_free(&p);
}

/* What is not known could be anywhere: a host without a leaf, a VM without
 * a host; one host never spans, one host with ports under two leaves does
 * not either, two such hosts do. */
static void unknown_leaves_span(void **state)
{
	static const int h16[] = { 1, 6 }, h6[] = { 6, 6 },
			 h1x[] = { 1, SLPLAN_HOST_UNKNOWN }, h7[] = { 7 },
			 h77[] = { 7, 2 }, h99[] = { 99, 1 };
	struct slplan_net n[] = {
		net(1, "VNET 1", h16, 2),  net(2, "VNET 2", h6, 2),
		net(3, "VNET 3", h1x, 2),  net(4, "VNET 4", h7, 1),
		net(5, "VNET 5", h77, 2),  net(6, "VNET 6", h99, 2),
		net(7, "VNET 7", h123, 3),
	};
	struct sl_plan p;

	(void)state;
	plan(n, 7, "1-7", &p);
	assert_true(p.c[0].spans);
	assert_true(p.c[0].unknown);
	assert_false(p.c[1].spans); /* one host */
	assert_true(p.c[2].spans);
	assert_false(p.c[3].spans);
	assert_int_equal(p.c[3].nleaves, 2);
	assert_true(p.c[4].spans);
	assert_true(p.c[5].spans); /* host 99 is in no listing */
	assert_true(p.c[6].spans);
	/* every one that spans conflicts with every other that does: VNET 1,
	 * 5, 6, 7 (1, 6 and 7 share host 1 with it too, counted once) */
	assert_int_equal(p.c[2].nconflicts, 4);
	assert_int_equal(p.c[2].nshown, 3);
	assert_int_equal(p.c[2].shown[0].host, 1);
	assert_int_equal(p.c[2].shown[1].host, -1); /* VNET 5: spans */
	sl_plan_free(&p);
}

/* Same input, same plan; the hosts' order and repeated hosts change
 * nothing. */
static void deterministic(void **state)
{
	static const int h21[] = { 2, 1, 1, 2 };
	struct slplan_host shuffled[NHOSTS];
	struct slplan_net n[] = {
		net(5, "VNET 5 (a)", h12, 2),
		net(7, "VNET 7 (b)", h34, 2),
		net(9, "VNET 9 (c)", h13, 2),
		net(11, "VNET 11 (d)", h3, 1),
	};
	struct sl_opts o = opts("1-7", "0");
	struct sl_plan p, q;
	size_t i;

	(void)state;
	for (i = 0; i < NHOSTS; i++)
		shuffled[i] = hosts[NHOSTS - 1 - i];
	assert_int_equal(sl_plan_make(n, 4, hosts, NHOSTS, &o, &p), 0);
	n[0].hosts = h21;
	n[0].nhosts = 4;
	assert_int_equal(sl_plan_make(n, 4, shuffled, NHOSTS, &o, &q), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(p.c[i].sl, q.c[i].sl);
		assert_int_equal(p.c[i].nconflicts, q.c[i].nconflicts);
		assert_string_equal(explain(&p, n, i), explain(&q, n, i));
	}
	sl_plan_free(&p);
	sl_plan_free(&q);
}

static void settings(void **state)
{
	struct sl_opts o;
	char err[160], list[SL_LIST_STRLEN];

	(void)state;
	assert_int_equal(sl_opts_parse("1-7", "0", &o, err, sizeof(err)), 0);
	assert_int_equal(o.pool, 0x00fe);
	assert_int_equal(sl_opts_parse("1,2,5-7", "15", &o, err, sizeof(err)),
			 0);
	assert_int_equal(o.pool, 0x00e6);
	assert_int_equal(o.best_effort, 15);
	sl_list_fmt(o.pool, list);
	assert_string_equal(list, "1-2,5-7");
	sl_list_fmt(0, list);
	assert_string_equal(list, "none");
	assert_int_equal(sl_opts_parse("", "0", &o, err, sizeof(err)), 0);
	assert_int_equal(o.pool, 0);
	assert_int_equal(sl_opts_parse("1-16", "0", &o, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SLS '1-16': SL 16 is not 0..15");
	assert_int_equal(sl_opts_parse("7-1", "0", &o, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SLS '7-1': 7-1 is an empty range");
	assert_int_equal(sl_opts_parse("1;2", "0", &o, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SLS '1;2': not a list of SLs "
				 "(\"1-7\")");
	assert_int_equal(sl_opts_parse("0-7", "0", &o, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SL_BEST_EFFORT 0 is in ONEIB_SLS 0-7: "
				 "the shared SL cannot be one network's own "
				 "too");
	assert_int_equal(sl_opts_parse("1-7", "x", &o, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SL_BEST_EFFORT 'x': not an SL 0..15");
	assert_int_equal(sl_opts_parse("1-7", "16", &o, err, sizeof(err)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(disjoint_share_spanning_apart),
		cmocka_unit_test(installed_sls_stay),
		cmocka_unit_test(pool_runs_out),
		cmocka_unit_test(pins_and_pool),
		cmocka_unit_test(unknown_leaves_span),
		cmocka_unit_test(deterministic),
		cmocka_unit_test(settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
