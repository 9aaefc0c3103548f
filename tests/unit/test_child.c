// SPDX-License-Identifier: Apache-2.0
/*
 * The one way one-ib runs another program (core/child.h), and the two who
 * use it: oneib-vf running oneib-pkey (host/pkeycmd.h, its arguments and
 * its one line of stderr) and the partitions installer's reload command
 * (root/opensm.h). A signal that interrupts the wait is no failure.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/child.h"
#include "host/pkeycmd.h"
#include "root/opensm.h"

static void exit_status_and_stderr_line(void **state)
{
	const char *fail[] = { "/bin/sh", "-c",
			       "echo out; echo 'first line' >&2; "
			       "echo second >&2; exit 3",
			       NULL };
	const char *ok[] = { "true", NULL };
	struct child c = { .argv = fail,
			   .no_stdout = true,
			   .keep_stderr = true };
	char how[64];

	(void)state;
	assert_int_equal(child_run(&c), -EIO);
	assert_string_equal(c.line, "first line");
	child_status_fmt(c.status, how, sizeof(how));
	assert_string_equal(how, "exited with 3");

	c.argv = ok;
	assert_int_equal(child_run(&c), 0);
	assert_string_equal(c.line, "");
}

/* stdout kept and stderr's first line, both pipes drained at once: a
 * child writing much to both never blocks */
static void stdout_kept(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "echo 'Id=opensm@a.service'; echo warn >&2; "
			       "i=0; while [ $i -lt 4000 ]; do "
			       "echo "
			       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; "
			       "echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy "
			       ">&2; "
			       "i=$((i+1)); done",
			       NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .keep_stderr = true, .out = &out };

	(void)state;
	assert_int_equal(child_run(&c), 0);
	assert_string_equal(c.line, "warn");
	assert_int_equal(out.len, CHILD_OUT_MAX);
	assert_memory_equal(out.buf, "Id=opensm@a.service\n", 20);
	sb_release(&out);
}

static void cannot_run(void **state)
{
	const char *argv[] = { "/nonexistent/oneib-pkey", "map", NULL };
	struct child c = { .argv = argv, .keep_stderr = true };
	char how[64];

	(void)state;
	assert_int_equal(child_run(&c), -EIO);
	assert_string_equal(c.line, "cannot run /nonexistent/oneib-pkey: No "
				    "such file or directory");
	child_status_fmt(c.status, how, sizeof(how));
	assert_string_equal(how, "exited with 127");
}

static void killed(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	struct child c = { .argv = argv };
	char how[64];

	(void)state;
	assert_int_equal(child_run(&c), -EIO);
	child_status_fmt(c.status, how, sizeof(how));
	assert_string_equal(how, "killed by signal 9");
}

static int ticks;
static void tick(int sig)
{
	(void)sig;
	ticks++;
}

/* SIGALRM every 20 ms without SA_RESTART: read and waitpid see EINTR. */
static void signals_while_waiting(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "sleep 0.3; echo done >&2",
			       NULL };
	struct child c = { .argv = argv, .keep_stderr = true };
	struct sigaction sa = { .sa_handler = tick }, old;
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } }, off = { 0 };

	(void)state;
	ticks = 0;
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	assert_int_equal(child_run(&c), 0);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(ticks > 0);
	assert_string_equal(c.line, "done");
}

/* A stand-in oneib-pkey recording its arguments, failing as it would. */
static void pkey_command_words(void **state)
{
	char dir[] = "/tmp/oneib-child-XXXXXX", script[64], args[64];
	char cmd[160], err[256] = "", got[256] = "";
	struct pci_addr vf;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(script, sizeof(script), "%s/pkey", dir);
	snprintf(args, sizeof(args), "%s/args", dir);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f,
		"#!/bin/sh\necho \"$*\" >%s\necho out\n"
		"echo \"0000:3b:00.2: not a VF on this host\" >&2\n"
		"echo \"a second line\" >&2\nexit 1\n",
		args);
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	assert_int_equal(pci_addr_parse("0000:3b:00.2", &vf), 0);

	/* the configured words first, then the operation's */
	snprintf(cmd, sizeof(cmd), "  %s\t-n  ", script);
	assert_int_equal(pkeycmd_map(cmd, &vf, 2, 0x02000000002a0001ULL,
				     (struct pkey){ 0x8101 }, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "0000:3b:00.2: not a VF on this host");
	f = fopen(args, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "-n map 0000:3b:00.2 0x02000000002a0001 "
				 "0x8101 --port 2\n");

	assert_int_equal(pkeycmd_unmap(script, &vf, 1, err, sizeof(err)), -EIO);
	f = fopen(args, "r");
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, "unmap 0000:3b:00.2 --port 1\n");

	assert_int_equal(pkeycmd_unmap(" \t", &vf, 1, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "no oneib-pkey command configured");
	unlink(args);
	unlink(script);
	rmdir(dir);
}

static void reload_command(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(opensm_run_cmd("exit 0", err, sizeof(err)), 0);
	assert_int_equal(opensm_run_cmd("exit 4", err, sizeof(err)), -EIO);
	assert_string_equal(err, "reload command 'exit 4' exited with 4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status_and_stderr_line),
		cmocka_unit_test(stdout_kept),
		cmocka_unit_test(cannot_run),
		cmocka_unit_test(killed),
		cmocka_unit_test(signals_while_waiting),
		cmocka_unit_test(pkey_command_words),
		cmocka_unit_test(reload_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
