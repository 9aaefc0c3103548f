// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/nlmsg.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* How long the kernel may take to answer before we give up. */
#define NL_TIMEOUT_S 5

void nlb_init(struct nlb *b, uint8_t *buf, size_t cap)
{
	b->buf = buf;
	b->cap = cap;
	b->off = 0;
	b->full = false;
}

/* Room for n more bytes? Otherwise the message is marked as not fitting. */
static bool nlb_room(struct nlb *b, size_t n)
{
	if (b->full || b->cap - b->off < n) {
		b->full = true;
		return false;
	}
	return true;
}

void nlb_head(struct nlb *b, uint16_t type, uint16_t flags, uint32_t seq,
	      const void *fam, size_t famlen)
{
	struct nlmsghdr nh = { .nlmsg_type = type,
			       .nlmsg_flags = flags,
			       .nlmsg_seq = seq };

	b->off = 0;
	if (!nlb_room(b, NLMSG_HDRLEN + NLMSG_ALIGN(famlen)))
		return;
	memcpy(b->buf, &nh, sizeof(nh));
	memset(b->buf + sizeof(nh), 0, NLMSG_HDRLEN - sizeof(nh));
	memcpy(b->buf + NLMSG_HDRLEN, fam, famlen);
	memset(b->buf + NLMSG_HDRLEN + famlen, 0, NLMSG_ALIGN(famlen) - famlen);
	b->off = NLMSG_HDRLEN + NLMSG_ALIGN(famlen);
}

size_t nlb_put(struct nlb *b, uint16_t type, const void *data, size_t len)
{
	struct nlattr nla = { .nla_len = (uint16_t)(NLA_HDRLEN + len),
			      .nla_type = type };
	size_t at = b->off;

	if (len > UINT16_MAX - NLA_HDRLEN ||
	    !nlb_room(b, NLA_HDRLEN + NLA_ALIGN(len)))
		return at;
	memcpy(b->buf + at, &nla, sizeof(nla));
	if (len)
		memcpy(b->buf + at + NLA_HDRLEN, data, len);
	/* padding of a 6-byte payload, say */
	memset(b->buf + at + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	b->off = at + NLA_HDRLEN + NLA_ALIGN(len);
	return at;
}

void nlb_put_u16(struct nlb *b, uint16_t type, uint16_t v)
{
	nlb_put(b, type, &v, sizeof(v));
}

void nlb_put_u32(struct nlb *b, uint16_t type, uint32_t v)
{
	nlb_put(b, type, &v, sizeof(v));
}

void nlb_put_str(struct nlb *b, uint16_t type, const char *s)
{
	nlb_put(b, type, s, strlen(s) + 1);
}

size_t nlb_nest(struct nlb *b, uint16_t type)
{
	return nlb_put(b, type, NULL, 0);
}

void nlb_nest_end(struct nlb *b, size_t at)
{
	uint16_t len = (uint16_t)(b->off - at);

	if (b->full)
		return;
	memcpy(b->buf + at + offsetof(struct nlattr, nla_len), &len,
	       sizeof(len));
}

int nlb_done(struct nlb *b)
{
	uint32_t l = (uint32_t)b->off;

	if (b->full || b->off < NLMSG_HDRLEN)
		return -ENOSPC;
	memcpy(b->buf + offsetof(struct nlmsghdr, nlmsg_len), &l, sizeof(l));
	return (int)b->off;
}

const uint8_t *nla_next(struct nla_iter *it, uint16_t *type, size_t *plen)
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

void nla_iter_msg(struct nla_iter *it, const struct nlmsghdr *nh, size_t famlen)
{
	size_t head = NLMSG_HDRLEN + NLMSG_ALIGN(famlen);

	it->p = (const uint8_t *)nh + head;
	it->rem = nh->nlmsg_len > head ? nh->nlmsg_len - head : 0;
}

uint32_t nl_seq(void)
{
	return (uint32_t)time(NULL);
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
		do
			n = recv(fd, *buf, (size_t)n, 0);
		while (n < 0 && errno == EINTR);
	}
	if (n < 0) {
		n = -errno;
		err_set(err, errlen, "rtnetlink receive: %s", strerror(errno));
	}
	return n;
}

/* An NLMSG_ERROR: its error (0 = the ACK), the reason in err. */
static int nl_error(const struct nlmsghdr *nh, char *err, size_t errlen)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	const char *why;
	int r;

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
 * One message of the answer: 1 when the request is not done yet, else
 * its result.
 */
static int nl_answer(const struct nlmsghdr *nh, const struct nlmsghdr *req,
		     nl_answer_fn cb, void *arg, char *err, size_t errlen)
{
	if (nh->nlmsg_seq != req->nlmsg_seq)
		return 1;
	if (nh->nlmsg_type == NLMSG_ERROR)
		return nl_error(nh, err, errlen);
	if (nh->nlmsg_type == NLMSG_DONE) {
		int e = 0;

		/* a dump that failed half way says so here */
		if (nh->nlmsg_len >= NLMSG_HDRLEN + sizeof(e))
			memcpy(&e, NLMSG_DATA(nh), sizeof(e));
		if (e < 0)
			err_set(err, errlen, "%s", strerror(-e));
		return e < 0 ? e : 0;
	}
	if (cb) {
		int r = cb(nh, arg, err, errlen);

		if (r < 0)
			return r;
	}
	/* the one answer to a request without ACK that is not a dump */
	if (!(nh->nlmsg_flags & NLM_F_MULTI) && !(req->nlmsg_flags & NLM_F_ACK))
		return 0;
	return 1;
}

int nl_request(const uint8_t *req, size_t len, nl_answer_fn cb, void *arg,
	       char *err, size_t errlen)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct nlmsghdr head;
	int fd, r = 1;

	if (len < sizeof(head)) {
		err_set(err, errlen, "short rtnetlink request");
		return -EINVAL;
	}
	memcpy(&head, req, sizeof(head));
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
			r = nl_answer(nh, &head, cb, arg, err, errlen);
		free(buf);
	}
	close(fd);
	return r;
}
