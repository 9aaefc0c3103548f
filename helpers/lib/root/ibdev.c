// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

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
