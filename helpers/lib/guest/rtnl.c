// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/nlmsg.h"
#include "guest/rtnl.h"

/* --- messages ------------------------------------------------------------- */

static void link_head(struct nlb *b, uint16_t type, uint16_t flags,
		      uint32_t seq, int ifindex, unsigned iflags,
		      unsigned change)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_index = ifindex,
				 .ifi_flags = iflags,
				 .ifi_change = change };

	nlb_head(b, type, flags, seq, &ifi, sizeof(ifi));
}

int rtnl_ipoib_add_msg(uint8_t *buf, size_t len, uint32_t seq, int parent,
		       const char *name, uint16_t pkey, enum ipoib_mode mode)
{
	size_t info, data;
	struct nlb b;

	if (parent <= 0 || !name[0] || strlen(name) >= IF_NAMESIZE)
		return -EINVAL;
	nlb_init(&b, buf, len);
	link_head(&b, RTM_NEWLINK,
		  NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE, seq, 0,
		  0, 0);
	/* iproute2's order: IFLA_LINK, IFLA_IFNAME, then the link info */
	nlb_put_u32(&b, IFLA_LINK, (uint32_t)parent);
	nlb_put_str(&b, IFLA_IFNAME, name);
	info = nlb_nest(&b, IFLA_LINKINFO);
	/* iproute2 sends the kind without its NUL; the padding ends it */
	nlb_put(&b, IFLA_INFO_KIND, "ipoib", 5);
	data = nlb_nest(&b, IFLA_INFO_DATA);
	nlb_put_u16(&b, IFLA_IPOIB_PKEY, pkey);
	nlb_put_u16(&b, IFLA_IPOIB_MODE, (uint16_t)mode);
	nlb_nest_end(&b, data);
	nlb_nest_end(&b, info);
	return nlb_done(&b);
}

int rtnl_link_del_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex)
{
	struct nlb b;

	if (ifindex <= 0)
		return -EINVAL;
	nlb_init(&b, buf, len);
	link_head(&b, RTM_DELLINK, NLM_F_REQUEST | NLM_F_ACK, seq, ifindex, 0,
		  0);
	return nlb_done(&b);
}

/* A built message (n bytes, or the builder's -errno), sent; cb for dumps. */
static int send_built(uint8_t *msg, int n, nl_answer_fn cb, void *arg,
		      char *err, size_t errlen)
{
	if (n < 0) {
		err_set(err, errlen, "cannot build the message: %s",
			strerror(-n));
		return n;
	}
	return nl_request(msg, (size_t)n, cb, arg, err, errlen);
}

int rtnl_ipoib_add(int parent, const char *name, uint16_t pkey,
		   enum ipoib_mode mode, char *err, size_t errlen)
{
	uint8_t msg[RTNL_MSG_MAX];

	return send_built(msg,
			  rtnl_ipoib_add_msg(msg, sizeof(msg), nl_seq(), parent,
					     name, pkey, mode),
			  NULL, NULL, err, errlen);
}

int rtnl_link_del(int ifindex, char *err, size_t errlen)
{
	uint8_t msg[RTNL_MSG_MAX];

	return send_built(
		msg, rtnl_link_del_msg(msg, sizeof(msg), nl_seq(), ifindex),
		NULL, NULL, err, errlen);
}

int rtnl_link_set(int ifindex, unsigned mtu, bool up, char *err, size_t errlen)
{
	uint8_t msg[RTNL_MSG_MAX];
	struct nlb b;

	nlb_init(&b, msg, sizeof(msg));
	link_head(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, nl_seq(), ifindex,
		  up ? IFF_UP : 0, IFF_UP);
	if (mtu)
		nlb_put_u32(&b, IFLA_MTU, mtu);
	return send_built(msg, nlb_done(&b), NULL, NULL, err, errlen);
}

/* --- links ---------------------------------------------------------------- */

/* One more element of out->v (struct rtnl_links, _addrs, _routes): what
 * the dumps collect. */
#define PUSH(out, x, err, errlen)                                              \
	(ALLOC_GROW((out)->v, (out)->n + 1, (out)->alloc)                      \
		 ? (err_set(err, errlen, "out of memory"), -ENOMEM)            \
		 : ((out)->v[(out)->n++] = (x), 0))

