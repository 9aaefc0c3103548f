// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "guid.h"

/*
 * Groups of `width` hex digits separated by ':' (exactly `groups` of them):
 * sysfs = 4 x 4, bytes = 8 x 2, MAC = 6 x 2.
 */
static int parse_groups(const char *s, int groups, int width, uint64_t *out)
{
	uint64_t v = 0;
	int g, i;

	if (!s || strlen(s) != (size_t)(groups * (width + 1) - 1))
		return -EINVAL;
	for (g = 0; g < groups; g++) {
		for (i = 0; i < width; i++) {
			int d = hex_digit(*s++);
			if (d < 0)
				return -EINVAL;
			v = v << 4 | (uint64_t)d;
		}
		if (g < groups - 1 && *s++ != ':')
			return -EINVAL;
	}
	*out = v;
	return 0;
}

int guid_parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n > 16)
		return -EINVAL;
	for (; *s; s++) {
		int d = hex_digit(*s);
		if (d < 0)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

int guid_parse_sysfs(const char *s, uint64_t *out)
{
	return parse_groups(s, 4, 4, out);
}

int guid_parse_bytes(const char *s, uint64_t *out)
{
	return parse_groups(s, 8, 2, out);
}

int guid_parse(const char *s, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	if (strlen(s) == 19)
		return guid_parse_sysfs(s, out);
	if (strlen(s) == 23)
		return guid_parse_bytes(s, out);
	return guid_parse_hex(s, out);
}

void guid_fmt_hex(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "0x%016llx", (unsigned long long)g);
}

void guid_fmt_sysfs(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "%04x:%04x:%04x:%04x",
		 (unsigned)(g >> 48) & 0xffff, (unsigned)(g >> 32) & 0xffff,
		 (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

void guid_fmt_bytes(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned)(g >> 56) & 0xff, (unsigned)(g >> 48) & 0xff,
		 (unsigned)(g >> 40) & 0xff, (unsigned)(g >> 32) & 0xff,
		 (unsigned)(g >> 24) & 0xff, (unsigned)(g >> 16) & 0xff,
		 (unsigned)(g >> 8) & 0xff, (unsigned)g & 0xff);
}

int mac_parse(const char *s, uint64_t *out)
{
	return parse_groups(s, 6, 2, out);
}

void mac_fmt(uint64_t mac, char buf[MAC_STRLEN])
{
	snprintf(buf, MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned)(mac >> 40) & 0xff, (unsigned)(mac >> 32) & 0xff,
		 (unsigned)(mac >> 24) & 0xff, (unsigned)(mac >> 16) & 0xff,
		 (unsigned)(mac >> 8) & 0xff, (unsigned)mac & 0xff);
}

/* 02:00:c0 | ff:fe | a8:01:05 */
uint64_t guid_from_mac(uint64_t mac)
{
	return (mac >> 24) << 40 | (uint64_t)0xfffe << 24 | (mac & 0xffffff);
}
