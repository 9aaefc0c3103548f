// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/scratch.h"

int scratch_make(struct scratch *s, const char *tmpdir, const char *prefix,
		 char *err, size_t errlen)
{
	int n;

	s->dir[0] = '\0';
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	n = snprintf(s->dir, sizeof(s->dir), "%s/%s.XXXXXX", tmpdir, prefix);
	if (n < 0 || (size_t)n >= sizeof(s->dir)) {
		s->dir[0] = '\0';
		err_set(err, errlen, "%.200s: path too long", tmpdir);
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(s->dir)) {
		int r = -errno;

		err_set(err, errlen, "cannot create a directory in %.200s: %s",
			tmpdir, strerror(errno));
		s->dir[0] = '\0';
		return r;
	}
	return 0;
}

void scratch_remove(struct scratch *s)
{
	DIR *d;
	struct dirent *e;

	if (!s->dir[0])
		return;
	d = opendir(s->dir);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(s->dir);
	s->dir[0] = '\0';
}

int scratch_path(const struct scratch *s, const char *name, char *buf,
		 size_t len)
{
	int n = snprintf(buf, len, "%s/%s", s->dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

FILE *scratch_open(const struct scratch *s, const char *name, const char *mode)
{
	char path[PATH_MAX];
	int flags, fd;
	FILE *f;

	if (scratch_path(s, name, path, sizeof(path))) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (mode[0] == 'r')
		return fopen(path, mode);
	flags = O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
		(strchr(mode, '+') ? O_RDWR : O_WRONLY);
	fd = open(path, flags, 0600);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f)
		close(fd);
	return f;
}
