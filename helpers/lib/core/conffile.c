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

#include "core/conffile.h"
#include "core/log.h"
#include "core/strbuf.h"

/* "/etc/opensm/partitions.conf" (or ".../ib/") -> "/etc/opensm" */
static int dir_of(const char *path, char *dir, size_t size)
{
	size_t n = strlen(path);
	const char *slash;

	while (n > 1 && path[n - 1] == '/')
		n--;
	slash = memrchr(path, '/', n);
	if (!slash) {
		memcpy(dir, ".", 2);
		return 0;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return 0;
}

int fsync_dir(const char *dir)
{
	int fd, r;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fsync(fd) ? -errno : 0;
	close(fd);
	return r;
}

int fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	int r = dir_of(path, dir, sizeof(dir));

	return r ? r : fsync_dir(dir);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* path <- text through path.XXXXXX, fsync, rename; the temp never stays. */
static int replace(const char *path, const char *text, size_t len, mode_t mode,
		   char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
	    sizeof(tmp)) {
		err_set(err, errlen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		err_set(err, errlen, "%s: cannot create a file beside it: %s",
			path, strerror(-r));
		return r;
	}
	r = write_all(fd, text, len);
	if (!r && fchmod(fd, mode))
		r = -errno;
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		err_set(err, errlen, "%s: write %s: %s", path, tmp,
			strerror(-r));
		unlink(tmp);
		return r;
	}
	r = fsync_dir_of(path);
	if (r)
		err_set(err, errlen, "%s: fsync of its directory: %s", path,
			strerror(-r));
	return r;
}

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
		r = replace(backup, sb_str(&old), old.len, mode, err, errlen);
		if (r)
			goto out;
	}
	had_old = !r;
	r = replace(path, text, len, mode, err, errlen);
	if (!r && !had_old)
		r = 2;
out:
	sb_release(&old);
	return r;
}
