// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/conffile.h"
#include "core/grow.h"
#include "guest/guestapply.h"
#include "core/log.h"
#include "guest/rtnl.h"
#include "core/strbuf.h"
#include "core/sysfs.h"

/* What the kernel has now: refreshed after every change to links. */
struct kstate {
	struct rtnl_links links;
	struct rtnl_addrs addrs;
	struct rtnl_routes routes;
};

static void kstate_free(struct kstate *k)
{
	rtnl_links_free(&k->links);
	rtnl_addrs_free(&k->addrs);
	rtnl_routes_free(&k->routes);
}

static int kstate_get(struct kstate *k, char *err, size_t errlen)
{
	int r;

	kstate_free(k);
	r = rtnl_links_get(&k->links, err, errlen);
	if (!r)
		r = rtnl_addrs_get(&k->addrs, err, errlen);
	if (!r)
		r = rtnl_routes_get(&k->routes, err, errlen);
	if (r)
		kstate_free(k);
	return r;
}

/* --- the record ----------------------------------------------------------- */

int gstate_add(struct gstate *s, const struct gobj *o)
{
	if (ALLOC_GROW(s->v, s->n + 1, s->alloc))
		return -ENOMEM;
	s->v[s->n++] = *o;
	return 0;
}

void gstate_free(struct gstate *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int gobj_fmt(const struct gobj *o, struct strbuf *out)
{
	char a[INET_FMT_LEN], g[INET_FMT_LEN];

	switch (o->kind) {
	case GOBJ_CHILD:
		return sb_addf(out, "ETH%d child %s %s 0x%04x", o->nic, o->link,
			       o->parent, o->pkey);
	case GOBJ_ADDR:
		inet_fmt(&o->addr, true, a);
		return sb_addf(out, "ETH%d addr %s %s", o->nic, o->link, a);
	case GOBJ_ROUTE:
		inet_fmt(&o->addr, true, a);
		inet_fmt(&o->gw, false, g);
		return sb_addf(out, "ETH%d route %s %s %s %u", o->nic, o->link,
			       a, g, o->metric);
	}
	return -EINVAL;
}

static int name_ok(const char *s)
{
	return s[0] && strlen(s) < IF_NAMESIZE && !strchr(s, '/');
}

/* "10.11.0.0/24" -> address with prefix length */
static int prefix_parse(char *s, struct inet_addr *a)
{
	char *slash = strchr(s, '/');
	int plen;

	if (!slash)
		return -EINVAL;
	*slash = '\0';
	if (inet_parse_any(s, a) || dec_parse_int(slash + 1, &plen) ||
	    plen > (a->family == AF_INET ? 32 : 128))
		return -EINVAL;
	a->plen = (uint8_t)plen;
	return 0;
}

int gobj_parse(const char *line, struct gobj *o)
{
	char buf[256], *w[7], *save = NULL, *t;
	int n = 0, nic;
	struct pkey pk;

	memset(o, 0, sizeof(*o));
	if (strlen(line) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, line);
	for (t = strtok_r(buf, " ", &save); t && n < 7;
	     t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (t || n < 4 || strncmp(w[0], "ETH", 3) ||
	    dec_parse_int(w[0] + 3, &nic) || nic > 65535 || !name_ok(w[2]))
		return -EINVAL;
	o->nic = nic;
	strcpy(o->link, w[2]);
	if (!strcmp(w[1], "child") && n == 5 && name_ok(w[3]) &&
	    !pkey_parse(w[4], &pk)) {
		o->kind = GOBJ_CHILD;
		strcpy(o->parent, w[3]);
		o->pkey = pk.raw;
		return 0;
	}
	if (!strcmp(w[1], "addr") && n == 4 && !prefix_parse(w[3], &o->addr)) {
		o->kind = GOBJ_ADDR;
		return 0;
	}
	if (!strcmp(w[1], "route") && n == 6 && !prefix_parse(w[3], &o->addr) &&
	    !inet_parse(w[4], o->addr.family, &o->gw)) {
		int m;

		if (dec_parse_int(w[5], &m))
			return -EINVAL;
		o->kind = GOBJ_ROUTE;
		o->metric = (uint32_t)m;
		return 0;
	}
	return -EINVAL;
}

int gstate_load(const char *path, struct gstate *s, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	struct gobj o;
	int r;

	memset(s, 0, sizeof(*s));
	r = sb_read_file(&sb, path, (size_t)1 << 20);
	if (r == -ENOENT) {
		sb_release(&sb);
		return 0;
	}
	if (r) {
		err_set(err, errlen, "%s: %s", path, strerror(-r));
		sb_release(&sb);
		return r;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line && !r;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (gobj_parse(line, &o))
			log_msg("%s: ignoring '%s'", path,
				str_sanitize(line).s);
		else
			r = gstate_add(s, &o);
	}
	sb_release(&sb);
	if (r) {
		err_set(err, errlen, "out of memory");
		gstate_free(s);
	}
	return r;
}

int gstate_save(const char *path, const struct gstate *s, char *err,
		size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int r;

	r = sb_adds(&sb, "# oneib-context: what it created; undone when its "
			 "NIC leaves the context\n");
	for (i = 0; !r && i < s->n; i++) {
		r = gobj_fmt(&s->v[i], &sb);
		if (!r)
			r = sb_adds(&sb, "\n");
	}
	if (r)
		err_set(err, errlen, "out of memory");
	else
		r = conffile_install(path, NULL, sb.buf, sb.len, err, errlen);
	sb_release(&sb);
	return r < 0 ? r : 0;
}

bool gstate_is_child(const struct gstate *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].kind == GOBJ_CHILD && !strcmp(s->v[i].link, name))
			return true;
	return false;
}

