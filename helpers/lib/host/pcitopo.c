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

/* "pci0000:14" -> domain 0, root bus 0x14 */
static int host_bridge_parse(const char *s, size_t len, uint16_t *domain,
			     uint8_t *bus)
{
	unsigned d = 0, b = 0;
	size_t i;

	if (len != 10 || strncmp(s, "pci", 3) || s[7] != ':')
		return -EINVAL;
	for (i = 3; i < 10; i++) {
		int x = hex_digit(s[i]);

		if (i == 7)
			continue;
		if (x < 0 || (s[i] >= 'A' && s[i] <= 'F'))
			return -EINVAL;
		if (i < 7)
			d = d << 4 | (unsigned)x;
		else
			b = b << 4 | (unsigned)x;
	}
	*domain = (uint16_t)d;
	*bus = (uint8_t)b;
	return 0;
}

int pci_place_parse(const char *target, const struct pci_addr *dev,
		    struct pci_place *out)
{
	const char *s = strstr(target, "devices/pci");
	struct pci_addr a;
	char comp[PCI_ADDR_STRLEN];
	size_t len;

	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	if (!s || (s != target && s[-1] != '/'))
		return -EINVAL;
	s += strlen("devices/");
	len = strcspn(s, "/");
	if (host_bridge_parse(s, len, &out->domain, &out->root_bus) ||
	    s[len] != '/')
		return -EINVAL;
	for (s += len + 1;; s += len + 1) {
		len = strcspn(s, "/");
		if (len != 12)
			return -EINVAL;
		memcpy(comp, s, len);
		comp[len] = '\0';
		if (pci_addr_parse(comp, &a) || a.domain != out->domain)
			return -EINVAL;
		if (!s[len])
			break;
		/* a bridge: the root port is on the host bridge's bus */
		if (out->nchain == PCI_CHAIN_MAX ||
		    (out->nchain == 0 && a.bus != out->root_bus))
			return -EINVAL;
		out->chain[out->nchain++] = a;
	}
	if (pci_addr_cmp(&a, dev))
		return -EINVAL;
	if (out->nchain >= 3) {
		out->has_switch = true;
		out->sw = out->chain[out->nchain - 2];
	}
	out->known = true;
	return 0;
}

void pci_place_read(const struct pci_addr *dev, struct pci_place *out)
{
	char bdf[PCI_ADDR_STRLEN], path[PATH_MAX], target[PATH_MAX];
	char me[PCI_ADDR_STRLEN];
	long v;
	ssize_t n;
	size_t i;

	pci_addr_fmt(dev, me);
	pci_addr_fmt(dev, bdf);
	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s", bdf))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		log_msg("%s: cannot read the link: %s", path, strerror(errno));
		return;
	}
	target[n] = '\0';
	if (pci_place_parse(target, dev, out)) {
		log_msg("%s: not a PCI device path: '%s'", path,
			str_sanitize(target).s);
		return;
	}
	/* A chain whose "bridges" are not bridges names no switch. */
	for (i = 0; out->has_switch && i < out->nchain; i++) {
		pci_addr_fmt(&out->chain[i], bdf);
		if (path_fmt(path, sizeof(path), SYS_PCI "/%s/class", bdf))
			continue;
		if (!sysfs_read_long(path, &v) && (v >> 8) == 0x0604)
			continue;
		log_msg("%s: not a PCI bridge, so no PCIe switch is named "
			"for %s",
			path, me);
		out->has_switch = false;
	}
}

size_t pci_shared_bridges(const struct pci_place *a, const struct pci_place *b)
{
	size_t i;

	if (!a->known || !b->known || a->domain != b->domain ||
	    a->root_bus != b->root_bus)
		return 0;
	for (i = 0; i < a->nchain && i < b->nchain; i++)
		if (pci_addr_cmp(&a->chain[i], &b->chain[i]))
			break;
	return i;
}

enum pci_near pci_near(const struct pci_place *a, const struct pci_place *b)
{
	/* Sharing the root port and the switch's upstream port below it:
	 * the switch routes between them, no root port in the way. */
	if (a->has_switch && b->has_switch && pci_shared_bridges(a, b) >= 2)
		return PCI_NEAR_SWITCH;
	if (a->numa_node >= 0 && a->numa_node == b->numa_node)
		return PCI_NEAR_NODE;
	return PCI_NEAR_NONE;
}

const char *pci_near_name(enum pci_near n)
{
	switch (n) {
	case PCI_NEAR_SWITCH:
		return "switch";
	case PCI_NEAR_NODE:
		return "numa";
	case PCI_NEAR_NONE:
		break;
	}
	return "none";
}

bool pci_class_is_gpu(uint32_t class_code)
{
	return (class_code >> 16) == 0x03 || (class_code >> 16) == 0x12;
}

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
