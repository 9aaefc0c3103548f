/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The operator's static file (design decision 11), read by its rules, and
 * adoption: the partitions of an installed file one-ib would drop. What
 * vnet_create needs of the static file (its reserved keys) without the
 * renderer's model.
 */
#ifndef ONEIB_PARTSTATIC_H
#define ONEIB_PARTSTATIC_H

#include <stddef.h>

#include "root/partconf.h"

/*
 * The operator's static file at path, by the static file's rules
 * (partconf.h, PARTCONF_STATIC): 0, or -errno with one line in err,
 *   /etc/one/ib/partitions.static.conf line 4: ALL=full would make every tenant VF a full member of infra (0x0105)
 */
int partitions_read_static(const char *path, struct partitions *out, char *err,
			   size_t errlen);

/*
 * Adoption (design decision 11): the partitions of the installed file
 * that one-ib did not write and the static file does not hold, which the
 * next file would drop. One-ib wrote a file that starts with its first
 * line; in it its own are the networks' partitions (vnet<ID>_...), its
 * default partition, and the static file's (marked "# from: the static
 * file") while a static file is given. Returns how many, their names in
 * buf: "storage (0x0200), Default (0x7fff)".
 */
size_t partitions_foreign(const struct partitions *installed,
			  const struct partitions *stat, char *buf, size_t len);

#endif
