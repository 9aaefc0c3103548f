/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A run's scratch files: one directory of its own (mkdtemp, 0700, under
 * $TMPDIR or /tmp, read once by the caller), so that what is in them (a
 * request with oned's secret, the cloud's listings) is readable by nobody
 * else, and one call removes it all. The front-end's run
 * (fabric/sync.h) keeps its listings, answers and rendered files here:
 *   /tmp/oneib-partitions.Xq3Zt1/vms.xml
 * A run killed with SIGKILL leaves it behind (as mktemp -d did).
 */
#ifndef ONEIB_SCRATCH_H
#define ONEIB_SCRATCH_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct scratch {
	char dir[PATH_MAX]; /* "" until made */
};

/* tmpdir NULL or "": /tmp. 0, or -errno with one line in err. */
int scratch_make(struct scratch *s, const char *tmpdir, const char *prefix,
		 char *err, size_t errlen);
/* Everything in it, and it, removed; safe on one never made. */
void scratch_remove(struct scratch *s);

/* The path of file name in it, into buf: 0, or -ENAMETOOLONG. */
int scratch_path(const struct scratch *s, const char *name, char *buf,
		 size_t len);

/*
 * File name in it opened with fopen mode ("w", "r", "w+"), mode 0600:
 * the stream, or NULL with errno set.
 */
FILE *scratch_open(const struct scratch *s, const char *name, const char *mode);

#endif
