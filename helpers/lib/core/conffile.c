// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/conffile.h"
#include "core/log.h"
#include "core/strbuf.h"

/* The current file: 0 with its text and mode, -ENOENT when absent. */
static int read_old(const char *path, struct strbuf *old, mode_t *mode,
		    char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int fd, r;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return r;
		err_set(err, errlen, "%s: %s", path,
			r == -ELOOP ? "is a symbolic link, not a file"
				    : strerror(-r));
		return r;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		err_set(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	*mode = st.st_mode & 07777;
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		err_set(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	r = sb_read(old, f, CONFFILE_MAX);
	fclose(f);
	if (r)
		err_set(err, errlen, "%s: cannot read it: %s", path,
			strerror(-r));
	return r;
}

int conffile_holds(const char *path, const char *text, size_t len, char *err,
		   size_t errlen)
{
	struct strbuf old = STRBUF_INIT;
	mode_t mode;
	int r = read_old(path, &old, &mode, err, errlen);

	if (!r)
		r = old.len == len && !memcmp(sb_str(&old), text, len);
	else if (r == -ENOENT)
		r = 0;
	sb_release(&old);
	return r;
}

int conffile_install(const char *path, const char *backup, const char *text,
		     size_t len, char *err, size_t errlen)
{
	struct strbuf old = STRBUF_INIT;
	mode_t mode = 0644;
	struct stat st;
	bool had_old;
	int r;

	if (!*path || path[strlen(path) - 1] == '/') {
		err_set(err, errlen, "'%s': not a file name", path);
		return -EINVAL;
	}
	r = read_old(path, &old, &mode, err, errlen);
	if (r && r != -ENOENT)
		goto out;
	if (!r && old.len == len && !memcmp(sb_str(&old), text, len)) {
		r = 1;
		goto out;
	}
	if (!r && backup) {
		if (!lstat(backup, &st) && !S_ISREG(st.st_mode)) {
			err_set(err, errlen, "%s: not a regular file", backup);
			r = -EINVAL;
			goto out;
		}
		r = atomic_replace(backup, NULL, sb_str(&old), old.len, mode,
				   err, errlen);
		if (r)
			goto out;
	}
	had_old = !r;
	r = atomic_replace(path, NULL, text, len, mode, err, errlen);
	if (!r && !had_old)
		r = 2;
out:
	sb_release(&old);
	return r;
}
