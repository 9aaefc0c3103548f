/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtnetlink for what oneib-context sets up inside a guest: links (MTU, up,
 * IPoIB P_Key children), addresses and routes; no `ip`, no shell.
 *
 * The P_Key child messages are laid out as iproute2 6.1 lays them out,
 * byte for byte (tests/fixtures/netlink/ipoib_*.hex):
 *
 *   ip link add link ib0 name ib0.8011 type ipoib pkey 0x8011 mode datagram
 *     RTM_NEWLINK  NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE
 *     ifinfomsg    AF_UNSPEC, ifi_index 0
 *     IFLA_LINK u32 = ib0's ifindex    IFLA_IFNAME "ib0.8011"
 *     IFLA_LINKINFO { IFLA_INFO_KIND "ipoib" (5 bytes, no NUL),
 *                     IFLA_INFO_DATA { IFLA_IPOIB_PKEY u16 0x8011,
 *                                      IFLA_IPOIB_MODE u16 0 (1 connected) } }
 *   ip link del dev ib0.8011
 *     RTM_DELLINK  NLM_F_REQUEST | NLM_F_ACK, ifinfomsg { AF_UNSPEC, ib0.8011 }
 *
 * The kernel hands the first to ipoib_new_child_link (ib_ipoib), which
 * refuses a parent that is no IPoIB netdev, a child of a child, and pkey 0
 * or 0x8000.
 */
#ifndef ONEIB_RTNL_H
#define ONEIB_RTNL_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest/inet.h"
#include "guest/ipoib.h"

/* Longest message built here: a route, or an ipoib child (92 bytes). */
#define RTNL_MSG_MAX 256

int rtnl_ipoib_add_msg(uint8_t *buf, size_t len, uint32_t seq, int parent,
		       const char *name, uint16_t pkey, enum ipoib_mode mode);
int rtnl_link_del_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex);

/* What a link dump says about one link. */
struct rtnl_link {
	int ifindex;
	char name[IF_NAMESIZE];
	unsigned type; /* ARPHRD_*: 32 InfiniBand, 1 Ethernet */
	unsigned flags; /* IFF_UP, ... */
	unsigned mtu;
	int parent; /* IFLA_LINK: an IPoIB child's parent; 0 none */
	char kind[16]; /* IFLA_INFO_KIND: "ipoib", "veth"; "" none */
	bool ipoib; /* IFLA_INFO_DATA of an ipoib link was there */
	uint16_t pkey, mode; /* IFLA_IPOIB_PKEY, IFLA_IPOIB_MODE */
};

struct rtnl_links {
	struct rtnl_link *v;
	size_t n, alloc;
};

/* Every link of this network namespace. 0, or -errno with err. */
int rtnl_links_get(struct rtnl_links *out, char *err, size_t errlen);
const struct rtnl_link *rtnl_link_find(const struct rtnl_links *l,
				       const char *name);
void rtnl_links_free(struct rtnl_links *l);

int rtnl_ipoib_add(int parent, const char *name, uint16_t pkey,
		   enum ipoib_mode mode, char *err, size_t errlen);
int rtnl_link_del(int ifindex, char *err, size_t errlen);
/* MTU (0: left as it is) and IFF_UP on or off. */
int rtnl_link_set(int ifindex, unsigned mtu, bool up, char *err, size_t errlen);

/* An address of a link. */
struct rtnl_addr {
	int ifindex;
	struct inet_addr a; /* with its prefix length */
};

struct rtnl_addrs {
	struct rtnl_addr *v;
	size_t n, alloc;
};

/* Every IPv4 and IPv6 address of this network namespace. */
int rtnl_addrs_get(struct rtnl_addrs *out, char *err, size_t errlen);
bool rtnl_addr_has(const struct rtnl_addrs *l, int ifindex,
		   const struct inet_addr *a);
void rtnl_addrs_free(struct rtnl_addrs *l);
int rtnl_addr_add(int ifindex, const struct inet_addr *a, char *err,
		  size_t errlen);
int rtnl_addr_del(int ifindex, const struct inet_addr *a, char *err,
		  size_t errlen);

/* A unicast route of the main table through one gateway on one link. */
struct rtnl_route {
	struct inet_addr dst; /* 0.0.0.0/0 for the default route */
	struct inet_addr gw;
	int oif;
	uint32_t metric; /* RTA_PRIORITY; IPv6 has 1024 where none is given */
};

struct rtnl_routes {
	struct rtnl_route *v;
	size_t n, alloc;
};

/* The main table's unicast routes via a gateway, both families. */
int rtnl_routes_get(struct rtnl_routes *out, char *err, size_t errlen);
bool rtnl_route_has(const struct rtnl_routes *l, const struct rtnl_route *r);
void rtnl_routes_free(struct rtnl_routes *l);
int rtnl_route_add(const struct rtnl_route *r, char *err, size_t errlen);
int rtnl_route_del(const struct rtnl_route *r, char *err, size_t errlen);

#endif
