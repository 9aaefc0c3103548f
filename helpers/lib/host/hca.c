// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "core/grow.h"
#include "host/hca.h"
#include "host/rails.h"
#include "root/ibdev.h"
#include "core/log.h"
#include "core/sysfs.h"

static const char *const state_names[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

static const char *const phys_state_names[] = {
	NULL,
	"Sleep",
	"Polling",
	"Disabled",
	"PortConfigurationTraining",
	"LinkUp",
	"LinkErrorRecovery",
	"Phy Test",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *ib_state_name(int state)
{
	if (state < 0 || (size_t)state >= NELEM(state_names))
		return NULL;
	return state_names[state];
}

const char *ib_phys_state_name(int phys_state)
{
	if (phys_state < 0 || (size_t)phys_state >= NELEM(phys_state_names))
		return NULL;
	return phys_state_names[phys_state];
}

/* "5: LinkUp" against a table of names: the number must name that entry. */
static int parse_numbered(const char *s, const char *const *names, size_t n)
{
	char *end;
	long v;

	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || errno || v < 0 || (size_t)v >= n || !names[v])
		return -EINVAL;
	if (strncmp(end, ": ", 2) || strcmp(end + 2, names[v]))
		return -EINVAL;
	return (int)v;
}

int ib_state_parse(const char *s)
{
	return parse_numbered(s, state_names, NELEM(state_names));
}

static int ib_phys_state_parse(const char *s)
{
	return parse_numbered(s, phys_state_names, NELEM(phys_state_names));
}

bool ib_port_usable(const struct ib_port *p)
{
	return p->state == 4 && !strcmp(p->link_layer, "InfiniBand");
}

const char *ib_port_not_ready(const struct ib_port *p, bool guids)
{
	if (guids && p->vf_guids == VF_GUIDS_NONE)
		return "no IPoIB netdev, so VF GUIDs cannot be set: load "
		       "ib_ipoib (modprobe ib_ipoib; /etc/modules) or install "
		       "MLNX_OFED";
	return NULL;
}

bool ib_port_ready(const struct ib_port *p, bool guids)
{
	return ib_port_usable(p) && !ib_port_not_ready(p, guids);
}

bool vf_assignable(const struct vf *vf)
{
	return !vf->unprobed && !vf->absent && vf_driver_assignable(vf->driver);
}

/*
 * libibumad turns "banana" into 0 without complaint, so a value outside the
 * kernel's range sends us back to the file to say what was there.
 */
static int check_port_attr(const char *ibdev, int port, const char *attr,
			   unsigned v, int (*parse)(const char *), int lo,
			   int hi)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	int r;

	if ((int)v >= lo && (int)v <= hi)
		return (int)v;
	if (path_fmt(path, sizeof(path), SYS_IB "/%s/ports/%d/%s", ibdev, port,
		     attr))
		return -1;
	if (sysfs_read_str(path, buf, sizeof(buf)))
		return -1;
	r = parse(buf);
	if (r < 0)
		log_msg("%s: unexpected value '%s'", path, buf);
	return r < 0 ? -1 : r;
}

static int copy_port(const char *ibdev, const umad_port_t *u, struct ib_port *p)
{
	unsigned i, n = 0;

	p->num = u->portnum;
	p->rail = -1;
	p->state = check_port_attr(ibdev, u->portnum, "state", u->state,
				   ib_state_parse, 1, 5);
	p->phys_state = check_port_attr(ibdev, u->portnum, "phys_state",
					u->phys_state, ib_phys_state_parse, 1,
					7);
	p->rate = u->rate;
	p->lid = u->base_lid;
	p->sm_lid = u->sm_lid;
	snprintf(p->link_layer, sizeof(p->link_layer), "%s",
		 strcmp(u->link_layer, "IB") ? u->link_layer : "InfiniBand");
	p->guid = be64toh(u->port_guid);
	p->gid_prefix = be64toh(u->gid_prefix);
	p->pkeys = calloc(u->pkeys_size ? u->pkeys_size : 1, sizeof(uint16_t));
	if (!p->pkeys)
		return -ENOMEM;
	for (i = 0; i < u->pkeys_size; i++)
		if (u->pkeys[i])
			p->pkeys[n++] = u->pkeys[i];
	p->npkeys = n;
	p->pkey_cap = u->pkeys_size;
	return 0;
}

