// SPDX-License-Identifier: Apache-2.0
/*
 * The one-hop peer's text form (core/smp.h): what oneib-peer prints as
 * root and oneib-discover reads back, one writer and one strict reader.
 * And the SMP every smp_get sends: a Get, carrying the M_Key it is given
 * (ibsim ignores M_Key, so only these bytes show verify sends opensm's).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/smp.h"

static void round_trip(void **state)
{
	const struct smp_peer in[] = {
		{ SMP_NODE_SWITCH, 0x248a070300f4c1a0ULL, 17,
		  "MF0;leaf01:MQM8700/U1" },
		{ SMP_NODE_CA, 0x0002c90300006000ULL, 1, "stor1 HCA-1" },
		{ SMP_NODE_ROUTER, 1, 2, "" },
		{ 7, 2, 255, "odd" },
	};
	struct strbuf sb = STRBUF_INIT;
	struct smp_peer out;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		sb_reset(&sb);
		assert_int_equal(smp_peer_fmt(&in[i], &sb), 0);
		assert_int_equal(
			smp_peer_parse(sb_str(&sb), &out, err, sizeof(err)), 0);
		assert_int_equal(out.type, in[i].type);
		assert_true(out.node_guid == in[i].node_guid);
		assert_int_equal(out.port, in[i].port);
		assert_string_equal(out.desc, in[i].desc);
	}
	sb_reset(&sb);
	assert_int_equal(smp_peer_fmt(&in[0], &sb), 0);
	assert_string_equal(sb_str(&sb), "type switch\n"
					 "node_guid 0x248a070300f4c1a0\n"
					 "port 17\n"
					 "desc MF0;leaf01:MQM8700/U1\n");
	sb_reset(&sb);
	assert_int_equal(smp_peer_fmt(&in[3], &sb), 0);
	assert_string_equal(sb_str(&sb), "type 7\nnode_guid "
					 "0x0000000000000002\n"
					 "port 255\ndesc odd\n");
	sb_release(&sb);
}

static void refusals(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", "peer: expected 'type ...', got ''" },
		{ "type hub\nnode_guid 0x1\nport 1\ndesc x\n", "peer: type "
							       "'hub' is no "
							       "node type" },
		{ "type 2\nnode_guid 0x1\nport 1\ndesc x\n", "peer: type '2' "
							     "is no node "
							     "type" },
		{ "type switch\nnode_guid 1:2\nport 1\ndesc x\n", "peer: "
								  "node_guid "
								  "'1:2' is no "
								  "GUID" },
		{ "type switch\nnode_guid 0x1\nport 256\ndesc x\n", "peer: "
								    "port "
								    "'256' is "
								    "no port "
								    "number" },
		{ "type switch\nnode_guid 0x1\ndesc x\nport 1\n", "peer: "
								  "expected "
								  "'port ...', "
								  "got 'desc "
								  "x'" },
		{ "type switch\nnode_guid 0x1\nport 1\ndesc a\tb\n", "peer: "
								     "desc is "
								     "not "
								     "printabl"
								     "e" },
		{ "type switch\nnode_guid 0x1\nport 1\ndesc x\nmore\n", "peer: "
									"more "
									"than "
									"four "
									"line"
									"s" },
		{ "type switch\nnode_guid 0x1\nport 1\n", "peer: expected "
							  "'desc ...', got "
							  "''" },
	};
	struct smp_peer out;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(smp_peer_parse(bad[i].text, &out, err,
						sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, bad[i].why);
	}
}

/* Byte offsets of IBA vol. 1, 14.2.1.2 (directed route SMP). */
static void get_bytes(void **state)
{
	const struct smp_path path = { .port = { 0, 1, 3 }, .hops = 2 };
	const uint64_t mkeys[] = { 0, 0x00000000deadbeefULL,
				   0x0123456789abcdefULL };
	uint8_t mad[MAD_LEN], zero[MAD_LEN] = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(mkeys) / sizeof(mkeys[0]); i++) {
		memset(mad, 0xa5, sizeof(mad));
		smp_build_get(mad, &path, SMP_ATTR_PKEY_TABLE, 3, 0x01020304,
			      mkeys[i]);
		assert_int_equal(mad[0], 1); /* base version */
		assert_int_equal(mad[1], 0x81); /* directed-route SMP class */
		assert_int_equal(mad[2], 1); /* class version */
		assert_int_equal(mad[3], 0x01); /* Get, never Set (0x02) */
		assert_int_equal(be16(mad + 4), 0); /* status, D bit clear */
		assert_int_equal(mad[6], 0); /* hop pointer */
		assert_int_equal(mad[7], 2); /* hop count */
		assert_true(be64(mad + 8) == 0x01020304); /* TID */
		assert_int_equal(be16(mad + 16), SMP_ATTR_PKEY_TABLE);
		assert_true(be64(mad + 16) ==
			    ((uint64_t)SMP_ATTR_PKEY_TABLE << 48 | 3));
		assert_true(be64(mad + 24) == mkeys[i]); /* M_Key */
		assert_int_equal(be16(mad + 32), 0xffff); /* DrSLID */
		assert_int_equal(be16(mad + 34), 0xffff); /* DrDLID */
		assert_memory_equal(mad + 36, zero, 128 - 36); /* data too */
		assert_int_equal(mad[128], 0); /* InitialPath[0] unused */
		assert_int_equal(mad[129], 1);
		assert_int_equal(mad[130], 3);
		assert_memory_equal(mad + 131, zero, MAD_LEN - 131);
	}
}

/* PortInfo's VL fields and the QoS tables' data, as ibsim and opensm's
 * defaults give them (opensm-facts, section 5). */
static void qos_fields(void **state)
{
	uint8_t pi[SMP_DATA_LEN] = { 0 }, blk[SMP_DATA_LEN] = { 0 };
	struct smp_port_vls v;
	unsigned w[16];

	(void)state;
	pi[37] = 0x41; /* VLCap 4 (VL0-7), InitType 1 */
	pi[38] = 0;
	pi[39] = 8;
	pi[40] = 8;
	pi[43] = 0x40; /* OperVLs 4, enforcement bits clear */
	smp_port_vls(pi, &v);
	assert_int_equal(v.vl_cap, 4);
	assert_int_equal(v.oper_vls, 4);
	assert_int_equal(v.arb_high_cap, 8);
	assert_int_equal(v.arb_low_cap, 8);
	assert_int_equal(smp_data_vls(v.vl_cap), 8);
	assert_int_equal(smp_data_vls(5), 15);
	assert_int_equal(smp_data_vls(9), 0);
	/* low table "0:0,1:4,...,7:4" and VL 1 named twice */
	blk[0] = 0;
	blk[1] = 0;
	blk[2] = 1;
	blk[3] = 4;
	blk[4] = 0x21; /* reserved bits above the VL */
	blk[5] = 16;
	smp_vlarb_sum(blk, w);
	assert_int_equal(w[0], 0);
	assert_int_equal(w[1], 20);
	assert_int_equal(w[2], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(refusals),
		cmocka_unit_test(get_bytes),
		cmocka_unit_test(qos_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
