// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/child.h"
#include "core/log.h"

/* In the child: stdout and stderr where the caller wants them, then exec.
 * A failed exec says so on stderr (kept by the parent) and exits 127, as
 * a shell does for a command it cannot find. */
static void exec_child(const struct child *c, int errfd, int outfd)
{
	if (c->timeout && setpgid(0, 0) < 0)
		_exit(126);
	if (c->err_fd > 0)
		errfd = c->err_fd;
	if (c->out_fd > 0)
		outfd = c->out_fd;
	if (errfd >= 0 && dup2(errfd, STDERR_FILENO) < 0)
		_exit(126);
	if (outfd >= 0 && dup2(outfd, STDOUT_FILENO) < 0)
		_exit(126);
	if (c->in_fd > 0 && dup2(c->in_fd, STDIN_FILENO) < 0)
		_exit(126);
	if (c->no_stdout && outfd < 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(126);
	}
	if (c->no_stdin && c->in_fd <= 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0)
			_exit(126);
	}
	execvp(c->argv[0], (char *const *)c->argv);
	dprintf(STDERR_FILENO, "cannot run %s: %s\n", c->argv[0],
		strerror(errno));
	_exit(127);
}

/*
 * What the child writes on the pipes we keep (fd -1: not kept), until
 * both close: stderr's first line into c->line, stdout into c->out (up to
 * c->out_max bytes). The rest is read and dropped, so the child never
 * blocks on a full pipe.
 */
static void drain(struct child *c, int errfd, int outfd)
{
	struct pollfd p[2] = { { errfd, POLLIN, 0 }, { outfd, POLLIN, 0 } };
	size_t n = 0, room;
	char buf[512];
	ssize_t got;
	int i;

	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				p[i].fd = -1; /* poll skips it from now on */
				continue;
			}
			if (i == 0) {
				room = sizeof(c->line) - 1 - n;
				room = (size_t)got < room ? (size_t)got : room;
				memcpy(c->line + n, buf, room);
				n += room;
			} else if (c->out->len < c->out_max) {
				room = c->out_max - c->out->len;
				if (sb_add(c->out, buf,
					   (size_t)got < room ? (size_t)got
							      : room))
					c->out_max =
						c->out->len; /* no memory */
			}
		}
	}
	c->line[n] = '\0';
	c->line[strcspn(c->line, "\n")] = '\0';
}

/* Milliseconds from now to deadline (CLOCK_MONOTONIC), at least 0. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

/* A started child that ended: its pidfd closed, what it left in its
 * group killed, and what child_run returns for it. */
static int reaped(struct child *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	/* what it started in its group is not left running either */
	kill(-c->pid, SIGKILL);
	c->pid = 0;
	if (c->timed_out)
		return -ETIMEDOUT;
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 ? 0 : -EIO;
}

int child_start(struct child *c)
{
	pid_t pid;

	c->line[0] = '\0';
	c->status = 0;
	c->timed_out = false;
	c->pid = 0;
	c->pidfd = -1;
	/* bounded: files, not pipes (a process it leaves behind could hold
	 * a pipe for good) */
	if (!c->timeout || (c->keep_stderr && c->err_fd <= 0) ||
	    (c->out && c->out_fd <= 0))
		return -EINVAL;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		exec_child(c, -1, -1);
	setpgid(pid, pid); /* before we ever kill the group */
	c->pid = pid;
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	clock_gettime(CLOCK_MONOTONIC, &c->deadline);
	c->deadline.tv_sec += c->timeout;
	return 0;
}

/*
 * Each child waited for until it ends or its time is up, then its whole
 * process group killed. Through pidfds, one poll for all of them; where
 * the kernel has none (before 5.3), by looking every 10 ms.
 */
