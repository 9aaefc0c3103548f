/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the model (partconf.c) and its reader (partread.c) share; not for
 * other callers: partconf.h is the way in.
 */
#ifndef ONEIB_PARTCONF_PRIV_H
#define ONEIB_PARTCONF_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "root/partconf.h"

#define PARTCONF_HEADER                                                        \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"
/* what one-ib wrote before the privilege split */
#define PARTCONF_OLD_HEADER                                                    \
	"# oneib-pkey partitions: generated from the cloud's state, do not "   \
	"edit\n"
#define PARTCONF_NOTE "# refused: "
#define PARTCONF_FROM "# from: "

/* "none", "limited", "full", "both" by enum pmember */
extern const char *const partconf_member_word[];
/* "one-ib", "the static file", ... by enum porigin (PO_UNKNOWN: NULL) */
extern const char *const partconf_origin_text[];

/* A note of len bytes added to m. 0 or -ENOMEM. */
int partconf_add_note(struct partitions *m, const char *s, size_t len);

/* one-ib's own default partition: every port limited, the SM's full. */
bool partconf_builtin_default(const struct partition *p);

/*
 * The summary of carried p's entries (kw, guids, limited: each keyword
 * and GUID by its last entry), for what reads one-ib's form. 0 or -ENOMEM.
 */
int partconf_summarise(struct partition *p);

/* qsort's order of uint64_t */
int partconf_cmp_u64(const void *a, const void *b);

#endif
