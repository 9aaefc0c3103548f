// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "guid.h"
#include "log.h"
#include "onexml.h"
#include "partitions.h"
#include "pkey.h"

#define DEFAULT_LINE "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
#define HEADER                                                                 \
	"# oneib-pkey partitions: generated from the cloud's state, "          \
	"do not edit\n"
#define NAME_SUFFIX_MAX 32

/* --- small containers ------------------------------------------------------ */

struct u64vec {
	uint64_t *v;
	size_t n, cap;
};

static int u64_push(struct u64vec *a, uint64_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		uint64_t *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted, duplicates dropped: a PF in two of the network's clusters. */
static void u64_sort_unique(struct u64vec *a)
{
	size_t i, n = 0;

	if (!a->n)
		return;
	qsort(a->v, a->n, sizeof(*a->v), u64_cmp);
	for (i = 1; i < a->n; i++)
		if (a->v[i] != a->v[n])
			a->v[++n] = a->v[i];
	a->n = n + 1;
}

/* --- tree walking ---------------------------------------------------------- */

/* The only child element called name, NULL with *count 0 or > 1. */
static xmlNodePtr only_child(const xmlNode *parent, const char *name,
			     int *count)
{
	xmlNodePtr found = xml_child(parent, name, count);

	return *count == 1 ? found : NULL;
}

/* The text of the only child called name: -ENOENT absent, -EINVAL twice. */
static int leaf(const xmlNode *parent, const char *name, char **out)
{
	int count;
	xmlNodePtr e = only_child(parent, name, &count);

	*out = NULL;
	if (count == 0)
		return -ENOENT;
	if (count > 1)
		return -EINVAL;
	*out = xml_leaf_text(e);
	return *out ? 0 : -EINVAL;
}

static int leaf_uint(const xmlNode *parent, const char *name, int *out)
{
	char *v;
	int r = leaf(parent, name, &v);

	if (!r)
		r = dec_parse_int(v, out) ? -EINVAL : 0;
	free(v);
	return r;
}

static bool leaf_is(const xmlNode *parent, const char *name, const char *want)
{
	char *v;
	bool eq = !leaf(parent, name, &v) && !strcmp(v, want);

	free(v);
	return eq;
}

/* --- the <VNET_POOL> ------------------------------------------------------- */

struct vnet_in {
	int id;
	size_t nth; /* document order, for messages about the first holder */
	struct san_str label_name;
	char name[PARTITION_NAME_MAX];
	uint16_t pkey;
	int mtu, rate, sl;
	int *clusters;
	size_t nclusters;
	struct u64vec guids;
};

struct id_index {
	int id;
	size_t i; /* into model_in.v */
};

/* An InfiniBand-looking NIC of a VM that has a host, kept until the
 * networks are known (the VM pool may come first). */
struct nic_rec {
	uint64_t guid;
	int vm, nic, net;
	bool ib; /* VN_MAD "ib" given */
	int bad_mac; /* index into model_in.bad, or -1 */
};

struct host_rec {
	int id, cluster;
	size_t name; /* index into model_in.bad (its sanitized name) */
	uint64_t *pf; /* ConnectX-3 PF port GUIDs */
	size_t npf;
};

struct model_in {
	struct vnet_in *v; /* sorted by pkey once the pool is read */
	size_t n, cap;
	struct id_index *by_id; /* sorted by VNET ID, for the VMs' NICs */
	int *pending; /* ib networks not READY (yet): no partition */
	size_t npending;
	struct nic_rec *nics;
	size_t nnics, capnics;
	struct host_rec *hosts;
	size_t nhosts, caphosts;
	struct san_str *bad; /* malformed MACs and host names, for messages */
	size_t nbad;
	size_t nth[POOL_KINDS]; /* elements read, for messages */
	int docs[POOL_KINDS];
};

static void model_in_free(struct model_in *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].clusters);
		free(m->v[i].guids.v);
	}
	free(m->v);
	free(m->by_id);
	free(m->pending);
	free(m->nics);
	for (i = 0; i < m->nhosts; i++)
		free(m->hosts[i].pf);
	free(m->hosts);
	free(m->bad);
	memset(m, 0, sizeof(*m));
}

