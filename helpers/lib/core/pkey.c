// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/pkey.h"

int pkey_parse(const char *s, struct pkey *out)
{
	unsigned long v = 0;
	int base = 10, digits = 0, d;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, digits++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		v = v * (unsigned long)base + (unsigned long)d;
		if (v > 0xffff)
			return -ERANGE;
	}
	if (digits == 0)
		return -EINVAL;
	out->raw = (uint16_t)v;
	return 0;
}

void pkey_fmt(struct pkey p, char buf[PKEY_STRLEN])
{
	snprintf(buf, PKEY_STRLEN, "0x%04x", p.raw);
}