static int read_ports(struct hca *h)
{
	umad_ca_t ca;
	int i, r;

	r = umad_get_ca(h->ibdev, &ca);
	if (r < 0) {
		log_msg(SYS_IB "/%s: libibumad cannot read it (%s)", h->ibdev,
			strerror(-r));
		return 0;
	}
	h->node_guid = be64toh(ca.node_guid);
	snprintf(h->fw_ver, sizeof(h->fw_ver), "%s", ca.fw_ver);
	for (i = 0; i <= ca.numports && i < UMAD_CA_MAX_PORTS; i++) {
		if (!ca.ports[i] || h->nports >= HCA_MAX_PORTS)
			continue;
		r = copy_port(h->ibdev, ca.ports[i], &h->ports[h->nports]);
		if (r)
			break;
		h->nports++;
	}
	umad_release_ca(&ca);
	return r;
}

/* A number that every kernel provides: missing or odd is worth a warning. */
static long read_expected_long(const char *bdf, const char *attr, long unknown)
{
	char path[PATH_MAX];
	long v;
	int r;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/%s", bdf, attr))
		return unknown;
	r = sysfs_read_long(path, &v);
	if (r == -ENOENT)
		log_msg("%s: missing", path);
	return r ? unknown : v;
}

/* A number only some functions have (sriov_* on PFs): missing is normal. */
static long read_optional_long(const char *bdf, const char *attr, long unknown)
{
	char path[PATH_MAX];
	long v;

	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/%s", bdf, attr))
		return unknown;
	return sysfs_read_long(path, &v) ? unknown : v;
}

static void read_link(const char *bdf, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/%s", bdf, attr) ||
	    sysfs_link_name(path, buf, len))
		buf[0] = '\0';
}

static int numa_of(long v)
{
	return v < 0 || v > INT_MAX ? -1 : (int)v;
}

/* SYS_PCI "/" BDF, as path_fmt would, without vsnprintf (once per VF). */
static int pci_dir(char *buf, size_t len, const char *bdf)
{
	size_t n = strlen(bdf);

	if (sizeof(SYS_PCI) + 1 + n > len)
		return -ENAMETOOLONG;
	memcpy(buf, SYS_PCI "/", sizeof(SYS_PCI));
	memcpy(buf + sizeof(SYS_PCI), bdf, n + 1);
	return 0;
}

/*
 * A VF's "driver", "iommu_group" and "numa_node", read relative to DFD as
 * AT + name: AT is "" when DFD is the VF's own directory and
 * "0000:3b:00.1/" when it is the directory the VF sits in, short path walks
 * either way instead of walks through SYS_PCI's symlink; a bad value is
 * reported as DIR/AT/numa_node. *SEEN says whether any of the three was
 * there (none: the VF itself may be missing). Returns how numa_node read
 * (-ENOENT: missing).
 */
static int read_vf(int dfd, const char *at, const char *dir, bool all,
		   struct vf *vf, bool *seen)
{
	char name[64], group[32], *end;
	size_t n = strlen(at);
	long numa;
	int r;

	*seen = false;
	vf->driver[0] = '\0';
	vf->iommu_group = -1;
	vf->numa_node = -1;
	vf->ibdev[0] = '\0';
	vf->vmid = -1;
	if (n + sizeof("iommu_group") > sizeof(name))
		return -ENAMETOOLONG;
	memcpy(name, at, n);
	memcpy(name + n, "driver", sizeof("driver"));
	if (sysfs_link_name_at(dfd, name, vf->driver, sizeof(vf->driver)))
		vf->driver[0] = '\0';
	else
		*seen = true;
	if (!all)
		return 0;
	memcpy(name + n, "iommu_group", sizeof("iommu_group"));
	if (!sysfs_link_name_at(dfd, name, group, sizeof(group))) {
		long g = strtol(group, &end, 10);

		*seen = true;
		if (group[0] && !*end && g >= 0 && g <= INT_MAX)
			vf->iommu_group = (int)g;
	}
	memcpy(name + n, "numa_node", sizeof("numa_node"));
	r = sysfs_read_long_at(dfd, dir, name, &numa);
	if (r != -ENOENT)
		*seen = true;
	if (!r)
		vf->numa_node = numa_of(numa);
	return r;
}

