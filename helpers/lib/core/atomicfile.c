// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/log.h"

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

int atomic_replace(const char *path, const char *tmp, const char *text,
		   size_t len, mode_t mode, char *err, size_t errlen)
{
	char name[PATH_MAX];
	int fd, r;

	if (tmp)
		r = snprintf(name, sizeof(name), "%s", tmp);
	else
		r = snprintf(name, sizeof(name), "%s.XXXXXX", path);
	if (r < 0 || (size_t)r >= sizeof(name)) {
		err_set(err, errlen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	if (tmp) {
		/* ours from a failed replace, if it exists at all */
		unlink(name);
		fd = open(name,
			  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  mode);
	} else {
		fd = mkstemp(name);
	}
	if (fd < 0) {
		r = -errno;
		err_set(err, errlen, "%s: cannot create a file beside it: %s",
			path, strerror(-r));
		return r;
	}
	/* exactly mode, whatever the umask */
	r = fchmod(fd, mode) ? -errno : 0;
	if (!r)
		r = write_all(fd, text, len);
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(name, path))
		r = -errno;
	if (r) {
		err_set(err, errlen, "%s: write %s: %s", path, name,
			strerror(-r));
		unlink(name);
		return r;
	}
	r = fsync_dir_of(path);
	if (r)
		err_set(err, errlen, "%s: fsync of its directory: %s", path,
			strerror(-r));
	return r;
}
