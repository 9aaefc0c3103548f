// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/sysfs.h"
#include "root/ibdev.h"

bool vf_driver_assignable(const char *driver)
{
	return driver[0] == '\0' || !strcmp(driver, "vfio-pci");
}

int ibdev_ipoib_netdev(const char *pf_bdf, int port, char *name, size_t len,
		       int *ifindex)
{
	char path[PATH_MAX];
	struct dirent *de;
	int r = -ENOENT;
	DIR *d;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/net", pf_bdf))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		char f[PATH_MAX];
		long type, dev_port, idx;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= len)
			continue;
		/* 32 = ARPHRD_INFINIBAND: an IPoIB netdev, not a RoCE one */
		if (path_fmt(f, sizeof(f), "%s/%s/type", path, de->d_name) ||
		    sysfs_read_long(f, &type) || type != 32)
			continue;
		if (path_fmt(f, sizeof(f), "%s/%s/dev_port", path,
			     de->d_name) ||
		    sysfs_read_long(f, &dev_port) || dev_port != port - 1)
			continue;
		if (path_fmt(f, sizeof(f), "%s/%s/ifindex", path, de->d_name) ||
		    sysfs_read_long(f, &idx) || idx <= 0 || idx > INT_MAX)
			continue;
		/* length checked above */
		memcpy(name, de->d_name, strlen(de->d_name) + 1);
		*ifindex = (int)idx;
		r = 0;
		break;
	}
	closedir(d);
	return r;
}

int ibdev_pf_port(const char *pf_bdf, int port, char ibdev[IBDEV_NAME_MAX],
		  char *ll, size_t lllen)
{
	char path[PATH_MAX];
	const struct dirent *de;
	struct stat st;
	DIR *d;

	ibdev[0] = '\0';
	ll[0] = '\0';
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/infiniband", pf_bdf))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -ENODEV;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    strlen(de->d_name) < IBDEV_NAME_MAX) {
			memcpy(ibdev, de->d_name, strlen(de->d_name) + 1);
			break;
		}
	closedir(d);
	if (!ibdev[0])
		return -ENODEV;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/infiniband/%s/ports/%d",
		     pf_bdf, ibdev, port) ||
	    stat(path, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	if (path_fmt(path, sizeof(path),
		     SYS_PCI "/%s/infiniband/%s/ports/%d/link_layer", pf_bdf,
		     ibdev, port) ||
	    sysfs_read_str(path, ll, lllen))
		ll[0] = '\0';
	return strcmp(ll, "InfiniBand") ? -EPROTOTYPE : 0;
}

int ibdev_pf_check(const struct pci_addr *pf, int port,
		   char ibdev[IBDEV_NAME_MAX], char *err, size_t errlen)
{
	char bdf[PCI_ADDR_STRLEN], path[PATH_MAX], ll[32];
	struct stat st;
	int r;

	pci_addr_fmt(pf, bdf);
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s", bdf) ||
	    stat(path, &st)) {
		err_set(err, errlen, "PF %s: no such PCI function on this host",
			bdf);
		return -ENODEV;
	}
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/physfn", bdf) &&
	    lstat(path, &st) == 0) {
		char of[64];

		if (sysfs_link_name(path, of, sizeof(of)))
			snprintf(of, sizeof(of), "?");
		err_set(err, errlen, "PF %s: a VF (of %s), not a PF", bdf,
			str_sanitize(of).s);
		return -ENODEV;
	}
	r = ibdev_pf_port(bdf, port, ibdev, ll, sizeof(ll));
	if (r == -ENODEV)
		err_set(err, errlen,
			"PF %s: no RDMA device (not an InfiniBand HCA)", bdf);
	else if (r == -ENOENT)
		err_set(err, errlen, "PF %s port %d: %s has no such port", bdf,
			port, ibdev);
	else if (r == -EPROTOTYPE)
		err_set(err, errlen,
			"PF %s port %d: link layer %s, not "
			"InfiniBand",
			bdf, port, ll[0] ? str_sanitize(ll).s : "unknown");
	else if (r)
		err_set(err, errlen, "PF %s: %s", bdf, strerror(-r));
	return r;
}
