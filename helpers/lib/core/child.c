// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/child.h"

/* In the child: stdout and stderr where the caller wants them, then exec.
 * A failed exec says so on stderr (kept by the parent) and exits 127, as
 * a shell does for a command it cannot find. */
static void exec_child(const struct child *c, int errfd)
{
	if (errfd >= 0 && dup2(errfd, STDERR_FILENO) < 0)
		_exit(126);
	if (c->no_stdout) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
	}
	execvp(c->argv[0], (char *const *)c->argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", c->argv[0],
		strerror(errno));
	_exit(127);
}

/* The first line of what fd gives until it closes (the rest is read and
 * dropped, so the child never blocks on a full pipe). */
static void read_line(int fd, char *line, size_t len)
{
	char drop[256];
	size_t n = 0;
	ssize_t got;

	while (n < len - 1 && (got = read(fd, line + n, len - 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
	}
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	while ((got = read(fd, drop, sizeof(drop))) != 0)
		if (got < 0 && errno != EINTR)
			break;
}

int child_run(struct child *c)
{
	int fds[2] = { -1, -1 };
	pid_t pid;

	c->line[0] = '\0';
	c->status = 0;
	if (c->keep_stderr && pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
		return r;
	}
	if (pid == 0)
		exec_child(c, fds[1]);
	if (fds[0] >= 0) {
		close(fds[1]);
		read_line(fds[0], c->line, sizeof(c->line));
		close(fds[0]);
	}
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
