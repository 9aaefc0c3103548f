// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"

/* In the child: stdout and stderr where the caller wants them, then exec.
 * A failed exec says so on stderr (kept by the parent) and exits 127, as
 * a shell does for a command it cannot find. */
static void exec_child(const struct child *c, int outfd, int errfd)
{
	if (errfd >= 0 && dup2(errfd, STDERR_FILENO) < 0)
		_exit(126);
	if (outfd >= 0 && dup2(outfd, STDOUT_FILENO) < 0)
		_exit(126);
	if (c->no_stdout && outfd < 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
	}
	execvp(c->argv[0], (char *const *)c->argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", c->argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * Until both pipes close: the first line of errfd into line, what outfd
 * gives into out (up to CHILD_OUT_MAX bytes). The rest is read and
 * dropped, so the child never blocks on a full pipe. fd -1: no such pipe.
 */
static void drain(int outfd, struct strbuf *out, int errfd, char *line,
		  size_t len)
{
	struct pollfd p[2] = { { .fd = outfd, .events = POLLIN },
			       { .fd = errfd, .events = POLLIN } };
	char buf[4096];
	size_t n = 0;

	line[0] = '\0';
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int i;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t got;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (i == 0 && out->len < CHILD_OUT_MAX)
				sb_add(out, buf,
				       (size_t)got < CHILD_OUT_MAX - out->len
					       ? (size_t)got
					       : CHILD_OUT_MAX - out->len);
			if (i == 1 && n < len - 1) {
				size_t k = (size_t)got < len - 1 - n
						   ? (size_t)got
						   : len - 1 - n;

				memcpy(line + n, buf, k);
				n += k;
				line[n] = '\0';
			}
		}
	}
	line[strcspn(line, "\n")] = '\0';
}

static void close_pair(int fds[2])
{
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

int child_run(struct child *c)
{
	int err[2] = { -1, -1 }, out[2] = { -1, -1 };
	pid_t pid;
	int r;

	c->line[0] = '\0';
	c->status = 0;
	if ((c->keep_stderr && pipe2(err, O_CLOEXEC)) ||
	    (c->out && pipe2(out, O_CLOEXEC))) {
		r = -errno;
		close_pair(err);
		return r;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close_pair(err);
		close_pair(out);
		return r;
	}
	if (pid == 0)
		exec_child(c, out[1], err[1]);
	if (err[1] >= 0)
		close(err[1]);
	if (out[1] >= 0)
		close(out[1]);
	if (err[0] >= 0 || out[0] >= 0)
		drain(out[0], c->out, err[0], c->line, sizeof(c->line));
	if (err[0] >= 0)
		close(err[0]);
	if (out[0] >= 0)
		close(out[0]);
	while (waitpid(pid, &c->status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 ? 0 : -EIO;
}

void child_status_fmt(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "ended with status %d", status);
}
