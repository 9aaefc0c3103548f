/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Two partitions.conf compared for what opensm would enforce from each
 * (design decision 17): every subnet manager of the fabric enforces its
 * own file, read when it becomes master, so a standby whose file is not
 * the rendered one changes who reaches whom at the failover
 * (reference/sm-redundancy.md). What counts is what opensm programs: each
 * partition's P_Key, flags (ipoib, mtu, rate, sl), keywords (ALL, SELF,
 * ...) and members with their membership, the default partition's too,
 * and its name; not comments, the "# from:" marks or the "# refused:"
 * notes. The first difference in P_Key order (the default partition
 * last) is said in one phrase, e.g. with labels "rendered" and "sm2's":
 *
 *   vnet5_tenant-a (0x0101): 0x02000000000c0000 (VM 12 NIC 0) is a full member in the rendered file, none in sm2's
 *   vnet7_tenant-b (0x0102): in the rendered file, not in sm2's
 *   lab (0x0300): in sm2's, not in the rendered file
 *   vnet5_tenant-a (0x0101): sl=3 in the rendered file, none in sm2's
 *
 * and " (and 2 more partitions)" when there are more.
 */
#ifndef ONEIB_PARTDIFF_H
#define ONEIB_PARTDIFF_H

#include <stddef.h>

#include "root/partconf.h"

/* How many partitions differ (0: none), the first said in why. */
size_t partdiff(const struct partitions *want, const struct partitions *got,
		const char *want_label, const char *got_label, char *why,
		size_t whylen);

enum partdiff_state {
	PARTDIFF_SAME, /* opensm enforces the same from both */
	PARTDIFF_DIFFERS, /* why: the first difference */
	PARTDIFF_UNREADABLE, /* why: the reader's line; opensm may reject it */
	PARTDIFF_NONE, /* empty: no file (opensm: every port full in 0x7fff) */
};

/*
 * An installed file's text (e.g. a standby's) against want, the file
 * read as any partitions.conf opensm reads (PARTCONF_ANY).
 */
enum partdiff_state partdiff_text(const struct partitions *want,
				  const char *text, size_t len,
				  const char *want_label, const char *got_label,
				  char *why, size_t whylen);

/*
 * The same of a file (a subnet manager's, or its copy): one that is not
 * there is PARTDIFF_NONE, one that cannot be read PARTDIFF_UNREADABLE
 * with the reason.
 */
enum partdiff_state partdiff_file(const struct partitions *want,
				  const char *path, const char *want_label,
				  const char *got_label, char *why,
				  size_t whylen);

#endif