static bool gobj_equal(const struct gobj *x, const struct gobj *y)
{
	if (x->nic != y->nic || x->kind != y->kind || strcmp(x->link, y->link))
		return false;
	switch (x->kind) {
	case GOBJ_CHILD:
		return !strcmp(x->parent, y->parent) &&
		       (x->pkey & 0x7fff) == (y->pkey & 0x7fff);
	case GOBJ_ADDR:
		return inet_equal(&x->addr, &y->addr);
	case GOBJ_ROUTE:
		return inet_equal(&x->addr, &y->addr) &&
		       inet_equal(&x->gw, &y->gw) && x->metric == y->metric;
	}
	return false;
}

static bool gstate_has(const struct gstate *s, const struct gobj *o)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (gobj_equal(&s->v[i], o))
			return true;
	return false;
}

/* --- what a plan wants ---------------------------------------------------- */

static bool static6(const struct nic_plan *p)
{
	return p->conf.method6 == IP6_STATIC;
}

/*
 * METRIC and IP6_METRIC are the default routes' (one-context's renderers
 * give ROUTES none); an IPv6 route without one gets 1024 from the kernel
 * (IP6_RT_PRIO_USER), so that is what it is compared with.
 */
static int want_route(struct gstate *w, const struct nic_plan *p,
		      const struct inet_addr *dst, const struct inet_addr *gw,
		      uint32_t metric)
{
	struct gobj o = { .nic = p->nic, .kind = GOBJ_ROUTE };

	snprintf(o.link, sizeof(o.link), "%s", p->link);
	o.addr = *dst;
	o.gw = *gw;
	o.metric = metric || dst->family == AF_INET ? metric : 1024;
	return gstate_add(w, &o);
}

/* The objects p needs, children first, routes last. */
static int plan_objs(const struct nic_plan *p, struct gstate *w)
{
	const struct nic_conf *c = &p->conf;
	struct gobj o = { .nic = p->nic };
	struct inet_addr any;
	size_t i;
	int r = 0;

	snprintf(o.link, sizeof(o.link), "%s", p->link);
	if (p->child) {
		o.kind = GOBJ_CHILD;
		snprintf(o.parent, sizeof(o.parent), "%s", p->dev.name);
		o.pkey = p->pkey.raw;
		r = gstate_add(w, &o);
	}
	o.kind = GOBJ_ADDR;
	if (!r && c->has_ip4) {
		o.addr = c->ip4;
		r = gstate_add(w, &o);
	}
	if (!r && static6(p) && c->has_ip6) {
		o.addr = c->ip6;
		r = gstate_add(w, &o);
	}
	if (!r && c->has_gw4) {
		memset(&any, 0, sizeof(any));
		any.family = AF_INET;
		r = want_route(w, p, &any, &c->gw4, c->metric);
	}
	if (!r && static6(p) && c->has_gw6) {
		memset(&any, 0, sizeof(any));
		any.family = AF_INET6;
		r = want_route(w, p, &any, &c->gw6, c->metric6);
	}
	for (i = 0; !r && i < c->nroutes; i++)
		if (c->routes[i].dst.family == AF_INET || static6(p))
			r = want_route(w, p, &c->routes[i].dst,
				       &c->routes[i].via, 0);
	return r;
}

/* --- kernel steps --------------------------------------------------------- */

