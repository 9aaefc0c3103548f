// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/onenic.h"
#include "core/xml.h"
#include "fabric/onevnet.h"
#include "fabric/poolread.h"

/* --- tree walking ---------------------------------------------------------- */

/* The only <name> child of e, as a number. */
static int elem_num(const xmlNode *e, const char *name, int *id)
{
	xmlNodePtr n = xml_only_child(e, name, NULL);
	int r;
	char *v;

	if (!n)
		return -ENOENT;
	v = xml_leaf_text(n);
	r = dec_parse_int(v, id);
	free(v);
	return r ? -EINVAL : 0;
}

static int elem_id(const xmlNode *e, int *id)
{
	return elem_num(e, "ID", id);
}

/* --- the <VNET> of vnet_create ------------------------------------------- */

void vnet_label(const struct ib_vnet *vn, char buf[VNET_LABEL_MAX])
{
	if (vn->id < 0)
		snprintf(buf, VNET_LABEL_MAX, "VNET");
	else if (vn->name.s[0])
		snprintf(buf, VNET_LABEL_MAX, "VNET %d (%s)", vn->id,
			 vn->name.s);
	else
		snprintf(buf, VNET_LABEL_MAX, "VNET %d", vn->id);
}

static int vnet_head(const xmlNode *root, int id_hint, struct ib_vnet *vn,
		     char *err, size_t errlen)
{
	char label[VNET_LABEL_MAX];
	xmlNodePtr e;
	int count;

	vnet_label(vn, label);
	if (!xml_is_elem(root, "VNET")) {
		err_set(err, errlen, "%s: root element <%s> is not <VNET>",
			label, str_sanitize((const char *)root->name).s);
		return -EINVAL;
	}
	if (!xml_only_child(root, "ID", &count)) {
		err_set(err, errlen, "%s: <VNET> has %s", label,
			count ? "more than one <ID>" : "no <ID>");
		return -EINVAL;
	}
	if (elem_id(root, &vn->id)) {
		err_set(err, errlen, "%s: <VNET> has a malformed <ID>", label);
		return -EINVAL;
	}
	if (id_hint >= 0 && vn->id != id_hint) {
		err_set(err, errlen, "VNET %d: the VNET XML describes VNET %d",
			id_hint, vn->id);
		return -EINVAL;
	}
	e = xml_only_child(root, "NAME", NULL);
	if (e) {
		char *v = xml_leaf_text(e);

		vn->name = str_sanitize(v);
		free(v);
	}
	return 0;
}

int onevnet_parse(const char *xml, size_t len, int id_hint, struct ib_vnet *vn,
		  char *err, size_t errlen)
{
	char what[32], label[VNET_LABEL_MAX];
	struct ib_attrs a = { 0 };
	xmlNodePtr root, tmpl;
	xmlDocPtr doc;
	int count, r;

	memset(vn, 0, sizeof(*vn));
	vn->id = id_hint;
	vn->sl = -1;
	if (id_hint >= 0)
		snprintf(what, sizeof(what), "VNET %d XML", id_hint);
	else
		snprintf(what, sizeof(what), "VNET XML");
	doc = xml_read_untrusted(xml, len, what, err, errlen);
	if (!doc)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	r = vnet_head(root, id_hint, vn, err, errlen);
	if (r)
		goto out;
	/* <PARENT_NETWORK_ID/>: none */
	vn->reservation = !elem_num(root, "PARENT_NETWORK_ID", &vn->parent);
	vnet_label(vn, label);
	tmpl = xml_child(root, "TEMPLATE", &count);
	if (count > 1) {
		err_set(err, errlen, "%s: TEMPLATE given twice", label);
		r = -EINVAL;
		goto out;
	}
	/* The renderer's rules exactly (ibattr.h): what is accepted here is
	 * never left out of the partitions later. IB_PKEY="" asks for one, as
	 * no IB_PKEY does: vnet_create's IB_PKEY="0x8102" replaces it. */
	if (tmpl)
		r = xml_ib_attrs(tmpl, IBA_ALL, XML_IB_EMPTY_PKEY_ABSENT, &a,
				 label, err, errlen);
	if (r)
		goto out;
	vn->has_pkey = ibattr_has(&a, IBA_PKEY);
	vn->pkey = a.pkey;
	vn->mtu = ibattr_has(&a, IBA_MTU) ? a.mtu : 0;
	vn->rate = ibattr_has(&a, IBA_RATE) ? a.rate : 0;
	vn->sl = ibattr_has(&a, IBA_SL) ? a.sl : -1;
	vn->mode = a.mode;
	vn->has_pf = ibattr_has(&a, IBA_PF);
	vn->pf = a.pf;
	vn->port = ibattr_has(&a, IBA_PORT) ? a.port : 0;
	memcpy(vn->svc_part, a.svc_part, sizeof(vn->svc_part));
out:
	xmlFreeDoc(doc);
	return r;
}

/* --- the <VNET_POOL> of `onevnet list -x` -------------------------------- */