int child_wait_any(struct child *const *cs, size_t n, size_t *which)
{
	struct pollfd *p = calloc(n ? n : 1, sizeof(*p));
	int r = -ECHILD;

	for (;;) {
		bool any = false, blind = !p;
		int left = INT_MAX, np = 0;
		size_t i;

		for (i = 0; i < n; i++) {
			struct child *c = cs[i];
			pid_t w;
			int l;

			if (!c->pid)
				continue;
			any = true;
			w = waitpid(c->pid, &c->status, WNOHANG);
			if (w < 0 && errno == EINTR)
				w = 0;
			if (w < 0) {
				r = -errno;
				if (c->pidfd >= 0)
					close(c->pidfd);
				c->pidfd = -1;
				c->pid = 0;
				*which = i;
				goto out;
			}
			if (w == c->pid) {
				*which = i;
				r = reaped(c);
				goto out;
			}
			l = ms_left(&c->deadline);
			if (!l) {
				c->timed_out = true;
				kill(-c->pid, SIGKILL);
				kill(c->pid, SIGKILL);
				while (waitpid(c->pid, &c->status, 0) < 0 &&
				       errno == EINTR)
					;
				*which = i;
				r = reaped(c);
				goto out;
			}
			left = l < left ? l : left;
			if (c->pidfd < 0 || !p)
				blind = true;
			else
				p[np++] =
					(struct pollfd){ c->pidfd, POLLIN, 0 };
		}
		if (!any)
			goto out;
		if (blind && left > 10)
			left = 10;
		poll(p, (nfds_t)np, left);
	}
out:
	free(p);
	return r;
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
	int errp[2] = { -1, -1 }, outp[2] = { -1, -1 }, r;
	pid_t pid;

	if (c->timeout) {
		struct child *one = c;
		size_t i;

		r = child_start(c);
		return r ? r : child_wait_any(&one, 1, &i);
	}
	c->line[0] = '\0';
	c->status = 0;
	c->timed_out = false;
	if (c->out && !c->out_max)
		c->out_max = CHILD_OUT_MAX;
	if ((c->keep_stderr && c->err_fd <= 0 && pipe2(errp, O_CLOEXEC)) ||
	    (c->out && c->out_fd <= 0 && pipe2(outp, O_CLOEXEC))) {
		r = -errno;
		close_pair(errp);
		return r;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close_pair(errp);
		close_pair(outp);
		return r;
	}
	if (pid == 0)
		exec_child(c, errp[1], outp[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (errp[0] >= 0 || outp[0] >= 0)
		drain(c, errp[0], outp[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (outp[0] >= 0)
		close(outp[0]);
	while (waitpid(pid, &c->status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 ? 0 : -EIO;
}

int child_cmd_init(struct child_cmd *c, const char *cmd)
{
	char *save = NULL, *w;

	c->argc = 0;
	c->argv[0] = NULL;
	if (strlen(cmd) >= sizeof(c->words))
		return -ENAMETOOLONG;
	memcpy(c->words, cmd, strlen(cmd) + 1);
	for (w = strtok_r(c->words, " \t", &save);
	     w && c->argc < CHILD_CMD_WORDS; w = strtok_r(NULL, " \t", &save))
		c->argv[c->argc++] = w;
	c->argv[c->argc] = NULL;
	return c->argc ? 0 : -EINVAL;
}

int child_cmd_add(struct child_cmd *c, const char *arg)
{
	if (c->argc >= CHILD_CMD_ARGS)
		return -E2BIG;
	c->argv[c->argc++] = arg;
	c->argv[c->argc] = NULL;
	return 0;
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

/* What a stderr file holds (at most CHILD_OUT_MAX bytes), into sb. */
static int read_err_text(int fd, struct strbuf *sb)
{
	char buf[4096];
	ssize_t n;
	int r = 0;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while (!r && sb->len < CHILD_OUT_MAX &&
	       (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		r = sb_add(sb, buf,
			   (size_t)n < CHILD_OUT_MAX - sb->len
				   ? (size_t)n
				   : CHILD_OUT_MAX - sb->len);
	}
	return r;
}

/* "a\nb\n\n" -> "a b" into buf, for an error line. */
static void one_line(const struct strbuf *t, char *buf, size_t len)
{
	size_t i, n = 0;
	bool blank = false;

	for (i = 0; i < t->len && n + 1 < len; i++) {
		if (t->buf[i] == '\n' || t->buf[i] == '\r') {
			blank = n > 0;
			continue;
		}
		if (blank && n + 2 < len)
			buf[n++] = ' ';
		blank = false;
		buf[n++] = t->buf[i];
	}
	buf[n] = '\0';
}

int child_named_begin(struct child *c, const char *name, char *err,
		      size_t errlen)
{
	int fd = memfd_create("stderr", MFD_CLOEXEC);

	if (fd < 0) {
		int r = -errno;

		err_set(err, errlen, "%s: cannot run it: %s", name,
			strerror(errno));
		return r;
	}
	c->err_fd = fd;
	c->keep_stderr = false;
	return 0;
}

int child_named_end(struct child *c, int r, const char *name,
		    struct strbuf *errtext, char *err, size_t errlen)
{
	struct strbuf own = STRBUF_INIT, *t = errtext ? errtext : &own;
	char how[64], line[1024];
	int rt;

	sb_reset(t);
	rt = read_err_text(c->err_fd, t);
	close(c->err_fd);
	c->err_fd = 0;
	one_line(t, line, sizeof(line));
	if (!line[0])
		strcpy(line, "no error output");
	if (r == -ETIMEDOUT)
		err_set(err, errlen, "%s timed out after %u s: %s", name,
			c->timeout, line);
	else if (r == -EIO && WIFEXITED(c->status))
		err_set(err, errlen, "%s failed (exit %d): %s", name,
			WEXITSTATUS(c->status), line);
	else if (r == -EIO) {
		child_status_fmt(c->status, how, sizeof(how));
		err_set(err, errlen, "%s failed (%s): %s", name, how, line);
	} else if (r)
		err_set(err, errlen, "%s: cannot run it: %s", name,
			strerror(-r));
	else if (rt)
		r = rt;
	sb_release(&own);
	return r;
}

int child_run_named(struct child *c, const char *name, struct strbuf *errtext,
		    char *err, size_t errlen)
{
	int r = child_named_begin(c, name, err, errlen);

	if (r)
		return r;
	return child_named_end(c, child_run(c), name, errtext, err, errlen);
}
