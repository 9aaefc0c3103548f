// SPDX-License-Identifier: Apache-2.0
/*
 * ONEIB_TOPOLOGY, both ends (core/topomap.h): the front-end's value is
 * sorted by leaf then address, each address once; what the guest reads
 * back is what was written; a malformed value is refused whole with one
 * line naming the part. And the guest's topology file from it
 * (guest/guesttopo.h).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/topomap.h"
#include "guest/context.h"
#include "guest/guesttopo.h"

#define A 0x0002c90200000a00ULL
#define B 0x0002c90200000b00ULL

static void formats_sorted_once(void **state)
{
	struct topo_entry e[] = {
		{ B, 0x0a000503 }, { A, 0x0a000502 },
		{ A, 0x0a000501 }, { A, 0x0a000502 }, /* twice */
		{ B, 0x0a000501 }, /* under two leaves: the lower's */
	};
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(topomap_format(e, 5, &sb), 0);
	assert_string_equal(sb_str(&sb), "0x0002c90200000a00=10.0.5.1,10.0.5.2 "
					 "0x0002c90200000b00=10.0.5.3");
	sb_reset(&sb);
	assert_int_equal(topomap_format(e, 0, &sb), 0);
	assert_string_equal(sb_str(&sb), "");
	sb_release(&sb);
}

static void reads_back(void **state)
{
	struct topo_entry *e = NULL;
	size_t n = 0;
	char err[256] = "";

	(void)state;
	assert_int_equal(topomap_parse("0x0002c90200000a00=10.0.5.1,10.0.5.2 "
				       "0x0002c90200000b00=10.0.5.3",
				       &e, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 3);
	assert_true(e[0].leaf == A && e[0].ip == 0x0a000501);
	assert_true(e[1].leaf == A && e[1].ip == 0x0a000502);
	assert_true(e[2].leaf == B && e[2].ip == 0x0a000503);
	free(e);
	assert_int_equal(topomap_parse("", &e, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	free(e);
}

static void refuses_malformed(void **state)
{
	static const struct {
		const char *in, *err;
	} bad[] = {
		{ "10.0.5.1", "ONEIB_TOPOLOGY: '10.0.5.1' is not a leaf switch "
			      "GUID and '='" },
		{ "0x0002c90200000a00=10.0.5.300", "ONEIB_TOPOLOGY: "
						   "'10.0.5.300' is not an "
						   "IPv4 address" },
		{ "0x2c90200000a00=10.0.5.1", "ONEIB_TOPOLOGY: "
					      "'0x2c90200000a00' is not a leaf "
					      "switch "
					      "GUID and '='" },
		{ "0x0000000000000000=10.0.5.1", "ONEIB_TOPOLOGY: "
						 "'0x0000000000000000' is not "
						 "a leaf switch "
						 "GUID and '='" },
		{ "0x0002c90200000a00=10.0.5.1,10.0.5.1", "ONEIB_TOPOLOGY: "
							  "'10.0.5.1' is not "
							  "an address named "
							  "once" },
		{ "0x0002c90200000a00=10.0.5.1 0x0002c90200000a00=10.0.5.2",
		  "ONEIB_TOPOLOGY: '0x0002c90200000a00' is not a leaf named "
		  "once" },
		{ "0x0002c90200000a00=10.0.5.1 ", "ONEIB_TOPOLOGY: '' is not a "
						  "group after ' '" },
		{ "0x0002c90200000a00=10.0.5.1,", "ONEIB_TOPOLOGY: '' is not "
						  "an IPv4 address" },
		{ "0x0002c90200000a00=10.0.5.1;rm -rf /", "ONEIB_TOPOLOGY: "
							  "'10.0.5.1;rm' is "
							  "not an IPv4 "
							  "address" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct topo_entry *e = (struct topo_entry *)&i;
		size_t n = 99;
		char err[256] = "";

		assert_int_equal(topomap_parse(bad[i].in, &e, &n, err,
					       sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, bad[i].err);
		assert_ptr_equal(e, &i); /* untouched */
		assert_int_equal(n, 99);
	}
}

static void guest_file(void **state)
{
	static const char ctx[] = "ONEIB_TOPOLOGY='0x0002c90200000a00=10.0.5.1,"
				  "10.0.5.2 "
				  "0x0002c90200000b00=10.0.5.3'\n";
	struct context c = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(context_parse(ctx, strlen(ctx), &c), 0);
	assert_int_equal(guest_topology(&c, &sb, err, sizeof(err)), 0);
	assert_string_equal(sb_str(&sb), "# oneib-context: the leaf switch of "
					 "each VM of "
					 "this virtual cluster\n"
					 "# (ONEIB_TOPOLOGY of the context): "
					 "IPv4 address, "
					 "leaf switch GUID\n"
					 "10.0.5.1 0x0002c90200000a00\n"
					 "10.0.5.2 0x0002c90200000a00\n"
					 "10.0.5.3 0x0002c90200000b00\n");
	context_free(&c);
	sb_reset(&sb);
	assert_int_equal(context_parse("X='1'\n", 6, &c), 0);
	assert_int_equal(guest_topology(&c, &sb, err, sizeof(err)), -ENOENT);
	context_free(&c);
	assert_int_equal(context_parse("ONEIB_TOPOLOGY=''\n", 18, &c), 0);
	assert_int_equal(guest_topology(&c, &sb, err, sizeof(err)), -ENOENT);
	context_free(&c);
	assert_int_equal(context_parse("ONEIB_TOPOLOGY='x'\n", 19, &c), 0);
	assert_int_equal(guest_topology(&c, &sb, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "ONEIB_TOPOLOGY: 'x' is not a leaf switch "
				 "GUID and '='");
	context_free(&c);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats_sorted_once),
		cmocka_unit_test(reads_back),
		cmocka_unit_test(refuses_malformed),
		cmocka_unit_test(guest_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
