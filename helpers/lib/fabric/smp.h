/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the subnet manager actually programmed: every end port of the
 * fabric with its P_Key table, read with directed-route SMPs (Get
 * NodeInfo, PortInfo, NodeDescription, P_KeyTable) sent through
 * libibumad from one local port, walking the switches breadth first the
 * way ibnetdiscover does. Directed routes need no LIDs and no SA, so the
 * walk works on a fabric whose SM is confused too. SA table queries would
 * need RMPP for more than one record; single-packet SMPs do not.
 *
 * MAD layout (IBA vol. 1, 14.2.1.2 "directed route SMP"): 24-byte common
 * header, M_Key, DrSLID, DrDLID, 28 reserved, 64 bytes of attribute data
 * at offset 64, InitialPath at 128, ReturnPath at 192; all big-endian.
 */
#ifndef ONEIB_SMP_H
#define ONEIB_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/smp.h"

struct fabric_port {
	uint64_t node_guid, port_guid;
	uint16_t lid;
	uint8_t port_num;
	char desc[SMP_DESC_MAX + 1]; /* NodeDescription, printable ASCII */
	uint16_t *pkeys; /* the non-empty entries of its P_Key table */
	size_t npkeys;
};

struct fabric {
	struct fabric_port *p; /* end ports (CAs, routers), by port GUID */
	size_t n, alloc;
	size_t switches;
	uint16_t sm_lid; /* MasterSMLID of the local port */
	uint64_t local_guid;
};

/*
 * Walks the fabric from port `port` of `ca` (NULL / 0: the first active
 * one libibumad finds). 0, or -errno with one line in err.
 */
int fabric_scan(const char *ca, int port, int timeout_ms, struct fabric *f,
		char *err, size_t errlen);

void fabric_free(struct fabric *f);

#endif
