// SPDX-License-Identifier: Apache-2.0
/* The <HOST_POOL> reader (poolelem.h): each host's ports and counters. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/pci.h"
#include "core/pciplace.h"
#include "core/xml.h"
#include "fabric/poolelem.h"

/* --- the <HOST_POOL> ------------------------------------------------------- */

/*
 *   <IB_PF><ADDRESS>0000:3b:00.0</ADDRESS><PORT>1</PORT>
 *     <PORT_GUID>0x0002c90300a1b2c1</PORT_GUID><DRIVER>mlx4_core</DRIVER>
 *     <LEAF_GUID>0x248a070300f4c1a0</LEAF_GUID>
 *   </IB_PF>  -> a port 0x0002c90300a1b2c1, a ConnectX-3 one, cabled to
 *   leaf switch 0x248a070300f4c1a0; other drivers: a port; Ethernet
 *   ports: none.
 * The host's monitoring writes these, not a tenant: a malformed PORT_GUID
 * means the listing is not what it seems, and nothing is rendered from
 * it. LEAF_GUID is empty when the probe could not ask (IB_NO_LEAF says
 * why) and missing before issue 22's probe: the leaf is then unknown (0),
 * which the SL plan reads as "could be anywhere" (slplan.h); a LEAF_GUID
 * that is no GUID is unknown too, never a reason to render nothing.
 */
static uint64_t host_pf_leaf(const xmlNode *pf)
{
	char *v = NULL;
	uint64_t g = 0;

	/* a port VMs get no VF on (STATE not ACTIVE) is not in IB_LEAVES */
	if (!xml_only_leaf(pf, "STATE", &v) && strcmp(v, "ACTIVE")) {
		free(v);
		return 0;
	}
	free(v);
	v = NULL;
	if (xml_only_leaf(pf, "LEAF_GUID", &v) || guid_parse(v, &g))
		g = 0;
	free(v);
	return g;
}

static int host_pf_guids(const xmlNode *t, int id, const struct san_str *name,
			 struct host_fact *h, char *err, size_t errlen)
{
	const xmlNode *c;

	for (c = t->children; c; c = c->next) {
		char *v = NULL;
		uint64_t g;

		if (!xml_is_elem(c, "IB_PF"))
			continue;
		if (!xml_only_leaf(c, "LINK_LAYER", &v) && strcmp(v, "InfiniBan"
								     "d")) {
			free(v);
			continue;
		}
		free(v);
		if (xml_only_leaf(c, "PORT_GUID", &v) || guid_parse(v, &g) ||
		    !g) {
			err_set(err, errlen,
				"HOST %d (%s): IB_PF PORT_GUID '%s' is not a "
				"GUID",
				id, name->s, str_sanitize(v ? v : "").s);
			free(v);
			return -EINVAL;
		}
		free(v);
		if (ALLOC_GROW(h->ports, h->nports + 1, h->capports) ||
		    ALLOC_GROW(h->leaves, h->nports + 1, h->capleaves))
			return -ENOMEM;
		h->leaves[h->nports] = host_pf_leaf(c);
		h->ports[h->nports++] = g;
		if (!pool_leaf_is(c, "DRIVER", "mlx4_core"))
			continue;
		if (ALLOC_GROW(h->pf, h->npf + 1, h->cappf))
			return -ENOMEM;
		h->pf[h->npf++] = g;
	}
	return 0;
}

static const char *const host_count_name[HC_COUNT] = {
	"IB_VFS_USABLE", "IB_VFS_USED", "IB_VFS_AVAIL",
	"IB_SYNC_VMS",	 "IB_SYNC_SUM", "IB_RAILS_AVAIL",
};

/* --- rails and PCI devices (railfit.h) ------------------------------------ */

/* A vector's address attribute (either form, pci.h): 0, or -1 when it is
 * missing, empty or no address. */
static int leaf_addr(const xmlNode *v, const char *name, struct pci_addr *out)
{
	char *t = NULL;
	int r = xml_only_leaf(v, name, &t) || pci_addr_parse_one(t, out) ? -1
									 : 0;

	free(t);
	return r;
}

