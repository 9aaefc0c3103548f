// SPDX-License-Identifier: Apache-2.0
/*
 * What verify makes of the QoS tables it read (fabric/qosverify.h), on
 * tables built in memory: opensm's defaults (SL n on VL n, low weight 4 on
 * VLs 1-7, VL 0 high) are in force; an SL dropped (VL 15), on a VL beyond
 * the port's OperVLs, or on a VL with no weight is a fault named with its
 * port (the first VL past the data VLs too, on either side); two planned
 * SLs on one VL are merged classes; a port without the key is no part of
 * it. And the QoS policy against the partitions, and
 * opensm.conf's qos_policy_file.
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

#include "fabric/osmconf.h"
#include "fabric/qosverify.h"
#include "root/qospolicy.h"

static uint16_t keys_a[] = { 0x7fff, 0x8101 }, keys_c[] = { 0x7fff, 0x0103 },
		keys_none[] = { 0x7fff };

static struct fabric_port port(uint64_t g, uint16_t *keys, size_t n)
{
	struct fabric_port p = { 0 };

	p.port_guid = g;
	p.pkeys = keys;
	p.npkeys = n;
	p.vls.oper_vls = 4; /* VL0-7 */
	p.sw_vls.oper_vls = 4;
	p.sw_guid = 0x0002c90200000a00ULL;
	p.sw_port = 3;
	return p;
}

/* opensm's defaults with qos TRUE and no qos_* lines */
static void defaults(struct port_tables *t, const struct fabric_port *p)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->port = p;
	for (i = 0; i < 16; i++)
		t->sl2vl[i] = t->sw_sl2vl[i] = (uint8_t)(i & 7);
	for (i = 1; i < 8; i++)
		t->arb.low[i] = t->sw_arb.low[i] = 4;
	t->arb.high[0] = t->sw_arb.high[0] = 4;
	t->sw = true;
}

static struct partition parts[3];
static struct partitions model = { .p = parts, .n = 3 };

static void setup_model(void)
{
	memset(parts, 0, sizeof(parts));
	parts[0].pkey = 0x0101;
	parts[0].sl = 2;
	snprintf(parts[0].name, sizeof(parts[0].name), "vnet5_a");
	parts[1].pkey = 0x0102;
	parts[1].sl = -1;
	parts[2].pkey = 0x0103;
	parts[2].sl = 1;
}

/* a's two VFs and a third port, opensm's defaults on all three, and the
 * model */
static void three_ports(struct fabric_port p[3], struct fabric_port third,
			struct fabric *f, struct port_tables t[3])
{
	int i;

	p[0] = port(0x02000000000a0000ULL, keys_a, 2);
	p[1] = port(0x02000000000b0000ULL, keys_a, 2);
	p[2] = third;
	memset(f, 0, sizeof(*f));
	f->p = p;
	f->n = 3;
	setup_model();
	for (i = 0; i < 3; i++)
		defaults(&t[i], &p[i]);
}

static void in_force(void **state)
{
	struct fabric_port p[3];
	struct fabric f;
	struct port_tables t[3];
	struct qos_result q;

	(void)state;
	three_ports(p, port(0x02000000000e0000ULL, keys_c, 2), &f, t);
	assert_int_equal(qos_verify_judge(&model, &f, t, 3, &q), 0);
	assert_int_equal(q.nc, 2); /* partitions with an SL */
	assert_int_equal(q.c[0].nports, 2);
	assert_int_equal(q.c[0].vl, 2);
	assert_int_equal(q.c[0].low, 4);
	assert_int_equal(q.c[0].high, 0);
	assert_true(q.c[0].sw);
	assert_int_equal(q.c[0].nfaults, 0);
	assert_int_equal(q.c[1].nports, 1); /* c: its limited key too */
	assert_int_equal(q.c[1].vl, 1);
	assert_int_equal(q.nm, 0);
	assert_int_equal(q.min_vls, 8);
	assert_int_equal(q.min_sw_vls, 8);
	qos_result_free(&q);
}

static void faults_and_merges(void **state)
{
	struct fabric_port p[3];
	struct fabric f;
	struct port_tables t[3];
	struct qos_result q;
	int i;

	(void)state;
	three_ports(p, port(0x0002c90300000001ULL, keys_none, 1), &f, t);
	/* the second port's switch side drops SL 2 */
	t[1].sw_sl2vl[2] = 15;
	assert_int_equal(qos_verify_judge(&model, &f, t, 3, &q), 0);
	assert_int_equal(q.c[0].nfaults, 1);
	assert_ptr_equal(q.c[0].fault_port, &p[1]);
	assert_true(q.c[0].fault_sw);
	assert_int_equal(q.c[0].fault, QF_DROPPED);
	assert_int_equal(q.c[0].vl, -1); /* 2 here, 15 there */
	assert_string_equal(qos_fault_text(QF_DROPPED), "dropped (VL 15)");
	qos_result_free(&q);

	/* a port with 4 data VLs where SL 2 should be on VL 6; then no
	 * weight for VL 2 */
	defaults(&t[1], &p[1]);
	p[0].vls.oper_vls = 3; /* VL0-3 */
	t[0].sl2vl[2] = 6;
	t[1].arb.low[2] = 0;
	assert_int_equal(qos_verify_judge(&model, &f, t, 3, &q), 0);
	assert_int_equal(q.c[0].nfaults, 2);
	assert_int_equal(q.c[0].fault, QF_NO_SUCH_VL);
	assert_int_equal(q.c[0].fault_vl, 6);
	assert_int_equal(q.min_vls, 4);
	qos_result_free(&q);

	/* SL 1 (c, no port here: not planned in this fabric) and SL 2: c
	 * holds no port, so only a's SL counts; give c a port, then fold */
	p[0].vls.oper_vls = 4;
	defaults(&t[0], &p[0]);
	defaults(&t[1], &p[1]);
	p[2].pkeys = keys_c;
	p[2].npkeys = 2;
	for (i = 0; i < 3; i++)
		t[i].sl2vl[2] = 1; /* SL 2 folded onto VL 1, CA side only */
	assert_int_equal(qos_verify_judge(&model, &f, t, 3, &q), 0);
	assert_int_equal(q.nm, 1);
	assert_int_equal(q.m[0].a, 1);
	assert_int_equal(q.m[0].b, 2);
	assert_int_equal(q.m[0].vl, 1);
	assert_int_equal(q.m[0].nports, 3);
	assert_false(q.m[0].example_sw);
	qos_result_free(&q);
}

