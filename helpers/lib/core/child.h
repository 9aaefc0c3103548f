/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running another program, the one way one-ib does (git's run-command.h):
 * fork, exec the words given (never a shell unless argv is one: "/bin/sh",
 * "-c", cmd), wait for it, retrying the wait when a signal interrupts it.
 * Who runs what:
 *
 *   oneib-vf          sudo -n /usr/sbin/oneib-pkey map 0000:3b:00.2 ...
 *                     stdout to /dev/null (deploy's stdout is the domain
 *                     XML), stderr's first line kept: oneib-pkey's reason
 *   oneib-partitions-install   /bin/sh -c '<--reload-cmd>'
 *                     stdin, stdout and stderr passed on
 *                     /usr/bin/systemctl show --property=Id,MainPID -- UNITS
 *                     stdout kept, stderr's first line kept
 *   oneib-discover    sudo -n /usr/sbin/oneib-peer 0000:3b:00.0 1
 *                     stdout kept (the peer's four lines), stderr's first
 *                     line kept
 */
#ifndef ONEIB_CHILD_H
#define ONEIB_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "core/strbuf.h"

#define CHILD_LINE_MAX 512
/* What out keeps of a child's stdout when out_max is 0. */
#define CHILD_OUT_MAX (64 << 10)

struct child {
	const char *const *argv; /* argv[0] looked up in PATH, NULL ended */
	bool no_stdout; /* its stdout to /dev/null */
	bool keep_stderr; /* its stderr into line, not ours */
	/* its stdout appended here (at most out_max bytes, CHILD_OUT_MAX when
	 * 0; the rest is read and dropped, so it never blocks on a full
	 * pipe), not ours */
	struct strbuf *out;
	size_t out_max;
	/* out: the first line of its stderr (keep_stderr), "" when none;
	 * when it cannot be started, "cannot run <argv0>: <reason>" */
	char line[CHILD_LINE_MAX];
	int status; /* out: its wait status */
	/*
	 * Files in place of our stdin, stdout and stderr (> 0: an open file
	 * descriptor, used from where it stands; 0: ours, or what the fields
	 * above say). A file, not a pipe, where a command may leave a
	 * process behind that holds it (ssh's connection master): the child
	 * is waited for, not its output's end. no_stdin: /dev/null.
	 */
	int in_fd, out_fd, err_fd;
	bool no_stdin;
	/*
	 * > 0: the seconds it may run. It gets a process group of its own,
	 * and when the time is up the whole group is killed (SIGKILL), so
	 * that `sh -c "ssh sm1 ..."` leaves nothing running: child_run then
	 * returns -ETIMEDOUT with timed_out set.
	 */
	unsigned timeout;
	bool timed_out; /* out */
	/* child_start's: the running child, 0 once waited for */
	pid_t pid;
	int pidfd; /* -1: the kernel has none (before 5.3) */
	struct timespec deadline; /* CLOCK_MONOTONIC */
};

/*
 * Runs c->argv to its end. 0 when it exited 0; -EIO when it ran and
 * failed (child_status_fmt says how); -ETIMEDOUT when c->timeout ended
 * it; -errno when it could not be forked or waited for. Our buffered
 * output is flushed first, so nothing of ours is written twice.
 */
int child_run(struct child *c);

/*
 * Several bounded children at once, e.g. the front-end's run installing
 * on every subnet manager of the fabric: a standby that hangs costs its
 * own timeout, never the master's. child_start starts c as child_run
 * would (c->timeout > 0, files and not pipes: -EINVAL otherwise) and
 * returns once it runs; child_wait_any waits until one of the n children
 * started ends, or kills it (and its group) when its time is up, and
 * returns what child_run would have for it, its index in *which. Children
 * not started (pid 0) are skipped; -ECHILD when none of them runs.
 *
 *   child_start(&a); child_start(&b);
 *   while (child_wait_any(cs, 2, &i) != -ECHILD) ... cs[i] ended ...
 *
 * child_run of a bounded child is exactly these two calls.
 */
int child_start(struct child *c);
int child_wait_any(struct child *const *cs, size_t n, size_t *which);

/*
 * A configured command ("sudo -n /usr/sbin/oneib-pkey", from a setting)
 * split into words on blanks, no shell, then the call's own arguments:
 * the argv of a struct child.
 */
#define CHILD_CMD_WORDS 8 /* of the configured command */
#define CHILD_CMD_ARGS 24 /* in all */
struct child_cmd {
	char words[512];
	const char *argv[CHILD_CMD_ARGS + 1];
	int argc;
};

/*
 * A command of the front-end's run (fabric/sync.h: curl, the operator's
 * install and read commands) run as the hook ran them: c's stderr into a
 * memory file of its own (memfd), its text (at most CHILD_OUT_MAX bytes)
 * in errtext (reset first; NULL: not kept), and when it fails, one line in
 * err naming it by name, how it ended and that text, its newlines turned
 * into blanks:
 *   ONEIB_PARTITIONS_READ_CMD failed (exit 3): the SM host is down
 *   one.hostpool.info timed out after 300 s: no error output
 * Returns what child_run returns (c->err_fd is its own).
 */
int child_run_named(struct child *c, const char *name, struct strbuf *errtext,
		    char *err, size_t errlen);

/*
 * child_run_named in two halves, around child_start and child_wait_any:
 * begin gives c a stderr file of its own (0, or -errno with err set);
 * end, once it ran (r: what child_wait_any returned for it, or
 * child_start's failure), reads that file into errtext, closes it, and
 * writes err as child_run_named does. end returns what child_run_named
 * would.
 */
int child_named_begin(struct child *c, const char *name, char *err,
		      size_t errlen);
int child_named_end(struct child *c, int r, const char *name,
		    struct strbuf *errtext, char *err, size_t errlen);

/* -EINVAL when cmd has no word, -ENAMETOOLONG past words[]. */
int child_cmd_init(struct child_cmd *c, const char *cmd);
/* arg is not copied; -E2BIG past CHILD_CMD_ARGS. argv stays NULL ended. */
int child_cmd_add(struct child_cmd *c, const char *arg);

/* How it ended, for an error line: "exited with 3", "killed by signal 9". */
void child_status_fmt(int status, char *buf, size_t len);

#endif
