// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/child.h"
#include "core/log.h"
#include "root/opensm.h"
#include "core/strbuf.h"

/* /proc/<pid>/comm is "opensm\n". */
static bool is_opensm(pid_t pid)
{
	char path[64], comm[32];
	FILE *f;
	bool yes = false;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(comm, sizeof(comm), f))
		yes = !strcmp(comm, "opensm\n");
	fclose(f);
	return yes;
}

int opensm_hup_pidfile(const char *pidfile, pid_t *pid, char *err,
		       size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char *end;
	long v;
	int r;

	r = sb_read_file(&sb, pidfile, 64);
	if (r) {
		err_set(err, errlen, "opensm pid file %s: %s", pidfile,
			strerror(-r));
		sb_release(&sb);
		return r;
	}
	errno = 0;
	v = strtol(sb_str(&sb), &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (errno || end == sb_str(&sb) || *end || v < 2 || v > INT_MAX) {
		err_set(err, errlen, "opensm pid file %s: not a pid", pidfile);
		sb_release(&sb);
		return -EINVAL;
	}
	sb_release(&sb);
	*pid = (pid_t)v;
	if (!is_opensm(*pid)) {
		err_set(err, errlen,
			"opensm pid file %s: process %ld is not opensm "
			"(stale pid file?)",
			pidfile, v);
		return -ESRCH;
	}
	if (kill(*pid, SIGHUP)) {
		r = -errno;
		err_set(err, errlen, "SIGHUP to opensm %ld: %s", v,
			strerror(-r));
		return r;
	}
	return 0;
}

int opensm_hup_all(char *err, size_t errlen)
{
	struct dirent *e;
	DIR *d = opendir("/proc");
	int n = 0, r = 0;

	if (!d) {
		r = -errno;
		err_set(err, errlen, "/proc: %s", strerror(-r));
		return r;
	}
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);

		if (*end || v < 2 || v > INT_MAX || !is_opensm((pid_t)v))
			continue;
		if (kill((pid_t)v, SIGHUP)) {
			if (errno == ESRCH)
				continue; /* gone meanwhile */
			r = -errno;
			err_set(err, errlen, "SIGHUP to opensm %ld: %s", v,
				strerror(-r));
			break;
		}
		n++;
	}
	closedir(d);
	return r ? r : n;
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
