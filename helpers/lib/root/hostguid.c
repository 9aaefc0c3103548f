// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "core/guid.h"
#include "root/hostguid.h"
#include "root/netlink.h"
#include "core/sysfs.h"

#define ARPHRD_IB 32 /* ARPHRD_INFINIBAND: an IPoIB netdev */
#define MLX4_GUIDS 128 /* admin_guids/0..127 per port */
#define NAME_MAX_LEN 64

int host_guids_add(struct host_guids *g, uint64_t guid, const char *fmt, ...)
{
	va_list ap;

	if (guid == 0 || guid == UINT64_MAX)
		return 0;
	if (ALLOC_GROW(g->v, g->n + 1, g->cap))
		return -ENOMEM;
	g->v[g->n].guid = guid;
	va_start(ap, fmt);
	vsnprintf(g->v[g->n].owner, sizeof(g->v[g->n].owner), fmt, ap);
	va_end(ap);
	g->n++;
	return 0;
}

const struct host_guid *host_guids_find(const struct host_guids *g,
					uint64_t guid)
{
	size_t i;

	if (guid == 0 || guid == UINT64_MAX)
		return NULL;
	for (i = 0; i < g->n; i++)
		if (g->v[i].guid == guid)
			return &g->v[i];
	return NULL;
}

void host_guids_free(struct host_guids *g)
{
	free(g->v);
	g->v = NULL;
	g->n = g->cap = 0;
}

/* "5" -> 5 for directory entries named by a small number; -1 otherwise. */
static int small_number(const char *s, int max)
{
	int v = 0;

	if (!*s || strlen(s) > 4)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= max ? v : -1;
}

/* Low half of a GID, "fe80:0000:0000:0000:0c42:a103:0000:1001". */
static int gid_guid(const char *path, uint64_t *g)
{
	char buf[SYSFS_VALUE_MAX];

	if (sysfs_read_str(path, buf, sizeof(buf)) || strlen(buf) != 39 ||
	    guid_parse_sysfs(buf + 20, g))
		return -EINVAL;
	return 0;
}

/* Node GUID and the port GUID of every InfiniBand port of one device. */
static int scan_ibdev(struct host_guids *g, const char *dev, const char *label)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	struct dirent *de;
	uint64_t guid;
	DIR *d;
	int r = 0;

	if (!path_fmt(path, sizeof(path), SYS_IB "/%s/node_guid", dev) &&
	    !sysfs_read_str(path, buf, sizeof(buf)) &&
	    !guid_parse_sysfs(buf, &guid))
		r = host_guids_add(g, guid, "node GUID of %s", label);
	if (r || path_fmt(path, sizeof(path), SYS_IB "/%s/ports", dev))
		return r;
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		int p = small_number(de->d_name, 255);

		if (p < 1 ||
		    path_fmt(path, sizeof(path),
			     SYS_IB "/%s/ports/%d/link_layer", dev, p) ||
		    sysfs_read_str(path, buf, sizeof(buf)) ||
		    strcmp(buf, "InfiniBand") ||
		    path_fmt(path, sizeof(path), SYS_IB "/%s/ports/%d/gids/0",
			     dev, p) ||
		    gid_guid(path, &guid))
			continue;
		r = host_guids_add(g, guid, "port %d of %s", p, label);
	}
	closedir(d);
	return r;
}

/* The VF at virtfn<i> of pf, for messages: "0000:3b:00.4". */
static void vf_name(const char *pf, int i, char *buf, size_t len)
{
	char path[PATH_MAX];

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/virtfn%d", pf, i) ||
	    sysfs_link_name(path, buf, len))
		snprintf(buf, len, "%d of %.63s", i, pf);
}

/*
 * mlx4: what every function asks for (admin_guids) and was granted (gids),
 * on every port. Index 0 is the PF's, index s >= 1 slave s's (VF s-1).
 */
