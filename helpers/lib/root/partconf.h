/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opensm's partitions.conf as one-ib writes it, and the strict reader of
 * exactly that: the one grammar between the renderer (unprivileged) and the
 * root installer on the subnet manager's host. Example:
 *
 *   # oneib-partitions: generated from the cloud's state, do not edit
 *   # refused: VNET 9 (lab): IB_SL '16' is not a service level 0..15; left out, its installed partition kept
 *   Default=0x7fff, ipoib : ALL=limited, SELF=full ;
 *   vnet5_tenant-a=0x0101, ipoib, mtu=5 :
 *   	0x0002c90300a1b2c1=full,
 *   	0x02000000002a0001=full ;
 *   vnet7_tenant-b=0x0102, ipoib :
 *   	;
 *
 * Why so strict: opensm reads a file it cannot parse as "no partitions"
 * and puts every port in the default partition, and it reads what it can
 * in its own way: lines with fgets() into a 4096-byte buffer (a longer line
 * is cut and its rest read as a new line, even inside a comment), only
 * ' ', '\t' and '\n' as blanks ('\r' would end up inside a GUID), 31
 * characters of a name (char name[32], osm_partition.h). So the reader
 * takes printable ASCII, tabs and newlines only, lines of at most 4093
 * characters, the Default line exactly as written, then
 *   NAME=0xPPPP, ipoib[, mtu=1..5][, rate=2..24][, sl=0..15] :
 *   	0x<16 hex>=full, ... ;
 * with P_Keys increasing, members increasing and every member full, and
 * the "# refused: " comments as notes (what the renderer left out and
 * why, for `verify` on the SM's host).
 */
#ifndef ONEIB_PARTCONF_H
#define ONEIB_PARTCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/* opensm keeps char name[32] (strncpy of 31 characters and a NUL). */
#define PARTCONF_NAME_MAX 31
/* What one-ib wrote before the limit: "one_vnet_<ID>_" + 32 characters. */
#define PARTCONF_OLD_NAME_MAX 63
/* fgets(line, sizeof(line) - 1) into char line[4096]: 4094 with '\n'. */
#define PARTCONF_LINE_MAX 4093

/* One P_Key table entry is the default; the rest may be tenant keys. */
#define PARTITIONS_MLX4_MAX_PKEYS 127

struct partition {
	char name[PARTCONF_OLD_NAME_MAX + 1]; /* "vnet5_tenant-a" */
	uint16_t pkey; /* low 15 bits: 0x0001..0x7ffe */
	bool ipoib;
	int mtu; /* opensm enum 1..5 (256..4096), 0 = not given */
	int rate; /* opensm enum 2..24, 0 = not given */
	int sl; /* 0..15, -1 = not given */
	uint64_t *guids; /* sorted, unique, all full members */
	size_t n;
};

struct partitions {
	struct partition *p; /* sorted by pkey, unique */
	size_t n;
	char **notes; /* "VNET 9 (lab): ...; left out, ..." */
	size_t nnotes, capnotes;
};

/* The file text, appended to out. 0 or -ENOMEM. */
int partconf_render(const struct partitions *m, struct strbuf *out);

#define PARTCONF_OLD_NAMES 1u /* names up to 63 characters (reading only) */

/*
 * The strict reader. Anything else is -EINVAL with one line in err naming
 * the line, e.g.
 *   partitions.conf line 4: partition name longer than the 31 characters opensm keeps
 * On error *out is empty.
 */
int partconf_parse(const char *text, size_t len, unsigned flags,
		   struct partitions *out, char *err, size_t errlen);

/*
 * What the root installer asks: is text exactly what partconf_render writes
 * for the model it reads as (so nothing can differ between what was
 * checked and what opensm reads)? 0 with *out, or -EINVAL and err.
 */
int partconf_canonical(const char *text, size_t len, struct partitions *out,
		       char *err, size_t errlen);

bool partitions_equal(const struct partitions *a, const struct partitions *b);

/* Parses text and compares it with m: 0, or -EINVAL with the reason. */
int partconf_check(const char *text, size_t len, const struct partitions *m,
		   char *err, size_t errlen);

size_t partitions_members(const struct partitions *m);
void partitions_free(struct partitions *m);

/* A note added to m (copied). 0 or -ENOMEM. */
int partitions_add_note(struct partitions *m, const char *note);

#endif
