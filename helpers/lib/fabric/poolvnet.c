// SPDX-License-Identifier: Apache-2.0
/* The <VNET_POOL> reader (poolelem.h): each InfiniBand network's facts. */
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

/* --- the <VNET_POOL> ------------------------------------------------------- */

/*
 * OpenNebula 6.4+ networks have a STATE: vnet_create runs after
 * one.vn.allocate returns (LOCK_CREATE, no IB_PKEY yet), and a network it
 * refused stays in ERROR. Only READY (1) and UPDATE_FAILURE (6, in use,
 * its last update failed) networks have a partition; older networks have
 * no STATE and are all ready.
 */
static bool vnet_ready(const xmlNode *vnet)
{
	int state = 1;

	if (pool_leaf_uint(vnet, "STATE", &state) == -ENOENT)
		return true;
	return state == 1 || state == 6;
}

/* Every TEMPLATE/IB_PKEY that reads as a number names a partition. */
static int vnet_claims(const xmlNode *vnet, const struct vnet_fact *v,
		       struct cloud_facts *f)
{
	const xmlNode *t, *k;

	for (t = vnet->children; t; t = t->next) {
		if (!xml_is_elem(t, "TEMPLATE"))
			continue;
		for (k = t->children; k; k = k->next) {
			struct vnet_claim *c;
			struct pkey pk;
			char *s;
			int r;

			if (!xml_is_elem(k, "IB_PKEY"))
				continue;
			s = xml_leaf_text(k);
			r = s ? pkey_parse(s, &pk) : -EINVAL;
			free(s);
			if (r)
				continue; /* names no partition */
			c = cloud_facts_new_claim(f);
			if (!c)
				return -ENOMEM;
			c->id = v->id;
			c->name = v->name;
			c->pkey = pk;
			c->parent = v->parent;
		}
	}
	return 0;
}

static int vnet_clusters(const xmlNode *vnet, struct vnet_fact *v,
			 const char *label, struct cloud_facts *f)
{
	const xmlNode *c, *cl;
	int count;

	cl = xml_only_child(vnet, "CLUSTERS", &count);
	if (!cl)
		return 0; /* in no cluster: no host can run its VMs */
	for (c = cl->children; c; c = c->next) {
		int id;
		char *s;

		if (!xml_is_elem(c, "ID"))
			continue;
		s = xml_leaf_text(c);
		if (dec_parse_int(s, &id)) {
			int r = pool_keep(f, &v->bad,
					  "%s: CLUSTERS/ID '%s' is not an ID",
					  label, str_sanitize(s).s);
			free(s);
			return r;
		}
		free(s);
		if (ALLOC_GROW(v->clusters, v->nclusters + 1, v->capclusters))
			return -ENOMEM;
		v->clusters[v->nclusters++] = id;
	}
	return 0;
}

/* A READY network's attributes; a rule broken makes it bad, not an error. */
static int vnet_attrs(const xmlNode *vnet, struct vnet_fact *v,
		      struct cloud_facts *f)
{
	char label[VNET_LABEL_MAX], why[512];
	const xmlNode *t;
	int count;

	vnet_fact_label(v, label);
	t = xml_only_child(vnet, "TEMPLATE", &count);
	if (t && xml_ib_attrs(t, IBA_ALL, XML_IB_EMPTY_PKEY_ABSENT, &v->a,
			      label, why, sizeof(why)))
		return pool_keep(f, &v->bad, "%s", why);
	if (!ibattr_has(&v->a, IBA_PKEY))
		return pool_keep(f, &v->bad, "%s: no IB_PKEY", label);
	return vnet_clusters(vnet, v, label, f);
}

int pool_vnet_element(const xmlNode *c, struct cloud_facts *f, char *err,
		      size_t errlen)
{
	size_t nth = ++f->nth[POOL_VNET];
	struct vnet_fact *v;
	char *name = NULL;
	int id, r;

	r = pool_elem_id(c, POOL_VNET, nth, &id, err, errlen);
	if (r || !pool_leaf_is(c, "VN_MAD", "ib"))
		return r;
	v = cloud_facts_new_vnet(f);
	if (!v)
		return -ENOMEM;
	v->id = id;
	v->nth = nth;
	xml_only_leaf(c, "NAME", &name);
	v->name = str_sanitize(name ? name : "");
	free(name);
	v->ready = vnet_ready(c);
	/* <PARENT_NETWORK_ID/> or none: no reservation */
	if (pool_leaf_uint(c, "PARENT_NETWORK_ID", &v->parent))
		v->parent = -1;
	r = vnet_claims(c, v, f);
	if (!r && v->ready)
		r = vnet_attrs(c, v, f);
	return r;
}
