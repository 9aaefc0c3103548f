// SPDX-License-Identifier: Apache-2.0
/*
 * The list of GUIDs in use on a host (what oneib-pkey refuses), and the
 * rule for a VF the host uses. The scan itself reads /sys and runs in the
 * e2e tests (t0301, t0310) against the fixture trees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "host/hca.h"
#include "root/hostguid.h"

static void add_and_find(void **state)
{
	struct host_guids g = { 0 };
	const struct host_guid *h;
	int i;

	(void)state;
	assert_int_equal(host_guids_add(&g, 0x0c42a10300001001ULL,
					"port %d of %s", 1,
					"mlx5_0 (0000:3b:00.0)"),
			 0);
	/* "not set" and "deleted" are nobody's */
	assert_int_equal(host_guids_add(&g, 0, "zero"), 0);
	assert_int_equal(host_guids_add(&g, UINT64_MAX, "all ones"), 0);
	assert_int_equal(g.n, 1);
	/* many: the list grows */
	for (i = 0; i < 100; i++)
		assert_int_equal(
			host_guids_add(&g, 0x0200000000000000ULL + (uint64_t)i,
				       "VF %d", i),
			0);
	assert_int_equal(g.n, 101);
	h = host_guids_find(&g, 0x0c42a10300001001ULL);
	assert_non_null(h);
	assert_string_equal(h->owner, "port 1 of mlx5_0 (0000:3b:00.0)");
	h = host_guids_find(&g, 0x0200000000000063ULL);
	assert_non_null(h);
	assert_string_equal(h->owner, "VF 99");
	assert_null(host_guids_find(&g, 0x0200000000000064ULL));
	assert_null(host_guids_find(&g, 0));
	assert_null(host_guids_find(&g, UINT64_MAX));
	/* the first holder is the one named */
	assert_int_equal(host_guids_add(&g, 0x0200000000000005ULL, "later"), 0);
	assert_string_equal(host_guids_find(&g, 0x0200000000000005ULL)->owner,
			    "VF 5");
	host_guids_free(&g);
	assert_int_equal(g.n, 0);
	assert_null(host_guids_find(&g, 0x0c42a10300001001ULL));
	host_guids_free(&g); /* twice is fine */
}

static void owner_cut(void **state)
{
	struct host_guids g = { 0 };
	char longname[300];

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(host_guids_add(&g, 42, "VF %s", longname), 0);
	assert_int_equal(strlen(g.v[0].owner), HOST_GUID_OWNER_MAX - 1);
	assert_memory_equal(g.v[0].owner, "VF xxx", 6);
	host_guids_free(&g);
}

/* Free for a guest: vfio-pci or no driver; any other driver is the host's. */
static void driver_rule(void **state)
{
	(void)state;
	assert_true(vf_driver_assignable(""));
	assert_true(vf_driver_assignable("vfio-pci"));
	assert_false(vf_driver_assignable("mlx5_core"));
	assert_false(vf_driver_assignable("mlx4_core"));
	assert_false(vf_driver_assignable("pci-stub"));
	assert_false(vf_driver_assignable("vfio-pci-x"));
	assert_false(vf_driver_assignable("vfio"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(add_and_find),
		cmocka_unit_test(owner_cut),
		cmocka_unit_test(driver_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
