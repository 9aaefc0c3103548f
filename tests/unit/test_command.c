// SPDX-License-Identifier: Apache-2.0
/*
 * The command table every tool with several commands uses (core/command.h):
 * lookup, the one line for an unknown command, the usage written from the
 * table (continuation lines under the first), and --help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/command.h"

static int ran;

static int run_a(int argc, char **argv, void *ctx)
{
	(void)argc;
	(void)argv;
	ran = *(int *)ctx;
	return 7;
}

static const struct command cmds[] = {
	{ "map", run_a, "VF GUID PKEY\n[--port N]\n" },
	{ "show", run_a, "VF" },
};

/* what f (a memory stream) holds */
static char *text_of(FILE *f, char **buf)
{
	fflush(f);
	return *buf;
}

static void find_and_run(void **state)
{
	int ctx = 42;
	const struct command *c;

	(void)state;
	c = command_find(cmds, 2, "show");
	assert_ptr_equal(c, &cmds[1]);
	assert_int_equal(c->run(0, NULL, &ctx), 7);
	assert_int_equal(ran, 42);
	assert_null(command_find(cmds, 2, "sho"));
	assert_null(command_find(cmds, 2, "map "));
}

static void usage_from_the_table(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	command_usage(f, "tool", cmds, 2, "more\n");
	assert_string_equal(text_of(f, &buf), "usage: tool map VF GUID PKEY\n"
					      "                [--port N]\n"
					      "       tool show VF\n"
					      "more\n");
	fclose(f);
	free(buf);
}

static void help_or_go_on(void **state)
{
	char *none[] = { "tool", NULL }, *help[] = { "tool", "--help", NULL },
	     *h[] = { "tool", "-h", NULL }, *cmd[] = { "tool", "map", NULL };
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);

	(void)state;
	/* the usage goes to stdout or stderr: silenced here */
	assert_non_null(freopen("/dev/null", "w", stdout));
	assert_non_null(freopen("/dev/null", "w", stderr));
	assert_int_equal(command_help(1, none, "tool", cmds, 2, NULL), 2);
	assert_int_equal(command_help(2, help, "tool", cmds, 2, NULL), 0);
	assert_int_equal(command_help(2, h, "tool", cmds, 2, NULL), 0);
	assert_int_equal(command_help(2, cmd, "tool", cmds, 2, NULL), -1);
	fflush(stdout);
	fflush(stderr);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_and_run),
		cmocka_unit_test(usage_from_the_table),
		cmocka_unit_test(help_or_go_on),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
