// SPDX-License-Identifier: Apache-2.0
/*
 * What verify makes of the P_Key tables the walk read (fabric/partverify.h),
 * on a fabric built in memory: a port holds exactly the entries its
 * memberships give it, the membership bit included, so a member held in
 * the wrong form (full where limited was rendered, or the reverse, in a
 * network's partition or the default one) is drift; and a port whose
 * entries do not fit its P_Key table (PartitionCap) or its switch port's
 * enforcement table is reported from the first entry too many on, with
 * the keys opensm dropped.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/partverify.h"

/*
 * One-ib's default partition; tenant a with VM 1 NIC 0 (full); service
 * network s with its storage server (full) and VM 1 NIC 1 (limited).
 */
static const char model_text[] = "Default=0x7fff, ipoib : ALL=limited, "
				 "SELF=full ;\n"
				 "a=0x0101, ipoib : 0x0200000000010000=full ;\n"
				 "s=0x0109, ipoib : 0x0002c903000a0001=full,\n"
				 "    0x0200000000010001=limited ;\n";

#define VM1_NIC0 0x0200000000010000ULL
#define VM1_NIC1 0x0200000000010001ULL
#define STORAGE 0x0002c903000a0001ULL

static void read_model(struct partitions *m)
{
	char err[256] = "";

	if (partconf_parse(model_text, strlen(model_text), PARTCONF_ANY, m, err,
			   sizeof(err)))
		fail_msg("%s", err);
}

static struct fabric_port ca(uint64_t g, uint16_t lid, uint16_t *keys, size_t n)
{
	struct fabric_port p = { 0 };

	p.port_guid = g;
	p.node_guid = g;
	p.lid = lid;
	p.port_num = 1;
	p.type = SMP_NODE_CA;
	p.pkeys = keys;
	p.npkeys = n;
	return p;
}

/* The three member ports holding keys0, keys1, keys2; the SM elsewhere. */
static void verify(const struct partitions *m, uint16_t *k0, size_t n0,
		   uint16_t *k1, size_t n1, uint16_t *k2, size_t n2,
		   struct fabric_port p[3], struct verify_result *res)
{
	struct fabric f = { 0 };

	p[0] = ca(VM1_NIC0, 2, k0, n0);
	p[1] = ca(VM1_NIC1, 3, k1, n1);
	p[2] = ca(STORAGE, 4, k2, n2);
	f.p = p;
	f.n = 3;
	f.sm_lid = 1;
	assert_int_equal(partitions_verify(m, &f, false, res), 0);
}

static void entries_equal(const uint16_t *got, size_t n, const uint16_t *want,
			  size_t nwant)
{
	size_t i;

	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("entry %zu: 0x%04x, want 0x%04x", i, got[i],
				 want[i]);
}

/* Exactly what the memberships give: no drift, every member present. */
static void tables_as_rendered(void **state)
{
	uint16_t k0[] = { 0x7fff, 0x8101 }, k1[] = { 0x0109, 0x7fff },
		 k2[] = { 0x7fff, 0x8109 };
	struct fabric_port p[3];
	struct partitions m;
	struct verify_result res;

	(void)state;
	read_model(&m);
	verify(&m, k0, 2, k1, 2, k2, 2, p, &res);
	assert_int_equal(res.ndrift, 0);
	assert_int_equal(res.ncap, 0);
	assert_int_equal(res.present, 3);
	assert_int_equal(res.absent, 0);
	verify_result_free(&res);
	partitions_free(&m);
}

/*
 * Each port with one table in the wrong form; the others as rendered.
 * What port held what is drift, with both tables.
 */