static const struct rtnl_link *link_of(const struct kstate *k, const char *name)
{
	return rtnl_link_find(&k->links, name);
}

static void route_of(const struct gobj *o, int oif, struct rtnl_route *r)
{
	memset(r, 0, sizeof(*r));
	r->dst = o->addr;
	r->gw = o->gw;
	r->oif = oif;
	r->metric = o->metric;
}

/* Is the child link o names still the child it recorded? */
static bool child_is(const struct kstate *k, const struct gobj *o,
		     const struct rtnl_link *l)
{
	const struct rtnl_link *parent = link_of(k, o->parent);

	return l->ipoib && parent && l->parent == parent->ifindex &&
	       (l->pkey & 0x7fff) == (o->pkey & 0x7fff);
}

/* Does the kernel still have o? *l gets its link. */
static bool exists(const struct kstate *k, const struct gobj *o,
		   const struct rtnl_link **lp)
{
	const struct rtnl_link *l = link_of(k, o->link);
	struct rtnl_route rt;

	*lp = l;
	if (!l)
		return false; /* gone with its link */
	switch (o->kind) {
	case GOBJ_CHILD:
		return child_is(k, o, l);
	case GOBJ_ADDR:
		return rtnl_addr_has(&k->addrs, l->ifindex, &o->addr);
	case GOBJ_ROUTE:
		route_of(o, l->ifindex, &rt);
		return rtnl_route_has(&k->routes, &rt);
	}
	return false;
}

/*
 * Deleting a link's primary IPv4 address deletes the secondaries of its
 * subnet with it, unless they are promoted (systemd's 50-default.conf
 * turns that on everywhere; a guest without it would lose an address the
 * admin added next to ours).
 */
static void promote_secondaries(const char *link)
{
	char path[256];

	if (!path_fmt(path, sizeof(path),
		      "/proc/sys/net/ipv4/conf/%s/promote_secondaries", link))
		sysfs_write_str(path, "1\n");
}

/*
 * Takes o away if the kernel still has it: 1 done, 0 gone already, or the
 * kernel's -errno with err.
 */
static int undo(const struct kstate *k, const struct gobj *o, char *err,
		size_t errlen)
{
	const struct rtnl_link *l;
	struct rtnl_route rt;
	int r = 0;

	if (!exists(k, o, &l))
		return 0;
	switch (o->kind) {
	case GOBJ_CHILD:
		r = rtnl_link_del(l->ifindex, err, errlen);
		break;
	case GOBJ_ADDR:
		if (o->addr.family == AF_INET)
			promote_secondaries(l->name);
		r = rtnl_addr_del(l->ifindex, &o->addr, err, errlen);
		break;
	case GOBJ_ROUTE:
		route_of(o, l->ifindex, &rt);
		r = rtnl_route_del(&rt, err, errlen);
		break;
	}
	return r ? r : 1;
}

static void describe(const struct gobj *o, struct strbuf *sb)
{
	char a[INET_FMT_LEN], g[INET_FMT_LEN];

	if (sb->len)
		sb_adds(sb, ", ");
	switch (o->kind) {
	case GOBJ_CHILD:
		sb_addf(sb, "child %s", o->link);
		break;
	case GOBJ_ADDR:
		inet_fmt(&o->addr, true, a);
		sb_adds(sb, a);
		break;
	case GOBJ_ROUTE:
		inet_fmt(&o->addr, true, a);
		inet_fmt(&o->gw, false, g);
		sb_addf(sb, "route %s via %s", a, g);
		break;
	}
}

