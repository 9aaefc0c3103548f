// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the QoS policy file the root installer re-parses before
 * opensm may read it (root/qospolicy.h). Whatever the bytes, the reader
 * must not crash or overrun; a text it takes as canonical must render
 * back to exactly itself, and the policy it reads must hold each P_Key
 * once, in order, with SLs 0..15.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "root/qospolicy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	struct qos_policy p;
	char err[256];
	size_t i;

	if (qospolicy_parse((const char *)data, size, &p, err, sizeof(err)) ==
	    0) {
		if (p.default_sl < 0 || p.default_sl > 15)
			abort();
		for (i = 0; i < p.n; i++)
			if (p.r[i].sl > 15 || !p.r[i].pkey ||
			    p.r[i].pkey > 0x7fff ||
			    (i && p.r[i].pkey <= p.r[i - 1].pkey))
				abort();
		qospolicy_free(&p);
	}
	if (qospolicy_canonical((const char *)data, size, &p, err,
				sizeof(err)) == 0) {
		if (qospolicy_render(&p, &sb) || sb.len != size ||
		    memcmp(sb.buf, data, size))
			abort();
		qospolicy_free(&p);
	}
	sb_release(&sb);
	return 0;
}