static int scan_mlx4_iov(struct host_guids *g, const char *dev, const char *pf,
			 const struct vf_target *self)
{
	static const char *const table[] = { "admin_guids", "gids" };
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX], who[NAME_MAX_LEN * 2];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (path_fmt(path, sizeof(path), SYS_IB "/%s/iov/ports", dev))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		int p = small_number(de->d_name, 255), n;
		size_t t;

		if (p < 1)
			continue;
		for (t = 0; t < 2 && !r; t++) {
			for (n = 0; n < MLX4_GUIDS && !r; n++) {
				uint64_t guid;
				int rr;

				if (self && self->kind == VF_MLX4 &&
				    !strcmp(self->ibdev, dev) &&
				    p == self->port && n == self->index + 1)
					continue;
				if (path_fmt(path, sizeof(path),
					     SYS_IB "/%s/iov/ports/%d/%s/%d",
					     dev, p, table[t], n))
					break;
				rr = t ? gid_guid(path, &guid)
				       : sysfs_read_str(path, buf, sizeof(buf));
				if (rr == -ENOENT)
					break;
				if (rr || (!t && guid_parse_hex(buf, &guid)) ||
				    guid == 0 || guid == UINT64_MAX)
					continue;
				if (n) /* slave n is VF n-1 */
					vf_name(pf, n - 1, who, sizeof(who));
				r = host_guids_add(g, guid,
						   "%s %s (%s port %d %s/%d)",
						   n ? "VF" : "the PF",
						   n ? who : pf, dev, p,
						   table[t], n);
			}
		}
	}
	closedir(d);
	return r;
}

/* Is VF i of PF pf the mlx5 VF being programmed, whose GUIDs do not count? */
static bool self_mlx5(const struct vf_target *self, const char *pf, int i)
{
	return self && self->kind == VF_MLX5 && !strcmp(self->pf_bdf, pf) &&
	       i == self->index;
}

/*
 * mlx5 over rtnetlink: every VF's GUIDs as one IPoIB netdev of the PF
 * reports them, in one RTM_GETLINK. 0 also when there is nothing to
 * report (the netdev is gone, or the ifindex names another link).
 */
static int nl_vfs(struct host_guids *g, const char *pf, const char *ifname,
		  int ifindex, const struct vf_target *self, char *err,
		  size_t errlen)
{
	struct nl_vf_guids all = { 0 };
	char why[256], vf[NAME_MAX_LEN * 2];
	struct nl_link l;
	size_t k;
	int r;

	r = nl_link_get_all(ifindex, &l, &all, why, sizeof(why));
	if (r == -ENODEV) {
		r = 0; /* no such netdev (any more): nothing to report */
		goto out;
	}
	if (r) {
		err_set(err, errlen,
			"cannot read the VF GUIDs of PF %s from %s (ifindex "
			"%d): %s",
			pf, ifname, ifindex, why);
		goto out;
	}
	/* only the netdev sysfs named: never trust another link's answer */
	if (l.ifindex != ifindex || strcmp(l.name, ifname) ||
	    l.type != ARPHRD_IB)
		goto out;
	for (k = 0; k < all.n && !r; k++) {
		const struct nl_vf_guid *e = &all.v[k];

		if (e->vf > 4096 || self_mlx5(self, pf, (int)e->vf))
			continue;
		vf_name(pf, (int)e->vf, vf, sizeof(vf));
		r = host_guids_add(g, e->node_guid,
				   "VF %s (%s vf %u node_guid)", vf, ifname,
				   e->vf);
		if (!r)
			r = host_guids_add(g, e->port_guid,
					   "VF %s (%s vf %u port_guid)", vf,
					   ifname, e->vf);
	}
out:
	nl_vf_guids_free(&all);
	return r;
}

/* Every IPoIB netdev of PF pf, asked once each (nl_vfs). */
static int scan_mlx5_netlink(struct host_guids *g, const char *pf,
			     const struct vf_target *self, char *err,
			     size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/net", pf))
		return 0;
	d = opendir(path);
	if (!d)
		return 0; /* no netdev: nothing upstream can set its VFs */
	while (!r && (de = readdir(d))) {
		long type, ifindex;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= IF_NAMESIZE ||
		    path_fmt(path, sizeof(path), SYS_PCI "/%s/net/%s/type", pf,
			     de->d_name) ||
		    sysfs_read_long(path, &type) || type != ARPHRD_IB ||
		    path_fmt(path, sizeof(path), SYS_PCI "/%s/net/%s/ifindex",
			     pf, de->d_name) ||
		    sysfs_read_long(path, &ifindex) || ifindex <= 0 ||
		    ifindex > INT_MAX)
			continue;
		r = nl_vfs(g, pf, de->d_name, (int)ifindex, self, err, errlen);
	}
	closedir(d);
	return r;
}

