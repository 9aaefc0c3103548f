/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONEIB_TOPOLOGY, the context variable that tells a guest which leaf
 * switch each VM of its virtual cluster is under (design decision 12):
 * written by the front-end hook (fabric/topology.h) into the CONTEXT of a
 * VM it places, read by oneib-context in the guest. One home for its
 * grammar, both ends:
 *
 *   ONEIB_TOPOLOGY = "0x0002c90200000a00=10.0.5.1,10.0.5.2 0x0002c90200000b00=10.0.5.3"
 *
 * a group per leaf switch (its node GUID, 0x and 16 hex digits), leaves
 * ascending, one space between groups; after "=" the IPv4 addresses of the
 * cluster's VMs under it (their NIC on the cluster's network), ascending,
 * separated by ",". No leaf or address twice. "" is the empty map.
 */
#ifndef ONEIB_TOPOMAP_H
#define ONEIB_TOPOMAP_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

struct topo_entry {
	uint64_t leaf;
	uint32_t ip; /* host byte order */
};

/*
 * The value for the n entries of e (sorted here; an entry twice counts
 * once; an address under two leaves is kept under the lower), appended
 * to out. 0 or -ENOMEM.
 */
int topomap_format(struct topo_entry *e, size_t n, struct strbuf *out);

/*
 * s into *e (malloc'd, free it; NULL when *n is 0), in the order written.
 * -EINVAL with one line in err naming what is wrong, e.g.
 *   ONEIB_TOPOLOGY: '10.0.5.300' is not an IPv4 address
 * -ENOMEM.
 */
int topomap_parse(const char *s, struct topo_entry **e, size_t *n, char *err,
		  size_t errlen);

#endif
