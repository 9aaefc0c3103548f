// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/sysfs.h"
#include "guest/guestnccl.h"

/* What sysfs says of a function: class, link, place, NUMA node. */
static bool fn_read(const struct pci_addr *a, struct nccl_fn *f)
{
	char bdf[PCI_ADDR_STRLEN], path[PATH_MAX];
	long v;

	memset(f, 0, sizeof(*f));
	f->addr = *a;
	pci_addr_fmt(a, bdf);
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/class", bdf) ||
	    sysfs_read_long(path, &v) || v < 0 || v > 0xffffff)
		return false;
	f->class_code = (uint32_t)v;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s/max_link_speed", bdf) ||
	    sysfs_read_str(path, f->speed, sizeof(f->speed)))
		f->speed[0] = '\0';
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/max_link_width", bdf) &&
	    !sysfs_read_long(path, &v) && v > 0 && v <= 32)
		f->width = (int)v;
	pci_place_read(a, &f->place);
	if (!path_fmt(path, sizeof(path), SYS_PCI "/%s/numa_node", bdf) &&
	    !sysfs_read_long(path, &v) && v >= 0 && v <= INT_MAX)
		f->place.numa_node = (int)v;
	return true;
}

/* The guest's GPUs (class 0x03xx, 0x12xx), by address. */
static int gpus_read(struct nccl_fn **out, size_t *n)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d = opendir(SYS_PCI);
	int r = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct pci_addr a;
		long v;

		if (pci_addr_parse(de->d_name, &a) ||
		    path_fmt(path, sizeof(path), SYS_PCI "/%s/class",
			     de->d_name) ||
		    sysfs_read_long(path, &v) || !pci_class_is_gpu((uint32_t)v))
			continue;
		if (ALLOC_GROW(*out, *n + 1, cap)) {
			r = -ENOMEM;
			break;
		}
		if (fn_read(&a, &(*out)[*n]))
			(*n)++;
	}
	closedir(d);
	return r;
}

/* The GPU nearest the VF (switch, more bridges shared, NUMA node;
 * lowest address): its index, -1 when none is near. */
static long nearest(const struct nccl_fn *vf, const struct nccl_fn *g, size_t n)
{
	long best = -1;
	size_t i, bs = 0;
	enum pci_near bn = PCI_NEAR_NONE;

	for (i = 0; i < n; i++) {
		enum pci_near x = pci_near(&vf->place, &g[i].place);
		size_t s = pci_shared_bridges(&vf->place, &g[i].place);

		if (x == PCI_NEAR_NONE)
			continue;
		if (best < 0 || x < bn || (x == bn && s > bs) ||
		    (x == bn && s == bs &&
		     pci_addr_cmp(&g[i].addr, &g[best].addr) < 0)) {
			best = (long)i;
			bn = x;
			bs = s;
		}
	}
	return best;
}

int nccl_read(const struct nic_plan *plans, size_t n,
	      const struct rail_hint *hints, size_t nhints,
	      struct nccl_nic **out, size_t *nout)
{
	struct nccl_fn *gpus = NULL;
	size_t ngpus = 0, i;
	int r;

	*out = NULL;
	*nout = 0;
	r = gpus_read(&gpus, &ngpus);
	if (!r && n) {
		*out = calloc(n, sizeof(**out));
		if (!*out)
			r = -ENOMEM;
	}
	for (i = 0; !r && i < n; i++) {
		const struct nic_plan *p = &plans[i];
		struct nccl_nic *x = &(*out)[*nout];
		char path[PATH_MAX], bdf[64];
		struct pci_addr a;
		long g;

		/* a service network's NIC (limited member) carries no
		 * collective traffic */
		if (p->what != PLAN_CONFIGURE || !p->have_dev ||
		    !p->dev.ibdev[0] || !pkey_is_full(p->pkey) ||
		    path_fmt(path, sizeof(path), SYS_IB "/%s/device",
			     p->dev.ibdev) ||
		    sysfs_link_name(path, bdf, sizeof(bdf)) ||
		    pci_addr_parse(bdf, &a) || !fn_read(&a, &x->vf))
			continue;
		x->nic = p->nic;
		snprintf(x->ibdev, sizeof(x->ibdev), "%s", p->dev.ibdev);
		x->port = p->dev.port > 0 ? p->dev.port : 1;
		x->rail = rail_hint_find(hints, nhints, p->nic);
		g = nearest(&x->vf, gpus, ngpus);
		x->has_gpu = g >= 0;
		if (g >= 0)
			x->gpu = gpus[g];
		(*nout)++;
	}
	free(gpus);
	if (r) {
		free(*out);
		*out = NULL;
		*nout = 0;
	}
	return r;
}

bool nccl_oem_parse(const unsigned char *raw, size_t len, struct rail_hint **h,
		    size_t *n)
{
	size_t i, start;
	char err[128];

	/* SMBIOS type 11: type, length, handle (2), count; then the
	 * strings, each NUL-terminated */
	if (len < 5 || raw[0] != 11 || raw[1] < 5 || raw[1] > len)
		return false;
	for (start = i = raw[1]; i < len; i++) {
		const char *s = (const char *)raw + start;

		if (raw[i])
			continue;
		if (i > start &&
		    !strncmp(s, RAIL_OEM_PREFIX, strlen(RAIL_OEM_PREFIX)) &&
		    !rail_hints_parse(s + strlen(RAIL_OEM_PREFIX), h, n, err,
				      sizeof(err)))
			return true;
		start = i + 1;
	}
	return false;
}