static void membership_bit_is_drift(void **state)
{
	static const struct {
		const char *what;
		size_t port;
		uint16_t have[3]; /* sorted, as drift gives it */
		size_t n;
		uint16_t want[2];
	} cases[] = {
		{ "VM 1 NIC 1 full in s, limited rendered",
		  1,
		  { 0x7fff, 0x8109 },
		  2,
		  { 0x0109, 0x7fff } },
		{ "VM 1 NIC 1 full in s and in Default",
		  1,
		  { 0x8109, 0xffff },
		  2,
		  { 0x0109, 0x7fff } },
		{ "VM 1 NIC 0 full in Default, limited rendered",
		  0,
		  { 0x8101, 0xffff },
		  2,
		  { 0x7fff, 0x8101 } },
		{ "VM 1 NIC 0 limited in a, full rendered",
		  0,
		  { 0x0101, 0x7fff },
		  2,
		  { 0x7fff, 0x8101 } },
		{ "the storage server limited in s, full rendered",
		  2,
		  { 0x0109, 0x7fff },
		  2,
		  { 0x7fff, 0x8109 } },
		{ "the storage server both in s, full rendered",
		  2,
		  { 0x0109, 0x7fff, 0x8109 },
		  3,
		  { 0x7fff, 0x8109 } },
	};
	uint16_t ok[3][2] = { { 0x7fff, 0x8101 },
			      { 0x0109, 0x7fff },
			      { 0x7fff, 0x8109 } };
	struct fabric_port p[3];
	struct partitions m;
	struct verify_result res;
	size_t i;

	(void)state;
	read_model(&m);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		uint16_t have[3][3];
		size_t n[3] = { 2, 2, 2 }, k;

		for (k = 0; k < 3; k++)
			memcpy(have[k], ok[k], sizeof(ok[k]));
		memcpy(have[cases[i].port], cases[i].have,
		       sizeof(cases[i].have));
		n[cases[i].port] = cases[i].n;
		verify(&m, have[0], n[0], have[1], n[1], have[2], n[2], p,
		       &res);
		if (res.ndrift != 1)
			fail_msg("%s: %zu ports drift, want 1", cases[i].what,
				 res.ndrift);
		assert_ptr_equal(res.drift[0].port, &p[cases[i].port]);
		entries_equal(res.drift[0].have, res.drift[0].nhave,
			      cases[i].have, cases[i].n);
		entries_equal(res.drift[0].want, res.drift[0].nwant,
			      cases[i].want, 2);
		assert_int_equal(res.ncap, 0);
		verify_result_free(&res);
	}
	partitions_free(&m);
}

/*
 * PartitionCap and the switch port's enforcement capacity: VM 1 NIC 1
 * needs two entries. A table of two fits; of one it does not, and the
 * entry it lacks is what opensm dropped. The same for the switch side.
 */
static void one_entry_beyond_the_table(void **state)
{
	uint16_t k0[] = { 0x7fff, 0x8101 }, k1[] = { 0x0109, 0x7fff },
		 full1[] = { 0x7fff }, k2[] = { 0x7fff, 0x8109 };
	struct fabric_port p[3];
	struct fabric f = { 0 };
	struct partitions m;
	struct verify_result res;
	int side;

	(void)state;
	read_model(&m);
	for (side = 0; side < 2; side++) {
		p[0] = ca(VM1_NIC0, 2, k0, 2);
		p[1] = ca(VM1_NIC1, 3, k1, 2);
		p[2] = ca(STORAGE, 4, k2, 2);
		f.p = p;
		f.n = 3;
		f.sm_lid = 1;
		/* exactly as many entries as the table holds: fits */
		if (side)
			p[1].sw_enf_cap = 2;
		else
			p[1].pcap = 2;
		assert_int_equal(partitions_verify(&m, &f, false, &res), 0);
		assert_int_equal(res.ncap, 0);
		verify_result_free(&res);

		/* one more than it holds: reported, 0x0109 dropped */
		if (side)
			p[1].sw_enf_cap = 1;
		else
			p[1].pcap = 1;
		p[1].pkeys = full1;
		p[1].npkeys = 1;
		assert_int_equal(partitions_verify(&m, &f, false, &res), 0);
		if (res.ncap != 1)
			fail_msg("%s capacity 1, 2 entries: %zu reported",
				 side ? "switch" : "port", res.ncap);
		assert_ptr_equal(res.cap[0].port, &p[1]);
		assert_int_equal(res.cap[0].need, 2);
		entries_equal(res.cap[0].dropped, res.cap[0].ndropped,
			      (uint16_t[]){ 0x0109 }, 1);
		assert_int_equal(res.ndrift, 1); /* and the entry is missing */
		verify_result_free(&res);
	}
	partitions_free(&m);
}

