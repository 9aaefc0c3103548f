// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/log.h"
#include "fabric/keptvms.h"
#include "fabric/vmcache.h"

static int path_of(const struct kept *k, const char *suffix, char *buf,
		   size_t len)
{
	int n = snprintf(buf, len, "%s%s", k->lock, suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int kept_init(struct kept *k, const char *lock, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(lock, '/');
	struct stat st;
	int n;

	memset(k, 0, sizeof(*k));
	n = snprintf(k->lock, sizeof(k->lock), "%s", lock);
	if (n < 0 || (size_t)n >= sizeof(k->lock)) {
		err_set(err, errlen, "%.200s: path too long", lock);
		return -ENAMETOOLONG;
	}
	if (!slash)
		strcpy(dir, ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == lock ? 1 : (int)(slash - lock), lock);
	k->own = !stat(dir, &st) && st.st_uid == geteuid();
	return 0;
}

int kept_spool(const struct kept *k, const char *what, char *err, size_t errlen)
{
	char spool[PATH_MAX], f[PATH_MAX];
	struct stat st;
	int fd = -1, r;

	if (!k->own)
		return 0;
	r = path_of(k, ".events", spool, sizeof(spool));
	if (!r && mkdir(spool, 0700) && errno != EEXIST)
		r = -errno;
	if (!r && (lstat(spool, &st) || !S_ISDIR(st.st_mode)))
		r = -ENOTDIR;
	if (!r && (size_t)snprintf(f, sizeof(f), "%s/%s.XXXXXX", spool, what) >=
			  sizeof(f))
		r = -ENAMETOOLONG;
	if (!r && (fd = mkstemp(f)) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (!r)
		return 0;
	/* unrecorded: the kept listing goes, the next run lists every VM */
	if (!path_of(k, ".vms", f, sizeof(f)))
		unlink(f);
	err_set(err, errlen,
		"cannot record the event (%s) in %.200s; the next run lists "
		"every VM",
		what, spool);
	return r;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* "42.Xa3f9Q" -> 42; "new.*" -> -2; anything else (all, ours not) -> -1 */
static int event_of(const char *name)
{
	size_t n = strcspn(name, ".");
	char id[16];
	int v;

	if (!name[n] || name[0] == '.')
		return -3; /* not a spooled event (".", ".."): left alone */
	if (n == 3 && !memcmp(name, "new", 3))
		return -2;
	if (!n || n >= sizeof(id))
		return -1;
	memcpy(id, name, n);
	id[n] = '\0';
	return dec_parse_int(id, &v) ? -1 : v;
}

/* The spool emptied: each event's VM into t (full for "all"). */
static int take_spool(const struct kept *k, struct kept_take *t, bool keep)
{
	char spool[PATH_MAX];
	size_t alloc = 0;
	struct dirent *e;
	DIR *d;
	int r = 0;

	if (path_of(k, ".events", spool, sizeof(spool)))
		return 0;
	d = opendir(spool);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int v = event_of(e->d_name);

		if (v == -3)
			continue;
		unlinkat(dirfd(d), e->d_name, 0);
		if (!keep || v == -2)
			continue;
		if (v == -1) {
			t->full = true;
			continue;
		}
		if (!r && ALLOC_GROW(t->ids, t->nids + 1, alloc))
			r = -ENOMEM;
		if (!r)
			t->ids[t->nids++] = v;
	}
	closedir(d);
	return r;
}

/* from copied to to (0600, a file of its own) with the mtime stamp */
static int copy_file(const char *from, const char *to, time_t stamp)
{
	struct timespec ts[2] = { { stamp, 0 }, { stamp, 0 } };
	char buf[65536];
	int in, out = -1, r = 0;
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1
		     : open(to,
			    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				    O_NOFOLLOW,
			    0600);
	if (in < 0 || out < 0)
		r = -errno;
	while (!r && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, (size_t)n) != n)
			r = n < 0 ? -errno : -EIO;
	}
	if (!r && (fchmod(out, 0600) || futimens(out, ts)))
		r = -errno;
	if (out >= 0 && close(out) && !r)
		r = -errno;
	if (in >= 0)
		close(in);
	return r;
}

int kept_take(const struct kept *k, const char *moved_to, long full_every,
	      time_t now, struct kept_take *t)
{
	char cache[PATH_MAX], taken[PATH_MAX];
	struct stat st;
	int r;

	memset(t, 0, sizeof(*t));
	t->full = true;
	t->stamp = now;
	t->next = -1;
	if (!k->own)
		return 0;
	/*
	 * Taken by a rename beside it (one filesystem), then copied into the
	 * run's scratch directory: TMPDIR is often a filesystem of its own
	 * (a tmpfs /tmp), where a rename from /var/lib/one fails with EXDEV
	 * and every run would list every VM. A run killed in between leaves
	 * no LOCK.vms: the next run lists every VM.
	 */
	if (path_of(k, ".vms", cache, sizeof(cache)) ||
	    path_of(k, ".vms.taken", taken, sizeof(taken)) ||
	    rename(cache, taken)) {
		/* the events go with the full listing */
		return take_spool(k, t, false);
	}
	if (stat(taken, &st) || copy_file(taken, moved_to, st.st_mtime)) {
		unlink(taken);
		unlink(moved_to);
		return take_spool(k, t, false);
	}
	unlink(taken);
	t->full = false;
	r = take_spool(k, t, true);
	if (t->nids) {
		size_t i, n = 0;

		qsort(t->ids, t->nids, sizeof(*t->ids), cmp_int);
		for (i = 0; i < t->nids; i++)
			if (!n || t->ids[n - 1] != t->ids[i])
				t->ids[n++] = t->ids[i];
		t->nids = n;
	}
	t->next = vmcache_next_id(moved_to);
	if (stat(moved_to, &st) == 0)
		t->stamp = st.st_mtime;
	else
		t->full = true;
	if (r || full_every == 0 || now - t->stamp >= full_every ||
	    t->stamp > now || t->next < 0 || t->nids > KEPT_IDS_MAX)
		t->full = true;
	if (t->full)
		t->stamp = now;
	return r;
}

void kept_take_free(struct kept_take *t)
{
	free(t->ids);
	t->ids = NULL;
	t->nids = 0;
}

int kept_keep(const struct kept *k, const char *vms, time_t stamp)
{
	char cache[PATH_MAX], part[PATH_MAX];
	int r;

	if (!k->own)
		return 0;
	if (path_of(k, ".vms", cache, sizeof(cache)) ||
	    path_of(k, ".vms.new", part, sizeof(part)))
		return -ENAMETOOLONG;
	r = copy_file(vms, part, stamp);
	if (!r && rename(part, cache))
		r = -errno;
	if (r) {
		unlink(part);
		unlink(cache);
	}
	return r;
}