/*
 * A port's data VLs are VL 0 up to OperVLs' count less one: the SL of
 * partition a on the first VL past them is not in force, though that VL
 * has a weight, on the port's side and on the switch's alike; on the last
 * one it is. For each OperVLs code: 1, 2, 4, 8 and 15 data VLs (past 15
 * is VL 15, which drops).
 */
static void first_vl_past_the_data_vls(void **state)
{
	static const struct {
		uint8_t oper;
		int vls;
	} codes[] = { { 1, 1 }, { 2, 2 }, { 3, 4 }, { 4, 8 }, { 5, 15 } };
	struct fabric_port p[3];
	struct fabric f;
	struct port_tables t[3];
	struct qos_result q;
	size_t c;
	int side, vl;

	(void)state;
	for (c = 0; c < sizeof(codes) / sizeof(*codes); c++)
		for (side = 0; side < 2; side++)
			for (vl = codes[c].vls - 1; vl <= codes[c].vls; vl++) {
				bool past = vl == codes[c].vls;
				int i;

				three_ports(p,
					    port(0x0002c90300000001ULL,
						 keys_none, 1),
					    &f, t);
				for (i = 0; i < 3; i++) {
					p[i].vls.oper_vls = codes[c].oper;
					p[i].sw_vls.oper_vls = codes[c].oper;
					/* every VL weighted: only the count
					 * can fault it */
					memset(t[i].arb.low, 0,
					       sizeof(t[i].arb.low));
					memset(t[i].sw_arb.low, 0,
					       sizeof(t[i].sw_arb.low));
					for (int k = 0; k < 15; k++)
						t[i].arb.low[k] =
							t[i].sw_arb.low[k] = 4;
					t[i].sl2vl[2] = t[i].sw_sl2vl[2] = 0;
				}
				if (side)
					t[1].sw_sl2vl[2] = (uint8_t)vl;
				else
					t[1].sl2vl[2] = (uint8_t)vl;
				assert_int_equal(qos_verify_judge(&model, &f, t,
								  3, &q),
						 0);
				if (q.c[0].nfaults != (past ? 1u : 0u))
					fail_msg("%d data VLs, SL 2 on VL %d "
						 "(%s side): %zu faults",
						 codes[c].vls, vl,
						 side ? "switch" : "port",
						 q.c[0].nfaults);
				if (past) {
					/* past 15 data VLs is VL 15 */
					assert_int_equal(
						q.c[0].fault,
						vl == 15 ? QF_DROPPED
							 : QF_NO_SUCH_VL);
					assert_int_equal(q.c[0].fault_vl, vl);
					assert_ptr_equal(q.c[0].fault_port,
							 &p[1]);
					assert_int_equal(q.c[0].fault_sw, side);
				}
				qos_result_free(&q);
			}
}

static void policy_against_partitions(void **state)
{
	struct qos_rule r[2] = { { 0x0101, 2 }, { 0x0103, 5 } };
	struct qos_policy pol = { 0, r, 2 };
	const struct partition *first;
	int sl = -1;

	(void)state;
	setup_model();
	assert_int_equal(qos_policy_differs(&pol, &model, &first, &sl), 1);
	assert_ptr_equal(first, &parts[2]);
	assert_int_equal(sl, 5);
	r[1].sl = 1;
	assert_int_equal(qos_policy_differs(&pol, &model, &first, &sl), 0);
	pol.n = 1; /* no rule for c: the default, 0 */
	assert_int_equal(qos_policy_differs(&pol, &model, &first, &sl), 1);
	assert_int_equal(sl, 0);
}

static void osmconf_policy_file(void **state)
{
	static const char text[] = "qos TRUE\n"
				   "qos_policy_file /etc/opensm/one.conf\n";
	struct osm_conf oc;
	char err[128];

	(void)state;
	assert_int_equal(osmconf_parse("qos TRUE\n", 9, &oc, err, sizeof(err)),
			 0);
	assert_string_equal(oc.policy_file, "/etc/opensm/qos-policy.conf");
	assert_int_equal(
		osmconf_parse(text, strlen(text), &oc, err, sizeof(err)), 0);
	assert_true(oc.qos);
	assert_string_equal(oc.policy_file, "/etc/opensm/one.conf");
	/* allow_both_pkeys as opensm reads a boolean: "TRUE" or not */
	assert_false(oc.allow_both_pkeys);
	assert_int_equal(osmconf_parse("allow_both_pkeys TRUE\n", 22, &oc, err,
				       sizeof(err)),
			 0);
	assert_true(oc.allow_both_pkeys);
	assert_int_equal(osmconf_parse("allow_both_pkeys true\n", 22, &oc, err,
				       sizeof(err)),
			 0);
	assert_false(oc.allow_both_pkeys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_force),
		cmocka_unit_test(faults_and_merges),
		cmocka_unit_test(first_vl_past_the_data_vls),
		cmocka_unit_test(policy_against_partitions),
		cmocka_unit_test(osmconf_policy_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