/* A vector's signed number ("-1"): 0, or -1 when missing or none. */
static int leaf_int(const xmlNode *v, const char *name, long *out)
{
	char *t = NULL, *end;
	int r = -1;

	if (!xml_only_leaf(v, name, &t) && *t) {
		*out = strtol(t, &end, 10);
		r = *end ? -1 : 0;
	}
	free(t);
	return r;
}

/* The place an IB_PF or IB_PCI gives (PCIE_ROOT_PORT, PCIE_SWITCH,
 * NUMA_NODE; "" for each when not known). */
static void vec_place(const xmlNode *v, struct pci_place *out)
{
	struct pci_addr rp, sw;
	int numa;
	bool has_rp = !leaf_addr(v, "PCIE_ROOT_PORT", &rp),
	     has_sw = !leaf_addr(v, "PCIE_SWITCH", &sw);

	if (pool_leaf_uint(v, "NUMA_NODE", &numa))
		numa = -1;
	pci_place_from(has_rp ? &rp : NULL, has_rp && has_sw ? &sw : NULL, numa,
		       out);
}

/* The IB_PF of PF pf's port num in t, or NULL. */
static const xmlNode *pf_of(const xmlNode *t, const struct pci_addr *pf,
			    int num)
{
	const xmlNode *c;

	for (c = t->children; c; c = c->next) {
		struct pci_addr a;
		int port;

		if (xml_is_elem(c, "IB_PF") && !leaf_addr(c, "ADDRESS", &a) &&
		    !pci_addr_cmp(&a, pf) &&
		    !pool_leaf_uint(c, "PORT", &port) && port == num)
			return c;
	}
	return NULL;
}

static int by_rail(const void *a, const void *b)
{
	const struct host_rail *x = a, *y = b;

	return (x->rail > y->rail) - (x->rail < y->rail);
}

/*
 * IB_RAIL=[ RAIL, ADDRESS, PORT, VFS_USABLE ] with its port's IB_PF. A
 * probe before VFS_USABLE gives no rails: the host has none to count by
 * until it is monitored again.
 */
static int host_rails(const xmlNode *t, struct host_fact *h)
{
	const xmlNode *c, *pf;

	for (c = t->children; c; c = c->next) {
		struct host_rail *r;
		struct pci_addr a;
		int rail, port, usable;
		char *g = NULL;

		if (!xml_is_elem(c, "IB_RAIL") ||
		    pool_leaf_uint(c, "RAIL", &rail) ||
		    leaf_addr(c, "ADDRESS", &a) ||
		    pool_leaf_uint(c, "PORT", &port) ||
		    pool_leaf_uint(c, "VFS_USABLE", &usable))
			continue;
		if (ALLOC_GROW(h->rails, h->nrails + 1, h->caprails))
			return -ENOMEM;
		r = &h->rails[h->nrails++];
		memset(r, 0, sizeof(*r));
		r->rail = rail;
		r->usable = usable;
		r->place.numa_node = -1;
		pf = pf_of(t, &a, port);
		if (!pf)
			continue;
		vec_place(pf, &r->place);
		if (!xml_only_leaf(pf, "LEAF_GUID", &g) &&
		    guid_parse(g, &r->leaf))
			r->leaf = 0;
		free(g);
	}
	if (h->nrails > 1)
		qsort(h->rails, h->nrails, sizeof(*h->rails), by_rail);
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	return pci_addr_cmp(&((const struct host_pci *)a)->addr,
			    &((const struct host_pci *)b)->addr);
}

/* A hex value of a PCI device ("0302"), -1 when none. */
static int pci_hex(const xmlNode *v, const char *name)
{
	char *t = NULL, *end;
	long n = -1;

	if (!xml_only_leaf(v, name, &t) && *t) {
		n = strtol(t, &end, 16);
		if (*end || n < 0 || n > 0xffff)
			n = -1;
	}
	free(t);
	return (int)n;
}

/*
 * HOST_SHARE/PCI_DEVICES/PCI, oned's own devices, each with the place of
 * the IB_PCI at its address (none: not known, never beside a rail).
 */
