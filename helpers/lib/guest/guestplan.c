// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "guest/guestplan.h"
#include "core/guid.h"
#include "core/log.h"

/* IPOIB_CM_MTU: 0x10000 - 0x10 */
#define CM_MTU_MAX 65520
/* the largest datagram MTU any port has: 4096 - IPOIB_ENCAP_LEN */
#define UD_MTU_MAX 4092

void plan_note(struct nic_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes == PLAN_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->note[p->nnotes++], PLAN_TEXT, fmt, ap);
	va_end(ap);
}

int plan_match(const struct ipoib_devs *devs, uint32_t vmid, int nic)
{
	int found = -1;
	size_t i;

	if (nic < 0 || nic > GUID_NIC_MAX)
		return -1;
	for (i = 0; i < devs->n; i++) {
		if (!guid_is_nic(devs->v[i].guid, vmid, (uint16_t)nic))
			continue;
		if (found >= 0)
			return -2;
		found = (int)i;
	}
	return found;
}

/* A key of a tenant's partition (no default partition), full or not. */
static bool tenant(uint16_t k, bool full)
{
	struct pkey p = { k };

	return pkey_is_full(p) == full && pkey_tenant_ok(p);
}

/*
 * One pass over the table for keys of one membership: the wanted one, or
 * the one there is. found is n when none.
 */
static size_t find_key(const uint16_t *tbl, size_t n, const struct pkey *want,
		       bool full, int *several)
{
	size_t i, found = n;

	for (i = 0; i < n; i++) {
		if (!tenant(tbl[i], full))
			continue;
		if (want) {
			if ((tbl[i] & 0x7fff) == pkey_base(*want))
				return i;
			continue;
		}
		if (found == n)
			found = i;
		else if (tbl[i] != tbl[found])
			*several = 1;
	}
	return found;
}

int plan_tenant_pkey(const uint16_t *tbl, size_t n, const struct pkey *want,
		     struct pkey *out, size_t *index, char *why, size_t whylen)
{
	size_t found;
	int several = 0;
	bool full = true;

	/* full members first: a NIC's tenant network; a limited key only
	 * when the table has no full one (a service network's NIC) */
	found = find_key(tbl, n, want, true, &several);
	if (found == n && !several) {
		full = false;
		found = find_key(tbl, n, want, false, &several);
	}
	if (found == n) {
		if (want)
			err_set(why, whylen, "P_Key 0x%04x is not in the table",
				want->raw);
		else
			err_set(why, whylen, "no tenant P_Key in the table");
		return -ENOENT;
	}
	if (several) {
		struct strbuf sb = STRBUF_INIT;
		size_t i;

		for (i = 0; i < n; i++)
			if (tenant(tbl[i], full))
				sb_addf(&sb, " 0x%04x", tbl[i]);
		err_set(why, whylen, "several tenant P_Keys in the table (%s)",
			sb_str(&sb) + 1);
		sb_release(&sb);
		return -EEXIST;
	}
	out->raw = tbl[found];
	*index = found;
	return 0;
}

void ipoib_child_name(const char *parent, uint16_t pkey, char out[IF_NAMESIZE])
{
	/* ipoib_vlan.c: "%.10s.%04x", 10 + 1 + 4 fits IFNAMSIZ */
	snprintf(out, IF_NAMESIZE, "%.10s.%04x", parent, pkey);
}

static void plan_mtu(struct nic_plan *p, const struct ib_port_facts *f)
{
	int limit;
	char how[96];

	if (p->mode == IPOIB_CONNECTED) {
		limit = CM_MTU_MAX;
		snprintf(how, sizeof(how), "connected: at most %d", limit);
	} else if (f->active_mtu) {
		limit = f->active_mtu - 4;
		snprintf(how, sizeof(how), "datagram: port MTU %d - 4",
			 f->active_mtu);
	} else {
		limit = UD_MTU_MAX;
		snprintf(how, sizeof(how),
			 "datagram: at most %d, the port MTU is not known "
			 "without libibverbs",
			 limit);
	}
	p->mtu = p->conf.mtu;
	if (p->mtu > limit) {
		plan_note(p, "ETH%d_MTU %d clamped to %d (%s)", p->nic, p->mtu,
			  limit, how);
		p->mtu = limit;
	}
}