static int vf_cmp(const void *a, const void *b)
{
	const struct vf *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* Does sysfs show this function? (a dangling virtfnN says no) */
static bool pci_exists(const char *bdf)
{
	char path[PATH_MAX];
	struct stat st;

	return !path_fmt(path, sizeof(path), SYS_PCI "/%s", bdf) &&
	       stat(path, &st) == 0;
}

/*
 * virtfn0 -> ../0000:3b:00.1, one VF per link, in VF-index order. The links
 * are read relative to the PF's directory, and each VF's attributes
 * relative to the directory it shares with its PF, where the kernel puts
 * every VF (drivers/pci/iov.c: a VF's parent is its PF's parent, also on a
 * bus of its own): on 1016 VFs the long path walks through SYS_PCI were
 * most of the time, and an O_PATH open of each VF's own directory two
 * syscalls in eight. A link that points elsewhere is followed through
 * SYS_PCI, as before.
 */
static int read_vfs(struct hca *h, const char *bdf, bool all)
{
	char dirpath[PATH_MAX], link[PATH_MAX], target[PATH_MAX], at[64];
	char vfdir[PATH_MAX];
	char *end, *vfbdf;
	struct dirent *de;
	struct stat st;
	size_t cap = 0, n;
	DIR *d;
	long idx;
	int r = 0, pcifd, parfd;

	if (path_fmt(dirpath, sizeof(dirpath), SYS_PCI "/%s", bdf))
		return 0;
	d = opendir(dirpath);
	if (!d)
		return 0;
	pcifd = open(SYS_PCI, O_PATH | O_DIRECTORY | O_CLOEXEC);
	parfd = openat(dirfd(d), "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	while ((de = readdir(d))) {
		struct vf vf = { 0 };
		bool sibling, seen;
		int dfd, vfd = -1, numa_r;

		if (strncmp(de->d_name, "virtfn", 6))
			continue;
		errno = 0;
		idx = strtol(de->d_name + 6, &end, 10);
		if (end == de->d_name + 6 || *end || errno || idx < 0 ||
		    idx > INT_MAX)
			continue;
		if (sysfs_link_at(dirfd(d), de->d_name, target, sizeof(target)))
			target[0] = '\0';
		vfbdf = strrchr(target, '/');
		vfbdf = vfbdf ? vfbdf + 1 : target;
		n = strlen(vfbdf);
		if (n + 2 > sizeof(at) || pci_addr_parse(vfbdf, &vf.addr) ||
		    pci_dir(vfdir, sizeof(vfdir), vfbdf)) {
			if (!path_fmt(link, sizeof(link), "%s/%s", dirpath,
				      de->d_name))
				log_msg("%s: not a link to a PCI function",
					link);
			continue;
		}
		sibling = parfd >= 0 && vfbdf == target + 3 &&
			  !strncmp(target, "../", 3);
		if (sibling) {
			dfd = parfd;
			memcpy(at, vfbdf, n);
			memcpy(at + n, "/", 2);
		} else {
			vfd = pcifd < 0 ? -1
					: openat(pcifd, vfbdf,
						 O_PATH | O_CLOEXEC);
			dfd = vfd;
			at[0] = '\0';
		}
		numa_r = dfd < 0 ? -ENOENT
				 : read_vf(dfd, at, sibling ? SYS_PCI : vfdir,
					   all, &vf, &seen);
		if (vfd >= 0)
			close(vfd);
		if (dfd < 0 ||
		    (sibling && !seen && fstatat(parfd, vfbdf, &st, 0) != 0)) {
			if (!path_fmt(link, sizeof(link), "%s/%s", dirpath,
				      de->d_name))
				log_msg("%s: dangling link to '%s'", link,
					vfbdf);
			continue;
		}
		if (numa_r == -ENOENT)
			log_msg("%s/numa_node: missing", vfdir);
		vf.index = (int)idx;
		if (ALLOC_GROW(h->vfs, h->nvfs + 1, cap)) {
			r = -ENOMEM;
			break;
		}
		h->vfs[h->nvfs++] = vf;
	}
	if (parfd >= 0)
		close(parfd);
	if (pcifd >= 0)
		close(pcifd);
	closedir(d);
	if (h->nvfs)
		qsort(h->vfs, h->nvfs, sizeof(*h->vfs), vf_cmp);
	return r;
}

/* How VFs of each InfiniBand port get their GUIDs (enum vf_guids). */
static void read_vf_guids(struct hca *h, const char *bdf)
{
	char path[PATH_MAX];
	struct stat st;
	bool ofed;
	int p, ifindex, r;

	if (!h->nvfs)
		return;
	ofed = !path_fmt(path, sizeof(path), SYS_PCI "/%s/sriov", bdf) &&
	       stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	for (p = 0; p < h->nports; p++) {
		struct ib_port *pt = &h->ports[p];

		if (strcmp(pt->link_layer, "InfiniBand"))
			continue;
		if (!strcmp(h->driver, "mlx4_core")) {
			pt->vf_guids = VF_GUIDS_MLX4;
			continue;
		}
		if (strcmp(h->driver, "mlx5_core"))
			continue;
		r = ibdev_ipoib_netdev(bdf, pt->num, pt->ipoib,
				       sizeof(pt->ipoib), &ifindex);
		if (ofed)
			pt->vf_guids = VF_GUIDS_OFED;
		else
			pt->vf_guids = r ? VF_GUIDS_NONE : VF_GUIDS_NETLINK;
	}
}

static int read_pci(struct hca *h, unsigned flags)
{
	char bdf[PCI_ADDR_STRLEN];
	int r;

	pci_addr_fmt(&h->addr, bdf);
	h->vendor_id = (uint16_t)read_expected_long(bdf, "vendor", 0);
	h->device_id = (uint16_t)read_expected_long(bdf, "device", 0);
	read_link(bdf, "driver", h->driver, sizeof(h->driver));
	h->numa_node = numa_of(read_expected_long(bdf, "numa_node", -1));
	pci_place_read(&h->addr, &h->place);
	h->place.numa_node = h->numa_node;
	h->sriov_totalvfs = (int)read_optional_long(bdf, "sriov_totalvfs", -1);
	h->sriov_numvfs = (int)read_optional_long(bdf, "sriov_numvfs", -1);
	r = read_vfs(h, bdf, !(flags & HCA_VF_DRIVER_ONLY));
	if (!r)
		read_vf_guids(h, bdf);
	return r;
}

/* RDMA devices of VFs the host driver holds: "0000:3b:01.0" -> "mlx5_2". */
struct vf_ibdev {
	struct pci_addr addr;
	char ibdev[HCA_NAME_MAX];
};

struct scan {
	struct hca_list *out;
	size_t cap;
	struct vf_ibdev *vfdevs;
	size_t nvfdevs, vfcap;
	unsigned flags; /* hca_discover's */
};

static int push_vf_ibdev(struct scan *s, const struct pci_addr *a,
			 const char *ibdev)
{
	if (ALLOC_GROW(s->vfdevs, s->nvfdevs + 1, s->vfcap))
		return -ENOMEM;
	s->vfdevs[s->nvfdevs].addr = *a;
	snprintf(s->vfdevs[s->nvfdevs].ibdev, HCA_NAME_MAX, "%s", ibdev);
	s->nvfdevs++;
	return 0;
}

static struct hca *push_hca(struct scan *s)
{
	struct hca_list *l = s->out;

	if (ALLOC_GROW(l->v, l->n + 1, s->cap))
		return NULL;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

static int scan_ibdev(struct scan *s, const char *ibdev)
{
	char path[PATH_MAX], bdf[64];
	struct pci_addr addr;
	bool has_pci;
	struct hca *h;
	int r;

	if (strlen(ibdev) >= HCA_NAME_MAX)
		return 0;
	has_pci = !path_fmt(path, sizeof(path), SYS_IB "/%s/device", ibdev) &&
		  !sysfs_link_name(path, bdf, sizeof(bdf)) &&
		  !pci_addr_parse(bdf, &addr);
	if (has_pci &&
	    !path_fmt(path, sizeof(path), SYS_PCI "/%s/physfn", bdf)) {
		struct stat st;

		if (lstat(path, &st) == 0)
			return push_vf_ibdev(s, &addr, ibdev);
	}
	h = push_hca(s);
	if (!h)
		return -ENOMEM;
	snprintf(h->ibdev, sizeof(h->ibdev), "%s", ibdev);
	h->has_pci = has_pci;
	h->numa_node = -1;
	h->sriov_totalvfs = -1;
	h->sriov_numvfs = -1;
	if (has_pci)
		h->addr = addr;
	r = read_ports(h);
	if (!r && has_pci)
		r = read_pci(h, s->flags);
	return r;
}

static int hca_cmp(const void *a, const void *b)
{
	const struct hca *x = a, *y = b;

	if (x->has_pci != y->has_pci)
		return x->has_pci ? -1 : 1;
	if (x->has_pci)
		return pci_addr_cmp(&x->addr, &y->addr);
	return strcmp(x->ibdev, y->ibdev);
}

static void attach_vf_ibdevs(struct scan *s)
{
	size_t i, j, k;

	for (k = 0; k < s->nvfdevs; k++)
		for (i = 0; i < s->out->n; i++)
			for (j = 0; j < s->out->v[i].nvfs; j++) {
				struct vf *vf = &s->out->v[i].vfs[j];

				if (!pci_addr_cmp(&vf->addr,
						  &s->vfdevs[k].addr))
					memcpy(vf->ibdev, s->vfdevs[k].ibdev,
					       HCA_NAME_MAX);
			}
}

/*
 * SYS_IB, open. NULL with *r = 0 when no RDMA core is loaded (a host
 * without InfiniBand, not an error), with *r = -errno when /sys itself
 * cannot be read. opendir, not stat: libumad2sim (ibsim) fakes SYS_IB by
 * wrapping opendir and scandir only.
 */
static DIR *open_sys_ib(int *r)
{
	DIR *d = opendir("/sys");

	*r = d ? 0 : -errno;
	if (!d)
		return NULL;
	closedir(d);
	return opendir(SYS_IB);
}

int hca_discover(struct hca_list *out, unsigned flags)
{
	struct umad_device_node *devs, *d;
	struct scan s = { .out = out, .flags = flags };
	DIR *sys;
	int r = 0;

	out->v = NULL;
	out->n = 0;
	sys = open_sys_ib(&r);
	if (!sys)
		return r;
	closedir(sys);
	devs = umad_get_ca_device_list();
	for (d = devs; d && !r; d = d->next)
		r = scan_ibdev(&s, d->ca_name);
	umad_free_ca_device_list(devs);
	attach_vf_ibdevs(&s);
	free(s.vfdevs);
	if (r) {
		hca_list_free(out);
		return r;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), hca_cmp);
	rails_assign(out, NULL);
	return 0;
}

/* "4: ACTIVE" and "InfiniBand" of each port under ports/, by number. */
static int inventory_ports(struct hca *h)
{
	char dir[PATH_MAX], path[PATH_MAX], buf[SYSFS_VALUE_MAX], *end;
	struct dirent *de;
	DIR *d;

	if (path_fmt(dir, sizeof(dir), SYS_IB "/%s/ports", h->ibdev))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && h->nports < HCA_MAX_PORTS) {
		struct ib_port *p = &h->ports[h->nports];
		long n;

		errno = 0;
		n = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end || errno || n < 1 || n > 255)
			continue;
		memset(p, 0, sizeof(*p));
		p->num = (int)n;
		p->rail = -1;
		p->phys_state = -1;
		p->state = -1;
		if (!path_fmt(path, sizeof(path), "%s/%ld/state", dir, n) &&
		    !sysfs_read_str(path, buf, sizeof(buf))) {
			p->state = ib_state_parse(buf);
			if (p->state < 0)
				log_msg("%s: unexpected value '%s'", path, buf);
		}
		if (!path_fmt(path, sizeof(path), "%s/%ld/link_layer", dir,
			      n) &&
		    sysfs_read_str(path, p->link_layer, sizeof(p->link_layer)))
			p->link_layer[0] = '\0';
		h->nports++;
	}
	closedir(d);
	for (int i = 1; i < h->nports; i++) /* by number, as libibumad */
		for (int j = i; j > 0 && h->ports[j - 1].num > h->ports[j].num;
		     j--) {
			struct ib_port t = h->ports[j];

			h->ports[j] = h->ports[j - 1];
			h->ports[j - 1] = t;
		}
	return 0;
}