/*
 * A tenant VF full in the default partition is named whatever the file
 * says (UFM's default: every HCA port full there); a port of the
 * operator's (the storage server) full there is not a tenant's.
 */
static void tenant_full_in_default(void **state)
{
	static const char ufm[] = "Default=0x7fff, ipoib, defmember=full : "
				  "ALL, SELF=full ;\n"
				  "a=0x0101, ipoib : 0x0200000000010000=full "
				  ";\n";
	uint16_t k0[] = { 0x8101, 0xffff }, k1[] = { 0x7fff },
		 k2[] = { 0xffff };
	struct fabric_port p[3];
	struct partitions m;
	struct verify_result res;
	char err[256] = "";

	(void)state;
	if (partconf_parse(ufm, strlen(ufm), PARTCONF_ANY, &m, err,
			   sizeof(err)))
		fail_msg("%s", err);
	verify(&m, k0, 2, k1, 1, k2, 1, p, &res);
	assert_int_equal(res.ndefault_full, 1);
	assert_ptr_equal(res.default_full[0], &p[0]);
	/* VM 1 NIC 1 limited where the file gives it full: drift, not this */
	assert_int_equal(res.ndrift, 1);
	verify_result_free(&res);
	partitions_free(&m);
}

/*
 * The operator's partitions as opensm programs them: entries in order,
 * the last one for a port winning (servers listed full, then
 * ALL_CAS=limited: limited), the SM's port limited after SELF=full,
 * ALL=limited, and "both" full only unless opensm allows both keys.
 */
static void tables_as_opensm_reads_them(void **state)
{
	static const char text[] = "Default=0x7fff, ipoib : SELF=full, "
				   "ALL=limited ;\n"
				   "storage=0x0200, ipoib : "
				   "0x0002c903000a0001=full, ALL_CAS=limited "
				   ";\n"
				   "lab=0x0300 : 0x0200000000010000=limited, "
				   "0x0002c903000a0001=both ;\n";
	uint16_t vm[] = { 0x0200, 0x0300, 0x7fff },
		 stor[] = { 0x0200, 0x7fff, 0x8300 },
		 stor_both[] = { 0x0200, 0x0300, 0x7fff, 0x8300 },
		 sm[] = { 0x0200, 0x7fff };
	struct fabric_port p[3];
	struct fabric f = { 0 };
	struct verify_result res;
	struct partitions m;
	char err[256] = "";

	(void)state;
	if (partconf_parse(text, strlen(text), PARTCONF_STATIC, &m, err,
			   sizeof(err)))
		fail_msg("%s", err);
	p[0] = ca(VM1_NIC0, 2, vm, 3);
	p[1] = ca(STORAGE, 4, stor, 3);
	p[2] = ca(0x0002c90300000001ULL, 1, sm, 2);
	f.p = p;
	f.n = 3;
	f.sm_lid = 1;
	assert_int_equal(partitions_verify(&m, &f, false, &res), 0);
	if (res.ndrift)
		fail_msg("port %zu drifts", (size_t)(res.drift[0].port - p));
	verify_result_free(&res);
	/* with allow_both_pkeys TRUE, "both" is both entries */
	assert_int_equal(partitions_verify(&m, &f, true, &res), 0);
	assert_int_equal(res.ndrift, 1);
	assert_ptr_equal(res.drift[0].port, &p[1]);
	entries_equal(res.drift[0].want, res.drift[0].nwant, stor_both, 4);
	verify_result_free(&res);
	p[1].pkeys = stor_both;
	p[1].npkeys = 4;
	assert_int_equal(partitions_verify(&m, &f, true, &res), 0);
	assert_int_equal(res.ndrift, 0);
	verify_result_free(&res);
	partitions_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_as_rendered),
		cmocka_unit_test(tenant_full_in_default),
		cmocka_unit_test(membership_bit_is_drift),
		cmocka_unit_test(one_entry_beyond_the_table),
		cmocka_unit_test(tables_as_opensm_reads_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
