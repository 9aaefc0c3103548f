// SPDX-License-Identifier: Apache-2.0
/* Decimal numbers from OpenNebula and from the mains' options. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/log.h"

static void dec_forms(void **state)
{
	int v = -1;

	(void)state;
	assert_int_equal(dec_parse_int("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dec_parse_int("007", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(dec_parse_int("2147483647", &v), 0);
	assert_int_equal(v, INT_MAX);
}

static void dec_rejects(void **state)
{
	static const char *const bad[] = { "",	 "-1",	 "+1",	" 1",
					   "1 ", "0x10", "1e3", "4x" };
	int v = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(dec_parse_int(bad[i], &v), -EINVAL);
	assert_int_equal(dec_parse_int(NULL, &v), -EINVAL);
	assert_int_equal(dec_parse_int("2147483648", &v), -ERANGE);
	assert_int_equal(v, 42);
}

/* opt_int's result, with what it wrote on stderr in line[]. */
static int opt_int_err(const char *arg, int lo, int hi, int *out, char *line,
		       size_t len)
{
	int saved, rc;
	FILE *tmp;
	size_t n;

	fflush(stderr);
	saved = dup(2);
	tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	rc = opt_int("--wait", arg, lo, hi, "a number of seconds", out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(line, 1, len - 1, tmp);
	line[n] = '\0';
	fclose(tmp);
	return rc;
}

static void opt_in_range(void **state)
{
	char line[256];
	int v = -1;

	(void)state;
	assert_int_equal(opt_int_err("0", 0, 3600, &v, line, sizeof(line)), 0);
	assert_int_equal(v, 0);
	assert_int_equal(opt_int_err("3600", 0, 3600, &v, line, sizeof(line)),
			 0);
	assert_int_equal(v, 3600);
	assert_string_equal(line, "");
}

static void opt_refused(void **state)
{
	const char *prog = program_invocation_short_name;
	char line[256], want[256];
	int v = 42;

	(void)state;
	assert_int_equal(opt_int_err("3601", 0, 3600, &v, line, sizeof(line)),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: --wait '3601': not a number of seconds (0-3600)\n", prog);
	assert_string_equal(line, want);
	assert_int_equal(opt_int_err("0", 1, 9, &v, line, sizeof(line)),
			 -EINVAL);
	assert_int_equal(opt_int_err("-1", 0, 3600, &v, line, sizeof(line)),
			 -EINVAL);
	assert_int_equal(opt_int_err(" 5", 0, 3600, &v, line, sizeof(line)),
			 -EINVAL);
	/* no range named when any int will do; the value made printable */
	assert_int_equal(opt_int_err("x\n<VM>", 0, INT_MAX, &v, line,
				     sizeof(line)),
			 -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: --wait 'x?<VM>': not a number of seconds\n", prog);
	assert_string_equal(line, want);
	assert_int_equal(opt_int_err("2147483648", 0, INT_MAX, &v, line,
				     sizeof(line)),
			 -EINVAL);
	assert_int_equal(v, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dec_forms),
		cmocka_unit_test(dec_rejects),
		cmocka_unit_test(opt_in_range),
		cmocka_unit_test(opt_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
