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
	"IB_SYNC_VMS",	 "IB_SYNC_SUM",
};

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
		}
	}
	free(h.pf);
	free(h.ports);
	free(h.leaves);
	free(h.vms);
	return r;
}