/* "one_vnet_5_tenant-a": separators, spaces and '#' of the name become '_'. */
static void vnet_name(struct vnet_in *vn, const char *raw)
{
	char suffix[NAME_SUFFIX_MAX + 1];
	size_t i;

	for (i = 0; raw && raw[i] && i < NAME_SUFFIX_MAX; i++) {
		char c = raw[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_';

		suffix[i] = ok ? c : '_';
	}
	suffix[i] = '\0';
	if (i)
		snprintf(vn->name, sizeof(vn->name), "one_vnet_%d_%s", vn->id,
			 suffix);
	else
		snprintf(vn->name, sizeof(vn->name), "one_vnet_%d", vn->id);
}

static int vnet_bad(const struct vnet_in *vn, char *err, size_t errlen,
		    const char *attr, const char *v, const char *why)
{
	err_set(err, errlen, "VNET %d (%s): %s '%s' %s", vn->id,
		vn->label_name.s, attr, str_sanitize(v).s, why);
	return -EINVAL;
}

/* An optional TEMPLATE number within lo..hi; *out untouched when absent. */
static int tmpl_int(const struct vnet_in *vn, const xmlNode *t,
		    const char *attr, int lo, int hi, int *out, char *err,
		    size_t errlen)
{
	char *v;
	int x, r = leaf(t, attr, &v);

	if (r == -ENOENT)
		return 0;
	if (r) {
		err_set(err, errlen, "VNET %d (%s): %s given twice or not text",
			vn->id, vn->label_name.s, attr);
		return -EINVAL;
	}
	if (dec_parse_int(v, &x) || x < lo || x > hi) {
		char why[48];

		snprintf(why, sizeof(why), "is not a number %d..%d", lo, hi);
		r = vnet_bad(vn, err, errlen, attr, v, why);
	} else {
		*out = x;
	}
	free(v);
	return r;
}

/* IB_MTU in bytes -> opensm's enum: 256 -> 1 ... 4096 -> 5. */
static int vnet_mtu(struct vnet_in *vn, const xmlNode *t, char *err,
		    size_t errlen)
{
	int bytes = 0, e;
	int r = tmpl_int(vn, t, "IB_MTU", 256, 4096, &bytes, err, errlen);

	if (r || !bytes)
		return r;
	for (e = 1; e <= 5; e++)
		if (bytes == 128 << e)
			vn->mtu = e;
	if (!vn->mtu) {
		char v[16];

		snprintf(v, sizeof(v), "%d", bytes);
		return vnet_bad(vn, err, errlen, "IB_MTU", v,
				"is not 256, 512, 1024, 2048 or 4096");
	}
	return 0;
}

static int vnet_pkey(struct vnet_in *vn, const xmlNode *t, char *err,
		     size_t errlen)
{
	struct pkey pk;
	char *v;
	int r = leaf(t, "IB_PKEY", &v);

	if (r == -ENOENT || (!r && !*v)) {
		free(v);
		err_set(err, errlen, "VNET %d (%s): no IB_PKEY", vn->id,
			vn->label_name.s);
		return -EINVAL;
	}
	if (r) {
		err_set(err, errlen,
			"VNET %d (%s): IB_PKEY given twice or not text", vn->id,
			vn->label_name.s);
		return -EINVAL;
	}
	if (pkey_parse(v, &pk))
		r = vnet_bad(vn, err, errlen, "IB_PKEY", v, "is not a P_Key");
	else if (!pkey_tenant_ok(pk))
		r = vnet_bad(vn, err, errlen, "IB_PKEY", v,
			     pkey_base(pk) ? "is the default partition"
					   : "is partition 0");
	else
		vn->pkey = pkey_base(pk);
	free(v);
	return r;
}

static int vnet_clusters(struct vnet_in *vn, const xmlNode *vnet, char *err,
			 size_t errlen)
{
	const xmlNode *c, *cl;
	int count;

	cl = only_child(vnet, "CLUSTERS", &count);
	if (!cl)
		return 0; /* in no cluster: no host can run its VMs */
	for (c = cl->children; c; c = c->next) {
		int id, *n;
		char *v;

		if (!xml_is_elem(c, "ID"))
			continue;
		v = xml_leaf_text(c);
		if (dec_parse_int(v, &id)) {
			int r = vnet_bad(vn, err, errlen, "CLUSTERS/ID", v,
					 "is not an ID");
			free(v);
			return r;
		}
		free(v);
		n = realloc(vn->clusters, (vn->nclusters + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		vn->clusters = n;
		vn->clusters[vn->nclusters++] = id;
	}
	return 0;
}

static int parse_vnet(const xmlNode *vnet, size_t nth, struct vnet_in *vn,
		      char *err, size_t errlen)
{
	const xmlNode *t;
	char *name = NULL;
	int count, r;

	memset(vn, 0, sizeof(*vn));
	vn->nth = nth;
	vn->sl = -1;
	if (leaf_uint(vnet, "ID", &vn->id)) {
		err_set(err, errlen, "VNET pool: VNET element %zu has no ID",
			nth + 1);
		return -EINVAL;
	}
	leaf(vnet, "NAME", &name);
	vn->label_name = str_sanitize(name ? name : "");
	vnet_name(vn, name);
	free(name);

	t = only_child(vnet, "TEMPLATE", &count);
	if (!t) {
		err_set(err, errlen, "VNET %d (%s): no IB_PKEY", vn->id,
			vn->label_name.s);
		return -EINVAL;
	}
	r = vnet_pkey(vn, t, err, errlen);
	if (!r)
		r = vnet_mtu(vn, t, err, errlen);
	if (!r)
		r = tmpl_int(vn, t, "IB_RATE", 2, 24, &vn->rate, err, errlen);
	if (!r)
		r = tmpl_int(vn, t, "IB_SL", 0, 15, &vn->sl, err, errlen);
	if (!r)
		r = vnet_clusters(vn, vnet, err, errlen);
	if (r == -ENOMEM)
		err_set(err, errlen, "VNET %d: out of memory", vn->id);
	return r;
}

static int cmp_pkey(const void *a, const void *b)
{
	const struct vnet_in *x = a, *y = b;

	if (x->pkey != y->pkey)
		return x->pkey < y->pkey ? -1 : 1;
	return x->nth < y->nth ? -1 : x->nth > y->nth;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_index *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int index_ids(struct model_in *m, char *err, size_t errlen)
{
	size_t i;

	m->by_id = calloc(m->n ? m->n : 1, sizeof(*m->by_id));
	if (!m->by_id) {
		err_set(err, errlen, "VNET pool: out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < m->n; i++) {
		m->by_id[i].id = m->v[i].id;
		m->by_id[i].i = i;
	}
	qsort(m->by_id, m->n, sizeof(*m->by_id), cmp_id);
	for (i = 1; i < m->n; i++)
		if (m->by_id[i].id == m->by_id[i - 1].id) {
			err_set(err, errlen, "VNET pool: VNET %d listed twice",
				m->by_id[i].id);
			return -EINVAL;
		}
	return 0;
}

static struct vnet_in *find_vnet(const struct model_in *m, int id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int v = m->by_id[mid].id;

		if (v == id)
			return &m->v[m->by_id[mid].i];
		if (v < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Two networks on one partition would merge two tenants. */
static int check_collisions(const struct model_in *m, char *err, size_t errlen)
{
	size_t i;

	for (i = 1; i < m->n; i++) {
		const struct vnet_in *a = &m->v[i - 1], *b = &m->v[i];

		if (a->pkey != b->pkey)
			continue;
		err_set(err, errlen,
			"VNET %d (%s): IB_PKEY is partition 0x%04x, already "
			"used by VNET %d (%s)",
			b->id, b->label_name.s, b->pkey, a->id,
			a->label_name.s);
		return -EINVAL;
	}
	return 0;
}

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

	if (leaf_uint(vnet, "STATE", &state) == -ENOENT)
		return true;
	return state == 1 || state == 6;
}

static bool vnet_pending(const struct model_in *m, int id)
{
	size_t i;

	for (i = 0; i < m->npending; i++)
		if (m->pending[i] == id)
			return true;
	return false;
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return v;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(v, ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}

static int keep_text(struct model_in *m, const char *s, size_t *at)
{
	struct san_str *b = realloc(m->bad, (m->nbad + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	m->bad = b;
	b[m->nbad] = str_sanitize(s ? s : "");
	*at = m->nbad++;
	return 0;
}

static int vnet_element(const xmlNode *c, struct model_in *m, char *err,
			size_t errlen)
{
	size_t nth = m->nth[POOL_VNET]++;
	struct vnet_in *v;
	int id, r;

	if (!leaf_is(c, "VN_MAD", "ib"))
		return 0;
	if (!vnet_ready(c) && !leaf_uint(c, "ID", &id)) {
		int *p = realloc(m->pending, (m->npending + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		m->pending = p;
		m->pending[m->npending++] = id;
		return 0;
	}
	v = grow(m->v, &m->cap, m->n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->v = v;
	r = parse_vnet(c, nth, &m->v[m->n], err, errlen);
	m->n++; /* freed with the rest even when half read */
	return r;
}

/* --- the <VM_POOL> --------------------------------------------------------- */

#define VM_STATE_ACTIVE 3
#define VM_STATE_SUSPENDED 5
#define VM_STATE_POWEROFF 8
#define LCM_INIT 0

/* See the membership rule in partitions.h. */
static bool vm_has_host(int state, int lcm)
{
	if (state == VM_STATE_ACTIVE)
		return lcm != LCM_INIT;
	return state == VM_STATE_POWEROFF || state == VM_STATE_SUSPENDED;
}

/* Kept as a record: whether it is InfiniBand depends on its network. */
static int vm_nic(const xmlNode *nic, int vm_id, struct model_in *m, char *err,
		  size_t errlen)
{
	struct nic_rec *rec;
	char *mac_s = NULL;
	uint64_t mac = 0;
	int net, nic_id = -1, r;
	bool ib = leaf_is(nic, "VN_MAD", "ib");

	leaf_uint(nic, "NIC_ID", &nic_id);
	if (leaf_uint(nic, "NETWORK_ID", &net)) {
		if (!ib)
			return 0; /* not on a network of the pool */
		err_set(err, errlen, "VM %d NIC %d: no NETWORK_ID", vm_id,
			nic_id);
		return -EINVAL;
	}
	rec = grow(m->nics, &m->capnics, m->nnics, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	m->nics = rec;
	rec = &m->nics[m->nnics];
	rec->vm = vm_id;
	rec->nic = nic_id;
	rec->net = net;
	rec->ib = ib;
	rec->bad_mac = -1;
	r = leaf(nic, "MAC", &mac_s);
	if (r || mac_parse(mac_s, &mac)) {
		size_t at;

		r = keep_text(m, mac_s, &at);
		rec->bad_mac = (int)at;
	}
	free(mac_s);
	if (r)
		return r;
	rec->guid = guid_from_mac(mac);
	m->nnics++;
	return 0;
}

static int vm_element(const xmlNode *vm, struct model_in *m, char *err,
		      size_t errlen)
{
	size_t nth = ++m->nth[POOL_VM];
	const xmlNode *t, *c;
	int id, state, lcm = 0, count, r;

	if (leaf_uint(vm, "ID", &id)) {
		err_set(err, errlen, "VM pool: VM element %zu has no ID", nth);
		return -EINVAL;
	}
	if (leaf_uint(vm, "STATE", &state) ||
	    (state == VM_STATE_ACTIVE && leaf_uint(vm, "LCM_STATE", &lcm))) {
		err_set(err, errlen, "VM %d: no STATE or LCM_STATE", id);
		return -EINVAL;
	}
	if (!vm_has_host(state, lcm))
		return 0;
	t = only_child(vm, "TEMPLATE", &count);
	if (!t)
		return 0;
	for (c = t->children; c; c = c->next) {
		if (!xml_is_elem(c, "NIC"))
			continue;
		r = vm_nic(c, id, m, err, errlen);
		if (r)
			return r;
	}
	return 0;
}

/* --- the <HOST_POOL> ------------------------------------------------------- */

static bool vnet_in_cluster(const struct vnet_in *vn, int cluster)
{
	size_t i;

	for (i = 0; i < vn->nclusters; i++)
		if (vn->clusters[i] == cluster)
			return true;
	return false;
}

/*
 *   <IB_PF><ADDRESS>0000:3b:00.0</ADDRESS><PORT>1</PORT>
 *     <PORT_GUID>0x0002c90300a1b2c1</PORT_GUID><DRIVER>mlx4_core</DRIVER>
 *   </IB_PF>  -> 0x0002c90300a1b2c1; other drivers and Ethernet ports: none.
 */
static int host_pf_guids(const xmlNode *t, int id, const struct san_str *name,
			 struct u64vec *out, char *err, size_t errlen)
{
	const xmlNode *c;

	for (c = t->children; c; c = c->next) {
		char *v = NULL;
		uint64_t g;

		if (!xml_is_elem(c, "IB_PF") ||
		    !leaf_is(c, "DRIVER", "mlx4_core"))
			continue;
		if (!leaf(c, "LINK_LAYER", &v) && strcmp(v, "InfiniBand")) {
			free(v);
			continue;
		}
		free(v);
		if (leaf(c, "PORT_GUID", &v) || guid_parse(v, &g) || !g) {
			err_set(err, errlen,
				"HOST %d (%s): IB_PF PORT_GUID '%s' is not a "
				"GUID",
				id, name->s, str_sanitize(v ? v : "").s);
			free(v);
			return -EINVAL;
		}
		free(v);
		if (u64_push(out, g))
			return -ENOMEM;
	}
	return 0;
}

static int host_element(const xmlNode *host, struct model_in *m, char *err,
			size_t errlen)
{
	size_t nth = ++m->nth[POOL_HOST];
	struct u64vec pf = { 0 };
	struct host_rec *h;
	struct san_str name;
	const xmlNode *t;
	char *v = NULL;
	int id, cluster, count, r;

	if (leaf_uint(host, "ID", &id)) {
		err_set(err, errlen, "HOST pool: HOST element %zu has no ID",
			nth);
		return -EINVAL;
	}
	leaf(host, "NAME", &v);
	name = str_sanitize(v ? v : "");
	t = only_child(host, "TEMPLATE", &count);
	if (!t || leaf_uint(host, "CLUSTER_ID", &cluster)) {
		free(v);
		return 0;
	}
	r = host_pf_guids(t, id, &name, &pf, err, errlen);
	if (r || !pf.n)
		goto out;
	h = grow(m->hosts, &m->caphosts, m->nhosts, sizeof(*h));
	if (!h) {
		r = -ENOMEM;
		goto out;
	}
	m->hosts = h;
	h = &m->hosts[m->nhosts];
	r = keep_text(m, v, &h->name);
	if (r)
		goto out;
	h->id = id;
	h->cluster = cluster;
	h->pf = pf.v;
	h->npf = pf.n;
	pf.v = NULL;
	m->nhosts++;
out:
	free(v);
	free(pf.v);
	return r;
}

/* A ConnectX-3 host's PF ports join every network of its cluster. */
static int host_members(const struct host_rec *h, struct model_in *m, char *err,
			size_t errlen)
{
	size_t i, j, keys = 1; /* the default partition */
	int r = 0;

	for (i = 0; i < m->n; i++)
		keys += vnet_in_cluster(&m->v[i], h->cluster);
	if (keys > PARTITIONS_MLX4_MAX_PKEYS) {
		char guid[GUID_STRLEN];

		guid_fmt_hex(h->pf[0], guid);
		err_set(err, errlen,
			"HOST %d (%s): port %s would hold %zu P_Keys, "
			"ConnectX-3 holds %d",
			h->id, m->bad[h->name].s, guid, keys,
			PARTITIONS_MLX4_MAX_PKEYS);
		return -EINVAL;
	}
	for (i = 0; i < m->n && !r; i++)
		if (vnet_in_cluster(&m->v[i], h->cluster))
			for (j = 0; j < h->npf && !r; j++)
				r = u64_push(&m->v[i].guids, h->pf[j]);
	return r;
}

static int nic_member(const struct nic_rec *n, struct model_in *m, char *err,
		      size_t errlen)
{
	struct vnet_in *vn = find_vnet(m, n->net);

	/*
	 * `onevm list -x` (the short VM body since 5.12) lists a NIC without
	 * VN_MAD: a NIC is InfiniBand when its network is, whatever the form.
	 */
	if (!vn && (!n->ib || vnet_pending(m, n->net)))
		return 0;
	if (!vn) {
		err_set(err, errlen,
			"VM %d NIC %d: network %d is not an InfiniBand network "
			"of the pool",
			n->vm, n->nic, n->net);
		return -EINVAL;
	}
	if (n->bad_mac >= 0) {
		err_set(err, errlen, "VM %d NIC %d: malformed MAC '%s'", n->vm,
			n->nic, m->bad[n->bad_mac].s);
		return -EINVAL;
	}
	return u64_push(&vn->guids, n->guid);
}

/* --- reading --------------------------------------------------------------- */

struct partitions_builder {
	struct model_in m;
};

int partitions_builder_new(struct partitions_builder **b)
{
	*b = calloc(1, sizeof(**b));
	return *b ? 0 : -ENOMEM;
}

void partitions_builder_free(struct partitions_builder *b)
{
	if (!b)
		return;
	model_in_free(&b->m);
	free(b);
}

struct read_note {
	char msg[160];
	int line;
};

static void reader_error(void *arg, xmlErrorPtr e)
{
	struct read_note *note = arg;

	if (!e || note->msg[0] || e->level < XML_ERR_ERROR)
		return;
	snprintf(note->msg, sizeof(note->msg), "%s",
		 str_sanitize(e->message ? e->message : "parse error").s);
	note->line = e->line;
	/* libxml2's messages end with a newline */
	note->msg[strcspn(note->msg, "\n")] = '\0';
}

static int kind_of(const xmlChar *name)
{
	int k;

	for (k = 0; k < POOL_KINDS; k++)
		if (name && !strcmp((const char *)name, pool_root_name[k]))
			return k;
	return -1;
}

static const char *const child_name[POOL_KINDS] = { "VM", "HOST", "VNET" };

/* Each child of the root, expanded alone and freed once handled. */
static int read_children(xmlTextReaderPtr rd, int kind, struct model_in *m,
			 char *err, size_t errlen)
{
	int ret = xmlTextReaderRead(rd), r = 0;

	while (ret == 1 && !r) {
		xmlNodePtr node;

		if (xmlTextReaderDepth(rd) != 1 ||
		    xmlTextReaderNodeType(rd) != XML_READER_TYPE_ELEMENT ||
		    strcmp((const char *)xmlTextReaderConstName(rd),
			   child_name[kind])) {
			ret = xmlTextReaderRead(rd);
			continue;
		}
		node = xmlTextReaderExpand(rd);
		if (!node)
			return -EINVAL;
		if (kind == POOL_VM)
			r = vm_element(node, m, err, errlen);
		else if (kind == POOL_HOST)
			r = host_element(node, m, err, errlen);
		else
			r = vnet_element(node, m, err, errlen);
		ret = xmlTextReaderNext(rd);
	}
	if (r)
		return r;
	return ret < 0 ? -EINVAL : 0;
}

int partitions_read(struct partitions_builder *b, int expect,
		    int (*read)(void *ctx, char *buf, int len), void *ctx,
		    const char *what, char *err, size_t errlen)
{
	struct read_note note = { "", 0 };
	xmlTextReaderPtr rd;
	int kind = -1, ret, r = -EINVAL, type;

	xmlInitParser();
	/* No XML_PARSE_NOENT: entities are never substituted; no DTD loads. */
	rd = xmlReaderForIO(read, NULL, ctx, NULL, NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOBLANKS | XML_PARSE_NOWARNING);
	if (!rd) {
		err_set(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	xmlTextReaderSetStructuredErrorHandler(rd, reader_error, &note);
	err[0] = '\0';
	while ((ret = xmlTextReaderRead(rd)) == 1) {
		type = xmlTextReaderNodeType(rd);
		if (type == XML_READER_TYPE_DOCUMENT_TYPE) {
			err_set(err, errlen,
				"%s: DOCTYPE refused (no DTD or entity is "
				"accepted)",
				what);
			goto out;
		}
		if (type == XML_READER_TYPE_ELEMENT)
			break;
	}
	if (ret == 1) {
		kind = kind_of(xmlTextReaderConstName(rd));
		if (kind < 0 || (expect >= 0 && kind != expect)) {
			err_set(err, errlen, "%s: expected a <%s> document",
				what, pool_root_name[expect >= 0 ? expect : 0]);
			goto out;
		}
		b->m.docs[kind]++;
		r = xmlTextReaderIsEmptyElement(rd)
			    ? 0
			    : read_children(rd, kind, &b->m, err, errlen);
		/* the rest: the root's end, then nothing but misc */
		while (!r && (ret = xmlTextReaderRead(rd)) == 1)
			;
		if (!r && ret < 0)
			r = -EINVAL;
	}
	if (r == -ENOMEM)
		err_set(err, errlen, "%s: out of memory", what);
	else if ((r || kind < 0) && !err[0] && note.line)
		err_set(err, errlen, "%s: not well-formed XML: line %d: %s",
			what, note.line,
			note.msg[0] ? note.msg : "parse error");
	else if ((r || kind < 0) && !err[0])
		err_set(err, errlen, "%s: not well-formed XML: %s", what,
			note.msg[0] ? note.msg : "no root element");
	if (kind < 0 && !r)
		r = -EINVAL;
out:
	xmlFreeTextReader(rd);
	return r;
}

int partitions_finish(struct partitions_builder *b, struct partitions *out,
		      char *err, size_t errlen)
{
	struct model_in *m = &b->m;
	size_t i;
	int k, r = 0;

	out->p = NULL;
	out->n = 0;
	for (k = 0; k < POOL_KINDS; k++)
		if (!m->docs[k]) {
			err_set(err, errlen,
				"no <%s> in the input (onevm/onehost/onevnet "
				"list -x)",
				pool_root_name[k]);
			return -EINVAL;
		}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_pkey);
	r = check_collisions(m, err, errlen);
	if (!r)
		r = index_ids(m, err, errlen);
	for (i = 0; i < m->nhosts && !r; i++)
		r = host_members(&m->hosts[i], m, err, errlen);
	for (i = 0; i < m->nnics && !r; i++)
		r = nic_member(&m->nics[i], m, err, errlen);
	if (r == -ENOMEM)
		err_set(err, errlen, "partitions: out of memory");
	if (r)
		return r;
	out->p = calloc(m->n ? m->n : 1, sizeof(*out->p));
	if (!out->p) {
		err_set(err, errlen, "partitions: out of memory");
		return -ENOMEM;
	}
	out->n = m->n;
	for (i = 0; i < m->n; i++) {
		struct partition *p = &out->p[i];
		struct vnet_in *vn = &m->v[i];

		memcpy(p->name, vn->name, sizeof(p->name));
		p->pkey = vn->pkey;
		p->ipoib = true;
		p->mtu = vn->mtu;
		p->rate = vn->rate;
		p->sl = vn->sl;
		u64_sort_unique(&vn->guids);
		p->guids = vn->guids.v; /* ownership moves to the model */
		p->n = vn->guids.n;
		vn->guids.v = NULL;
		vn->guids.n = 0;
	}
	return 0;
}

/* --- the model ------------------------------------------------------------- */

void partitions_free(struct partitions *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->p[i].guids);
	free(m->p);
	m->p = NULL;
	m->n = 0;
}

struct mem_in {
	const char *p;
	size_t len, at;
};

static int mem_read(void *ctx, char *buf, int len)
{
	struct mem_in *in = ctx;
	size_t n = in->len - in->at;

	if (n > (size_t)len)
		n = (size_t)len;
	memcpy(buf, in->p + in->at, n);
	in->at += n;
	return (int)n;
}

int partitions_build(const char *vms, size_t vms_len, const char *hosts,
		     size_t hosts_len, const char *vnets, size_t vnets_len,
		     struct partitions *out, char *err, size_t errlen)
{
	static const char *const what[POOL_KINDS] = { "VM pool", "HOST pool",
						      "VNET pool" };
	struct mem_in in[POOL_KINDS] = { { vms, vms_len, 0 },
					 { hosts, hosts_len, 0 },
					 { vnets, vnets_len, 0 } };
	struct partitions_builder *b;
	int k, r;

	out->p = NULL;
	out->n = 0;
	if (partitions_builder_new(&b)) {
		err_set(err, errlen, "partitions: out of memory");
		return -ENOMEM;
	}
	/* networks first: the order the messages of the tests expect */
	for (k = POOL_KINDS - 1, r = 0; k >= 0 && !r; k--) {
		if (!in[k].p || !in[k].len) {
			err_set(err, errlen, "%s: empty document", what[k]);
			r = -EINVAL;
		} else {
			r = partitions_read(b, k, mem_read, &in[k], what[k],
					    err, errlen);
		}
	}
	if (!r)
		r = partitions_finish(b, out, err, errlen);
	partitions_builder_free(b);
	return r;
}

/* --- rendering ------------------------------------------------------------- */

static int render_one(const struct partition *p, struct strbuf *out)
{
	size_t i;
	int r;

	r = sb_addf(out, "%s=0x%04x", p->name, p->pkey);
	if (!r && p->ipoib)
		r = sb_adds(out, ", ipoib");
	if (!r && p->mtu)
		r = sb_addf(out, ", mtu=%d", p->mtu);
	if (!r && p->rate)
		r = sb_addf(out, ", rate=%d", p->rate);
	if (!r && p->sl >= 0)
		r = sb_addf(out, ", sl=%d", p->sl);
	if (!r)
		r = sb_adds(out, " :\n");
	/* "\t0x0002c90300a1b2c1=full,\n" without printf: the bulk of a
	 * large file */
	for (i = 0; i < p->n && !r; i++) {
		static const char hex[] = "0123456789abcdef";
		const char *end = i + 1 < p->n ? "=full,\n" : "=full ;\n";
		char line[32] = "\t0x";
		int d;

		for (d = 0; d < 16; d++)
			line[3 + d] = hex[(p->guids[i] >> (60 - 4 * d)) & 0xf];
		memcpy(line + 19, end, strlen(end) + 1);
		r = sb_adds(out, line);
	}
	if (!r && !p->n)
		r = sb_adds(out, "\t;\n");
	return r;
}

int partitions_render(const struct partitions *m, struct strbuf *out)
{
	size_t i;
	int r = sb_adds(out, HEADER DEFAULT_LINE);

	for (i = 0; i < m->n && !r; i++)
		r = render_one(&m->p[i], out);
	return r;
}

/* --- the strict reader ----------------------------------------------------- */

enum tok_kind { TOK_EOF, TOK_WORD, TOK_EQ, TOK_COMMA, TOK_COLON, TOK_SEMI };

#define WORD_MAX 80

struct lexer {
	const char *s;
	int line;
	enum tok_kind kind;
	char word[WORD_MAX];
	char *err;
	size_t errlen;
};

static bool is_sep(char c)
{
	return c == '=' || c == ',' || c == ':' || c == ';' || c == '#' ||
	       c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

static int lex_fail(struct lexer *lx, const char *what)
{
	err_set(lx->err, lx->errlen, "partitions.conf line %d: %s", lx->line,
		what);
	return -EINVAL;
}

/* Whitespace and "# ..." up to the end of the line are skipped. */
static int lex_next(struct lexer *lx)
{
	size_t n = 0;

	for (;;) {
		if (*lx->s == '\n')
			lx->line++;
		if (*lx->s == ' ' || *lx->s == '\t' || *lx->s == '\n' ||
		    *lx->s == '\r') {
			lx->s++;
		} else if (*lx->s == '#') {
			while (*lx->s && *lx->s != '\n')
				lx->s++;
		} else {
			break;
		}
	}
	switch (*lx->s) {
	case '\0':
		lx->kind = TOK_EOF;
		return 0;
	case '=':
		lx->kind = TOK_EQ;
		break;
	case ',':
		lx->kind = TOK_COMMA;
		break;
	case ':':
		lx->kind = TOK_COLON;
		break;
	case ';':
		lx->kind = TOK_SEMI;
		break;
	default:
		while (!is_sep(lx->s[n])) {
			unsigned char c = (unsigned char)lx->s[n];

			if (c < 0x21 || c > 0x7e)
				return lex_fail(lx, "unexpected byte");
			if (n + 1 >= WORD_MAX)
				return lex_fail(lx, "word too long");
			lx->word[n] = lx->s[n];
			n++;
		}
		lx->word[n] = '\0';
		lx->s += n;
		lx->kind = TOK_WORD;
		return 0;
	}
	lx->s++;
	return 0;
}

static int expect(struct lexer *lx, enum tok_kind k, const char *word,
		  const char *what)
{
	int r = lex_next(lx);

	if (r)
		return r;
	if (lx->kind != k || (word && strcmp(lx->word, word)))
		return lex_fail(lx, what);
	return 0;
}

/* "0x" and exactly digits lowercase hex digits, as we print them. */
static int hex_exact(const char *s, int digits, uint64_t *out)
{
	uint64_t v = 0;
	int i;

	if (s[0] != '0' || s[1] != 'x' || (int)strlen(s) != digits + 2)
		return -EINVAL;
	for (i = 2; i < digits + 2; i++) {
		int d = hex_digit(s[i]);

		if (d < 0 || (s[i] >= 'A' && s[i] <= 'F'))
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int small_uint(struct lexer *lx, int lo, int hi, int *out)
{
	int r = expect(lx, TOK_EQ, NULL, "expected '=' after a flag");

	if (!r)
		r = expect(lx, TOK_WORD, NULL, "expected a flag value");
	if (r)
		return r;
	if (dec_parse_int(lx->word, out) || *out < lo || *out > hi ||
	    (lx->word[0] == '0' && lx->word[1]))
		return lex_fail(lx, "flag value out of range");
	return 0;
}

static bool name_ok(const char *s)
{
	if (!*s || !strcmp(s, "Default"))
		return false;
	if (*s >= '0' && *s <= '9')
		return false; /* opensm would take it as a P_Key */
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

static int parse_flags(struct lexer *lx, struct partition *p)
{
	bool seen_mtu = false, seen_rate = false, seen_sl = false;

	for (;;) {
		int r = lex_next(lx);
		if (r)
			return r;
		if (lx->kind == TOK_COLON)
			break;
		if (lx->kind != TOK_COMMA)
			return lex_fail(lx, "expected ',' or ':'");
		r = expect(lx, TOK_WORD, NULL, "expected a flag");
		if (r)
			return r;
		if (!strcmp(lx->word, "ipoib") && !p->ipoib) {
			p->ipoib = true;
		} else if (!strcmp(lx->word, "mtu") && !seen_mtu) {
			seen_mtu = true;
			r = small_uint(lx, 1, 5, &p->mtu);
		} else if (!strcmp(lx->word, "rate") && !seen_rate) {
			seen_rate = true;
			r = small_uint(lx, 2, 24, &p->rate);
		} else if (!strcmp(lx->word, "sl") && !seen_sl) {
			seen_sl = true;
			r = small_uint(lx, 0, 15, &p->sl);
		} else {
			return lex_fail(lx, "unknown or repeated flag");
		}
		if (r)
			return r;
	}
	return 0;
}

static int parse_members(struct lexer *lx, struct partition *p)
{
	struct u64vec g = { 0 };
	int r = lex_next(lx);

	if (!r && lx->kind == TOK_SEMI)
		return 0;
	while (!r) {
		uint64_t v;

		if (lx->kind != TOK_WORD || hex_exact(lx->word, 16, &v) || !v) {
			r = lex_fail(lx, "expected a port GUID 0x<16 hex>");
			break;
		}
		if (g.n && v <= g.v[g.n - 1]) {
			r = lex_fail(lx, "members not in increasing order");
			break;
		}
		r = expect(lx, TOK_EQ, NULL, "expected '=full'");
		if (!r)
			r = expect(lx, TOK_WORD, "full", "expected '=full'");
		if (!r && u64_push(&g, v))
			r = -ENOMEM;
		if (!r)
			r = lex_next(lx);
		if (r || lx->kind == TOK_SEMI)
			break;
		if (lx->kind != TOK_COMMA)
			r = lex_fail(lx, "expected ',' or ';'");
		else
			r = lex_next(lx);
	}
	if (r == -ENOMEM)
		lex_fail(lx, "out of memory");
	p->guids = g.v;
	p->n = g.n;
	return r;
}

static int parse_default(struct lexer *lx)
{
	static const struct {
		enum tok_kind k;
		const char *w;
	} want[] = {
		{ TOK_WORD, "Default" }, { TOK_EQ, NULL },
		{ TOK_WORD, "0x7fff" },	 { TOK_COMMA, NULL },
		{ TOK_WORD, "ipoib" },	 { TOK_COLON, NULL },
		{ TOK_WORD, "ALL" },	 { TOK_EQ, NULL },
		{ TOK_WORD, "limited" }, { TOK_COMMA, NULL },
		{ TOK_WORD, "SELF" },	 { TOK_EQ, NULL },
		{ TOK_WORD, "full" },	 { TOK_SEMI, NULL },
	};
	size_t i;
	int r = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]) && !r; i++)
		r = expect(lx, want[i].k, want[i].w,
			   "expected 'Default=0x7fff, ipoib : ALL=limited, "
			   "SELF=full ;' first");
	return r;
}

static int parse_one(struct lexer *lx, struct partitions *out, size_t *cap)
{
	struct partition *p;
	uint64_t pk;
	int r;

	if (lx->kind != TOK_WORD || !name_ok(lx->word))
		return lex_fail(lx, "expected a partition name");
	if (out->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct partition *v = realloc(out->p, ncap * sizeof(*v));

		if (!v) {
			lex_fail(lx, "out of memory");
			return -ENOMEM;
		}
		out->p = v;
		*cap = ncap;
	}
	p = &out->p[out->n++];
	memset(p, 0, sizeof(*p));
	p->sl = -1;
	if (strlen(lx->word) >= sizeof(p->name))
		return lex_fail(lx, "partition name too long");
	memcpy(p->name, lx->word, strlen(lx->word) + 1);
	r = expect(lx, TOK_EQ, NULL, "expected '=' and a P_Key");
	if (!r)
		r = expect(lx, TOK_WORD, NULL, "expected a P_Key");
	if (r)
		return r;
	if (hex_exact(lx->word, 4, &pk) || pk == 0 || pk >= PKEY_DEFAULT)
		return lex_fail(lx, "expected a P_Key 0x0001..0x7ffe");
	p->pkey = (uint16_t)pk;
	if (out->n > 1 && p->pkey <= out->p[out->n - 2].pkey)
		return lex_fail(lx, "partitions not in increasing P_Key order");
	r = parse_flags(lx, p);
	if (!r)
		r = parse_members(lx, p);
	return r;
}

int partitions_parse(const char *text, struct partitions *out, char *err,
		     size_t errlen)
{
	struct lexer lx = { .s = text, .line = 1, .err = err, .errlen = errlen };
	size_t cap = 0;
	int r;

	out->p = NULL;
	out->n = 0;
	r = parse_default(&lx);
	while (!r) {
		r = lex_next(&lx);
		if (r || lx.kind == TOK_EOF)
			break;
		r = parse_one(&lx, out, &cap);
	}
	if (r)
		partitions_free(out);
	return r;
}

/* --- comparing ------------------------------------------------------------- */

static bool partition_equal(const struct partition *a,
			    const struct partition *b)
{
	return !strcmp(a->name, b->name) && a->pkey == b->pkey &&
	       a->ipoib == b->ipoib && a->mtu == b->mtu && a->rate == b->rate &&
	       a->sl == b->sl && a->n == b->n &&
	       (!a->n || !memcmp(a->guids, b->guids, a->n * sizeof(*a->guids)));
}

bool partitions_equal(const struct partitions *a, const struct partitions *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!partition_equal(&a->p[i], &b->p[i]))
			return false;
	return true;
}

int partitions_check(const char *text, const struct partitions *m, char *err,
		     size_t errlen)
{
	struct partitions back;
	int r = partitions_parse(text, &back, err, errlen);

	if (r)
		return r;
	if (!partitions_equal(&back, m)) {
		size_t i;

		for (i = 0; i < back.n && i < m->n; i++)
			if (!partition_equal(&back.p[i], &m->p[i]))
				break;
		if (i < m->n)
			err_set(err, errlen,
				"partitions.conf does not round-trip: "
				"partition %s (0x%04x) differs",
				m->p[i].name, m->p[i].pkey);
		else
			err_set(err, errlen,
				"partitions.conf does not round-trip: "
				"%zu partitions read back, %zu expected",
				back.n, m->n);
		r = -EINVAL;
	}
	partitions_free(&back);
	return r;
}