/*
 * VF n's address from the PF's: routing ID (bus << 8 | devfn) + offset +
 * n * stride, as the kernel numbers virtfnN. Without those files (an odd
 * tree), the virtfnN links themselves, read in full.
 */
static int inventory_vfs(struct hca *h, const char *bdf)
{
	long num = read_optional_long(bdf, "sriov_numvfs", -1);
	long off = read_optional_long(bdf, "sriov_offset", -1);
	long stride = read_optional_long(bdf, "sriov_stride", -1);
	unsigned rid = (unsigned)h->addr.bus << 8 |
		       (unsigned)h->addr.slot << 3 | h->addr.func;
	long i;

	if (num < 0 || off < 0 || stride < 0 || num > 0xffff)
		return read_vfs(h, bdf, true);
	h->sriov_numvfs = (int)num;
	if (num == 0)
		return 0;
	h->vfs = calloc((size_t)num, sizeof(*h->vfs));
	if (!h->vfs)
		return -ENOMEM;
	for (i = 0; i < num; i++) {
		unsigned long v = rid + (unsigned long)off +
				  (unsigned long)stride * (unsigned long)i;
		struct vf *vf = &h->vfs[h->nvfs];

		if (v > 0xffff)
			break;
		vf->index = (int)i;
		vf->addr.domain = h->addr.domain;
		vf->addr.bus = (uint8_t)(v >> 8);
		vf->addr.slot = (uint8_t)(v >> 3 & 0x1f);
		vf->addr.func = (uint8_t)(v & 7);
		vf->iommu_group = -1;
		vf->numa_node = h->numa_node;
		vf->vmid = -1;
		vf->unprobed = true;
		h->nvfs++;
	}
	return 0;
}

