// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/sysfs.h"
#include "host/pcitopo.h"

static int addr_cmp(const void *a, const void *b)
{
	return pci_addr_cmp(a, b);
}

static int dev_cmp(const void *a, const void *b)
{
	const struct pt_dev *x = a, *y = b;

	return pci_addr_cmp(&x->addr, &y->addr);
}

/* What the function at bdf is, into d: class, ids, driver, place, node.
 * -ENOENT when sysfs has no class file for it (no such function). */
static int read_facts(const char *bdf, struct pt_dev *d)
{
	char path[PATH_MAX];
	long v;
	int r;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/class", bdf))
		return -ENAMETOOLONG;
	r = sysfs_read_long(path, &v);
	if (r)
		return r;
	if (v < 0 || v > 0xffffff)
		return -EINVAL;
	d->class_code = (uint32_t)v;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/driver", bdf) ||
	    sysfs_link_name(path, d->driver, sizeof(d->driver)))
		d->driver[0] = '\0';
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/vendor", bdf) &&
	    !sysfs_read_long(path, &v))
		d->vendor_id = (uint16_t)v;
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/device", bdf) &&
	    !sysfs_read_long(path, &v))
		d->device_id = (uint16_t)v;
	pci_place_read(&d->addr, &d->place);
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/numa_node", bdf) &&
	    !sysfs_read_long(path, &v) && v >= 0 && v <= INT_MAX)
		d->place.numa_node = (int)v;
	return 0;
}

int pt_dev_read(const struct pci_addr *a, struct pt_dev *out)
{
	char bdf[PCI_ADDR_STRLEN];

	memset(out, 0, sizeof(*out));
	out->addr = *a;
	out->place.numa_node = -1;
	pci_addr_fmt(a, bdf);
	return read_facts(bdf, out);
}

/* Is it one a VM can be given through PCI=[...]? */
static bool passable(const struct pt_dev *d)
{
	if ((d->class_code >> 16) == 0x06)
		return false; /* bridges, host bridges, ... */
	return pci_class_is_gpu(d->class_code) ||
	       !strcmp(d->driver, "vfio-pci") || !strcmp(d->driver, "pci-stub");
}

/* What a function is, into d; false when it is none of ours to list. Its
 * class and driver decide before anything else of it is read. */
static bool read_dev(const char *bdf, struct pt_dev *d)
{
	char path[PATH_MAX];
	long v;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/class", bdf) ||
	    sysfs_read_long(path, &v) || v < 0 || v > 0xffffff)
		return false;
	d->class_code = (uint32_t)v;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/driver", bdf) ||
	    sysfs_link_name(path, d->driver, sizeof(d->driver)))
		d->driver[0] = '\0';
	if (!passable(d))
		return false;
	d->place.numa_node = -1;
	return !read_facts(bdf, d);
}

int pt_dev_scan(const struct pci_addr *skip, size_t nskip,
		struct pt_dev_list *out)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *dir;
	int r = 0;

	out->v = NULL;
	out->n = 0;
	dir = opendir(SYS_PCI);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		struct pt_dev d = { 0 };

		if (pci_addr_parse(de->d_name, &d.addr) ||
		    (nskip &&
		     bsearch(&d.addr, skip, nskip, sizeof(*skip), addr_cmp)))
			continue;
		if (!read_dev(de->d_name, &d))
			continue;
		if (ALLOC_GROW(out->v, out->n + 1, cap)) {
			r = -ENOMEM;
			break;
		}
		out->v[out->n++] = d;
	}
	closedir(dir);
	if (r) {
		pt_dev_list_free(out);
		return r;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), dev_cmp);
	return 0;
}

void pt_dev_list_free(struct pt_dev_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
