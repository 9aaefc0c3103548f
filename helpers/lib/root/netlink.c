// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "root/netlink.h"
#include "core/nlmsg.h"

/* nlmsghdr + ifinfomsg as iproute2 fills them: everything else zero. */
static void vf_head(struct nlb *b, uint16_t type, uint16_t flags, uint32_t seq,
		    int ifindex)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_index = ifindex };

	nlb_head(b, type, flags, seq, &ifi, sizeof(ifi));
}

int nl_vf_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex, int vf,
	      enum nl_vf_attr what, uint64_t value)
{
	struct ifla_vf_link_state ls;
	struct ifla_vf_guid g;
	size_t list, info;
	const void *data;
	struct nlb b;
	uint16_t type;
	size_t dlen;

	if (ifindex <= 0 || vf < 0)
		return -EINVAL;
	/* memset: the padding between vf and guid goes out as zeros */
	memset(&g, 0, sizeof(g));
	memset(&ls, 0, sizeof(ls));
	switch (what) {
	case NL_VF_NODE_GUID:
	case NL_VF_PORT_GUID:
		g.vf = (uint32_t)vf;
		g.guid = value;
		type = what == NL_VF_NODE_GUID ? IFLA_VF_IB_NODE_GUID
					       : IFLA_VF_IB_PORT_GUID;
		data = &g;
		dlen = sizeof(g);
		break;
	case NL_VF_LINK_STATE:
		if (value > NL_VF_STATE_DISABLE)
			return -EINVAL;
		ls.vf = (uint32_t)vf;
		ls.link_state = (uint32_t)value;
		type = IFLA_VF_LINK_STATE;
		data = &ls;
		dlen = sizeof(ls);
		break;
	default:
		return -EINVAL;
	}
	nlb_init(&b, buf, len);
	vf_head(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq, ifindex);
	/* nests without NLA_F_NESTED, as iproute2's addattr_nest sends them */
	list = nlb_nest(&b, IFLA_VFINFO_LIST);
	info = nlb_nest(&b, IFLA_VF_INFO);
	nlb_put(&b, type, data, dlen);
	nlb_nest_end(&b, info);
	nlb_nest_end(&b, list);
	return nlb_done(&b);
}

int nl_getlink_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex)
{
	uint32_t mask = RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS;
	struct nlb b;

	if (ifindex <= 0)
		return -EINVAL;
	nlb_init(&b, buf, len);
	vf_head(&b, RTM_GETLINK, NLM_F_REQUEST, seq, ifindex);
	nlb_put_u32(&b, IFLA_EXT_MASK, mask);
	return nlb_done(&b);
}

/*
 * One IFLA_VF_INFO into all: the VF's GUIDs when it reports both. 0 or
 * -ENOMEM.
 */
static int collect_vf_guids(const uint8_t *p, size_t len,
			    struct nl_vf_guids *all)
{
	struct nla_iter it = { p, len };
	struct nl_vf_guid one = { 0 };
	unsigned seen = 0;
	const uint8_t *d;
	uint16_t type;
	size_t plen;

	while ((d = nla_next(&it, &type, &plen))) {
		struct ifla_vf_guid g;

		if ((type != IFLA_VF_IB_NODE_GUID &&
		     type != IFLA_VF_IB_PORT_GUID) ||
		    plen < sizeof(g))
			continue;
		memcpy(&g, d, sizeof(g));
		one.vf = g.vf;
		if (type == IFLA_VF_IB_NODE_GUID)
			one.node_guid = g.guid;
		else
			one.port_guid = g.guid;
		seen |= type == IFLA_VF_IB_NODE_GUID ? 1 : 2;
	}
	if (seen != 3)
		return 0;
	if (ALLOC_GROW(all->v, all->n + 1, all->cap))
		return -ENOMEM;
	all->v[all->n++] = one;
	return 0;
}

/* One IFLA_VF_INFO: the fields whose struct names our VF. */
static void parse_vf_info(const uint8_t *p, size_t len, int vf,
			  struct nl_link *out)
{
	struct nla_iter it = { p, len };
	const uint8_t *d;
	uint16_t type;
	size_t plen;

	while ((d = nla_next(&it, &type, &plen))) {
		struct ifla_vf_link_state ls;
		struct ifla_vf_guid g;

		if (type == IFLA_VF_LINK_STATE && plen >= sizeof(ls)) {
			memcpy(&ls, d, sizeof(ls));
			if (ls.vf != (uint32_t)vf)
				continue;
			out->vf_found = true;
			out->link_state = ls.link_state;
		} else if ((type == IFLA_VF_IB_NODE_GUID ||
			    type == IFLA_VF_IB_PORT_GUID) &&
			   plen >= sizeof(g)) {
			memcpy(&g, d, sizeof(g));
			if (g.vf != (uint32_t)vf)
				continue;
			out->has_guids = true;
			if (type == IFLA_VF_IB_NODE_GUID)
				out->node_guid = g.guid;
			else
				out->port_guid = g.guid;
		}
	}
}

