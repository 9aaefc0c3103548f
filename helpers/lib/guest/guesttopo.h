/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The topology file: which leaf switch each VM of this VM's virtual
 * cluster is under, for an MPI launcher or a batch system to place ranks
 * by (design decision 12). The front-end writes the map into the context
 * as ONEIB_TOPOLOGY (core/topomap.h) before the VM is placed; oneib-context
 * turns it into GUEST_TOPO_FILE in its state directory,
 * /run/oneib-context/topology, rewritten whole at every run:
 *
 *   # oneib-context: the leaf switch of each VM of this virtual cluster
 *   # (ONEIB_TOPOLOGY of the context): IPv4 address, leaf switch GUID
 *   10.0.5.1 0x0002c90200000a00
 *   10.0.5.2 0x0002c90200000a00
 *   10.0.5.3 0x0002c90200000b00
 *
 * in the map's order (by leaf, then address). A Slurm topology.conf is an
 * awk away (one-ib-placement(7)). No ONEIB_TOPOLOGY, or an empty one (the
 * front-end's way to take a map back): no file (a map of the past would
 * mislead); a malformed one: no file and one line saying why.
 */
#ifndef ONEIB_GUESTTOPO_H
#define ONEIB_GUESTTOPO_H

#include <stddef.h>

#include "core/strbuf.h"
#include "guest/context.h"

#define GUEST_TOPO_FILE "topology"

/*
 * The file's text for c into out: 0; -ENOENT when c has no ONEIB_TOPOLOGY
 * or an empty one;
 * -EINVAL with one line in err (topomap_parse's); -ENOMEM.
 */
int guest_topology(const struct context *c, struct strbuf *out, char *err,
		   size_t errlen);

#endif
