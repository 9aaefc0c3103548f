/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Partition keys. Bit 15 is the membership bit (1 = full, 0 = limited); the
 * low 15 bits name the partition, so 0x8101 and 0x0101 are one partition.
 * 0x7fff is the default partition and 0x0000 is invalid: neither is ever
 * handed to a tenant.
 */
#ifndef ONEIB_PKEY_H
#define ONEIB_PKEY_H

#include <stdbool.h>
#include <stdint.h>

struct pkey {
	uint16_t raw;
};

#define PKEY_MEMBER_FULL 0x8000u
#define PKEY_DEFAULT 0x7fffu
#define PKEY_STRLEN 7 /* "0x8101" */

/* "0x8101", "0X0101" or decimal "257", whole string, 0..0xffff. */
int pkey_parse(const char *s, struct pkey *out);
void pkey_fmt(struct pkey p, char buf[PKEY_STRLEN]);

static inline uint16_t pkey_base(struct pkey p)
{
	return p.raw & 0x7fff;
}

static inline bool pkey_is_full(struct pkey p)
{
	return p.raw & PKEY_MEMBER_FULL;
}

/* Partition a tenant may be placed in: 0x0001..0x7ffe after masking bit 15. */
static inline bool pkey_tenant_ok(struct pkey p)
{
	return pkey_base(p) != 0 && pkey_base(p) != PKEY_DEFAULT;
}

#endif
