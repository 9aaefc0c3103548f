/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPv4 and IPv6 addresses with their prefix length, in one type for the
 * context's values and the kernel's (rtnetlink) alike, with one parser and
 * one formatter per textual form:
 *
 *   "10.11.0.5"            inet_parse(AF_INET)    plen 32
 *   "fd00:11::5"           inet_parse(AF_INET6)   plen 128
 *   "255.255.255.0", "24"  inet_mask_parse        -> 24
 *   {10.11.0.5, 24}        inet_fmt               "10.11.0.5/24" (or without /24)
 */
#ifndef ONEIB_INET_H
#define ONEIB_INET_H

#include <stdbool.h>
#include <stdint.h>

struct inet_addr {
	int family; /* AF_INET or AF_INET6 */
	unsigned char a[16]; /* network byte order; 4 bytes for AF_INET */
	uint8_t plen;
};

/* 0, or -EINVAL (a left zeroed but for family and the full plen). */
int inet_parse(const char *s, int family, struct inet_addr *a);
/* Either family, told apart by the text. */
int inet_parse_any(const char *s, struct inet_addr *a);
/* A dotted IPv4 mask without holes, or a prefix length "0".."32". */
int inet_mask_parse(const char *s, uint8_t *plen);

/* "10.11.0.5/24" with prefix, "10.11.0.5" without */
#define INET_FMT_LEN 52
void inet_fmt(const struct inet_addr *a, bool prefix, char buf[INET_FMT_LEN]);
/* Same family, address and prefix length. */
bool inet_equal(const struct inet_addr *x, const struct inet_addr *y);
/* Are the bits past plen zero? 10.12.0.0/16 yes, 10.12.0.1/16 no */
bool inet_is_network(const struct inet_addr *a);
/* 4 or 16 */
unsigned inet_len(const struct inet_addr *a);
/*
 * Why no NIC can have this address, or NULL when it can:
 *   127.0.0.0/8, ::1          "a loopback address"
 *   0.0.0.0, ::               "the unspecified address"
 *   224.0.0.0/4, ff00::/8     "a multicast address"
 *   255.255.255.255           "the broadcast address"
 * An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as its IPv4.
 */
const char *inet_not_unicast(const struct inet_addr *a);

#endif
