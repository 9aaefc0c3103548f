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
 *   infra=0x0105, ipoib : 0x0002c903000c0001=full,   # login
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
 *   "# from: the static file" for each definition of the operator's), so
 *   the next run can tell its own partitions from ones somebody else
 *   wrote: one-ib's default partition first, the operator's definitions
 *   as written and in their order, then the networks' by key.
 *
 *   the operator's static file (PARTCONF_STATIC) is read as opensm
 *   3.3.23 reads it (osm_prtn_config.c, unchanged since; the reader is
 *   one-ib's own, written from its behaviour), and each of its
 *   definitions is carried verbatim, from its first byte to its ';'
 *   (comments inside it kept, what is between definitions dropped), so
 *   opensm reads exactly what the operator wrote:
 *
 *   # from: the static file
 *   storage=0x0200, ipoib : 0x0002c903000a0001=full, ALL_CAS=limited ;
 *   # from: the static file, with the cloud's hosts
 *   infra=0x105, ipoib, defmember=full :
 *       0x0002C903000C0001,                  # login node
 *       0x0002c903000a0001,
 *   	0x248a070300001001=full ;
 *
 *   (the hosts partition gets the cloud's PF ports appended at the end of
 *   its last definition: opensm applies a partition's entries in order and
 *   the last one for a port wins, so they stay full.) What one-ib reasons
 *   with is opensm's reading of the text (struct pentry, partition_port):
 *   lines read whole (at most 4093 characters and the newline: opensm's
 *   fgets buffer), '#' to the end of the line a comment, ';' ends a
 *   definition and more may follow on its line, the header up to its ':'
 *   on one line, then ','-separated tokens NAME[=VALUE] trimmed of ' ',
 *   '\t', '\n'; keys with strtoul and GUIDs with strtoull (base 0: hex,
 *   octal, decimal), bit 15 of a key dropped; flags, keywords and
 *   memberships matched as opensm matches them, by the prefix written
 *   ("A" is ALL, "ALL_" ALL_CAS, "S" SELF, "=f" and "=" full, "=b" both,
 *   anything else limited; "N".."NONE" and empty tokens nothing); flags
 *   opensm does not know ignored; the same key in several definitions one
 *   partition (the first name kept, the last definition's sl); a GUID
 *   met twice: the last entry wins; mgid= lines as opensm takes them.
 *   Refused, one line naming the line and why:
 *   - what opensm rejects: a header without its ':' on its line, a key or
 *     a GUID strtoul(l) does not read whole, a GUID 0;
 *   - what opensm reads differently from what is written: a ';' with
 *     nothing before it on its line (opensm reads on past the line's
 *     end), an mgid= with no flag after it before the line's end or its
 *     ';' (opensm reads what follows, or an earlier line's leftovers, as
 *     its flags), an mgid opensm cannot read (crash, or the rest of the
 *     line as a new partition), bytes other than printable ASCII and tab
 *     outside comments, NUL anywhere, a line opensm would cut;
 *   - what one-ib cannot know: a partition without a key (opensm makes
 *     one up from what it ran before);
 *   - one-ib's rules: names of one-ib's form (vnet<ID>..., one_vnet_...),
 *     and nothing of the operator's may leave a tenant port (guid_assignable:
 *     02:CC:..., and the old MAC form) a full member, after opensm's own
 *     reading (ALL or ALL_CAS full and not overridden later, a tenant GUID
 *     whose last entry is full or both), e.g.
 *     partitions.static.conf line 4: ALL=full would make every tenant VF a full member of infra (0x0105)
 *
 * Why so strict: opensm reads a file it cannot parse as "no partitions"
 * and puts every port in the default partition, and it reads what it can
 * in its own way: lines with fgets() into a 4096-byte buffer (a longer line
 * is cut and its rest read as a new line, even inside a comment), only
 * ' ', '\t' and '\n' as blanks ('\r' would end up inside a GUID), 31
 * characters of a name (char name[32], osm_partition.h). The "# refused: "
 * comments outside definitions are notes (what the renderer left out and
 * why, for `verify` on the SM's host), "# from: " ones marks; comments
 * inside a definition are the operator's, only comments.
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

/*
 * One member entry as opensm applies it: a partition's entries in the
 * order written (its definitions in file order), each setting the
 * membership of the ports it names, the last one for a port winning.
 * kind: a keyword (the ports present of that kind; SELF the SM's port) or
 * PENTRY_GUID.
 */
#define PENTRY_GUID PKW_COUNT
struct pentry {
	uint64_t guid; /* PENTRY_GUID */
	uint8_t kind;
	uint8_t pm; /* PM_LIMITED, PM_FULL or PM_BOTH, as opensm reads it */
	bool dflt; /* no '=': the definition's defmember */
	bool indx0; /* the definition says indx0 */
	int line;
};

/* A definition carried as written: "infra=0x105, ipoib :\n  0x5 # x". */
struct pdef {
	char *text; /* its first byte to its ';', trailing blanks cut */
	enum porigin origin;
	size_t seq; /* its place among the file's carried definitions */
	size_t nent; /* its entries: the next nent of the partition's */
	bool indx0;
	int line;
};

/*
 * A partition: one-ib's own form (ndefs 0: flags, keywords and the two
 * sorted lists, rendered "keywords first, then each GUID once", which is
 * also what opensm reads of it), or carried (ndefs > 0: the definitions
 * as written and opensm's reading of them, ent; kw, guids and limited are
 * then only a summary of the GUID and keyword entries, each by its last
 * one: partition_port is what opensm does).
 */
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
	struct pdef *defs; /* carried: its definitions, in file order */
	size_t ndefs;
	struct pentry *ent; /* carried: opensm's reading of them */
	size_t nent;
	int line; /* where its (first) name was read, 0 when built */
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

/*
 * The file text, appended to out: the header, the notes, one-ib's default
 * partition (unless the static file has one), the carried definitions in
 * their order, then one-ib's partitions by P_Key. 0 or -ENOMEM.
 */
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
 *                     port a full member but a network's own partition;
 *                     one-ib's in one-ib's form, each key once
 *   PARTCONF_STATIC   the operator's static file: every partition is the
 *                     operator's, carried (the rules above), no notes,
 *                     no marks
 *   PARTCONF_ANY      any file opensm reads as far as the grammar goes
 *                     (the file installed now, which somebody else may
 *                     have written): no rule but the grammar and what
 *                     one-ib cannot know; a lone ';' and an mgid= with
 *                     no flag read as they look (one-ib wrote the first
 *                     once; the file is only read, never carried); names
 *                     up to 63 characters (one-ib wrote those once)
 */
#define PARTCONF_STATIC 1u
#define PARTCONF_ANY 2u

/*
 * The reader. Anything else is -EINVAL with one line in err naming the
 * line, e.g.
 *   partitions.conf line 4: no ':' ends the header of a partition on this line (opensm reads a header whole, on one line)
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
/* ... called name, or NULL (the first, by key, when several are). */
const struct partition *partitions_find_name(const struct partitions *m,
					     const char *name);
/* How many partitions are called name (opensm lets names repeat). */
size_t partitions_named(const struct partitions *m, const char *name);

/* g's membership in p (enum pmember): as a listed GUID only. */
enum pmember partition_member(const struct partition *p, uint64_t g);

/* What kind of port (opensm's ALL_CAS, ALL_SWITCHES, ALL_ROUTERS). */
enum pclass { PCLASS_CA, PCLASS_SWITCH, PCLASS_ROUTER };

/*
 * What opensm makes port g of class c (sm: the SM's own port) in p: every
 * entry of p that names it, in order, the last one winning; for the
 * default partition after opensm's own "ALL=limited, SELF=full". PM_BOTH
 * is opensm's both (two entries with allow_both_pkeys TRUE, else full).
 *   storage=0x0200 : 0x0002c903000a0001=full, ALL_CAS=limited ;
 *   -> 0x0002c903000a0001 as a CA: PM_LIMITED, as a switch: PM_FULL
 */
enum pmember partition_port(const struct partition *p, uint64_t g,
			    enum pclass c, bool sm);

/*
 * Does p make a tenant port (guid_assignable: a CA, not the SM's) a member
 * as opensm reads it: want PM_FULL asks for full (or both), PM_LIMITED for
 * any membership. Every tenant VF when its ALL or ALL_CAS entries (the
 * default partition's own ALL=limited) do it (guid 0, kind the keyword),
 * else the listed tenant GUID whose deciding entry comes first; line that
 * entry's (the partition's for one-ib's form). 1 with *hit, 0, -ENOMEM.
 *   storage=0x0200 : ALL_CAS=full, ALL_CAS=limited ;   -> 0 for PM_FULL
 */
struct tenant_hit {
	uint64_t guid;
	unsigned kind; /* PKW_ALL, PKW_ALL_CAS or PENTRY_GUID */
	enum pmember pm;
	int line;
};
int partition_tenant_hit(const struct partition *p, enum pmember want,
			 struct tenant_hit *hit);

/*
 * The listed GUIDs opensm makes full (or both) members of p whatever port
 * they are (a CA, a switch, a router, the SM's): what a service network
 * takes as the endpoints of a static partition. Sorted, unique, malloc'd
 * (NULL and 0 when none; -ENOMEM).
 */
int partition_full_members(const struct partition *p, uint64_t **out,
			   size_t *n);

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
 * Adds g with membership pm (PM_FULL or PM_LIMITED) to p, one-ib's form,
 * keeping the lists sorted. As opensm adds a port met twice: full
 * replaces limited, limited adds nothing to full. 0 or -ENOMEM.
 */
int partition_add_member(struct partition *p, uint64_t g, enum pmember pm);

/*
 * Appends g[0..n) as full members at the end of carried p's last
 * definition, text and entries ("...,\n\t0x248a070300001001=full"), so
 * opensm reads them last and they stay full; a GUID p already makes full
 * whatever port it is is not repeated. g need not be sorted. 0 or -ENOMEM.
 */
int partition_append_full(struct partition *p, const uint64_t *g, size_t n);

/* "vnet7_tenant-b" (and the names written before: "one_vnet_7_...") -> 7,
 * or -1: the names of one-ib's networks' partitions. */
int partition_vnet_id(const char *name);

/* A note added to m (copied). 0 or -ENOMEM. */
int partitions_add_note(struct partitions *m, const char *note);

#endif