int onevnet_pool_from_facts(const struct cloud_facts *f, struct vnet_pool *pool)
{
	size_t i;

	memset(pool, 0, sizeof(*pool));
	pool->v = calloc(f->nclaims + 1, sizeof(*pool->v));
	if (!pool->v)
		return -ENOMEM;
	for (i = 0; i < f->nclaims; i++) {
		pool->v[i].id = f->claims[i].id;
		pool->v[i].name = f->claims[i].name;
		pool->v[i].pkey = f->claims[i].pkey;
		pool->v[i].reservation = f->claims[i].parent >= 0;
		pool->v[i].parent = f->claims[i].parent;
	}
	pool->n = f->nclaims;
	return 0;
}

int onevnet_pool_parse(const char *xml, size_t len, struct vnet_pool *pool,
		       char *err, size_t errlen)
{
	struct cloud_facts f = { 0 };
	int r;

	memset(pool, 0, sizeof(*pool));
	r = poolread_mem(&f, POOL_VNET, xml, len, "VNET pool", err, errlen);
	if (!r && onevnet_pool_from_facts(&f, pool)) {
		err_set(err, errlen, "VNET pool: out of memory");
		r = -ENOMEM;
	}
	cloud_facts_free(&f);
	return r;
}

void vnet_pool_free(struct vnet_pool *pool)
{
	if (!pool)
		return;
	free(pool->v);
	pool->v = NULL;
	pool->n = 0;
}

/* --- choosing the P_Key -------------------------------------------------- */

int pkey_range_parse(const char *s, struct pkey_range *out)
{
	struct pkey lo, hi;
	const char *dash;
	char buf[32];
	size_t n;

	if (!s)
		return -EINVAL;
	dash = strchr(s, '-');
	if (!dash)
		return -EINVAL;
	n = (size_t)(dash - s);
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* pkey_parse refuses a second '-' in the upper end */
	if (pkey_parse(buf, &lo) || pkey_parse(dash + 1, &hi))
		return -EINVAL;
	if (!pkey_tenant_ok(lo) || !pkey_tenant_ok(hi) ||
	    pkey_base(lo) > pkey_base(hi))
		return -EINVAL;
	out->lo = pkey_base(lo);
	out->hi = pkey_base(hi);
	return 0;
}

/* Does the pool entry u belong to vn's partition: vn itself, or, for a
 * reservation, its parent and the parent's other reservations? */
static bool same_family(const struct vnet_use *u, const struct ib_vnet *vn)
{
	return u->id == vn->id ||
	       (vn->reservation &&
		(u->id == vn->parent ||
		 (u->reservation && u->parent == vn->parent)));
}

/* The pool entry of another network holding partition base, or NULL. */
static const struct vnet_use *holder(const struct vnet_pool *pool,
				     uint16_t base, const struct ib_vnet *vn)
{
	size_t i;

	for (i = 0; i < pool->n; i++)
		if (!same_family(&pool->v[i], vn) &&
		    pkey_base(pool->v[i].pkey) == base)
			return &pool->v[i];
	return NULL;
}

static void use_label(const struct vnet_use *u, char buf[VNET_LABEL_MAX])
{
	if (u->name.s[0])
		snprintf(buf, VNET_LABEL_MAX, "VNET %d (%s)", u->id, u->name.s);
	else
		snprintf(buf, VNET_LABEL_MAX, "VNET %d", u->id);
}

/* The network's own IB_PKEY, unless another network holds its partition
 * or the static file reserves it. */
static int assign_given(const struct ib_vnet *vn, const struct vnet_pool *pool,
			const struct partitions *stat, struct pkey *out,
			char *err, size_t errlen)
{
	const struct vnet_use *u = holder(pool, pkey_base(vn->pkey), vn);
	const struct partition *sp =
		stat ? partitions_find(stat, pkey_base(vn->pkey)) : NULL;
	char label[VNET_LABEL_MAX], other[VNET_LABEL_MAX], pk[PKEY_STRLEN];

	if (sp) {
		vnet_label(vn, label);
		pkey_fmt(vn->pkey, pk);
		err_set(err, errlen,
			"%s: IB_PKEY %s is partition 0x%04x, the static file's "
			"(%s)",
			label, pk, sp->pkey, sp->name);
		return -EEXIST;
	}
	if (!u) {
		out->raw = PKEY_MEMBER_FULL | pkey_base(vn->pkey);
		return 0;
	}
	vnet_label(vn, label);
	use_label(u, other);
	pkey_fmt(vn->pkey, pk);
	err_set(err, errlen,
		"%s: IB_PKEY %s is partition 0x%04x, already used by %s", label,
		pk, pkey_base(vn->pkey), other);
	return -EEXIST;
}