/*
 * mlx5: every VF's port GUID from OFED's files where a VF has them; when
 * some VF has none, what the PF's IPoIB netdevs report for all of them.
 */
static int scan_mlx5_vfs(struct host_guids *g, const char *pf,
			 const struct vf_target *self, char *err, size_t errlen)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX], vf[NAME_MAX_LEN * 2];
	bool ask_netlink = false;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s", pf))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		uint64_t guid;
		int i;

		if (strncmp(de->d_name, "virtfn", 6))
			continue;
		i = small_number(de->d_name + 6, 4096);
		if (i < 0 || self_mlx5(self, pf, i))
			continue;
		if (path_fmt(path, sizeof(path), SYS_PCI "/%s/sriov/%d", pf,
			     i) ||
		    stat(path, &st) || !S_ISDIR(st.st_mode)) {
			ask_netlink = true;
			continue;
		}
		if (path_fmt(path, sizeof(path), SYS_PCI "/%s/sriov/%d/port",
			     pf, i) ||
		    sysfs_read_str(path, buf, sizeof(buf)) ||
		    guid_parse_bytes(buf, &guid) || guid == 0 ||
		    guid == UINT64_MAX)
			continue;
		vf_name(pf, i, vf, sizeof(vf));
		r = host_guids_add(g, guid, "VF %s (PF %s sriov/%d/port)", vf,
				   pf, i);
	}
	closedir(d);
	if (!r && ask_netlink)
		r = scan_mlx5_netlink(g, pf, self, err, errlen);
	return r;
}

/* Is the PCI function bdf a PF driven by mlx5_core? */
static bool mlx5_pf(const char *bdf)
{
	char path[PATH_MAX], drv[NAME_MAX_LEN];
	struct stat st;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/physfn", bdf) ||
	    lstat(path, &st) == 0)
		return false;
	return !path_fmt(path, sizeof(path), SYS_PCI "/%s/driver", bdf) &&
	       !sysfs_link_name(path, drv, sizeof(drv)) &&
	       !strcmp(drv, "mlx5_core");
}

int host_guids_scan(const struct vf_target *self, struct host_guids *out,
		    char *err, size_t errlen)
{
	struct dirent *de;
	DIR *d;
	int r = 0;

	out->n = 0;
	d = opendir(SYS_IB);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		err_set(err, errlen, "%s: %s", SYS_IB, strerror(-r));
		return r;
	}
	while (!r && (de = readdir(d))) {
		char path[PATH_MAX], bdf[NAME_MAX_LEN], label[NAME_MAX_LEN * 3];
		bool pci;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= NAME_MAX_LEN)
			continue;
		pci = !path_fmt(path, sizeof(path), SYS_IB "/%s/device",
				de->d_name) &&
		      !sysfs_link_name(path, bdf, sizeof(bdf));
		/* the VF's own RDMA device, were the host holding it */
		if (pci && self && !strcmp(bdf, self->vf_bdf))
			continue;
		/* both names are shorter than NAME_MAX_LEN (checked above) */
		if (pci)
			snprintf(label, sizeof(label), "%.63s (%.63s)",
				 de->d_name, bdf);
		else
			snprintf(label, sizeof(label), "%.63s", de->d_name);
		r = scan_ibdev(out, de->d_name, label);
		if (!r && pci)
			r = scan_mlx4_iov(out, de->d_name, bdf, self);
		if (!r && pci && mlx5_pf(bdf))
			r = scan_mlx5_vfs(out, bdf, self, err, errlen);
	}
	closedir(d);
	if (r == -ENOMEM)
		err_set(err, errlen, "GUIDs in use: out of memory");
	return r;
}
