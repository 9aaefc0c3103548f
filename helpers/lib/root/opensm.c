// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/child.h"
#include "core/log.h"
#include "root/opensm.h"
#include "core/strbuf.h"

/*
 * Is pid the subnet manager: one of root's processes (the owner of
 * /proc/<pid>), running OPENSM_EXE (/proc/<pid>/exe is that very file:
 * same device and inode, whatever path a user's copy has)? 0, or -ESRCH
 * with why: "no process 4242", "it runs /home/eve/opensm, not
 * /usr/sbin/opensm", "it runs as uid 1000, not root".
 */
static int is_sm(pid_t pid, char *why, size_t len)
{
	char path[64], exe[PATH_MAX];
	struct stat proc, st, want;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld", (long)pid);
	if (stat(path, &proc)) {
		err_set(why, len, "no process %ld", (long)pid);
		return -ESRCH;
	}
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (stat(OPENSM_EXE, &want)) {
		err_set(why, len, "%s: %s", OPENSM_EXE, strerror(errno));
		return -ESRCH;
	}
	if (stat(path, &st) || st.st_dev != want.st_dev ||
	    st.st_ino != want.st_ino) {
		err_set(why, len, "it runs %s, not %s",
			exe[0] ? str_sanitize(exe).s : "an unknown program",
			OPENSM_EXE);
		return -ESRCH;
	}
	if (proc.st_uid != 0) {
		err_set(why, len, "it runs as uid %u, not root",
			(unsigned)proc.st_uid);
		return -ESRCH;
	}
	return 0;
}

static int hup(pid_t pid, char *err, size_t errlen)
{
	if (kill(pid, SIGHUP)) {
		int r = -errno;

		err_set(err, errlen, "SIGHUP to opensm %ld: %s", (long)pid,
			strerror(-r));
		return r;
	}
	return 0;
}

/* "4242" -> 4242; anything but a pid 2..INT_MAX: -EINVAL */
static int parse_pid(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *v < 2 || *v > INT_MAX)
		return -EINVAL;
	while (*end == '\n' || *end == ' ')
		end++;
	return *end ? -EINVAL : 0;
}

int opensm_hup_pidfile(const char *pidfile, pid_t *pid, char *err,
		       size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char why[PATH_MAX + 64];
	long v;
	int r;

	r = sb_read_file(&sb, pidfile, 64);
	if (r) {
		err_set(err, errlen, "opensm pid file %s: %s", pidfile,
			strerror(-r));
		sb_release(&sb);
		return r;
	}
	r = parse_pid(sb_str(&sb), &v);
	sb_release(&sb);
	if (r) {
		err_set(err, errlen, "opensm pid file %s: not a pid", pidfile);
		return r;
	}
	*pid = (pid_t)v;
	r = is_sm(*pid, why, sizeof(why));
	if (r) {
		err_set(err, errlen,
			"opensm pid file %s: process %ld is not the subnet "
			"manager: %s",
			pidfile, v, why);
		return r;
	}
	return hup(*pid, err, errlen);
}

/*
 * systemctl show's records, one per unit, a blank line between them:
 *   Id=opensm@0x0002c903000e0b72.service
 *   MainPID=1234
 * Each unit's main pid (0: not running) into ids/pids, at most max.
 */
struct unit_pid {
	char id[128];
	long pid;
};

static size_t parse_show(char *text, struct unit_pid *u, size_t max)
{
	char *line, *nl;
	bool in = false;
	size_t n = 0;

	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!*line) {
			in = false;
			continue;
		}
		if (!in) {
			if (n == max)
				break;
			memset(&u[n], 0, sizeof(u[n]));
			in = true;
			n++;
		}
		if (!strncmp(line, "Id=", 3))
			snprintf(u[n - 1].id, sizeof(u[n - 1].id), "%s",
				 line + 3);
		else if (!strncmp(line, "MainPID=", 8) &&
			 parse_pid(line + 8, &u[n - 1].pid))
			u[n - 1].pid = 0; /* "0": not running */
	}
	return n;
}

#define UNITS_MAX 64

int opensm_hup_service(const char *units, pid_t pids[OPENSM_TOLD_MAX],
		       char *err, size_t errlen)
{
	const char *argv[] = { OPENSM_SYSTEMCTL,
			       "show",
			       "--property=Id,MainPID",
			       "--",
			       units,
			       NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .keep_stderr = true, .out = &out };
	struct unit_pid u[UNITS_MAX];
	char why[PATH_MAX + 64];
	size_t n = 0, i;
	int r, told = 0;

	r = child_run(&c);
	if (r == -EIO) {
		char how[64];

		child_status_fmt(c.status, how, sizeof(how));
		err_set(err, errlen, "%s show %s %s%s%s", OPENSM_SYSTEMCTL,
			units, how, c.line[0] ? ": " : "", c.line);
	} else if (r) {
		err_set(err, errlen, "%s: %s", OPENSM_SYSTEMCTL, strerror(-r));
	}
	if (!r && out.buf)
		n = parse_show(out.buf, u, UNITS_MAX);
	sb_release(&out);
	if (r)
		return r;
	/* every main process checked before any is signalled */
	for (i = 0; i < n; i++) {
		if (!u[i].pid)
			continue;
		r = is_sm((pid_t)u[i].pid, why, sizeof(why));
		if (r) {
			err_set(err, errlen,
				"%s: main process %ld is not the subnet "
				"manager: %s",
				str_sanitize(u[i].id).s, u[i].pid, why);
			return r;
		}
	}
	for (i = 0; i < n; i++) {
		if (!u[i].pid)
			continue;
		r = hup((pid_t)u[i].pid, err, errlen);
		if (r)
			return r;
		if (told < OPENSM_TOLD_MAX)
			pids[told] = (pid_t)u[i].pid;
		told++;
	}
	if (!told) {
		err_set(err, errlen, "no unit matching %s runs opensm", units);
		return -ESRCH;
	}
	return told;
}

int opensm_run_cmd(const char *cmd, char *err, size_t errlen)
{
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct child c = { .argv = argv };
	int r = child_run(&c);

	if (r == -EIO) {
		char how[64];

		child_status_fmt(c.status, how, sizeof(how));
		err_set(err, errlen, "reload command '%.200s' %s", cmd, how);
	} else if (r) {
		err_set(err, errlen, "reload command: %s", strerror(-r));
	}
	return r;
}