static int inventory_ibdev(struct hca_list *out, size_t *cap, const char *ibdev)
{
	char path[PATH_MAX], bdf[64];
	struct pci_addr addr;
	struct stat st;
	struct hca *h;
	int r;

	if (strlen(ibdev) >= HCA_NAME_MAX)
		return 0;
	if (path_fmt(path, sizeof(path), SYS_IB "/%s/device", ibdev) ||
	    sysfs_link_name(path, bdf, sizeof(bdf)) ||
	    pci_addr_parse(bdf, &addr))
		return 0; /* no PCI function: never a PF of VFs */
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/physfn", bdf) &&
	    lstat(path, &st) == 0)
		return 0; /* a VF the host driver holds */
	if (ALLOC_GROW(out->v, out->n + 1, *cap))
		return -ENOMEM;
	h = &out->v[out->n++];
	memset(h, 0, sizeof(*h));
	snprintf(h->ibdev, sizeof(h->ibdev), "%s", ibdev);
	h->has_pci = true;
	h->addr = addr;
	h->sriov_totalvfs = -1;
	h->sriov_numvfs = -1;
	h->numa_node = numa_of(read_expected_long(bdf, "numa_node", -1));
	pci_place_read(&h->addr, &h->place);
	h->place.numa_node = h->numa_node;
	inventory_ports(h);
	read_link(bdf, "driver", h->driver, sizeof(h->driver));
	r = inventory_vfs(h, bdf);
	if (!r)
		read_vf_guids(h, bdf); /* whether its VFs can get GUIDs */
	return r;
}

