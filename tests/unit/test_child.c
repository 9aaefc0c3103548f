// SPDX-License-Identifier: Apache-2.0
/*
 * The one way one-ib runs another program (core/child.h), and the two who
 * use it: oneib-vf running oneib-pkey (host/pkeycmd.h, its arguments and
 * its one line of stderr), oneib-discover running oneib-peer
 * (host/peercmd.h, its four lines of stdout read back strictly) and the
 * partitions installer's reload command (root/opensm.h). A signal that
 * interrupts the wait is no failure.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/child.h"
#include "host/peercmd.h"
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
static void stdout_kept_default_max(void **state)
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

/*
 * A stand-in for a configured command: a script in a private directory
 * that records its arguments, then runs body (sh).
 */
struct standin {
	char dir[32], script[64], args[64];
};

static void standin_make(struct standin *t, const char *name, const char *body)
{
	FILE *f;

	snprintf(t->dir, sizeof(t->dir), "/tmp/oneib-child-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->script, sizeof(t->script), "%s/%s", t->dir, name);
	snprintf(t->args, sizeof(t->args), "%s/args", t->dir);
	f = fopen(t->script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$*\" >%s\n%s", t->args, body);
	fclose(f);
	assert_int_equal(chmod(t->script, 0755), 0);
}

/* What its last run was given, one line with its '\n'. */
static void standin_args(const struct standin *t, const char *want)
{
	char got[256] = "";
	FILE *f = fopen(t->args, "r");

	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	assert_string_equal(got, want);
}

static void standin_drop(const struct standin *t)
{
	unlink(t->args);
	unlink(t->script);
	rmdir(t->dir);
}

/* A stand-in oneib-pkey recording its arguments, failing as it would. */
static void pkey_command_words(void **state)
{
	char cmd[160], err[256] = "";
	struct standin t;
	struct pci_addr vf;

	(void)state;
	standin_make(&t, "pkey",
		     "echo out\n"
		     "echo \"0000:3b:00.2: not a VF on this host\" >&2\n"
		     "echo \"a second line\" >&2\nexit 1\n");
	assert_int_equal(pci_addr_parse("0000:3b:00.2", &vf), 0);

	/* the configured words first, then the operation's */
	snprintf(cmd, sizeof(cmd), "  %s\t-n  ", t.script);
	assert_int_equal(pkeycmd_map(cmd, &vf, 2, 0x02000000002a0001ULL,
				     (struct pkey){ 0x8101 }, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "0000:3b:00.2: not a VF on this host");
	standin_args(&t, "-n map 0000:3b:00.2 0x02000000002a0001 0x8101 "
			 "--port 2\n");

	assert_int_equal(pkeycmd_unmap(t.script, &vf, 1, err, sizeof(err)),
			 -EIO);
	standin_args(&t, "unmap 0000:3b:00.2 --port 1\n");

	assert_int_equal(pkeycmd_unmap(" \t", &vf, 1, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "no oneib-pkey command configured");
	standin_drop(&t);
}

/* stdout kept (up to out_max, the rest drained) beside stderr's line. */
static void stdout_kept(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "echo one; echo warn >&2; echo two; "
			       "head -c 100000 /dev/zero | tr '\\0' x; exit 3",
			       NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = {
		.argv = argv, .keep_stderr = true, .out = &out, .out_max = 10
	};

	(void)state;
	assert_int_equal(child_run(&c), -EIO);
	assert_string_equal(c.line, "warn");
	assert_int_equal(out.len, 10);
	assert_string_equal(sb_str(&out), "one\ntwo\nxx");
	sb_release(&out);
}

/* A stand-in oneib-peer: its arguments, its answer read back strictly. */
static void peer_command(void **state)
{
	char err[256] = "";
	struct standin t;
	struct smp_peer p;
	struct pci_addr pf;

	(void)state;
	standin_make(&t, "peer",
		     "case $2 in\n"
		     "1) printf 'type switch\\nnode_guid 0x248a070300f4c1a0\\n"
		     "port 17\\ndesc MF0;leaf01:MQM8700/U1\\n' ;;\n"
		     "2) printf 'type switch\\nport 17\\n' ;;\n"
		     "3) echo 'oneib-peer: PF 0000:3b:00.0 port 3: mlx5_0 has "
		     "no "
		     "such port' >&2; exit 1 ;;\n"
		     "*) echo 'sudo: a password is required' >&2; exit 1 ;;\n"
		     "esac\n");
	assert_int_equal(pci_addr_parse("0000:3b:00.0", &pf), 0);

	assert_int_equal(peercmd_query(t.script, &pf, 1, &p, err, sizeof(err)),
			 0);
	assert_int_equal(p.type, SMP_NODE_SWITCH);
	assert_true(p.node_guid == 0x248a070300f4c1a0ULL);
	assert_int_equal(p.port, 17);
	assert_string_equal(p.desc, "MF0;leaf01:MQM8700/U1");
	standin_args(&t, "0000:3b:00.0 1\n");

	assert_int_equal(peercmd_query(t.script, &pf, 2, &p, err, sizeof(err)),
			 -EPROTO);
	assert_string_equal(err, "PF 0000:3b:00.0 port 2: oneib-peer printed "
				 "no peer: peer: expected 'node_guid ...', "
				 "got 'port 17'");
	assert_int_equal(peercmd_query(t.script, &pf, 3, &p, err, sizeof(err)),
			 -EIO);
	/* oneib-peer's own line names the PF and the port already */
	assert_string_equal(err, "PF 0000:3b:00.0 port 3: mlx5_0 has no such "
				 "port");
	assert_int_equal(peercmd_query(t.script, &pf, 4, &p, err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "PF 0000:3b:00.0 port 4: sudo: a password is "
				 "required");
	assert_int_equal(peercmd_query("", &pf, 1, &p, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "PF 0000:3b:00.0 port 1: no peer command "
				 "configured (ONEIB_PEER in kvm-ibrc)");
	standin_drop(&t);
}

static void reload_command(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(opensm_run_cmd("exit 0", err, sizeof(err)), 0);
	assert_int_equal(opensm_run_cmd("exit 4", err, sizeof(err)), -EIO);
	assert_string_equal(err, "reload command 'exit 4' exited with 4");
}

/* A temporary file, unlinked: what the front-end's commands read and
 * write (fabric/sync.h). */
static int tmpfile_with(const char *text)
{
	char path[] = "/tmp/test_child.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void file_text(int fd, char *buf, size_t len)
{
	ssize_t n;

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
}

/* stdin, stdout and stderr from and to files; no_stdin reads nothing */
static void files_in_and_out(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "read a; echo \"got $a\"; echo oops >&2; "
			       "exit 4",
			       NULL };
	int in = tmpfile_with("body\n"), out = tmpfile_with(""),
	    err = tmpfile_with("");
	struct child c = {
		.argv = argv, .in_fd = in, .out_fd = out, .err_fd = err
	};
	char buf[64];

	(void)state;
	assert_int_equal(child_run(&c), -EIO);
	file_text(out, buf, sizeof(buf));
	assert_string_equal(buf, "got body\n");
	file_text(err, buf, sizeof(buf));
	assert_string_equal(buf, "oops\n");
	close(in);
	close(out);
	out = tmpfile_with("");
	c = (struct child){ .argv = argv, .no_stdin = true, .out_fd = out };
	assert_int_equal(child_run(&c), -EIO);
	file_text(out, buf, sizeof(buf));
	assert_string_equal(buf, "got \n");
	close(out);
	close(err);
}

/* pid exists and is not a zombie, within a second of being killed */
static bool running(pid_t pid)
{
	char path[64], st[256];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 100; i++) {
		FILE *f = fopen(path, "r");
		char *p;

		if (!f)
			return false;
		p = fgets(st, sizeof(st), f);
		fclose(f);
		p = p ? strrchr(st, ')') : NULL;
		if (!p || p[1] != ' ' || p[2] == 'Z')
			return false;
		usleep(10000);
	}
	return true;
}

/*
 * A bounded child that hangs is killed with everything it started in its
 * group (a shell's background job too), and says so; one that ends in
 * time is waited for only until it ends, though something it left behind
 * still holds its output file open.
 */
static void timeout_kills_the_group(void **state)
{
	char script[128];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	int out = tmpfile_with("");
	struct child c = { .argv = argv, .out_fd = out, .timeout = 1 };
	char buf[64];
	pid_t bg;

	(void)state;
	snprintf(script, sizeof(script), "sleep 300 & echo $!; exec sleep 300");
	assert_int_equal(child_run(&c), -ETIMEDOUT);
	assert_true(c.timed_out);
	file_text(out, buf, sizeof(buf));
	bg = (pid_t)atoi(buf);
	assert_true(bg > 0);
	/* the background job is gone too (a zombie until init reaps it) */
	assert_false(running(bg));
	close(out);

	out = tmpfile_with("");
	snprintf(script, sizeof(script), "echo done; exit 0");
	c = (struct child){ .argv = argv, .out_fd = out, .timeout = 30 };
	assert_int_equal(child_run(&c), 0);
	assert_false(c.timed_out);
	file_text(out, buf, sizeof(buf));
	assert_string_equal(buf, "done\n");
	close(out);
	/* pipes with a bound are refused: a left-behind process could hold
	 * them for good */
	c = (struct child){ .argv = argv, .keep_stderr = true, .timeout = 1 };
	assert_int_equal(child_run(&c), -EINVAL);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * Several bounded children at once: each ends when it ends, in the order
 * they end, and one that hangs is killed at its own time, never holding
 * the others up. Two one-second children take one second, not two.
 */
static void several_at_once(void **state)
{
	const char *hang[] = { "/bin/sh", "-c", "exec sleep 300", NULL };
	const char *slow[] = { "/bin/sh", "-c", "sleep 1; exit 3", NULL };
	const char *quick[] = { "true", NULL };
	struct child a = { .argv = hang, .timeout = 2, .no_stdin = true },
		     b = { .argv = slow, .timeout = 30, .no_stdin = true },
		     c = { .argv = quick, .timeout = 30, .no_stdin = true };
	struct child *cs[] = { &a, &b, &c };
	double t0 = now_s();
	size_t i = 99;

	(void)state;
	assert_int_equal(child_start(&a), 0);
	assert_int_equal(child_start(&b), 0);
	assert_int_equal(child_start(&c), 0);
	assert_int_equal(child_wait_any(cs, 3, &i), 0);
	assert_int_equal(i, 2);
	assert_int_equal(child_wait_any(cs, 3, &i), -EIO);
	assert_int_equal(i, 1);
	assert_true(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 3);
	assert_true(now_s() - t0 < 1.9);
	assert_int_equal(child_wait_any(cs, 3, &i), -ETIMEDOUT);
	assert_int_equal(i, 0);
	assert_true(a.timed_out);
	assert_true(now_s() - t0 >= 2.0 && now_s() - t0 < 3.5);
	assert_int_equal(child_wait_any(cs, 3, &i), -ECHILD);

	/* in parallel: two one-second children in about one second */
	b.argv = slow;
	c.argv = slow;
	t0 = now_s();
	assert_int_equal(child_start(&b), 0);
	assert_int_equal(child_start(&c), 0);
	assert_int_equal(child_wait_any(cs + 1, 2, &i), -EIO);
	assert_int_equal(child_wait_any(cs + 1, 2, &i), -EIO);
	assert_true(now_s() - t0 < 1.9);
	/* unbounded, or with a pipe: refused */
	b = (struct child){ .argv = quick };
	assert_int_equal(child_start(&b), -EINVAL);
	b = (struct child){ .argv = quick, .timeout = 1, .keep_stderr = true };
	assert_int_equal(child_start(&b), -EINVAL);
}

/* The two halves of child_run_named, around child_start: the same line. */
static void named_halves(void **state)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "echo 'ssh: connect to host sm2 port 22:' >&2; "
			       "echo 'No route to host' >&2; exit 255",
			       NULL };
	struct child c = { .argv = argv, .timeout = 5, .no_stdin = true };
	struct child *cs[] = { &c };
	struct strbuf text = STRBUF_INIT;
	char err[256];
	size_t i;
	int r;

	(void)state;
	assert_int_equal(child_named_begin(&c, "sm2: read", err, sizeof(err)),
			 0);
	assert_int_equal(child_start(&c), 0);
	r = child_wait_any(cs, 1, &i);
	assert_int_equal(child_named_end(&c, r, "sm2: read", &text, err,
					 sizeof(err)),
			 -EIO);
	assert_string_equal(err, "sm2: read failed (exit 255): ssh: connect to "
				 "host sm2 port 22: No route to host");
	assert_string_equal(sb_str(&text), "ssh: connect to host sm2 port "
					   "22:\nNo route to host\n");
	sb_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status_and_stderr_line),
		cmocka_unit_test(stdout_kept_default_max),
		cmocka_unit_test(cannot_run),
		cmocka_unit_test(killed),
		cmocka_unit_test(signals_while_waiting),
		cmocka_unit_test(pkey_command_words),
		cmocka_unit_test(stdout_kept),
		cmocka_unit_test(peer_command),
		cmocka_unit_test(reload_command),
		cmocka_unit_test(files_in_and_out),
		cmocka_unit_test(timeout_kills_the_group),
		cmocka_unit_test(several_at_once),
		cmocka_unit_test(named_halves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
