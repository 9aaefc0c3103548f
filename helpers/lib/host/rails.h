/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A host's rails (design decision 15): the index every InfiniBand port a
 * VM can get a VF on carries, the same on every host of a site, so that
 * "one VF per rail" and "the rail NIC 1 had" mean the same port anywhere.
 * Rails are one fabric and one subnet in NVIDIA's reference designs
 * (reference/gpu-multirail.md §5.4): a rail is a place on the fabric, not
 * a partition.
 *
 * The ports that are rails: the InfiniBand ports of the PFs with VFs
 * enabled (a storage HCA without VFs is none), ready or not, so a port
 * that goes down keeps its number and takes its VFs out of the count,
 * not the numbering of the others. How they are numbered:
 *
 *   by address (no map, the default): in PCI address order, then port
 *   number, from 0. A host of 8 ConnectX-7s at 0000:18:00.0 ... 0000:db:00.0:
 *   rails 0 ... 7; a dual-port ConnectX-3 at 0000:03:00.0: port 1 rail 0,
 *   port 2 rail 1.
 *
 *   by leaf (ONEIB_RAIL_MAP, where the fabric is rail-optimized): the rail
 *   the operator's map gives the leaf switch the port is cabled to (the
 *   port's peer, host/peercmd.h). Rail k is leaf k only within one
 *   scalable unit, so the map lists every leaf of the site:
 *     ONEIB_RAIL_MAP="0x0002c90200000a00=0 0x0002c90200000b00=1 0x0002c90200001a00=0"
 *   (leaf GUIDs as oneib-discover shows them, = and a rail 0-255, groups
 *   separated by blanks or commas; a leaf at most once, several leaves
 *   may serve one rail). A port whose leaf is not known or not in the map
 *   has no rail (-1): its VFs can still be leased, after every railed
 *   port, and the probe says why (IB_NO_RAIL).
 *
 * Learning a leaf takes root (oneib-peer), which the host/system probe
 * has and a deploy should not pay for, so the probe keeps what it learnt
 * in <ledger dir>/leaves, one port a line,
 *   0000:3b:00.0 1 0x0002c90200000a00
 * rewritten atomically, and oneib-vf reads it back.
 */
#ifndef ONEIB_RAILS_H
#define ONEIB_RAILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/railhint.h"
#include "core/strbuf.h"
#include "host/hca.h"

#define RAIL_MAX 255

struct rail_map_entry {
	uint64_t leaf;
	int rail;
};

struct rail_map {
	struct rail_map_entry *v;
	size_t n;
};

/*
 * s (ONEIB_RAIL_MAP) into *out; "" is no map (n 0). -EINVAL with one
 * line in err, e.g.
 *   ONEIB_RAIL_MAP: '0x0002c90200000a00=300' is not a leaf GUID, '=' and a rail 0-255
 *   ONEIB_RAIL_MAP: leaf 0x0002c90200000a00 given twice
 * -ENOMEM.
 */
int rail_map_parse(const char *s, struct rail_map *out, char *err,
		   size_t errlen);
void rail_map_free(struct rail_map *m);
/* The rail the map gives leaf, -1 when none. */
int rail_map_find(const struct rail_map *m, uint64_t leaf);

/* A port that is a rail's (ib_port.rail may say which). */
bool rail_port(const struct hca *h, const struct ib_port *pt);

/*
 * ib_port.rail of every port of l (sorted as hca_discover sorts), by
 * address when map is NULL or empty, else by leaf; -1 for the others.
 */
void rails_assign(struct hca_list *l, const struct rail_map *map);

/*
 * Why port pt of PF h has no rail although it is a rail's port (a map is
 * set): one line into buf, e.g.
 *   PF 0000:3b:00.0 port 1: leaf switch not known (no peer command configured ...)
 *   PF 0000:3b:00.0 port 1: leaf 0x0002c90200000c00 is not in ONEIB_RAIL_MAP
 * false when it has one or is no rail's port.
 */
bool rails_why_none(const struct hca *h, const struct ib_port *pt,
		    const struct rail_map *map, char *buf, size_t len);

/* Rails as a set: bit r of w[r / 64]. */
#define RAIL_WORDS ((RAIL_MAX + 64) / 64)
struct rail_set {
	uint64_t w[RAIL_WORDS];
};

static inline bool rail_set_has(const struct rail_set *s, int r)
{
	return r >= 0 && r <= RAIL_MAX && (s->w[r / 64] >> (r % 64) & 1);
}

static inline void rail_set_add(struct rail_set *s, int r)
{
	if (r >= 0 && r <= RAIL_MAX)
		s->w[r / 64] |= (uint64_t)1 << (r % 64);
}

/*
 * The rails nearest a device at dev (a GPU): how near the nearest port
 * with a rail is (pcitopo.h's order: same switch, same NUMA node,
 * neither) and every rail at that level into *out. An HGX GPU under the
 * switch of two ConnectX-7s: PCI_NEAR_SWITCH, their two rails.
 */
enum pci_near rails_near(const struct hca_list *l, const struct pci_place *dev,
			 struct rail_set *out);

/* The rail of PF pf's port num in l (-1 none), or -2: no such port. */
int rail_of_port(const struct hca_list *l, const struct pci_addr *pf, int num);

/* The ports of l whose leaf is known, into <dir>/leaves (mode 0644). */
int leaves_write(const char *dir, const struct hca_list *l, char *err,
		 size_t errlen);
/*
 * <dir>/leaves into the ports of l it names whose peer is not known
 * (a switch with that node GUID); a line that does not parse or names no
 * port of l is skipped. No file: nothing known, 0. -errno with one line
 * in err when it cannot be read.
 */
int leaves_read(const char *dir, struct hca_list *l, char *err, size_t errlen);

#endif
