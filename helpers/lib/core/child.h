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
 *                     stdout into a buffer, stderr's first line kept
 */
#ifndef ONEIB_CHILD_H
#define ONEIB_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define CHILD_LINE_MAX 512
/* What out keeps of a child's stdout; the rest is read and dropped. */
#define CHILD_OUT_MAX (64 << 10)

struct child {
	const char *const *argv; /* argv[0] looked up in PATH, NULL ended */
	bool no_stdout; /* its stdout to /dev/null */
	bool keep_stderr; /* its stderr into line, not ours */
	struct strbuf *out; /* its stdout appended here (NULL: ours) */
	/* out: the first line of its stderr (keep_stderr), "" when none;
	 * when it cannot be started, "cannot run <argv0>: <reason>" */
	char line[CHILD_LINE_MAX];
	int status; /* out: its wait status */
};

/*
 * Runs c->argv to its end. 0 when it exited 0; -EIO when it ran and
 * failed (child_status_fmt says how); -errno when it could not be forked
 * or waited for. Our buffered output is flushed first, so nothing of ours
 * is written twice.
 */
int child_run(struct child *c);

/* How it ended, for an error line: "exited with 3", "killed by signal 9". */
void child_status_fmt(int status, char *buf, size_t len);

#endif