static void link_info(const uint8_t *p, size_t len, struct rtnl_link *l)
{
	struct nla_iter it = { p, len }, di;
	const uint8_t *d, *dd;
	uint16_t type, dt;
	size_t plen, dlen;

	while ((d = nla_next(&it, &type, &plen))) {
		if (type == IFLA_INFO_KIND && plen > 0 &&
		    memchr(d, '\0', plen) &&
		    strlen((const char *)d) < sizeof(l->kind))
			strcpy(l->kind, (const char *)d);
		else if (type == IFLA_INFO_DATA) {
			di.p = d;
			di.rem = plen;
			while ((dd = nla_next(&di, &dt, &dlen))) {
				if (dlen < sizeof(uint16_t))
					continue;
				if (dt == IFLA_IPOIB_PKEY)
					memcpy(&l->pkey, dd, sizeof(l->pkey));
				else if (dt == IFLA_IPOIB_MODE)
					memcpy(&l->mode, dd, sizeof(l->mode));
				else
					continue;
				l->ipoib = true;
			}
		}
	}
	if (strcmp(l->kind, "ipoib"))
		l->ipoib = false;
}

static int link_answer(const struct nlmsghdr *nh, void *arg, char *err,
		       size_t errlen)
{
	struct rtnl_links *out = arg;
	struct ifinfomsg ifi;
	struct rtnl_link l;
	struct nla_iter it;
	const uint8_t *d;
	uint16_t type;
	size_t plen;

	if (nh->nlmsg_type != RTM_NEWLINK ||
	    nh->nlmsg_len < NLMSG_HDRLEN + sizeof(ifi))
		return 0;
	memcpy(&ifi, NLMSG_DATA(nh), sizeof(ifi));
	memset(&l, 0, sizeof(l));
	l.ifindex = ifi.ifi_index;
	l.type = ifi.ifi_type;
	l.flags = ifi.ifi_flags;
	nla_iter_msg(&it, nh, sizeof(ifi));
	while ((d = nla_next(&it, &type, &plen))) {
		if (type == IFLA_IFNAME && plen > 0 && memchr(d, '\0', plen) &&
		    strlen((const char *)d) < IF_NAMESIZE)
			strcpy(l.name, (const char *)d);
		else if (type == IFLA_MTU && plen >= 4)
			memcpy(&l.mtu, d, sizeof(l.mtu));
		else if (type == IFLA_LINK && plen >= 4)
			memcpy(&l.parent, d, sizeof(l.parent));
		else if (type == IFLA_LINKINFO)
			link_info(d, plen, &l);
	}
	if (!l.name[0])
		return 0;
	return PUSH(out, l, err, errlen);
}

int rtnl_links_get(struct rtnl_links *out, char *err, size_t errlen)
{
	uint8_t msg[RTNL_MSG_MAX];
	struct nlb b;
	int r;

	memset(out, 0, sizeof(*out));
	nlb_init(&b, msg, sizeof(msg));
	link_head(&b, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, nl_seq(), 0, 0,
		  0);
	nlb_put_u32(&b, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	r = send_built(msg, nlb_done(&b), link_answer, out, err, errlen);
	if (r)
		rtnl_links_free(out);
	return r;
}

const struct rtnl_link *rtnl_link_find(const struct rtnl_links *l,
				       const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void rtnl_links_free(struct rtnl_links *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* --- addresses ------------------------------------------------------------ */

static int addr_answer(const struct nlmsghdr *nh, void *arg, char *err,
		       size_t errlen)
{
	struct rtnl_addrs *out = arg;
	const uint8_t *local = NULL, *address = NULL, *d;
	struct ifaddrmsg ifa;
	struct rtnl_addr a;
	struct nla_iter it;
	uint16_t type;
	size_t plen, alen;

	if (nh->nlmsg_type != RTM_NEWADDR ||
	    nh->nlmsg_len < NLMSG_HDRLEN + sizeof(ifa))
		return 0;
	memcpy(&ifa, NLMSG_DATA(nh), sizeof(ifa));
	if (ifa.ifa_family != AF_INET && ifa.ifa_family != AF_INET6)
		return 0;
	alen = ifa.ifa_family == AF_INET ? 4 : 16;
	nla_iter_msg(&it, nh, sizeof(ifa));
	while ((d = nla_next(&it, &type, &plen))) {
		if (type == IFA_LOCAL && plen >= alen)
			local = d;
		else if (type == IFA_ADDRESS && plen >= alen)
			address = d;
	}
	/* IFA_LOCAL is the address; IPv6 sends only IFA_ADDRESS */
	if (!local)
		local = address;
	if (!local)
		return 0;
	memset(&a, 0, sizeof(a));
	a.ifindex = (int)ifa.ifa_index;
	a.a.family = ifa.ifa_family;
	a.a.plen = ifa.ifa_prefixlen;
	memcpy(a.a.a, local, alen);
	return PUSH(out, a, err, errlen);
}

int rtnl_addrs_get(struct rtnl_addrs *out, char *err, size_t errlen)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC };
	uint8_t msg[RTNL_MSG_MAX];
	struct nlb b;
	int r;

	memset(out, 0, sizeof(*out));
	nlb_init(&b, msg, sizeof(msg));
	nlb_head(&b, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, nl_seq(), &ifa,
		 sizeof(ifa));
	r = send_built(msg, nlb_done(&b), addr_answer, out, err, errlen);
	if (r)
		rtnl_addrs_free(out);
	return r;
}

bool rtnl_addr_has(const struct rtnl_addrs *l, int ifindex,
		   const struct inet_addr *a)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].ifindex == ifindex && inet_equal(&l->v[i].a, a))
			return true;
	return false;
}

