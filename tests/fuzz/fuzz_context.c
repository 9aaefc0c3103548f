// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the context.sh parser and the ETH<n>_* values behind it (text
 * the cloud's users shape, read as root in the guest). Whatever the bytes:
 * no crash, no overrun, no leak; every variable kept has a well-formed name
 * and is found again by name; every NIC's values either parse or are
 * refused with a line; the issue count covers the kept issues.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guest/context.h"
#include "guest/nicconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int name_ok(const char *s)
{
	size_t i;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') ||
	      s[0] == '_'))
		return 0;
	for (i = 1; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z') || s[i] == '_' ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nic_ref *refs;
	struct context c;
	size_t i, n;

	if (context_parse((const char *)data, size, &c))
		return 0;
	for (i = 0; i < c.n; i++) {
		if (!name_ok(c.v[i].name))
			abort();
		if (context_get(&c, c.v[i].name) != c.v[i].value)
			abort();
		if (i && strcmp(c.v[i - 1].name, c.v[i].name) >= 0)
			abort(); /* sorted, one per name */
	}
	for (i = 0; i < c.nissues && i < CONTEXT_ISSUES_KEPT; i++)
		if (strncmp(c.issue[i], "line ", 5) || strchr(c.issue[i], '\n'))
			abort();
	if (!context_nics(&c, &refs, &n)) {
		for (i = 0; i < n; i++) {
			struct nic_conf nc;
			char err[256] = "";

			if (refs[i].id < 0 || refs[i].id > 65535)
				abort();
			if (nic_conf_parse(&c, refs[i].id, &nc, err,
					   sizeof(err)) &&
			    (!err[0] || strchr(err, '\n')))
				abort();
		}
		free(refs);
	}
	context_free(&c);
	return 0;
}