int nccl_oem_rails(const char *dmi_dir, struct rail_hint **h, size_t *n)
{
	struct dirent *de;
	DIR *d = opendir(dmi_dir);

	*h = NULL;
	*n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned char raw[4096];
		char path[PATH_MAX];
		ssize_t len;
		int fd;

		if (strncmp(de->d_name, "11-", 3) ||
		    path_fmt(path, sizeof(path), "%s/%s/raw", dmi_dir,
			     de->d_name))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, raw, sizeof(raw));
		close(fd);
		if (len > 0 && nccl_oem_parse(raw, (size_t)len, h, n))
			break;
	}
	closedir(d);
	return 0;
}

/* busid="0000:23:00.0" class="0x030200" link_speed=".." link_width=".." */
static int fn_attrs(struct strbuf *out, const struct nccl_fn *f,
		    const struct nccl_fn *link)
{
	char bdf[PCI_ADDR_STRLEN];

	pci_addr_fmt(&f->addr, bdf);
	return sb_addf(out,
		       "busid=\"%s\" class=\"0x%06x\" link_speed=\"%s\" "
		       "link_width=\"%d\"",
		       bdf, f->class_code,
		       link->speed[0] ? link->speed : "32.0 GT/s PCIe",
		       link->width ? link->width : 16);
}

static int cpu_of(const struct nccl_nic *x)
{
	return x->vf.place.numa_node >= 0 ? x->vf.place.numa_node : 0;
}

static bool beside(const struct nccl_nic *x)
{
	return x->has_gpu &&
	       pci_near(&x->vf.place, &x->gpu.place) == PCI_NEAR_SWITCH;
}

/* The switch a NIC beside its GPU shares with it: the upstream port. */
static bool same_switch(const struct nccl_nic *a, const struct nccl_nic *b)
{
	return beside(a) && beside(b) &&
	       !pci_addr_cmp(&a->vf.place.sw, &b->vf.place.sw);
}

int nccl_topology(const struct nccl_nic *v, size_t n, struct strbuf *out)
{
	size_t i, j, k;
	int r = 0, node;
	bool any = false;

	for (i = 0; i < n; i++)
		any = any || beside(&v[i]);
	if (!any)
		return -ENOENT;
	r = sb_adds(out, "<system version=\"1\">\n");
	for (node = 0; !r && node < 256; node++) {
		bool open = false;

		for (i = 0; !r && i < n; i++) {
			const struct nccl_nic *x = &v[i];
			struct nccl_fn sw = { 0 };

			if (cpu_of(x) != node)
				continue;
			/* a switch once, at its first NIC */
			for (j = 0;
			     beside(x) && j < i && !same_switch(&v[j], x); j++)
				;
			if (beside(x) && j < i)
				continue;
			if (!open)
				r = sb_addf(out, "  <cpu numaid=\"%d\">\n",
					    node);
			open = true;
			if (!beside(x)) {
				r = r ? r : sb_adds(out, "    <pci ");
				r = r ? r : fn_attrs(out, &x->vf, &x->vf);
				r = r ? r : sb_adds(out, "/>\n");
				continue;
			}
			sw.addr = x->vf.place.sw;
			sw.class_code = 0x060400;
			r = r ? r : sb_adds(out, "    <pci ");
			r = r ? r : fn_attrs(out, &sw, &x->gpu);
			r = r ? r : sb_adds(out, ">\n");
			/* its GPUs, each once, then its VFs */
			for (k = i; !r && k < n; k++) {
				size_t m;

				if (!same_switch(&v[k], x) && k != i)
					continue;
				for (m = i; m < k; m++)
					if ((same_switch(&v[m], x) || m == i) &&
					    !pci_addr_cmp(&v[m].gpu.addr,
							  &v[k].gpu.addr))
						break;
				if (m < k)
					continue;
				r = sb_adds(out, "      <pci ");
				r = r ? r : fn_attrs(out, &v[k].gpu, &v[k].gpu);
				r = r ? r : sb_adds(out, "/>\n");
			}
			for (k = i; !r && k < n; k++) {
				if (!same_switch(&v[k], x) && k != i)
					continue;
				r = sb_adds(out, "      <pci ");
				r = r ? r : fn_attrs(out, &v[k].vf, &v[k].vf);
				r = r ? r : sb_adds(out, "/>\n");
			}
			r = r ? r : sb_adds(out, "    </pci>\n");
		}
		if (!r && open)
			r = sb_adds(out, "  </cpu>\n");
	}
	return r ? r : sb_adds(out, "</system>\n");
}

static int rail_cmp(const void *a, const void *b)
{
	const struct nccl_nic *x = a, *y = b;

	if ((x->rail < 0) != (y->rail < 0))
		return x->rail < 0 ? 1 : -1;
	if (x->rail != y->rail)
		return x->rail < y->rail ? -1 : 1;
	return (x->nic > y->nic) - (x->nic < y->nic);
}

int nccl_environment(struct nccl_nic *v, size_t n, const char *topo,
		     struct strbuf *out)
{
	struct strbuf list = STRBUF_INIT;
	size_t i;
	int r = 0;

	/* one NIC beside no GPU: nothing to order, nothing to pair */
	if (!n || (n == 1 && !beside(&v[0])))
		return 0;
	qsort(v, n, sizeof(*v), rail_cmp);
	for (i = 0; !r && i < n; i++)
		r = sb_addf(&list, "%s%s:%d", i ? "," : "", v[i].ibdev,
			    v[i].port);
	r = r ? r
	      : sb_adds(out, "# the InfiniBand NICs in rail order, each "
			     "beside its GPU (one-ib)\n");
	if (!r && topo)
		r = sb_addf(out, "NCCL_TOPO_FILE=%s\n", topo);
	r = r ? r : sb_addf(out, "NCCL_IB_HCA==%s\n", sb_str(&list));
	r = r ? r : sb_addf(out, "UCX_NET_DEVICES=%s\n", sb_str(&list));
	sb_release(&list);
	return r;
}
