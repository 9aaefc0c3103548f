// SPDX-License-Identifier: Apache-2.0
/*
 * sb_differs_at_line (core/strbuf.h): where the strict readers of
 * partitions.conf and of the QoS policy say a file is not the text they
 * render back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "core/strbuf.h"

static size_t differs(const char *rendered, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	size_t line;

	assert_int_equal(sb_adds(&sb, rendered), 0);
	line = sb_differs_at_line(&sb, text, strlen(text));
	sb_release(&sb);
	return line;
}

static void differs_at_line(void **state)
{
	struct strbuf empty = STRBUF_INIT;

	(void)state;
	assert_int_equal(differs("a\nb\n", "a\nb\n"), 0);
	assert_int_equal(differs("a\nb\n", "a\nc\n"), 2);
	assert_int_equal(differs("a\nb\n", "x\nb\n"), 1);
	/* one is the other's beginning: the line where the shorter ends */
	assert_int_equal(differs("a\nb\n", "a\nb\nc\n"), 3);
	assert_int_equal(differs("a\nb\nc\n", "a\nb\n"), 3);
	assert_int_equal(differs("a\n", ""), 1);
	/* a buffer nothing was added to holds "" */
	assert_int_equal(sb_differs_at_line(&empty, "", 0), 0);
	assert_int_equal(sb_differs_at_line(&empty, "a\n", 2), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(differs_at_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
