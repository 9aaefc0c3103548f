// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the lease ledger parser (a file a person may edit). Whatever
 * parses must format back into a ledger that parses to the same leases.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/lease.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger l = { .lock_fd = -1 }, m = { .lock_fd = -1 };
	struct strbuf sb = STRBUF_INIT;
	char *s = malloc(size + 1), err[256];
	size_t i;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (ledger_parse(&l, s, "fuzz", err, sizeof(err)) == 0) {
		for (i = 0; i < l.n; i++) {
			if (lease_format(&l.v[i], &sb))
				abort();
			sb_adds(&sb, "\n");
		}
		if (ledger_parse(&m, sb_str(&sb), "fuzz", err, sizeof(err)) ||
		    m.n != l.n)
			abort();
	}
	ledger_close(&l);
	ledger_close(&m);
	sb_release(&sb);
	free(s);
	return 0;
}