/* The lowest partition of range no other network holds. */
static int assign_free(const struct ib_vnet *vn, const struct vnet_pool *pool,
		       const struct pkey_range *range,
		       const struct partitions *stat, struct pkey *out,
		       char *err, size_t errlen)
{
	char label[VNET_LABEL_MAX], lo[PKEY_STRLEN], hi[PKEY_STRLEN];
	/* one bit per partition 0x0000..0x7fff: 4 kB, whatever the pool */
	uint64_t used[0x8000 / 64] = { 0 };
	unsigned int b;
	size_t i;

	for (i = 0; i < pool->n; i++) {
		b = pkey_base(pool->v[i].pkey);
		if (pool->v[i].id != vn->id)
			used[b / 64] |= (uint64_t)1 << (b % 64);
	}
	for (i = 0; stat && i < stat->n; i++) {
		b = stat->p[i].pkey;
		used[b / 64] |= (uint64_t)1 << (b % 64);
	}
	for (b = range->lo; b <= range->hi; b++) {
		if (used[b / 64] >> (b % 64) & 1)
			continue;
		out->raw = (uint16_t)(PKEY_MEMBER_FULL | b);
		return 0;
	}
	vnet_label(vn, label);
	pkey_fmt((struct pkey){ range->lo }, lo);
	pkey_fmt((struct pkey){ range->hi }, hi);
	err_set(err, errlen,
		"%s: no free P_Key in IB_PKEY_RANGE %s-%s (all %u held by "
		"other InfiniBand networks or the static file); set IB_PKEY or "
		"widen the range in etc/vnm/ib/ibrc",
		label, lo, hi, (unsigned int)(range->hi - range->lo + 1));
	return -ENOSPC;
}

/* A reservation: its parent's partition, as the parent holds it. */
static int assign_parents(const struct ib_vnet *vn,
			  const struct vnet_pool *pool, struct pkey *out,
			  char *err, size_t errlen)
{
	const struct vnet_use *p = NULL;
	char label[VNET_LABEL_MAX], other[VNET_LABEL_MAX];
	size_t i;

	for (i = 0; i < pool->n && !p; i++)
		if (pool->v[i].id == vn->parent && !pool->v[i].reservation)
			p = &pool->v[i];
	vnet_label(vn, label);
	if (!p) {
		err_set(err, errlen,
			"%s: a reservation of VNET %d, no InfiniBand network "
			"of the pool",
			label, vn->parent);
		return -ENOENT;
	}
	use_label(p, other);
	if (vn->has_pkey && pkey_base(vn->pkey) != pkey_base(p->pkey)) {
		err_set(err, errlen,
			"%s: a reservation of %s keeps its partition 0x%04x, "
			"not 0x%04x",
			label, other, pkey_base(p->pkey), pkey_base(vn->pkey));
		return -EEXIST;
	}
	out->raw = PKEY_MEMBER_FULL | pkey_base(p->pkey);
	return 0;
}

int onevnet_assign_pkey(const struct ib_vnet *vn, const struct vnet_pool *pool,
			const struct pkey_range *range,
			const struct partitions *stat, struct pkey *out,
			char *err, size_t errlen)
{
	if (vn->reservation)
		return assign_parents(vn, pool, out, err, errlen);
	if (vn->has_pkey)
		return assign_given(vn, pool, stat, out, err, errlen);
	return assign_free(vn, pool, range, stat, out, err, errlen);
}

int onevnet_check_service(const struct ib_vnet *vn,
			  const struct partitions *stat, char *err,
			  size_t errlen)
{
	char label[VNET_LABEL_MAX];

	if (!vn->svc_part[0] ||
	    (stat && partitions_find_name(stat, vn->svc_part)))
		return 0;
	vnet_label(vn, label);
	err_set(err, errlen,
		"%s: IB_SERVICE_PARTITION '%s' is no partition of the static "
		"file%s",
		label, vn->svc_part,
		stat ? ""
		     : " (none: ONEIB_PARTITIONS_STATIC in etc/vnm/ib/ibrc)");
	return -ENOENT;
}

/* --- the <VM> of the host-side actions ----------------------------------- */

int onevnet_vm_id(const char *xml, size_t len, int *id, char *err,
		  size_t errlen)
{
	xmlNodePtr root;
	xmlDocPtr doc;
	int count, r;

	doc = xml_read_untrusted(xml, len, "VM XML", err, errlen);
	if (!doc)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	if (!xml_is_elem(root, "VM")) {
		err_set(err, errlen, "VM XML: root element <%s> is not <VM>",
			str_sanitize((const char *)root->name).s);
		r = -EINVAL;
		goto out;
	}
	r = elem_id(root, id);
	if (r == -ENOENT) {
		xml_child(root, "ID", &count);
		err_set(err, errlen, "VM XML: <VM> has %s",
			count ? "more than one <ID>" : "no <ID>");
	} else if (r) {
		err_set(err, errlen, "VM XML: <VM> ID '%s' is not a number",
			xml_raw_text(xml_child(root, "ID", &count)).s);
	}
out:
	xmlFreeDoc(doc);
	return r ? -EINVAL : 0;
}
