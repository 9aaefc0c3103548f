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
	static struct pool_stream s;
	struct partitions_builder *b = NULL;
	struct partitions m = { 0 }, back = { 0 };
	struct strbuf text = STRBUF_INIT;
	char err[256] = "", *z = malloc(size + 1);
	enum pool_kind kind;
	FILE *f;
	int r;

	if (!z)
		return 0;
	memcpy(z, data, size); /* the reader takes a C string */
	z[size] = '\0';
	if (partitions_parse(z, &back, err, sizeof(err)) && !err[0])
		abort();
	partitions_free(&back);
	err[0] = '\0';
	f = size ? fmemopen(z, size, "r") : NULL;
	if (!f || partitions_builder_new(&b))
		goto out;
	pool_stream_init(&s, f, "fuzz");
	while ((r = pool_stream_next(&s, &kind, err, sizeof(err))) == 1) {
		r = partitions_read(b, -1, pool_stream_read, &s, "fuzz", err,
				    sizeof(err));
		if (r)
			break;
	}
	if (r) {
		if (!err[0])
			abort();
		goto out;
	}
	if (partitions_finish(b, &m, err, sizeof(err))) {
		if (!err[0])
			abort();
		goto out;
	}
	if (partitions_render(&m, &text) ||
	    partitions_check(sb_str(&text), &m, err, sizeof(err)))
		abort();
out:
	if (f)
		fclose(f);
	free(z);
	partitions_builder_free(b);
	partitions_free(&m);
	sb_release(&text);
	return 0;
}