void rtnl_addrs_free(struct rtnl_addrs *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* RTM_NEWADDR / RTM_DELADDR, as `ip address add|del A/P dev X` sends it. */
static int addr_msg(uint16_t type, uint16_t flags, int ifindex,
		    const struct inet_addr *a, char *err, size_t errlen)
{
	struct ifaddrmsg ifa = { .ifa_family = (uint8_t)a->family,
				 .ifa_prefixlen = a->plen,
				 .ifa_index = (uint32_t)ifindex };
	uint8_t msg[RTNL_MSG_MAX];
	unsigned n = inet_len(a);
	struct nlb b;

	nlb_init(&b, msg, sizeof(msg));
	nlb_head(&b, type, flags, nl_seq(), &ifa, sizeof(ifa));
	nlb_put(&b, IFA_LOCAL, a->a, n);
	nlb_put(&b, IFA_ADDRESS, a->a, n);
	if (type == RTM_NEWADDR && a->family == AF_INET && a->plen <= 30) {
		/* the subnet's broadcast address, as "brd +" gives it */
		unsigned char brd[4];
		unsigned i;

		for (i = 0; i < 4; i++) {
			unsigned bits = a->plen > i * 8 ? a->plen - i * 8 : 0;
			unsigned char host =
				bits >= 8 ? 0 : (unsigned char)(0xffu >> bits);

			brd[i] = a->a[i] | host;
		}
		nlb_put(&b, IFA_BROADCAST, brd, sizeof(brd));
	}
	return send_built(msg, nlb_done(&b), NULL, NULL, err, errlen);
}

int rtnl_addr_add(int ifindex, const struct inet_addr *a, char *err,
		  size_t errlen)
{
	return addr_msg(RTM_NEWADDR,
			NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
			ifindex, a, err, errlen);
}

int rtnl_addr_del(int ifindex, const struct inet_addr *a, char *err,
		  size_t errlen)
{
	return addr_msg(RTM_DELADDR, NLM_F_REQUEST | NLM_F_ACK, ifindex, a, err,
			errlen);
}

/* --- routes --------------------------------------------------------------- */

static int route_answer(const struct nlmsghdr *nh, void *arg, char *err,
			size_t errlen)
{
	struct rtnl_routes *out = arg;
	struct rtnl_route r;
	struct nla_iter it;
	struct rtmsg rtm;
	const uint8_t *d;
	uint32_t table;
	uint16_t type;
	size_t plen, alen;
	bool gw = false;

	if (nh->nlmsg_type != RTM_NEWROUTE ||
	    nh->nlmsg_len < NLMSG_HDRLEN + sizeof(rtm))
		return 0;
	memcpy(&rtm, NLMSG_DATA(nh), sizeof(rtm));
	if ((rtm.rtm_family != AF_INET && rtm.rtm_family != AF_INET6) ||
	    rtm.rtm_type != RTN_UNICAST)
		return 0;
	alen = rtm.rtm_family == AF_INET ? 4 : 16;
	memset(&r, 0, sizeof(r));
	r.dst.family = r.gw.family = rtm.rtm_family;
	r.dst.plen = rtm.rtm_dst_len;
	r.gw.plen = (uint8_t)(alen * 8);
	table = rtm.rtm_table;
	nla_iter_msg(&it, nh, sizeof(rtm));
	while ((d = nla_next(&it, &type, &plen))) {
		if (type == RTA_DST && plen >= alen)
			memcpy(r.dst.a, d, alen);
		else if (type == RTA_GATEWAY && plen >= alen) {
			memcpy(r.gw.a, d, alen);
			gw = true;
		} else if (type == RTA_OIF && plen >= 4)
			memcpy(&r.oif, d, sizeof(r.oif));
		else if (type == RTA_PRIORITY && plen >= 4)
			memcpy(&r.metric, d, sizeof(r.metric));
		else if (type == RTA_TABLE && plen >= 4)
			memcpy(&table, d, sizeof(table));
	}
	if (table != RT_TABLE_MAIN || !gw)
		return 0;
	return PUSH(out, r, err, errlen);
}

int rtnl_routes_get(struct rtnl_routes *out, char *err, size_t errlen)
{
	static const int families[] = { AF_INET, AF_INET6 };
	uint8_t msg[RTNL_MSG_MAX];
	struct nlb b;
	size_t i;
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < 2 && !r; i++) {
		struct rtmsg rtm = { .rtm_family = (uint8_t)families[i] };

		nlb_init(&b, msg, sizeof(msg));
		nlb_head(&b, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, nl_seq(),
			 &rtm, sizeof(rtm));
		r = send_built(msg, nlb_done(&b), route_answer, out, err,
			       errlen);
	}
	if (r)
		rtnl_routes_free(out);
	return r;
}

