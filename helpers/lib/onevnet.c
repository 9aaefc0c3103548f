// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "onevnet.h"

/* --- tree walking ---------------------------------------------------------- */

/* What an element holds, for an error line: "<x>" and all, sanitized. */
static struct san_str raw_text(const xmlNode *e)
{
	xmlChar *raw = xmlNodeGetContent(e);
	struct san_str s = str_sanitize((const char *)raw);

	xmlFree(raw);
	return s;
}

/* The only <ID> child of e, as a number. */
static int elem_id(const xmlNode *e, int *id)
{
	xmlNodePtr n;
	int count, r;
	char *v;

	n = xml_child(e, "ID", &count);
	if (count != 1)
		return -ENOENT;
	v = xml_leaf_text(n);
	r = dec_parse_int(v, id);
	free(v);
	return r ? -EINVAL : 0;
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

struct vnet_ctx {
	const xmlNode *tmpl; /* TEMPLATE, NULL when absent */
	struct ib_vnet *vn;
	char *err;
	size_t errlen;
};

static int vnet_bad(const struct vnet_ctx *c, const char *name, const char *v,
		    const char *hint)
{
	char label[VNET_LABEL_MAX];

	vnet_label(c->vn, label);
	err_set(c->err, c->errlen, "%s: malformed %s '%s'%s", label, name,
		str_sanitize(v).s, hint);
	return -EINVAL;
}

/*
 * TEMPLATE/<name> as a string: -ENOENT when absent, -EINVAL (err filled)
 * when given twice or not a plain value.
 */
static int tmpl_field(const struct vnet_ctx *c, const char *name, char **out)
{
	char label[VNET_LABEL_MAX];
	xmlNodePtr e;
	int count;

	*out = NULL;
	if (!c->tmpl)
		return -ENOENT;
	e = xml_child(c->tmpl, name, &count);
	if (!e)
		return -ENOENT;
	vnet_label(c->vn, label);
	if (count > 1) {
		err_set(c->err, c->errlen, "%s: %s given %d times", label, name,
			count);
		return -EINVAL;
	}
	*out = xml_leaf_text(e);
	if (*out)
		return 0;
	err_set(c->err, c->errlen, "%s: malformed %s '%s' (not a single value)",
		label, name, raw_text(e).s);
	return -EINVAL;
}

static int vnet_pkey(const struct vnet_ctx *c)
{
	struct ib_vnet *vn = c->vn;
	char *v;
	int r = tmpl_field(c, "IB_PKEY", &v);

	if (r)
		return r == -ENOENT ? 0 : r;
	/* IB_PKEY="" asks for one, as no IB_PKEY does: vnet_create's
	 * IB_PKEY="0x8102" replaces the empty value in the template. */
	if (!v[0]) {
		free(v);
		return 0;
	}
	r = pkey_parse(v, &vn->pkey);
	if (r == -ERANGE) {
		char label[VNET_LABEL_MAX];

		vnet_label(vn, label);
		err_set(c->err, c->errlen,
			"%s: IB_PKEY '%s' is out of range (a P_Key is 16 bits: "
			"partition 0x0001-0x7ffe, bit 15 the membership)",
			label, str_sanitize(v).s);
		r = -EINVAL;
	} else if (r) {
		r = vnet_bad(c, "IB_PKEY", v,
			     " (expected hex like 0x8101 or decimal)");
	}
	free(v);
	if (r)
		return r;
	if (!pkey_tenant_ok(vn->pkey)) {
		char label[VNET_LABEL_MAX], pk[PKEY_STRLEN];

		vnet_label(vn, label);
		pkey_fmt(vn->pkey, pk);
		err_set(c->err, c->errlen, "%s: IB_PKEY %s is %s", label, pk,
			pkey_base(vn->pkey) == 0 ? "the invalid partition 0"
						 : "the default partition, "
						   "never given to a "
						   "tenant network");
		return -EINVAL;
	}
	vn->has_pkey = true;
	return 0;
}

/* 256 ... 4096: the InfiniBand MTUs (IBTA enum 1..5). */
static int vnet_mtu(const struct vnet_ctx *c)
{
	static const struct {
		const char *s;
		int v;
	} mtus[] = { { "256", 256 },
		     { "512", 512 },
		     { "1024", 1024 },
		     { "2048", 2048 },
		     { "4096", 4096 } };
	char *v;
	size_t i;
	int r = tmpl_field(c, "IB_MTU", &v);

	if (r)
		return r == -ENOENT ? 0 : r;
	for (i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
		if (!strcmp(v, mtus[i].s))
			c->vn->mtu = mtus[i].v;
	if (!c->vn->mtu)
		r = vnet_bad(c, "IB_MTU", v,
			     " (expected 256, 512, 1024, 2048 or 4096)");
	free(v);
	return r;
}

static int vnet_mode(const struct vnet_ctx *c)
{
	char *v;
	int r = tmpl_field(c, "IB_MODE", &v);

	if (r)
		return r == -ENOENT ? 0 : r;
	if (!strcmp(v, "datagram"))
		c->vn->mode = IB_MODE_DATAGRAM;
	else if (!strcmp(v, "connected"))
		c->vn->mode = IB_MODE_CONNECTED;
	else
		r = vnet_bad(c, "IB_MODE", v,
			     " (expected datagram or connected)");
	free(v);
	return r;
}

/* The same rules as deploy applies to the NICs (onexml.c). */
static int vnet_pf_port(const struct vnet_ctx *c)
{
	char *v;
	int r = tmpl_field(c, "IB_PF", &v);

	if (r == 0 && pci_addr_parse(v, &c->vn->pf))
		r = vnet_bad(c, "IB_PF", v,
			     " (expected a PCI address like 0000:3b:00.0)");
	else if (r == 0)
		c->vn->has_pf = true;
	free(v);
	if (r && r != -ENOENT)
		return r;

	/* "1".."9": an HCA has one or two ports, never ten. */
	r = tmpl_field(c, "IB_PORT", &v);
	if (r == 0 && (v[0] < '1' || v[0] > '9' || v[1]))
		r = vnet_bad(c, "IB_PORT", v, " (expected a port number 1..9)");
	else if (r == 0)
		c->vn->port = v[0] - '0';
	free(v);
	return r == -ENOENT ? 0 : r;
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
	xml_child(root, "ID", &count);
	if (count != 1) {
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
	e = xml_child(root, "NAME", &count);
	if (e && count == 1) {
		char *v = xml_leaf_text(e);

		vn->name = str_sanitize(v);
		free(v);
	}
	return 0;
}

int onevnet_parse(const char *xml, size_t len, int id_hint, struct ib_vnet *vn,
		  char *err, size_t errlen)
{
	struct vnet_ctx c = { NULL, vn, err, errlen };
	char what[32], label[VNET_LABEL_MAX];
	xmlNodePtr root;
	xmlDocPtr doc;
	int count, r;

	memset(vn, 0, sizeof(*vn));
	vn->id = id_hint;
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
	c.tmpl = xml_child(root, "TEMPLATE", &count);
	if (count > 1) {
		vnet_label(vn, label);
		err_set(err, errlen, "%s: TEMPLATE given twice", label);
		r = -EINVAL;
		goto out;
	}
	r = vnet_pkey(&c);
	if (!r)
		r = vnet_mtu(&c);
	if (!r)
		r = vnet_mode(&c);
	if (!r)
		r = vnet_pf_port(&c);
out:
	xmlFreeDoc(doc);
	return r;
}

/* --- the <VNET_POOL> of `onevnet list -x` -------------------------------- */

static bool vnet_is_ib(const xmlNode *vnet)
{
	return xml_has_leaf(vnet, "VN_MAD", "ib");
}

static int pool_add(struct vnet_pool *p, size_t *cap, const struct vnet_use *u)
{
	if (p->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct vnet_use *nv = realloc(p->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		p->v = nv;
		*cap = ncap;
	}
	p->v[p->n++] = *u;
	return 0;
}

/* Every IB_PKEY of every TEMPLATE of an InfiniBand VNET. */
static int pool_vnet(const xmlNode *vnet, struct vnet_use *u,
		     struct vnet_pool *p, size_t *cap)
{
	const xmlNode *t, *k;
	int r;

	for (t = vnet->children; t; t = t->next) {
		if (!xml_is_elem(t, "TEMPLATE"))
			continue;
		for (k = t->children; k; k = k->next) {
			char *v;

			if (!xml_is_elem(k, "IB_PKEY"))
				continue;
			v = xml_leaf_text(k);
			r = v ? pkey_parse(v, &u->pkey) : -EINVAL;
			free(v);
			if (r)
				continue;
			r = pool_add(p, cap, u);
			if (r)
				return r;
		}
	}
	return 0;
}

int onevnet_pool_parse(const char *xml, size_t len, struct vnet_pool *pool,
		       char *err, size_t errlen)
{
	struct vnet_pool res = { NULL, 0 };
	const xmlNode *c;
	xmlNodePtr root, name;
	size_t cap = 0, nth = 0;
	xmlDocPtr doc;
	int count, r = 0;

	memset(pool, 0, sizeof(*pool));
	doc = xml_read_untrusted(xml, len, "VNET pool", err, errlen);
	if (!doc)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	if (!xml_is_elem(root, "VNET_POOL")) {
		err_set(err, errlen,
			"VNET pool: root element <%s> is not <VNET_POOL>",
			str_sanitize((const char *)root->name).s);
		r = -EINVAL;
		goto out;
	}
	for (c = root->children; c; c = c->next) {
		struct vnet_use u = { .id = -1 };
		char *v;

		if (!xml_is_elem(c, "VNET"))
			continue;
		nth++;
		/* Without its ID a network could be this very one, or not. */
		r = elem_id(c, &u.id);
		if (r) {
			err_set(err, errlen,
				"VNET pool: VNET element %zu has %s", nth,
				r == -ENOENT ? "no single <ID>"
					     : "a malformed <ID>");
			r = -EINVAL;
			goto out;
		}
		if (!vnet_is_ib(c))
			continue;
		name = xml_child(c, "NAME", &count);
		if (name) {
			v = xml_leaf_text(name);
			u.name = str_sanitize(v);
			free(v);
		}
		r = pool_vnet(c, &u, &res, &cap);
		if (r) {
			err_set(err, errlen, "VNET pool: out of memory");
			goto out;
		}
	}
out:
	xmlFreeDoc(doc);
	if (r) {
		free(res.v);
		return r;
	}
	*pool = res;
	return 0;
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

/* The pool entry of another network holding partition base, or NULL. */
static const struct vnet_use *holder(const struct vnet_pool *pool,
				     uint16_t base, int self_id)
{
	size_t i;

	for (i = 0; i < pool->n; i++)
		if (pool->v[i].id != self_id &&
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

/* The network's own IB_PKEY, unless another network holds its partition. */
static int assign_given(const struct ib_vnet *vn, const struct vnet_pool *pool,
			struct pkey *out, char *err, size_t errlen)
{
	const struct vnet_use *u = holder(pool, pkey_base(vn->pkey), vn->id);
	char label[VNET_LABEL_MAX], other[VNET_LABEL_MAX], pk[PKEY_STRLEN];

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
		       const struct pkey_range *range, struct pkey *out,
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
		"other InfiniBand networks); set IB_PKEY or widen the range in "
		"etc/vnm/ib/ibrc",
		label, lo, hi, (unsigned int)(range->hi - range->lo + 1));
	return -ENOSPC;
}

int onevnet_assign_pkey(const struct ib_vnet *vn, const struct vnet_pool *pool,
			const struct pkey_range *range, struct pkey *out,
			char *err, size_t errlen)
{
	if (vn->has_pkey)
		return assign_given(vn, pool, out, err, errlen);
	return assign_free(vn, pool, range, out, err, errlen);
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
			raw_text(xml_child(root, "ID", &count)).s);
	}
out:
	xmlFreeDoc(doc);
	return r ? -EINVAL : 0;
}