int hca_inventory(struct hca_list *out)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *sys;
	int r = 0;

	out->v = NULL;
	out->n = 0;
	sys = open_sys_ib(&r);
	if (!sys)
		return r;
	while (!r && (de = readdir(sys)))
		if (de->d_name[0] != '.')
			r = inventory_ibdev(out, &cap, de->d_name);
	closedir(sys);
	if (r) {
		hca_list_free(out);
		return r;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), hca_cmp);
	rails_assign(out, NULL);
	return 0;
}

void hca_vf_probe(struct vf *vf)
{
	char bdf[PCI_ADDR_STRLEN];

	pci_addr_fmt(&vf->addr, bdf);
	vf->unprobed = false;
	/* A driver link says the VF is there: the stat only for the rest. */
	read_link(bdf, "driver", vf->driver, sizeof(vf->driver));
	vf->absent = !vf->driver[0] && !pci_exists(bdf);
}

size_t hca_probe_all(struct hca_list *l)
{
	size_t i, j, n = 0;

	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->v[i].nvfs; j++)
			if (l->v[i].vfs[j].unprobed) {
				hca_vf_probe(&l->v[i].vfs[j]);
				n++;
			}
	return n;
}

void hca_list_free(struct hca_list *l)
{
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		for (p = 0; p < l->v[i].nports; p++)
			free(l->v[i].ports[p].pkeys);
		free(l->v[i].vfs);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int addr_cmp(const void *a, const void *b)
{
	return pci_addr_cmp(a, b);
}

int hca_pci_devs(const struct hca_list *l, struct pt_dev_list *out)
{
	struct pci_addr *skip;
	size_t n = 0, i, j;
	int r;

	for (i = 0; i < l->n; i++)
		n += 1 + l->v[i].nvfs;
	skip = calloc(n ? n : 1, sizeof(*skip));
	if (!skip)
		return -ENOMEM;
	for (i = n = 0; i < l->n; i++) {
		if (l->v[i].has_pci)
			skip[n++] = l->v[i].addr;
		for (j = 0; j < l->v[i].nvfs; j++)
			skip[n++] = l->v[i].vfs[j].addr;
	}
	qsort(skip, n, sizeof(*skip), addr_cmp);
	r = pt_dev_scan(skip, n, out);
	free(skip);
	return r;
}
