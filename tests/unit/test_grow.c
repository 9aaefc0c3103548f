// SPDX-License-Identifier: Apache-2.0
/*
 * ALLOC_GROW (core/grow.h), the one array-growth helper: what was in the
 * array stays, there is always room for what was asked, appending is
 * amortized (few reallocations), and a request that cannot be met leaves
 * the array and its count as they were.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/grow.h"

struct item {
	uint64_t a, b;
};

static void appends_keep_everything(void **state)
{
	struct item *v = NULL, *last = NULL;
	size_t n, alloc = 0, moves = 0;

	(void)state;
	for (n = 0; n < 10000; n++) {
		assert_int_equal(ALLOC_GROW(v, n + 1, alloc), 0);
		assert_true(alloc >= n + 1);
		moves += v != last || n == 0;
		last = v;
		v[n].a = n;
		v[n].b = ~n;
	}
	for (n = 0; n < 10000; n++)
		assert_true(v[n].a == n && v[n].b == ~n);
	/* about log1.5(10000) growths, not one per element */
	assert_true(moves < 40);
	free(v);
}

static void impossible_request_changes_nothing(void **state)
{
	struct item *v = NULL, *kept;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(ALLOC_GROW(v, 3, alloc), 0);
	kept = v;
	v[2].a = 42;
	assert_int_equal(ALLOC_GROW(v, SIZE_MAX / 2, alloc), -ENOMEM);
	assert_ptr_equal(v, kept);
	assert_true(alloc >= 3 && alloc < SIZE_MAX / 2);
	assert_true(v[2].a == 42);
	/* room already there: nothing moves */
	assert_int_equal(ALLOC_GROW(v, 2, alloc), 0);
	assert_ptr_equal(v, kept);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(appends_keep_everything),
		cmocka_unit_test(impossible_request_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
