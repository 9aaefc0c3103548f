// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/guid.h"
#include "root/hostguid.h"
#include "core/log.h"
#include "core/sysfs.h"
#include "root/vfmap.h"

/* virtfn<N> of the PF whose target is this VF: N is the VF index. */
static int vf_index(const char *pf_bdf, const char *vf_bdf)
{
	char path[PATH_MAX], name[64], *end;
	struct dirent *de;
	int idx = -1;
	DIR *d;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s", pf_bdf))
		return -1;
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char link[PATH_MAX];
		long v;

		if (strncmp(de->d_name, "virtfn", 6))
			continue;
		v = strtol(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end || v < 0 || v > 4096)
			continue;
		if (path_fmt(link, sizeof(link), "%s/%s", path, de->d_name) ||
		    sysfs_link_name(link, name, sizeof(name)))
			continue;
		if (!strcmp(name, vf_bdf)) {
			idx = (int)v;
			break;
		}
	}
	closedir(d);
	return idx;
}

int vf_target_resolve(const struct pci_addr *vf, int port, struct vf_target *t,
		      char *err, size_t errlen)
{
	char path[PATH_MAX], pf_bdf[64], drv[IBDEV_NAME_MAX], ll[32];
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->vf = *vf;
	t->port = port;
	pci_addr_fmt(vf, t->vf_bdf);
	if (port < 1 || port > 9) {
		err_set(err, errlen, "%s: port %d is not a port number (1-9)",
			t->vf_bdf, port);
		return -EINVAL;
	}
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/physfn", t->vf_bdf) ||
	    sysfs_link_name(path, pf_bdf, sizeof(pf_bdf)) ||
	    pci_addr_parse(pf_bdf, &t->pf)) {
		err_set(err, errlen, "%s: not a VF on this host", t->vf_bdf);
		return -ENODEV;
	}
	pci_addr_fmt(&t->pf, t->pf_bdf);
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/driver", t->pf_bdf) ||
	    sysfs_link_name(path, drv, sizeof(drv)) ||
	    (strcmp(drv, "mlx4_core") && strcmp(drv, "mlx5_core"))) {
		err_set(err, errlen,
			"%s: its PF %s is not driven by mlx4_core or mlx5_core",
			t->vf_bdf, t->pf_bdf);
		return -ENODEV;
	}
	t->kind = strcmp(drv, "mlx4_core") ? VF_MLX5 : VF_MLX4;
	t->index = vf_index(t->pf_bdf, t->vf_bdf);
	if (t->index < 0) {
		err_set(err, errlen, "%s: not listed among the VFs of %s",
			t->vf_bdf, t->pf_bdf);
		return -ENODEV;
	}
	/* The PF's RDMA device, and the port must be InfiniBand. */
	if (ibdev_pf_port(t->pf_bdf, port, t->ibdev, ll, sizeof(ll))) {
		err_set(err, errlen,
			"%s: port %d of its PF %s is not an InfiniBand port",
			t->vf_bdf, port, t->pf_bdf);
		return -ENODEV;
	}
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/driver", t->vf_bdf) ||
	    sysfs_link_name(path, t->vf_driver, sizeof(t->vf_driver)))
		t->vf_driver[0] = '\0';
	if (t->kind == VF_MLX5) {
		t->ofed = !path_fmt(path, sizeof(path), SYS_PCI "/%s/sriov/%d",
				    t->pf_bdf, t->index) &&
			  stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (ibdev_ipoib_netdev(t->pf_bdf, port, t->pf_netdev,
				       sizeof(t->pf_netdev), &t->pf_ifindex))
			t->pf_ifindex = 0;
	}
	return 0;
}

/* A VF the host uses is never touched: -EBUSY with one line. */
static int check_free(const struct vf_target *t, char *err, size_t errlen)
{
	if (vf_driver_assignable(t->vf_driver))
		return 0;
	err_set(err, errlen,
		"%s: held by the host's %s driver; only a VF bound to "
		"vfio-pci or to no driver is programmed",
		t->vf_bdf, t->vf_driver);
	return -EBUSY;
}

/* The GUID may go on this VF: one-ib's form, and nobody else's here. */
static int check_guid(const struct vf_target *t, uint64_t guid, char *err,
		      size_t errlen)
{
	struct host_guids in_use = { 0 };
	const struct host_guid *h;
	char g[GUID_STRLEN];
	int r;

	guid_fmt_hex(guid, g);
	if (!guid_assignable(guid)) {
		err_set(err, errlen,
			"%s: GUID %s is not one one-ib gives a VF "
			"(02:CC:VV:VV:VV:VV:NN:NN)",
			t->vf_bdf, g);
		return -EINVAL;
	}
	r = host_guids_scan(t, &in_use, err, errlen);
	if (r) {
		char why[256];

		err_set(why, sizeof(why), "%s", err && errlen ? err : "");
		err_set(err, errlen, "%s: %s", t->vf_bdf, why);
	} else if ((h = host_guids_find(&in_use, guid))) {
		err_set(err, errlen,
			"%s: GUID %s is already in use on this host: %s",
			t->vf_bdf, g, h->owner);
		r = -EEXIST;
	}
	host_guids_free(&in_use);
	return r;
}

int vf_map(const struct vf_target *t, uint64_t guid, struct pkey pk, char *err,
	   size_t errlen)
{
	int r = check_free(t, err, errlen);

	if (!r)
		r = check_guid(t, guid, err, errlen);
	if (r)
		return r;
	return t->kind == VF_MLX4 ? mlx4_map(t, guid, pk, err, errlen)
				  : mlx5_map(t, guid, err, errlen);
}

int vf_unmap(const struct vf_target *t, char *err, size_t errlen)
{
	int r = check_free(t, err, errlen);

	if (r)
		return r;
	return t->kind == VF_MLX4 ? mlx4_unmap(t, err, errlen)
				  : mlx5_unmap(t, err, errlen);
}

int vf_show(const struct vf_target *t, struct strbuf *out, char *err,
	    size_t errlen)
{
	return t->kind == VF_MLX4 ? mlx4_show(t, out, err, errlen)
				  : mlx5_show(t, out, err, errlen);
}
