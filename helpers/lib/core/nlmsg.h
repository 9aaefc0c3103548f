/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Netlink messages, built and read the way iproute2 builds and reads them,
 * and one request/answer exchange with the kernel on NETLINK_ROUTE. The
 * modules that speak rtnetlink (netlink.c: mlx5 VF settings on a host;
 * rtnl.c: links, addresses, routes and IPoIB children in a guest) build
 * their messages here:
 *
 *   struct nlb b;
 *   nlb_init(&b, buf, sizeof(buf));
 *   nlb_head(&b, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq, &ifi, sizeof(ifi));
 *   at = nlb_nest(&b, IFLA_LINKINFO);           nests without NLA_F_NESTED,
 *   nlb_put(&b, IFLA_INFO_KIND, "ipoib", 6);    as iproute2's addattr_nest
 *   nlb_nest_end(&b, at);
 *   n = nlb_done(&b);                           length, or -ENOSPC
 *
 * Every byte of the message is written (padding included), so a message is
 * the same bytes whatever the buffer held before.
 */
#ifndef ONEIB_NLMSG_H
#define ONEIB_NLMSG_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlb {
	uint8_t *buf;
	size_t cap, off;
	bool full; /* something did not fit: nlb_done() says -ENOSPC */
};

void nlb_init(struct nlb *b, uint8_t *buf, size_t cap);
/* nlmsghdr (pid 0, length patched by nlb_done) and the family header. */
void nlb_head(struct nlb *b, uint16_t type, uint16_t flags, uint32_t seq,
	      const void *fam, size_t famlen);
/* One attribute; returns its offset (for nlb_nest_end). */
size_t nlb_put(struct nlb *b, uint16_t type, const void *data, size_t len);
void nlb_put_u16(struct nlb *b, uint16_t type, uint16_t v);
void nlb_put_u32(struct nlb *b, uint16_t type, uint32_t v);
/* A NUL-terminated string attribute, the NUL included ("ib0.8011\0"). */
void nlb_put_str(struct nlb *b, uint16_t type, const char *s);
size_t nlb_nest(struct nlb *b, uint16_t type);
void nlb_nest_end(struct nlb *b, size_t at);
/* Patches nlmsg_len; the message length, or -ENOSPC. */
int nlb_done(struct nlb *b);

/*
 * Attribute walking over [p, p + rem): each call yields the next attribute
 * whose header and payload fit, NULL at the end or at a malformed one.
 */
struct nla_iter {
	const uint8_t *p;
	size_t rem;
};

const uint8_t *nla_next(struct nla_iter *it, uint16_t *type, size_t *plen);
/* The attributes after a message's family header of famlen bytes. */
void nla_iter_msg(struct nla_iter *it, const struct nlmsghdr *nh,
		  size_t famlen);

/*
 * Answers to one request: called for every message carrying its seq
 * except NLMSG_DONE and the ACK. 0 to go on, negative to stop with that
 * result (err filled by the callback).
 */
typedef int (*nl_answer_fn)(const struct nlmsghdr *nh, void *arg, char *err,
			    size_t errlen);

/*
 * Sends req on a fresh NETLINK_ROUTE socket and reads the answers (5 s at
 * most for each) until the request is done: its NLMSG_ERROR (0 is the
 * ACK), NLMSG_DONE after a dump, or a single answer that is not part of a
 * dump (RTM_GETLINK of one ifindex without NLM_F_ACK). 0, the kernel's
 * -errno, or cb's result; err gets the reason in words with the kernel's
 * extended ack message when it sent one:
 *   "Operation not supported (kernel: Unknown device type)"
 */
int nl_request(const uint8_t *req, size_t len, nl_answer_fn cb, void *arg,
	       char *err, size_t errlen);

/* A sequence number, as iproute2 picks it: the time of day. */
uint32_t nl_seq(void);

#endif
