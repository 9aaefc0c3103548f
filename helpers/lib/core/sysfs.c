// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/sysfs.h"

int path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int sysfs_read_str_at(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	if (len == 0)
		return -EINVAL;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	return sysfs_read_str_at(AT_FDCWD, path, buf, len);
}

/* buf as a whole number, or -EINVAL reported as "DIR/NAME" (or PATH). */
static int parse_long(const char *dir, const char *name, const char *buf,
		      long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(buf, &end, 0);
	if (buf[0] == '\0' || *end != '\0' || errno) {
		log_msg("%s%s%s: not a number: '%s'", dir, name ? "/" : "",
			name ? name : "", buf);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int sysfs_read_long(const char *path, long *out)
{
	char buf[SYSFS_VALUE_MAX];
	int r;

	r = sysfs_read_str(path, buf, sizeof(buf));
	return r ? r : parse_long(path, NULL, buf, out);
}

int sysfs_read_long_at(int dirfd, const char *dir, const char *name, long *out)
{
	char buf[SYSFS_VALUE_MAX];
	int r;

	r = sysfs_read_str_at(dirfd, name, buf, sizeof(buf));
	return r ? r : parse_long(dir, name, buf, out);
}

int sysfs_link_name(const char *path, char *buf, size_t len)
{
	return sysfs_link_name_at(AT_FDCWD, path, buf, len);
}

int sysfs_link_at(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	n = readlinkat(dirfd, name, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

int sysfs_link_name_at(int dirfd, const char *name, char *buf, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	int r;

	r = sysfs_link_at(dirfd, name, target, sizeof(target));
	if (r)
		return r;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

int sysfs_write_str(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	if (close(fd) && !r)
		r = -errno;
	return r;
}
