// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "netlink.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* How long the kernel may take to answer before we give up. */
#define NL_TIMEOUT_S 5

/*
 * One netlink attribute header at buf + *off, its payload copied after it,
 * *off moved past the padding. Returns the offset of the header, so a
 * nest's length can be patched once its contents are in.
 */
static size_t put_attr(uint8_t *buf, size_t *off, uint16_t type,
		       const void *data, size_t dlen)
{
	struct nlattr nla = { .nla_len = (uint16_t)(NLA_HDRLEN + dlen),
			      .nla_type = type };
	size_t at = *off;

	memcpy(buf + at, &nla, sizeof(nla));
	if (dlen)
		memcpy(buf + at + NLA_HDRLEN, data, dlen);
	memset(buf + at + NLA_HDRLEN + dlen, 0,
	       NLA_ALIGN(dlen) - dlen); /* padding of a 6-byte payload, say */
	*off = at + NLA_HDRLEN + NLA_ALIGN(dlen);
	return at;
}

static void end_nest(uint8_t *buf, size_t at, size_t off)
{
	uint16_t len = (uint16_t)(off - at);

	memcpy(buf + at + offsetof(struct nlattr, nla_len), &len, sizeof(len));
}

/* nlmsghdr + ifinfomsg as iproute2 fills them: everything else zero. */
static size_t put_head(uint8_t *buf, uint16_t type, uint16_t flags,
		       uint32_t seq, int ifindex)
{
	struct nlmsghdr nh = { .nlmsg_type = type,
			       .nlmsg_flags = flags,
			       .nlmsg_seq = seq };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_index = ifindex };

	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &ifi, sizeof(ifi));
	return NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifi));
}

static void set_msg_len(uint8_t *buf, size_t len)
{
	uint32_t l = (uint32_t)len;

	memcpy(buf + offsetof(struct nlmsghdr, nlmsg_len), &l, sizeof(l));
}

int nl_vf_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex, int vf,
	      enum nl_vf_attr what, uint64_t value)
{
	struct ifla_vf_link_state ls;
	struct ifla_vf_guid g;
	size_t off, list, info, need;
	const void *data;
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
	need = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg)) +
	       2 * NLA_HDRLEN + NLA_HDRLEN + NLA_ALIGN(dlen);
	if (len < need)
		return -ENOSPC;
	off = put_head(buf, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq,
		       ifindex);
	/* nests without NLA_F_NESTED, as iproute2's addattr_nest sends them */
	list = put_attr(buf, &off, IFLA_VFINFO_LIST, NULL, 0);
	info = put_attr(buf, &off, IFLA_VF_INFO, NULL, 0);
	put_attr(buf, &off, type, data, dlen);
	end_nest(buf, info, off);
	end_nest(buf, list, off);
	set_msg_len(buf, off);
	return (int)off;
}

int nl_getlink_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex)
{
	uint32_t mask = RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS;
	size_t off;

	if (ifindex <= 0)
		return -EINVAL;
	if (len < NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg)) +
			  NLA_HDRLEN + sizeof(mask))
		return -ENOSPC;
	off = put_head(buf, RTM_GETLINK, NLM_F_REQUEST, seq, ifindex);
	put_attr(buf, &off, IFLA_EXT_MASK, &mask, sizeof(mask));
	set_msg_len(buf, off);
	return (int)off;
}

/*
 * Attribute walking over [p, p + len): each call yields the next attribute
 * whose header and payload fit, NULL at the end or at a malformed one.
 */
struct nla_iter {
	const uint8_t *p;
	size_t rem;
};

