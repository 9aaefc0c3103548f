// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "guest/inet.h"

unsigned inet_len(const struct inet_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

int inet_parse(const char *s, int family, struct inet_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->family = family;
	a->plen = family == AF_INET ? 32 : 128;
	return inet_pton(family, s, a->a) == 1 ? 0 : -EINVAL;
}

int inet_parse_any(const char *s, struct inet_addr *a)
{
	if (!inet_parse(s, AF_INET, a))
		return 0;
	return inet_parse(s, AF_INET6, a);
}

int inet_mask_parse(const char *s, uint8_t *plen)
{
	struct inet_addr m;
	uint32_t v;
	unsigned p;

	if (s[0] >= '0' && s[0] <= '9' && strlen(s) <= 2 &&
	    s[strspn(s, "0123456789")] == '\0' && (s[0] != '0' || !s[1])) {
		p = (unsigned)(s[0] - '0');
		if (s[1])
			p = p * 10 + (unsigned)(s[1] - '0');
		if (p > 32)
			return -EINVAL;
		*plen = (uint8_t)p;
		return 0;
	}
	if (inet_parse(s, AF_INET, &m))
		return -EINVAL;
	v = (uint32_t)m.a[0] << 24 | (uint32_t)m.a[1] << 16 |
	    (uint32_t)m.a[2] << 8 | m.a[3];
	for (p = 0; p < 32 && (v & (0x80000000u >> p)); p++)
		;
	if (p < 32 && (v << p) != 0)
		return -EINVAL; /* 255.0.255.0: holes */
	*plen = (uint8_t)p;
	return 0;
}

void inet_fmt(const struct inet_addr *a, bool prefix, char buf[INET_FMT_LEN])
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->a, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	if (prefix)
		snprintf(buf, INET_FMT_LEN, "%s/%u", s, a->plen);
	else
		snprintf(buf, INET_FMT_LEN, "%s", s);
}

bool inet_equal(const struct inet_addr *x, const struct inet_addr *y)
{
	return x->family == y->family && x->plen == y->plen &&
	       !memcmp(x->a, y->a, inet_len(x));
}

bool inet_is_network(const struct inet_addr *a)
{
	unsigned i;

	for (i = 0; i < inet_len(a); i++) {
		unsigned bits = a->plen > i * 8 ? a->plen - i * 8 : 0;
		unsigned char keep =
			bits >= 8 ? 0xff : (unsigned char)(0xff00u >> bits);

		if (a->a[i] & (unsigned char)~keep)
			return false;
	}
	return true;
}

static const char *ip4_not_unicast(const unsigned char *b)
{
	static const unsigned char any[4], all[4] = { 255, 255, 255, 255 };

	if (b[0] == 127)
		return "a loopback address";
	if (!memcmp(b, any, 4))
		return "the unspecified address";
	if ((b[0] & 0xf0) == 0xe0)
		return "a multicast address";
	if (!memcmp(b, all, 4))
		return "the broadcast address";
	return NULL;
}

const char *inet_not_unicast(const struct inet_addr *a)
{
	static const unsigned char zero[16],
		mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (a->family == AF_INET)
		return ip4_not_unicast(a->a);
	if (!memcmp(a->a, mapped, sizeof(mapped)))
		return ip4_not_unicast(a->a + 12);
	if (!memcmp(a->a, zero, 15))
		return a->a[15] == 1   ? "a loopback address"
		       : a->a[15] == 0 ? "the unspecified address"
				       : NULL;
	if (a->a[0] == 0xff)
		return "a multicast address";
	return NULL;
}