/* /proc/sys/net/ipv6/conf/<link>/disable_ipv6 <- 1: 1 changed, 0, -errno */
static int ip6_disable(const char *link, char *err, size_t errlen)
{
	char path[256], buf[16];
	int r = path_fmt(path, sizeof(path),
			 "/proc/sys/net/ipv6/conf/%s/disable_ipv6", link);

	if (!r)
		r = sysfs_read_str(path, buf, sizeof(buf));
	if (!r && !strcmp(buf, "1"))
		return 0;
	if (!r)
		r = sysfs_write_str(path, "1\n");
	if (r) {
		err_set(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	return 1;
}

/* One NIC's run: what it created (mine), what it found ours (kept). */
struct nic_run {
	const struct nic_plan *p;
	const struct gstate *old;
	struct gstate mine, kept;
	bool changed;
	char raised[2][IF_NAMESIZE]; /* links it brought up: down on failure */
	char err[256];
};

/* The child of p: there and fitting, created, or refused. */
static int ensure_child(struct nic_run *nr, struct kstate *k,
			const struct gobj *o)
{
	const struct nic_plan *p = nr->p;
	const struct rtnl_link *parent = link_of(k, p->dev.name);
	const struct rtnl_link *l = link_of(k, p->link);
	bool ours = gstate_has(nr->old, o);
	int r;

	if (l && !child_is(k, o, l)) {
		err_set(nr->err, sizeof(nr->err),
			"%s exists and is not %s's IPoIB child for P_Key "
			"0x%04x: left alone",
			p->link, p->dev.name, p->pkey.raw);
		return -EEXIST;
	}
	if (l && l->mode != (uint16_t)p->mode) {
		if (!ours) {
			log_msg("ETH%d %s: in %s mode, not made by "
				"oneib-context: "
				"left as it is",
				p->nic, p->link,
				ipoib_mode_name((enum ipoib_mode)l->mode));
			return gstate_add(&nr->kept, o) ? -ENOMEM : 0;
		}
		/* a child's mode is set when it is made: make it again */
		r = rtnl_link_del(l->ifindex, nr->err, sizeof(nr->err));
		if (r)
			return r;
		l = NULL;
	}
	if (l)
		return ours && gstate_add(&nr->kept, o) ? -ENOMEM : 0;
	r = rtnl_ipoib_add(parent->ifindex, p->link, p->pkey.raw, p->mode,
			   nr->err, sizeof(nr->err));
	if (r) {
		char why[200];

		err_set(why, sizeof(why), "%s", nr->err);
		err_set(nr->err, sizeof(nr->err),
			"cannot create %s (P_Key 0x%04x, %s, on %s): %s",
			p->link, p->pkey.raw, ipoib_mode_name(p->mode),
			p->dev.name, why);
		return r;
	}
	nr->changed = true;
	if (gstate_add(&nr->mine, o))
		return -ENOMEM;
	return kstate_get(k, nr->err, sizeof(nr->err));
}

static int link_up(struct nic_run *nr, const struct rtnl_link *l, int mtu)
{
	char why[200];
	int r;

	if ((l->flags & IFF_UP) && (!mtu || l->mtu == (unsigned)mtu))
		return 0;
	r = rtnl_link_set(l->ifindex, (unsigned)mtu, true, why, sizeof(why));
	if (r) {
		if (mtu)
			err_set(nr->err, sizeof(nr->err),
				"%s: cannot set MTU %d and bring it up: %s",
				l->name, mtu, why);
		else
			err_set(nr->err, sizeof(nr->err),
				"%s: cannot bring it up: %s", l->name, why);
		return r;
	}
	if (!(l->flags & IFF_UP))
		snprintf(nr->raised[!!nr->raised[0][0]], IF_NAMESIZE, "%s",
			 l->name);
	nr->changed = true;
	return 0;
}

/* An address or route of the plan: there already, or added. */
static int ensure(struct nic_run *nr, const struct kstate *k,
		  const struct rtnl_link *l, const struct gobj *o)
{
	char why[200];
	struct rtnl_route rt;
	bool there;
	int r;

	if (o->kind == GOBJ_ADDR) {
		there = rtnl_addr_has(&k->addrs, l->ifindex, &o->addr);
	} else {
		route_of(o, l->ifindex, &rt);
		there = rtnl_route_has(&k->routes, &rt);
	}
	if (there)
		return gstate_has(nr->old, o) && gstate_add(&nr->kept, o)
			       ? -ENOMEM
			       : 0;
	if (o->kind == GOBJ_ADDR)
		r = rtnl_addr_add(l->ifindex, &o->addr, why, sizeof(why));
	else
		r = rtnl_route_add(&rt, why, sizeof(why));
	if (r) {
		char a[INET_FMT_LEN], g[INET_FMT_LEN];

		inet_fmt(&o->addr, true, a);
		inet_fmt(&o->gw, false, g);
		if (o->kind == GOBJ_ADDR)
			err_set(nr->err, sizeof(nr->err),
				"address %s on %s: %s", a, l->name, why);
		else
			err_set(nr->err, sizeof(nr->err),
				"route %s via %s metric %u on %s: %s%s", a, g,
				o->metric, l->name, why,
				r == -EEXIST ? " (another route to it has "
					       "that metric)"
					     : "");
		return r;
	}
	nr->changed = true;
	return gstate_add(&nr->mine, o) ? -ENOMEM : 0;
}

static int configure(struct nic_run *nr, struct kstate *k)
{
	const struct nic_plan *p = nr->p;
	const struct rtnl_link *parent, *l;
	struct gstate want = { 0 };
	size_t i = 0;
	int r;

	parent = link_of(k, p->dev.name);
	if (!parent) {
		err_set(nr->err, sizeof(nr->err),
			"%s is in sysfs but not in rtnetlink", p->dev.name);
		return -ENODEV;
	}
	if ((r = plan_objs(p, &want)))
		goto out;
	if (p->child) {
		/* made first: a refused child leaves the parent as it was */
		if ((r = ensure_child(nr, k, &want.v[i++])))
			goto out;
		parent = link_of(k, p->dev.name);
		if (!parent) {
			err_set(nr->err, sizeof(nr->err), "%s vanished",
				p->dev.name);
			r = -ENODEV;
			goto out;
		}
		if ((r = link_up(nr, parent, 0)))
			goto out;
	} else if (p->dev.has_mode ? p->dev.mode != p->mode
				   : p->mode != IPOIB_DATAGRAM) {
		/* no mode file: a parent that only knows datagram */
		r = ipoib_set_mode(p->dev.name, p->mode, nr->err,
				   sizeof(nr->err));
		if (r)
			goto out;
		nr->changed = true;
		/* the mode switch sets the MTU, so look again */
		if ((r = kstate_get(k, nr->err, sizeof(nr->err))))
			goto out;
	}
	l = link_of(k, p->link);
	if (!l) {
		err_set(nr->err, sizeof(nr->err), "%s vanished", p->link);
		r = -ENODEV;
		goto out;
	}
	if ((r = link_up(nr, l, p->mtu)))
		goto out;
	if (p->ip6_off) {
		r = ip6_disable(p->link, nr->err, sizeof(nr->err));
		if (r < 0)
			goto out;
		nr->changed = nr->changed || r == 1;
	}
	if (nr->changed && (r = kstate_get(k, nr->err, sizeof(nr->err))))
		goto out;
	l = link_of(k, p->link);
	for (r = 0; !r && l && i < want.n; i++)
		r = ensure(nr, k, l, &want.v[i]);
out:
	gstate_free(&want);
	if (r == -ENOMEM && !nr->err[0])
		err_set(nr->err, sizeof(nr->err), "out of memory");
	return r;
}

/*
 * What this run created for a NIC that then failed: taken away again, and
 * the links it brought up put down again.
 */
static void roll_back(struct nic_run *nr, struct kstate *k)
{
	char err[256];
	size_t i;

	if (kstate_get(k, err, sizeof(err)))
		return;
	for (i = nr->mine.n; i-- > 0;)
		if (undo(k, &nr->mine.v[i], err, sizeof(err)) < 0)
			log_msg("ETH%d: cannot take back %s: %s", nr->p->nic,
				nr->mine.v[i].link, err);
	kstate_get(k, err, sizeof(err));
	for (i = 2; i-- > 0;) {
		const struct rtnl_link *l = link_of(k, nr->raised[i]);

		if (nr->raised[i][0] && l &&
		    rtnl_link_set(l->ifindex, 0, false, err, sizeof(err)))
			log_msg("ETH%d: cannot put %s down again: %s",
				nr->p->nic, nr->raised[i], err);
	}
	kstate_get(k, err, sizeof(err));
}

static void summary(const struct nic_plan *p, FILE *out, const char *what)
{
	const struct nic_conf *c = &p->conf;
	char a[INET_FMT_LEN];

	fprintf(out, "ETH%d %s: %s (P_Key 0x%04x%s%s, %s", p->nic, p->link,
		what, p->pkey.raw, p->child ? ", child of " : "",
		p->child ? p->dev.name : "", ipoib_mode_name(p->mode));
	if (p->mtu)
		fprintf(out, ", mtu %d", p->mtu);
	if (c->has_ip4) {
		inet_fmt(&c->ip4, true, a);
		fprintf(out, ", %s", a);
	}
	if (c->has_gw4) {
		inet_fmt(&c->gw4, false, a);
		fprintf(out, ", gw %s", a);
	}
	if (static6(p) && c->has_ip6) {
		inet_fmt(&c->ip6, true, a);
		fprintf(out, ", %s", a);
	}
	if (c->nroutes)
		fprintf(out, ", %zu route%s", c->nroutes,
			c->nroutes == 1 ? "" : "s");
	fprintf(out, ")\n");
}

static const struct nic_plan *plan_of(const struct nic_plan *plans, size_t n,
				      int nic)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (plans[i].nic == nic)
			return &plans[i];
	return NULL;
}

/*
 * Old objects whose NIC is not configured now and not kept (waiting,
 * refused, skipped: left as they are), or that its plan no longer wants:
 * taken away, one line per NIC.
 */
static int take_away(const struct nic_plan *plans, size_t n,
		     const struct gstate *old, struct gstate *now,
		     struct kstate *k, FILE *out)
{
	struct strbuf done = STRBUF_INIT;
	struct gstate want = { 0 };
	char err[256];
	size_t i;
	int r = 0, x;

	for (i = 0; !r && i < n; i++)
		if (plans[i].what == PLAN_CONFIGURE)
			r = plan_objs(&plans[i], &want);
	/* routes before addresses before children: reverse record order */
	for (i = old->n; !r && i-- > 0;) {
		const struct gobj *o = &old->v[i];
		const struct nic_plan *p = plan_of(plans, n, o->nic);

		if (p && p->what != PLAN_CONFIGURE && p->what != PLAN_STOCK) {
			r = gstate_add(now, o);
			continue;
		}
		if (gstate_has(&want, o))
			continue;
		x = undo(k, o, err, sizeof(err));
		if (x < 0) {
			log_msg("ETH%d %s: cannot take back: %s", o->nic,
				o->link, err);
			r = gstate_add(now, o); /* try again next time */
			continue;
		}
		if (x == 0)
			continue; /* gone already, with its link */
		sb_reset(&done);
		describe(o, &done);
		fprintf(out, "ETH%d %s: removed %s (%s)\n", o->nic, o->link,
			sb_str(&done),
			!p			? "the NIC left the context"
			: p->what == PLAN_STOCK ? "its IPoIB netdev is gone"
						: "no longer in its settings");
		/* routes and addresses went with a child: look again */
		if (o->kind == GOBJ_CHILD)
			r = kstate_get(k, err, sizeof(err));
	}
	sb_release(&done);
	gstate_free(&want);
	return r;
}

int guest_apply(struct nic_plan *plans, size_t n, const struct gstate *old,
		struct gstate *now, FILE *out, char *err, size_t errlen)
{
	struct kstate k = { 0 };
	int failed = 0, r;
	size_t i, j;

	memset(now, 0, sizeof(*now));
	if ((r = kstate_get(&k, err, errlen)))
		return r;
	if ((r = take_away(plans, n, old, now, &k, out)) ||
	    (r = kstate_get(&k, err, errlen))) {
		err_set(err, errlen, "cannot take back old settings: %s",
			r == -ENOMEM ? "out of memory" : err);
		kstate_free(&k);
		return r;
	}
	for (i = 0; i < n; i++) {
		struct nic_plan *p = &plans[i];
		struct nic_run nr = { .p = p, .old = old };

		for (j = 0; j < p->nnotes; j++)
			log_msg("ETH%d %s: %s", p->nic, p->dev.name,
				p->note[j]);
		switch (p->what) {
		case PLAN_STOCK:
			fprintf(out, "ETH%d: left to one-context: %s\n", p->nic,
				p->why);
			continue;
		case PLAN_SKIP:
			fprintf(out, "ETH%d %s: skipped: %s\n", p->nic,
				p->dev.name, p->why);
			continue;
		case PLAN_WAIT:
		case PLAN_ERROR:
			log_msg("ETH%d %s: not configured: %s", p->nic,
				p->have_dev ? p->dev.name : "-", p->why);
			failed++;
			continue;
		case PLAN_CONFIGURE:
			break;
		}
		r = configure(&nr, &k);
		if (r) {
			roll_back(&nr, &k);
			log_msg("ETH%d %s: not configured: %s", p->nic, p->link,
				nr.err[0] ? nr.err : strerror(-r));
			failed++;
			/* what it had before and still has stays recorded */
			for (j = 0; j < old->n; j++) {
				const struct rtnl_link *l;

				if (old->v[j].nic == p->nic &&
				    exists(&k, &old->v[j], &l))
					gstate_add(now, &old->v[j]);
			}
		} else {
			summary(p, out,
				nr.changed ? "configured" : "unchanged");
			for (j = 0; j < nr.kept.n; j++)
				gstate_add(now, &nr.kept.v[j]);
			for (j = 0; j < nr.mine.n; j++)
				gstate_add(now, &nr.mine.v[j]);
		}
		gstate_free(&nr.mine);
		gstate_free(&nr.kept);
	}
	kstate_free(&k);
	return failed;
}
