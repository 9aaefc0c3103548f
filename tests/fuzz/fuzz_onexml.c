// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the VM XML parser and the domain XML rewrite (XML written by
 * OpenNebula from a tenant's template). No crash, no leak, no libxml2
 * entity expansion; a refusal always leaves an error line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/domxml.h"
#include "host/onexml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT;
	struct domxml_vf map = { .mac = 0x0200c0a80105ULL,
				 .vf = { 0, 0x3b, 0, 1 },
				 .node = -1 };
	struct one_vm vm;
	struct pci_addr *pcis = NULL;
	struct domxml *d;
	size_t n = 0;
	char err[256] = "";

	if (onexml_parse_vm((const char *)data, size, &vm, err, sizeof(err))) {
		if (!err[0])
			abort();
	}
	one_vm_free(&vm);
	err[0] = '\0';
	if (domxml_parse((const char *)data, size, &d, err, sizeof(err))) {
		if (!err[0])
			abort();
	} else {
		uint64_t cpus[CPULIST_WORDS];
		bool pinned;

		/* deploy's order: the pinning read, then the rewrite */
		domxml_pinned_cpus(d, cpus, &pinned, err, sizeof(err));
		if (domxml_rewrite(d, &map, 1, &out, err, sizeof(err)) &&
		    (!err[0] || out.len))
			abort();
		domxml_free(d);
	}
	if (!domxml_parse((const char *)data, size, &d, err, sizeof(err))) {
		domxml_pci_hostdevs(d, &pcis, &n, err, sizeof(err));
		domxml_free(d);
	}
	free(pcis);
	sb_release(&out);
	return 0;
}
