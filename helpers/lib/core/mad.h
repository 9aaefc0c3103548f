/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MAD fields are big-endian at fixed byte offsets (IBA vol. 1, 13.4): the
 * one set of readers and writers every MAD of one-ib is built and read
 * with, the directed-route SMPs (core/smp.c) and their attribute data
 * (fabric/smp.c) as the SA queries (core/sapath.c), e.g. put16(mad +
 * 16, 0x0035) for the PathRecord attribute ID.
 */
#ifndef ONEIB_MAD_H
#define ONEIB_MAD_H

#include <stdint.h>

#define MAD_LEN 256 /* every MAD; ibsim passes no more (no RMPP) */

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

#endif