bool rtnl_route_has(const struct rtnl_routes *l, const struct rtnl_route *r)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct rtnl_route *x = &l->v[i];

		if (inet_equal(&x->dst, &r->dst) &&
		    inet_equal(&x->gw, &r->gw) && x->oif == r->oif &&
		    x->metric == r->metric)
			return true;
	}
	return false;
}

void rtnl_routes_free(struct rtnl_routes *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* RTM_NEWROUTE / RTM_DELROUTE: `ip route add|del DST via GW dev X metric M` */
static int route_msg(uint16_t type, uint16_t flags, const struct rtnl_route *r,
		     char *err, size_t errlen)
{
	struct rtmsg rtm = { .rtm_family = (uint8_t)r->dst.family,
			     .rtm_dst_len = r->dst.plen,
			     .rtm_table = RT_TABLE_MAIN,
			     .rtm_type = RTN_UNICAST };
	uint8_t msg[RTNL_MSG_MAX];
	unsigned n = inet_len(&r->dst);
	struct nlb b;

	if (type == RTM_NEWROUTE) {
		rtm.rtm_protocol = RTPROT_STATIC;
		rtm.rtm_scope = RT_SCOPE_UNIVERSE;
	} else {
		rtm.rtm_scope = RT_SCOPE_NOWHERE; /* any scope matches */
	}
	nlb_init(&b, msg, sizeof(msg));
	nlb_head(&b, type, flags, nl_seq(), &rtm, sizeof(rtm));
	if (r->dst.plen)
		nlb_put(&b, RTA_DST, r->dst.a, n);
	nlb_put(&b, RTA_GATEWAY, r->gw.a, n);
	nlb_put_u32(&b, RTA_OIF, (uint32_t)r->oif);
	if (r->metric)
		nlb_put_u32(&b, RTA_PRIORITY, r->metric);
	return send_built(msg, nlb_done(&b), NULL, NULL, err, errlen);
}

int rtnl_route_add(const struct rtnl_route *r, char *err, size_t errlen)
{
	return route_msg(RTM_NEWROUTE,
			 NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
			 r, err, errlen);
}

int rtnl_route_del(const struct rtnl_route *r, char *err, size_t errlen)
{
	return route_msg(RTM_DELROUTE, NLM_F_REQUEST | NLM_F_ACK, r, err,
			 errlen);
}
