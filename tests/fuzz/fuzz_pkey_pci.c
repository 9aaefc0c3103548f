// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: P_Key and PCI address parsers, the two strings that reach the
 * root-run oneib-pkey from a tenant's VM. Accepted values round-trip; a PCI
 * address that parses is exactly the 12 characters of the kernel's form
 * (so no path can be built from anything else).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/pci.h"
#include "core/pkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[PCI_ADDR_STRLEN], pb[PKEY_STRLEN];
	struct pci_addr a, b;
	struct pkey p, q;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (pkey_parse(s, &p) == 0) {
		pkey_fmt(p, pb);
		if (pkey_parse(pb, &q) || q.raw != p.raw)
			abort();
		if (pkey_tenant_ok(p) &&
		    (pkey_base(p) == 0 || pkey_base(p) == 0x7fff))
			abort();
	}
	if (pci_addr_parse(s, &a) == 0) {
		pci_addr_fmt(&a, buf);
		if (strlen(s) != 12 || strcasecmp(buf, s) ||
		    pci_addr_parse(buf, &b) || pci_addr_cmp(&a, &b))
			abort();
	}
	free(s);
	return 0;
}