void plan_nic(struct nic_plan *p, const struct ipoib_dev *dev,
	      const struct ib_port_facts *f)
{
	char why[PLAN_TEXT];
	size_t index;
	int r;

	p->have_dev = true;
	p->dev = *dev;
	if (p->what != PLAN_CONFIGURE)
		return;
	if (p->conf.method == NIC_DHCP) {
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why),
			"ETH%d_METHOD dhcp: not supported on IPoIB yet",
			p->nic);
		return;
	}
	if (f->guid != dev->guid) {
		char g1[GUID_STRLEN], g2[GUID_STRLEN];

		guid_fmt_hex(f->guid, g1);
		guid_fmt_hex(dev->guid, g2);
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why),
			"%s port %d has GUID %s, %s's address %s", dev->ibdev,
			dev->port, g1, dev->name, g2);
		return;
	}
	if (f->state != 4)
		plan_note(p,
			  "%s port %d is %s: the link comes up when the subnet "
			  "manager activates it",
			  dev->ibdev, dev->port, ibport_state_name(f->state));
	r = plan_tenant_pkey(f->pkeys, f->npkeys,
			     p->conf.has_pkey ? &p->conf.pkey : NULL, &p->pkey,
			     &index, why, sizeof(why));
	if (r == -EEXIST) {
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why),
			"%s port %d: %s: set ETH%d_IB_PKEY", dev->ibdev,
			dev->port, why, p->nic);
		return;
	}
	if (r) {
		p->what = PLAN_WAIT;
		err_set(p->why, sizeof(p->why), "%s port %d: %s yet",
			dev->ibdev, dev->port, why);
		return;
	}
	p->child = index != 0;
	/* the SA is in the default partition (limited members reach it):
	 * index 0 on ConnectX-4 and later, 1 on ConnectX-3 */
	for (index = 0; index < f->npkeys; index++)
		if ((f->pkeys[index] & 0x7fff) == PKEY_DEFAULT) {
			p->sa_pkey_index = (uint16_t)index;
			break;
		}
	/* the kernel makes every child a full member of the broadcast
	 * group's key (ipoib_new_child_link: child_pkey |= 0x8000) and
	 * names its own so: ib0.8104 for a limited 0x0104 too */
	if (p->child)
		ipoib_child_name(dev->name, p->pkey.raw | PKEY_MEMBER_FULL,
				 p->link);
	else
		snprintf(p->link, sizeof(p->link), "%s", dev->name);

	p->mode = p->conf.has_mode ? p->conf.mode : IPOIB_DATAGRAM;
	if (p->mode == IPOIB_CONNECTED && !dev->cm) {
		p->mode = IPOIB_DATAGRAM;
		plan_note(p,
			  "%s cannot do connected mode (ConnectX-4 and later "
			  "run enhanced IPoIB, datagram only): datagram",
			  dev->name);
	}
	plan_mtu(p, f);
	p->ip6_off = p->conf.method6 == IP6_DISABLE;
	if (p->conf.method6 == IP6_DHCP)
		plan_note(p,
			  "ETH%d_IP6_METHOD dhcp: not supported on IPoIB yet, "
			  "IPv6 left alone",
			  p->nic);
	if (p->conf.has_ip4 && p->conf.mask_default)
		plan_note(p, "ETH%d_MASK missing: /24, as one-context assumes",
			  p->nic);
}

/* Does the plan set up IPv6 statically? */
static bool static6(const struct nic_plan *p)
{
	return p->conf.method6 == IP6_STATIC;
}

int plan_line(const struct nic_plan *p, struct strbuf *out)
{
	const struct nic_conf *c = &p->conf;
	char g[GUID_STRLEN], a[INET_FMT_LEN], b[INET_FMT_LEN];
	size_t i;
	int r;

	if (!p->have_dev)
		return sb_addf(out, "ETH%d - stock %s", p->nic, p->why);
	guid_fmt_hex(p->dev.guid, g);
	r = sb_addf(out, "ETH%d %s guid %s", p->nic, p->dev.name, g);
	switch (p->what) {
	case PLAN_SKIP:
		return r ? r : sb_addf(out, " skip %s", p->why);
	case PLAN_WAIT:
		return r ? r : sb_addf(out, " wait %s", p->why);
	case PLAN_ERROR:
	case PLAN_STOCK:
		return r ? r : sb_addf(out, " error %s", p->why);
	case PLAN_CONFIGURE:
		break;
	}
	r = r ? r
	      : sb_addf(out, " pkey 0x%04x via %s mode %s", p->pkey.raw,
			p->link, ipoib_mode_name(p->mode));
	r = r	     ? r
	    : p->mtu ? sb_addf(out, " mtu %d", p->mtu)
		     : sb_adds(out, " mtu -");
	if (!r && p->sl_source != SLS_NONE)
		r = sb_addf(out, " sl %d (%s)", p->sl,
			    p->sl_source == SLS_SA ? "sa" : "context");
	if (!r && c->has_ip4) {
		inet_fmt(&c->ip4, true, a);
		r = sb_addf(out, " ip %s", a);
	}
	if (!r && c->has_gw4) {
		inet_fmt(&c->gw4, false, a);
		r = sb_addf(out, " gw %s", a);
	}
	if (!r && c->metric && c->has_gw4)
		r = sb_addf(out, " metric %u", c->metric);
	if (!r && p->ip6_off)
		r = sb_adds(out, " ip6 off");
	if (!r && static6(p) && c->has_ip6) {
		inet_fmt(&c->ip6, true, a);
		r = sb_addf(out, " ip6 %s", a);
	}
	if (!r && static6(p) && c->has_gw6) {
		inet_fmt(&c->gw6, false, a);
		r = sb_addf(out, " gw6 %s", a);
		if (!r && c->metric6)
			r = sb_addf(out, " metric6 %u", c->metric6);
	}
	for (i = 0; !r && i < c->nroutes; i++) {
		if (c->routes[i].dst.family == AF_INET6 && !static6(p))
			continue;
		inet_fmt(&c->routes[i].dst, true, a);
		inet_fmt(&c->routes[i].via, false, b);
		r = sb_addf(out, " route %s via %s", a, b);
	}
	return r;
}
