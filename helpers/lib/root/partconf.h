/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opensm's partitions.conf: the one grammar between the operator's static
 * file, the renderer (unprivileged) and the root installer on the subnet
 * manager's host. One reader for all three; what each may hold differs:
 *
 *   the rendered file (what partconf_render writes, the installer takes
 *   nothing else: partconf_canonical):
 *
 *   # oneib-partitions: generated from the cloud's state, do not edit
 *   # refused: VNET 9 (lab): IB_SL '16' is not a service level 0..15; left out, its installed partition kept
 *   # from: one-ib
 *   Default=0x7fff, ipoib : ALL=limited, SELF=full ;
 *   # from: the static file, with the cloud's hosts
 *   infra=0x0105, ipoib :
 *   	0x0002c903000c0001=full,
 *   	0x248a070300001001=full ;
 *   # from: one-ib
 *   vnet5_tenant-a=0x0101, ipoib, mtu=5 :
 *   	0x0002c90300a1b2c1=full,
 *   	0x02000000002a0001=full ;
 *   # from: one-ib
 *   vnet9_storage=0x0109, ipoib :
 *   	0x0002c903000a0001=full,
 *   	0x02000000002a0002=limited ;
 *
 *   Each partition says where it came from ("# from: one-ib" for the
 *   default partition as one-ib writes it and for every network's,
 *   "# from: the static file" for the operator's), so the next run can
 *   tell its own partitions from ones somebody else wrote.
 *
 *   the operator's static file (PARTCONF_STATIC), opensm's own grammar as
 *   far as one-ib reads it, e.g.
 *
 *   Default=0x7fff, ipoib : ALL=limited, SELF=full ;   # may be defined here
 *   infra=0x105, ipoib, defmember=full :
 *       0x0002C903000C0001,                  # login node
 *       0x0002c903000a0001, 0x0002c903000b0001 ;   # storage
 *
 *   NAME=PKEY[, ipoib][, mtu=1..5][, rate=2..24][, sl=0..15]
 *        [, defmember=full|limited|both] : [MEMBER[, MEMBER]...] ;
 *   MEMBER = 0x<1..16 hex digits>[=full|=limited|=both]
 *          | ALL | ALL_CAS | ALL_SWITCHES | ALL_ROUTERS | SELF, with the same
 *   over as many lines as it likes, '#' comments anywhere. Nothing of the
 *   operator's may make a tenant port a full member (design decision 11):
 *   ALL=full and ALL_CAS=full (every tenant VF), and a GUID of the range
 *   one-ib hands out (guid_assignable: 02:CC:..., and the old MAC form) as
 *   a full member, are refused, as are names of one-ib's own form
 *   (vnet<ID>..., one_vnet_...), a P_Key, name or member given twice, and
 *   opensm's flags and members one-ib does not read (scope, Q_Key, mgid=,
 *   ...): one line naming the line and why, e.g.
 *     partitions.static.conf line 4: ALL=full would make every tenant VF a full member of infra (0x0105)
 *
 * Why so strict: opensm reads a file it cannot parse as "no partitions"
 * and puts every port in the default partition, and it reads what it can
 * in its own way: lines with fgets() into a 4096-byte buffer (a longer line
 * is cut and its rest read as a new line, even inside a comment), only
 * ' ', '\t' and '\n' as blanks ('\r' would end up inside a GUID), 31
 * characters of a name (char name[32], osm_partition.h), one partition per
 * P_Key (a second definition adds to the first). So the reader takes
 * printable ASCII, tabs and newlines only, lines of at most 4093
 * characters, and the "# refused: " comments as notes (what the renderer
 * left out and why, for `verify` on the SM's host).
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

#define PKEY_DEFAULT_PARTITION 0x7fff

/* A member's membership: bit 0 limited, bit 1 full; both = two entries. */
enum pmember {
	PM_NONE = 0,
	PM_LIMITED = 1,
	PM_FULL = 2,
	PM_BOTH = 3,
};

/* opensm's member keywords, in the order they are written. */
enum pkeyword {
	PKW_ALL,
	PKW_ALL_CAS,
	PKW_ALL_SWITCHES,
	PKW_ALL_ROUTERS,
	PKW_SELF,
	PKW_COUNT,
};
extern const char *const partconf_keyword[PKW_COUNT];

/* Where a partition came from ("# from: ..." before it). */
enum porigin {
	PO_UNKNOWN, /* a file without the marks (before they existed) */
	PO_ONEIB, /* one-ib's default partition, a network's partition */
	PO_STATIC, /* the operator's static file */
	PO_STATIC_HOSTS, /* ... with every cloud host's PF ports added */
};

struct partition {
	char name[PARTCONF_OLD_NAME_MAX + 1]; /* "vnet5_tenant-a" */
	uint16_t pkey; /* low 15 bits: 0x0001..0x7ffe, 0x7fff the default */
	bool ipoib;
	int mtu; /* opensm enum 1..5 (256..4096), 0 = not given */
	int rate; /* opensm enum 2..24, 0 = not given */
	int sl; /* 0..15, -1 = not given */
	enum porigin origin;
	uint8_t kw[PKW_COUNT]; /* enum pmember of ALL, ALL_CAS, ... */
	uint64_t *guids; /* full members, sorted, unique */
	size_t n;
	uint64_t *limited; /* limited members, sorted, unique */
	size_t nlimited;
	int line; /* where its name was read, 0 when built */
};

struct partitions {
	struct partition *p; /* sorted by pkey, unique, none 0x7fff */
	size_t n;
	/*
	 * The default partition when it is not one-ib's own
	 * "Default=0x7fff, ipoib : ALL=limited, SELF=full ;" (NULL): the
	 * operator's, from the static file.
	 */
	struct partition *def;
	char **notes; /* "VNET 9 (lab): ...; left out, ..." */
	size_t nnotes, capnotes;
	bool oneib; /* read: the file starts with one-ib's first line */
	int def_line; /* read: the line of its default partition, 0: none */
};

/*
 * Partition i of m, the partitions first and the default one last
 * (i == m->n: m->def, NULL when it is one-ib's own).
 */
const struct partition *partitions_at(const struct partitions *m, size_t i);

/* The file text, appended to out. 0 or -ENOMEM. */
int partconf_render(const struct partitions *m, struct strbuf *out);

/*
 * The same without the default partition: what goes into NVIDIA UFM's
 * partitions.conf.user_ext, which UFM merges into the partitions.conf it
 * generates, its own default partition included (UFM Enterprise User
 * Manual, "Appendix - Partitioning"; root/partinstall.h). A second
 * default partition there would add to UFM's, never take a member away.
 */
int partconf_render_ufm(const struct partitions *m, struct strbuf *out);

/*
 * How much of the grammar a file may use (flags of partconf_parse):
 *   0                 a file one-ib writes: every partition either
 *                     one-ib's or the operator's; nothing makes a tenant
 *                     port a full member but a network's own partition
 *   PARTCONF_STATIC   the operator's static file: every partition is the
 *                     operator's (the rules above), no notes, no marks
 *   PARTCONF_ANY      any file opensm reads as far as the grammar goes
 *                     (the file installed now, which somebody else may
 *                     have written): no rule but the grammar; names up
 *                     to 63 characters (one-ib wrote those once)
 */
#define PARTCONF_STATIC 1u
#define PARTCONF_ANY 2u

/*
 * The reader. Anything else is -EINVAL with one line in err naming the
 * line, e.g.
 *   partitions.conf line 4: partition name longer than the 31 characters opensm keeps
 * (label instead of "partitions.conf" with partconf_parse_as). On error
 * *out is empty.
 */
int partconf_parse(const char *text, size_t len, unsigned flags,
		   struct partitions *out, char *err, size_t errlen);
int partconf_parse_as(const char *label, const char *text, size_t len,
		      unsigned flags, struct partitions *out, char *err,
		      size_t errlen);

/*
 * What the root installer asks: is text exactly what partconf_render writes
 * for the model it reads as (so nothing can differ between what was
 * checked and what opensm reads)? 0 with *out, or -EINVAL and err.
 */
int partconf_canonical(const char *text, size_t len, struct partitions *out,
		       char *err, size_t errlen);

bool partitions_equal(const struct partitions *a, const struct partitions *b);
bool partition_equal(const struct partition *a, const struct partition *b);

/* Parses text and compares it with m: 0, or -EINVAL with the reason. */
int partconf_check(const char *text, size_t len, const struct partitions *m,
		   char *err, size_t errlen);

/* Member GUIDs, full and limited, of every partition (the default's too). */
size_t partitions_members(const struct partitions *m);
void partitions_free(struct partitions *m);
void partition_free(struct partition *p);

/* A deep copy of p into out. 0 or -ENOMEM (out then empty). */
int partition_copy(struct partition *out, const struct partition *p);

/* The partition with P_Key pkey (low 15 bits), or NULL; 0x7fff: m->def. */
const struct partition *partitions_find(const struct partitions *m,
					uint16_t pkey);
/* ... called name, or NULL. */
const struct partition *partitions_find_name(const struct partitions *m,
					     const char *name);

/* g's membership in p (enum pmember): as a listed GUID only. */
enum pmember partition_member(const struct partition *p, uint64_t g);

/*
 * p's members in GUID order, each once with its membership, the two lists
 * merged; PM_NONE when there are no more:
 *   struct member_iter it = { 0, 0 };
 *   while ((pm = partition_next_member(p, &it, &g))) ...
 */
struct member_iter {
	size_t i, j; /* next of p->guids, of p->limited */
};
enum pmember partition_next_member(const struct partition *p,
				   struct member_iter *it, uint64_t *g);

/*
 * Adds g with membership pm (PM_FULL or PM_LIMITED) to p, keeping the
 * lists sorted. As opensm adds a port met twice: full replaces limited,
 * limited adds nothing to full. 0 or -ENOMEM.
 */
int partition_add_member(struct partition *p, uint64_t g, enum pmember pm);

/* "vnet7_tenant-b" (and the names written before: "one_vnet_7_...") -> 7,
 * or -1: the names of one-ib's networks' partitions. */
int partition_vnet_id(const char *name);

/* A note added to m (copied). 0 or -ENOMEM. */
int partitions_add_note(struct partitions *m, const char *note);

#endif
