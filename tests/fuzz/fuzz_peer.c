// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the one-hop peer's text (oneib-peer's answer, read by
 * oneib-discover; its description comes from whatever node is at the
 * other end of the cable). Every accepted text must format back to the
 * same text; nothing may crash or overrun.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/smp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	char *s = malloc(size + 1), err[256];
	struct smp_peer p, q;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (smp_peer_parse(s, &p, err, sizeof(err)) == 0) {
		if (smp_peer_fmt(&p, &sb) ||
		    smp_peer_parse(sb_str(&sb), &q, err, sizeof(err)) ||
		    memcmp(&p, &q, sizeof(p)))
			abort();
	}
	sb_release(&sb);
	free(s);
	return 0;
}