/* nl_link_parse, and with all every VF's GUIDs (vf is then ignored). */
static int parse_link(const uint8_t *msg, size_t len, int vf,
		      struct nl_link *out, struct nl_vf_guids *all)
{
	const size_t head =
		NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));
	struct ifinfomsg ifi;
	struct nlmsghdr nh;
	struct nla_iter it;
	const uint8_t *d;
	uint16_t type;
	size_t plen;

	memset(out, 0, sizeof(*out));
	out->num_vf = -1;
	if (len < head)
		return -EBADMSG;
	memcpy(&nh, msg, sizeof(nh));
	if (nh.nlmsg_type != RTM_NEWLINK || nh.nlmsg_len < head ||
	    nh.nlmsg_len > len)
		return -EBADMSG;
	memcpy(&ifi, msg + NLMSG_HDRLEN, sizeof(ifi));
	out->ifindex = ifi.ifi_index;
	out->type = ifi.ifi_type;
	it.p = msg + head;
	it.rem = nh.nlmsg_len - head;
	while ((d = nla_next(&it, &type, &plen))) {
		if (type == IFLA_IFNAME && plen > 0 && memchr(d, '\0', plen) &&
		    strlen((const char *)d) < IF_NAMESIZE) {
			memcpy(out->name, d, strlen((const char *)d) + 1);
		} else if (type == IFLA_NUM_VF && plen >= sizeof(uint32_t)) {
			uint32_t n;

			memcpy(&n, d, sizeof(n));
			out->num_vf = n > INT_MAX ? INT_MAX : (int)n;
		} else if (type == IFLA_VFINFO_LIST) {
			struct nla_iter vi = { d, plen };
			const uint8_t *v;
			uint16_t vt;
			size_t vlen;

			while ((v = nla_next(&vi, &vt, &vlen))) {
				if (vt != IFLA_VF_INFO)
					continue;
				if (!all)
					parse_vf_info(v, vlen, vf, out);
				else if (collect_vf_guids(v, vlen, all))
					return -ENOMEM;
			}
		}
	}
	if (!out->name[0])
		return -EBADMSG;
	return 0;
}

int nl_link_parse(const uint8_t *msg, size_t len, int vf, struct nl_link *out)
{
	return parse_link(msg, len, vf, out, NULL);
}

int nl_link_parse_all(const uint8_t *msg, size_t len, struct nl_link *out,
		      struct nl_vf_guids *all)
{
	all->n = 0;
	return parse_link(msg, len, -1, out, all);
}

void nl_vf_guids_free(struct nl_vf_guids *g)
{
	free(g->v);
	g->v = NULL;
	g->n = g->cap = 0;
}

const char *nl_vf_state_name(uint32_t state)
{
	switch (state) {
	case NL_VF_STATE_AUTO:
		return "auto";
	case NL_VF_STATE_ENABLE:
		return "enable";
	case NL_VF_STATE_DISABLE:
		return "disable";
	default:
		return "?";
	}
}

/* The RTM_NEWLINK answer to nl_link_get(_all), parsed for one VF or all. */
struct link_want {
	int vf;
	struct nl_link *out;
	struct nl_vf_guids *all;
};

static int link_answer(const struct nlmsghdr *nh, void *arg, char *err,
		       size_t errlen)
{
	struct link_want *w = arg;
	int r;

	if (nh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (w->all)
		w->all->n = 0;
	r = parse_link((const uint8_t *)nh, nh->nlmsg_len, w->vf, w->out,
		       w->all);
	if (r)
		err_set(err, errlen, "%s RTM_NEWLINK answer",
			r == -ENOMEM ? "out of memory for the" : "malformed");
	return r;
}

int nl_vf_set(int ifindex, int vf, enum nl_vf_attr what, uint64_t value,
	      char *err, size_t errlen)
{
	uint8_t msg[NL_VF_MSG_MAX];
	uint32_t seq = nl_seq();
	int n;

	n = nl_vf_msg(msg, sizeof(msg), seq, ifindex, vf, what, value);
	if (n < 0) {
		err_set(err, errlen, "cannot build the VF message: %s",
			strerror(-n));
		return n;
	}
	return nl_request(msg, (size_t)n, NULL, NULL, err, errlen);
}

static int link_get(int ifindex, struct link_want *w, char *err, size_t errlen)
{
	uint8_t msg[NL_VF_MSG_MAX];
	uint32_t seq = nl_seq();
	int n;

	memset(w->out, 0, sizeof(*w->out));
	if (w->all)
		w->all->n = 0;
	n = nl_getlink_msg(msg, sizeof(msg), seq, ifindex);
	if (n < 0) {
		err_set(err, errlen, "cannot build the link query: %s",
			strerror(-n));
		return n;
	}
	return nl_request(msg, (size_t)n, link_answer, w, err, errlen);
}

int nl_link_get(int ifindex, int vf, struct nl_link *out, char *err,
		size_t errlen)
{
	struct link_want w = { .vf = vf, .out = out, .all = NULL };

	return link_get(ifindex, &w, err, errlen);
}

int nl_link_get_all(int ifindex, struct nl_link *out, struct nl_vf_guids *all,
		    char *err, size_t errlen)
{
	struct link_want w = { .vf = -1, .out = out, .all = all };

	return link_get(ifindex, &w, err, errlen);
}