static int host_pcis(const xmlNode *host, const xmlNode *t, struct host_fact *h)
{
	const xmlNode *share, *devs, *c, *d;
	int count;

	share = xml_only_child(host, "HOST_SHARE", &count);
	devs = share ? xml_only_child(share, "PCI_DEVICES", &count) : NULL;
	for (c = devs ? devs->children : NULL; c; c = c->next) {
		struct host_pci *p;
		struct pci_addr a;
		long vmid;

		if (!xml_is_elem(c, "PCI") || leaf_addr(c, "ADDRESS", &a))
			continue;
		if (ALLOC_GROW(h->pcis, h->npcis + 1, h->cappcis))
			return -ENOMEM;
		p = &h->pcis[h->npcis++];
		memset(p, 0, sizeof(*p));
		p->addr = a;
		p->vendor = pci_hex(c, "VENDOR");
		p->device = pci_hex(c, "DEVICE");
		p->cls = pci_hex(c, "CLASS");
		p->vmid = leaf_int(c, "VMID", &vmid) ? -1 : (int)vmid;
		p->place.numa_node = -1;
		for (d = t->children; d; d = d->next) {
			struct pci_addr b;

			if (xml_is_elem(d, "IB_PCI") &&
			    !leaf_addr(d, "ADDRESS", &b) &&
			    !pci_addr_cmp(&a, &b)) {
				vec_place(d, &p->place);
				break;
			}
		}
	}
	if (h->npcis > 1)
		qsort(h->pcis, h->npcis, sizeof(*h->pcis), by_addr);
	return 0;
}

/* TEMPLATE's VF counters (-1: missing, or not a count) and VMS/ID. */
static int host_counted(const xmlNode *host, const xmlNode *t,
			struct host_fact *h)
{
	const xmlNode *vms, *c;
	int k, count, n;

	for (k = 0; k < HC_COUNT; k++)
		h->count[k] = pool_leaf_uint(t, host_count_name[k], &n) ? -1
									: n;
	vms = xml_only_child(host, "VMS", &count);
	for (c = vms ? vms->children : NULL; c; c = c->next) {
		char *v;
		int r;

		if (!xml_is_elem(c, "ID"))
			continue;
		v = xml_leaf_text(c);
		r = v && !dec_parse_int(v, &n) ? 0 : -EINVAL;
		free(v);
		if (r)
			return r;
		if (ALLOC_GROW(h->vms, h->nvms + 1, h->capvms))
			return -ENOMEM;
		h->vms[h->nvms++] = n;
	}
	return 0;
}

int pool_host_element(const xmlNode *host, struct cloud_facts *f, char *err,
		      size_t errlen)
{
	size_t nth = ++f->nth[POOL_HOST];
	struct host_fact h = { 0 };
	struct san_str name;
	const xmlNode *t;
	char *v = NULL;
	int id, cluster, count, r, st;

	r = pool_elem_id(host, POOL_HOST, nth, &id, err, errlen);
	if (r)
		return r;
	xml_only_leaf(host, "NAME", &v);
	name = str_sanitize(v ? v : "");
	free(v);
	t = xml_only_child(host, "TEMPLATE", &count);
	if (!t || pool_leaf_uint(host, "CLUSTER_ID", &cluster))
		return 0;
	r = host_pf_guids(t, id, &name, &h, err, errlen);
	if (!r && h.nports && host_counted(host, t, &h) == -EINVAL) {
		err_set(err, errlen, "HOST %d (%s): a VMS/ID is not a VM ID",
			id, name.s);
		r = -EINVAL;
	}
	if (!r && h.nports)
		r = host_rails(t, &h);
	if (!r && h.nports)
		r = host_pcis(host, t, &h);
	if (!r && h.nports)
		r = pool_keep(f, &h.name, "%s", name.s);
	/* MONITORED or MONITORING_MONITORED: the hosts the scheduler uses */
	h.schedulable = pool_leaf_uint(host, "STATE", &st) || st == 1 ||
			st == 2;
	if (!r && h.nports) {
		struct host_fact *slot = cloud_facts_new_host(f);

		if (!slot) {
			r = -ENOMEM;
		} else {
			h.id = id;
			h.cluster = cluster;
			*slot = h;
			h.pf = h.ports = h.leaves = NULL;
			h.vms = NULL;
			h.rails = NULL;
			h.pcis = NULL;
		}
	}
	free(h.rails);
	free(h.pcis);
	free(h.pf);
	free(h.ports);
	free(h.leaves);
	free(h.vms);
	return r;
}
