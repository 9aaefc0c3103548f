/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replacing a file so that a reader sees the old text or the new one,
 * never a mix, and a power loss leaves one of the two: the one way one-ib
 * writes a file others read (the lease ledger, partitions.conf and its
 * backup, the guest's state file). Why each step is there:
 *
 *   TMP <- text, mode, fsync   the data is on disk before a name points
 *                              at it
 *   rename TMP over PATH       readers see the old file or the new one
 *   fsync PATH's directory     the rename itself survives a power loss
 *
 * TMP is PATH.XXXXXX (mkstemp) unless the caller names it: the ledger
 * writes leases.tmp.<pid>, so that the next writer under its lock knows
 * what a killed one left behind.
 */
#ifndef ONEIB_ATOMICFILE_H
#define ONEIB_ATOMICFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * path <- text (len bytes) with exactly mode, through tmp (NULL: mkstemp's
 * path.XXXXXX; else that name, created exclusively after removing a
 * leftover of it). On failure tmp is gone, path is as it was, and err has
 * one line naming path:
 *   /etc/opensm/partitions.conf: cannot create a file beside it: Read-only file system
 * 0 or -errno.
 */
int atomic_replace(const char *path, const char *tmp, const char *text,
		   size_t len, mode_t mode, char *err, size_t errlen);

/* fsync of a directory, or of the one holding path: a rename or a new
 * entry survives a power loss. 0 or -errno. */
int fsync_dir(const char *dir);
int fsync_dir_of(const char *path);

#endif
