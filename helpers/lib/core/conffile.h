/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replacing a configuration file another daemon reads (opensm's
 * partitions.conf) so that it sees the old file or the new one, never a
 * mix, and so that an unchanged file is not touched at all:
 *
 *   read FILE                  identical to the new text -> done, unchanged
 *   FILE.bak <- old            atomic_replace (atomicfile.h): the previous
 *                              file is kept whole
 *   FILE     <- new            atomic_replace, mode of the old file
 *
 * On any failure the temporary file is removed and FILE is as it was.
 * FILE must be a regular file or absent (a symlink is refused: root would
 * otherwise write wherever it points).
 */
#ifndef ONEIB_CONFFILE_H
#define ONEIB_CONFFILE_H

#include <stddef.h>

/* Larger than any partitions.conf the renderer can write. */
#define CONFFILE_MAX ((size_t)1 << 30)

/*
 * 1 when path already holds exactly text (nothing written), 0 when
 * installed over an older file (kept as backup unless that is NULL), 2 when
 * installed where there was no file, -errno with one line in err.
 */
int conffile_install(const char *path, const char *backup, const char *text,
		     size_t len, char *err, size_t errlen);

/*
 * Does path, a regular file (never followed if a symlink), hold exactly
 * text? 1 yes, 0 no or absent, -errno with one line in err.
 */
int conffile_holds(const char *path, const char *text, size_t len, char *err,
		   size_t errlen);

#endif
