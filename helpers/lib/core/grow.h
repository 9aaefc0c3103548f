/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Growing an array, the one way one-ib does it (git's ALLOC_GROW): room
 * for at least nr elements, the allocation growing by about half each
 * time it must, so appending n elements costs O(n).
 *
 *   if (ALLOC_GROW(l->v, l->n + 1, l->cap))
 *           return -ENOMEM;
 *   l->v[l->n++] = x;
 *
 * v is any typed pointer (NULL to start), alloc the size_t that counts the
 * elements it has room for (0 to start). 0, or -ENOMEM with v and alloc
 * as they were (what v held is still there, and still the caller's to
 * free).
 */
#ifndef ONEIB_GROW_H
#define ONEIB_GROW_H

#include <errno.h>
#include <stddef.h>

#define ALLOC_GROW(v, nr, alloc)                                               \
	((v) = grow_array((v), (nr), &(alloc), sizeof(*(v))),                  \
	 (nr) > (alloc) ? -ENOMEM : 0)

/* What ALLOC_GROW calls: v itself when it has room or on ENOMEM (then
 * *alloc is unchanged), else the grown array. */
void *grow_array(void *v, size_t nr, size_t *alloc, size_t size);

#endif
