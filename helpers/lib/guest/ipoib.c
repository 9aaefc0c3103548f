// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "guest/ipoib.h"
#include "core/log.h"
#include "core/sysfs.h"

const char *ipoib_mode_name(enum ipoib_mode m)
{
	return m == IPOIB_CONNECTED ? "connected" : "datagram";
}

int ipoib_mode_parse(const char *s, enum ipoib_mode *m)
{
	if (!strcmp(s, "datagram"))
		*m = IPOIB_DATAGRAM;
	else if (!strcmp(s, "connected"))
		*m = IPOIB_CONNECTED;
	else
		return -EINVAL;
	return 0;
}

int ipoib_addr_parse(const char *s, uint64_t *guid, bool *cm)
{
	unsigned char b[20];
	size_t i;

	for (i = 0; i < sizeof(b); i++, s += 3) {
		int hi = hex_digit(s[0]);
		int lo = hi < 0 ? -1 : hex_digit(s[1]);

		if (lo < 0 || s[2] != (i + 1 < sizeof(b) ? ':' : '\0'))
			return -EINVAL;
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	*guid = 0;
	for (i = 12; i < 20; i++)
		*guid = *guid << 8 | b[i];
	*cm = b[0] & 0x80;
	return 0;
}

static void warn_path(ipoib_warn_fn warn, void *arg, const char *name,
		      const char *file, const char *why)
{
	char msg[256];

	if (!warn)
		return;
	err_set(msg, sizeof(msg), SYS_NET "/%s/%s: %s", name, file, why);
	warn(arg, msg);
}

static int read_attr(const char *name, const char *file, char *buf, size_t len)
{
	char path[512];
	int r = path_fmt(path, sizeof(path), SYS_NET "/%s/%s", name, file);

	return r ? r : sysfs_read_str(path, buf, len);
}

static int read_num(const char *name, const char *file, long *out)
{
	char path[512];
	int r = path_fmt(path, sizeof(path), SYS_NET "/%s/%s", name, file);

	return r ? r : sysfs_read_long(path, out);
}

/* The one RDMA device under device/infiniband/, "" when there is none. */
static void find_ibdev(struct ipoib_dev *d)
{
	char path[512];
	struct dirent *e;
	DIR *dir;

	if (path_fmt(path, sizeof(path), SYS_NET "/%s/device/infiniband",
		     d->name))
		return;
	dir = opendir(path);
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' ||
		    strlen(e->d_name) >= sizeof(d->ibdev))
			continue;
		/* a function with two RDMA devices names none for sure */
		if (d->ibdev[0]) {
			d->ibdev[0] = '\0';
			break;
		}
		strcpy(d->ibdev, e->d_name);
	}
	closedir(dir);
}

/* One entry of /sys/class/net: 1 when it is an IPoIB parent, filled in. */
static int probe(const char *name, struct ipoib_dev *d, ipoib_warn_fn warn,
		 void *arg)
{
	char buf[SYSFS_VALUE_MAX], path[512];
	long type, ifindex, iflink, port;

	memset(d, 0, sizeof(*d));
	if (strlen(name) >= sizeof(d->name))
		return 0;
	strcpy(d->name, name);
	if (read_num(name, "type", &type) || type != 32)
		return 0;
	/* legacy children have a parent file, RTNL ones an iflink elsewhere */
	if (!path_fmt(path, sizeof(path), SYS_NET "/%s/parent", name) &&
	    !sysfs_read_str(path, buf, sizeof(buf)))
		return 0;
	if (!read_num(name, "ifindex", &ifindex) &&
	    !read_num(name, "iflink", &iflink) && iflink != ifindex)
		return 0;
	if (read_attr(name, "address", buf, sizeof(buf)) ||
	    ipoib_addr_parse(buf, &d->guid, &d->cm)) {
		warn_path(warn, arg, name, "address",
			  "not a 20-byte IPoIB address");
		return 0;
	}
	if (!read_num(name, "dev_port", &port) && port >= 0 && port < 255)
		d->port = (int)port + 1;
	if (!read_attr(name, "mode", buf, sizeof(buf)) &&
	    !ipoib_mode_parse(buf, &d->mode))
		d->has_mode = true;
	find_ibdev(d);
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ipoib_dev *)a)->name,
		      ((const struct ipoib_dev *)b)->name);
}

int ipoib_list(struct ipoib_devs *out, ipoib_warn_fn warn, void *arg, char *err,
	       size_t errlen)
{
	struct ipoib_dev d;
	struct dirent *e;
	DIR *dir;

	memset(out, 0, sizeof(*out));
	dir = opendir(SYS_NET);
	if (!dir) {
		int r = -errno;

		err_set(err, errlen, SYS_NET ": %s", strerror(-r));
		return r;
	}
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || probe(e->d_name, &d, warn, arg) != 1)
			continue;
		if (ALLOC_GROW(out->v, out->n + 1, out->alloc)) {
			closedir(dir);
			ipoib_devs_free(out);
			err_set(err, errlen, "out of memory");
			return -ENOMEM;
		}
		out->v[out->n++] = d;
	}
	closedir(dir);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	return 0;
}

void ipoib_devs_free(struct ipoib_devs *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

int ipoib_set_mode(const char *name, enum ipoib_mode mode, char *err,
		   size_t errlen)
{
	char path[512];
	int r = path_fmt(path, sizeof(path), SYS_NET "/%s/mode", name);

	/* the kernel takes exactly "connected\n" or "datagram\n" */
	if (!r)
		r = sysfs_write_str(path, mode == IPOIB_CONNECTED ? "connected"
								    "\n"
								  : "datagram"
								    "\n");
	if (r)
		err_set(err, errlen, "%s: %s", path, strerror(-r));
	return r;
}
