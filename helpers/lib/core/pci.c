// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/pci.h"

/* n hex digits at s into *v; -1 when any is not hex. */
static int hexfield(const char *s, int n, unsigned *v)
{
	unsigned acc = 0;
	int i;

	for (i = 0; i < n; i++) {
		int d = hex_digit(s[i]);
		if (d < 0)
			return -1;
		acc = acc * 16 + (unsigned)d;
	}
	*v = acc;
	return 0;
}

/* "0000:3b:00.2" -> {0, 0x3b, 0, 2}; "3b:00.2", "0000:3b:0.2" -> -EINVAL */
int pci_addr_parse(const char *s, struct pci_addr *out)
{
	unsigned dom, bus, slot, func;

	if (!s || strlen(s) != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.')
		return -EINVAL;
	if (hexfield(s, 4, &dom) || hexfield(s + 5, 2, &bus) ||
	    hexfield(s + 8, 2, &slot) || hexfield(s + 11, 1, &func))
		return -EINVAL;
	if (slot > 31 || func > 7)
		return -EINVAL;
	out->domain = (uint16_t)dom;
	out->bus = (uint8_t)bus;
	out->slot = (uint8_t)slot;
	out->func = (uint8_t)func;
	return 0;
}

int pci_addr_parse_one(const char *s, struct pci_addr *out)
{
	char k[PCI_ADDR_STRLEN];

	if (!s || strlen(s) != 12)
		return -EINVAL;
	memcpy(k, s, 13);
	if (k[10] == ':')
		k[10] = '.';
	return pci_addr_parse(k, out);
}

int pci_addr_parse_short(const char *s, struct pci_addr *out)
{
	char k[PCI_ADDR_STRLEN];

	if (!s || strlen(s) != 7)
		return -EINVAL;
	snprintf(k, sizeof(k), "0000:%s", s);
	return pci_addr_parse(k, out);
}

/* v in lowercase hex, at least width digits (as "%0*x"); past the end. */
static char *put_hex(char *p, unsigned v, int width)
{
	static const char digits[] = "0123456789abcdef";
	int n = 1;

	while (n < 8 && v >> (4 * n))
		n++;
	if (n < width)
		n = width;
	for (int i = n - 1; i >= 0; i--)
		*p++ = digits[v >> (4 * i) & 0xf];
	return p;
}

/*
 * "%04x:%02x:%02x.%x" by hand: oneib-discover formats thousands of VF
 * addresses on a big host, and snprintf was most of that cost. The widest
 * value of each field (ffff:ff:ff.ff) still fits PCI_ADDR_STRLEN.
 */
void pci_addr_fmt(const struct pci_addr *a, char buf[PCI_ADDR_STRLEN])
{
	char *p = buf;

	p = put_hex(p, a->domain, 4);
	*p++ = ':';
	p = put_hex(p, a->bus, 2);
	*p++ = ':';
	p = put_hex(p, a->slot, 2);
	*p++ = '.';
	p = put_hex(p, a->func, 1);
	*p = '\0';
}

int pci_addr_cmp(const struct pci_addr *a, const struct pci_addr *b)
{
	uint32_t x = (uint32_t)a->domain << 16 | (uint32_t)a->bus << 8 |
		     (uint32_t)a->slot << 3 | a->func;
	uint32_t y = (uint32_t)b->domain << 16 | (uint32_t)b->bus << 8 |
		     (uint32_t)b->slot << 3 | b->func;

	return x < y ? -1 : x > y;
}
