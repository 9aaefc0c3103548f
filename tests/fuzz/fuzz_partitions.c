// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: what `oneib-pkey partitions` reads from the front-end (the
 * three pool listings, names and values written by tenants) and the strict
 * partitions.conf reader. No crash, no leak; a refusal always leaves an
 * error line; and whatever model the listings give renders to a file the
 * strict reader reads back as that same model (the install-time check can
 * only fail on a bug, never on input).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/partitions.h"
#include "lib/pools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pools p = POOLS_INIT;
	struct partitions m = { 0 }, back = { 0 };
	struct strbuf text = STRBUF_INIT;
	char err[256] = "", *z = malloc(size + 1);

	if (!z)
		return 0;
	memcpy(z, data, size); /* the reader takes a C string */
	z[size] = '\0';
	if (partitions_parse(z, &back, err, sizeof(err)) && !err[0])
		abort();
	free(z);
	partitions_free(&back);
	err[0] = '\0';
	if (pools_add(&p, "fuzz", (const char *)data, size, err, sizeof(err)) ||
	    pools_finish(&p, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	if (partitions_build(p.doc[POOL_VM].buf, p.doc[POOL_VM].len,
			     p.doc[POOL_HOST].buf, p.doc[POOL_HOST].len,
			     p.doc[POOL_VNET].buf, p.doc[POOL_VNET].len, &m,
			     err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	if (partitions_render(&m, &text) ||
	    partitions_check(sb_str(&text), &m, err, sizeof(err)))
		abort();
out:
	partitions_free(&m);
	sb_release(&text);
	pools_release(&p);
	return 0;
}
