// SPDX-License-Identifier: Apache-2.0
#include <stdint.h>
#include <stdlib.h>

#include "core/grow.h"

/* git's alloc_nr: (x + 16) * 3 / 2 */
void *grow_array(void *v, size_t nr, size_t *alloc, size_t size)
{
	size_t n;
	void *nv;

	if (nr <= *alloc)
		return v;
	if (nr > SIZE_MAX / size)
		return v; /* more bytes than there are addresses */
	n = *alloc < (SIZE_MAX - 16) / 3 ? (*alloc + 16) * 3 / 2 : nr;
	if (n < nr || n > SIZE_MAX / size)
		n = nr;
	nv = reallocarray(v, n, size);
	if (!nv)
		return v;
	*alloc = n;
	return nv;
}