static const uint8_t *nla_next(struct nla_iter *it, uint16_t *type,
			       size_t *plen)
{
	struct nlattr nla;
	const uint8_t *a;

	if (it->rem < NLA_HDRLEN)
		return NULL;
	memcpy(&nla, it->p, sizeof(nla));
	if (nla.nla_len < NLA_HDRLEN || nla.nla_len > it->rem)
		return NULL;
	a = it->p;
	*type = nla.nla_type & NLA_TYPE_MASK;
	*plen = nla.nla_len - NLA_HDRLEN;
	if ((size_t)NLA_ALIGN(nla.nla_len) >= it->rem) {
		it->rem = 0;
	} else {
		it->p += NLA_ALIGN(nla.nla_len);
		it->rem -= NLA_ALIGN(nla.nla_len);
	}
	return a + NLA_HDRLEN;
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
	if (all->n == all->cap) {
		size_t cap = all->cap ? all->cap * 2 : 32;
		struct nl_vf_guid *v = reallocarray(all->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		all->v = v;
		all->cap = cap;
	}
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

static int nl_open(char *err, size_t errlen)
{
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		int e = errno;

		err_set(err, errlen, "rtnetlink socket: %s", strerror(e));
		return -e;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		int e = errno;

		err_set(err, errlen, "rtnetlink socket: %s", strerror(e));
		close(fd);
		return -e;
	}
	/* Optional: the kernel's reason in words, no echo of the request. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return fd;
}

/* The NLMSGERR_ATTR_MSG of an extended ack, "" when there is none. */
static const char *ext_ack_msg(const struct nlmsghdr *nh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	struct nla_iter it;
	const uint8_t *d;
	uint16_t type;
	size_t plen;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	/* without NLM_F_CAPPED the request is echoed before the TLVs */
	if (!(nh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return "";
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	if (off >= nh->nlmsg_len)
		return "";
	it.p = (const uint8_t *)nh + off;
	it.rem = nh->nlmsg_len - off;
	while ((d = nla_next(&it, &type, &plen)))
		if (type == NLMSGERR_ATTR_MSG && plen > 1 &&
		    memchr(d, '\0', plen))
			return (const char *)d;
	return "";
}

/* One datagram into a fresh *buf, whatever its size: 127 VFs say a lot. */
static ssize_t nl_recv(int fd, uint8_t **buf, char *err, size_t errlen)
{
	ssize_t n;

	do
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		err_set(err, errlen, "no answer from the kernel in %d s",
			NL_TIMEOUT_S);
		return -ETIMEDOUT;
	}
	if (n >= 0) {
		*buf = malloc(n > 0 ? (size_t)n : 1);
		if (!*buf) {
			err_set(err, errlen, "out of memory");
			return -ENOMEM;
		}
		n = recv(fd, *buf, (size_t)n, 0);
	}
	if (n < 0) {
		n = -errno;
		err_set(err, errlen, "rtnetlink receive: %s", strerror(errno));
	}
	return n;
}

/*
 * One message of the answer: 1 when it is not the one we wait for, else
 * the result: an NLMSG_ERROR's error (0 = the ACK), or the RTM_NEWLINK
 * parsed into *want.
 */
static int nl_answer(const struct nlmsghdr *nh, uint32_t seq, int vf,
		     struct nl_link *want, struct nl_vf_guids *all, char *err,
		     size_t errlen)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	const char *why;
	int r;

	if (nh->nlmsg_seq != seq)
		return 1;
	if (want && nh->nlmsg_type == RTM_NEWLINK) {
		if (all)
			all->n = 0;
		r = parse_link((const uint8_t *)nh, nh->nlmsg_len, vf, want,
			       all);
		if (r)
			err_set(err, errlen, "%s RTM_NEWLINK answer",
				r == -ENOMEM ? "out of memory for the"
					     : "malformed");
		return r;
	}
	if (nh->nlmsg_type != NLMSG_ERROR)
		return 1;
	if (nh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e)) {
		err_set(err, errlen, "short rtnetlink error message");
		return -EBADMSG;
	}
	r = e->error > 0 ? -EPROTO : e->error;
	if (!r)
		return 0;
	why = ext_ack_msg(nh);
	err_set(err, errlen, "%s%s%s%s", strerror(-r), *why ? " (kernel: " : "",
		why, *why ? ")" : "");
	return r;
}

/*
 * Sends req, then reads until the answer with its seq: an NLMSG_ERROR (0 is
 * the ACK) or, when want is set, the RTM_NEWLINK parsed into *want for vf.
 */
static int nl_talk(const uint8_t *req, size_t len, uint32_t seq, int vf,
		   struct nl_link *want, struct nl_vf_guids *all, char *err,
		   size_t errlen)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	int fd, r = 1;

	fd = nl_open(err, errlen);
	if (fd < 0)
		return fd;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&to, sizeof(to)) !=
	    (ssize_t)len) {
		r = -errno;
		err_set(err, errlen, "rtnetlink send: %s", strerror(-r));
	}
	while (r == 1) {
		const struct nlmsghdr *nh;
		uint8_t *buf = NULL;
		ssize_t n = nl_recv(fd, &buf, err, errlen);
		unsigned int left = n > 0 ? (unsigned int)n : 0;

		if (n < 0)
			r = (int)n;
		for (nh = (const struct nlmsghdr *)buf;
		     r == 1 && NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left))
			r = nl_answer(nh, seq, vf, want, all, err, errlen);
		free(buf);
	}
	close(fd);
	return r;
}

/* A sequence number, as iproute2 picks it: the time of day. */
static uint32_t nl_seq(void)
{
	return (uint32_t)time(NULL);
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
	return nl_talk(msg, (size_t)n, seq, vf, NULL, NULL, err, errlen);
}

int nl_link_get(int ifindex, int vf, struct nl_link *out, char *err,
		size_t errlen)
{
	uint8_t msg[NL_VF_MSG_MAX];
	uint32_t seq = nl_seq();
	int n;

	memset(out, 0, sizeof(*out));
	n = nl_getlink_msg(msg, sizeof(msg), seq, ifindex);
	if (n < 0) {
		err_set(err, errlen, "cannot build the link query: %s",
			strerror(-n));
		return n;
	}
	return nl_talk(msg, (size_t)n, seq, vf, out, NULL, err, errlen);
}

int nl_link_get_all(int ifindex, struct nl_link *out, struct nl_vf_guids *all,
		    char *err, size_t errlen)
{
	uint8_t msg[NL_VF_MSG_MAX];
	uint32_t seq = nl_seq();
	int n;

	memset(out, 0, sizeof(*out));
	all->n = 0;
	n = nl_getlink_msg(msg, sizeof(msg), seq, ifindex);
	if (n < 0) {
		err_set(err, errlen, "cannot build the link query: %s",
			strerror(-n));
		return n;
	}
	return nl_talk(msg, (size_t)n, seq, -1, out, all, err, errlen);
}
