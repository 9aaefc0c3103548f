/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the subnet manager actually programmed: every end port of the
 * fabric with its P_Key table and its capacity (NodeInfo PartitionCap, and
 * the PartitionEnforcementCap of the switch it is cabled to), read with
 * directed-route SMPs (core/smp.h: Get NodeInfo, PortInfo,
 * NodeDescription, P_KeyTable, SwitchInfo) from one local port, walking
 * the switches breadth first the way ibnetdiscover does. Directed routes
 * need no LIDs and no SA, so the walk works on a fabric whose SM is
 * confused too. SA table queries would need RMPP for more than one
 * record; single-packet SMPs do not. Every SMP carries the M_Key it is
 * given (opensm's m_key_protection_level 2 or 3: core/smp.h). A port with
 * IsSM in its PortInfo is asked for SMInfo too: which SM masters the
 * fabric and which stand by (design decision 17).
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
	uint8_t type; /* SMP_NODE_CA, SMP_NODE_ROUTER */
	uint16_t pcap; /* NodeInfo PartitionCap: its P_Key table's size */
	uint64_t sw_guid; /* the switch it is cabled to, 0: none (or unknown) */
	uint8_t sw_port; /* ... and that switch's port */
	uint16_t sw_enf_cap; /* SwitchInfo PartitionEnforcementCap, 0 unknown */
	char desc[SMP_DESC_MAX + 1]; /* NodeDescription, printable ASCII */
	uint16_t *pkeys; /* the non-empty entries of its P_Key table */
	size_t npkeys;
	struct smp_path path; /* the directed route to it */
	struct smp_port_vls vls; /* its PortInfo's VLs */
	struct smp_port_vls sw_vls; /* ... and the switch port's toward it */
	uint8_t sw_in_port; /* that switch's port the walk came in by, 0 none */
	/* a subnet manager runs on it (PortInfo IsSM): its SMInfo, asked
	 * along path; sm_r 0 when it answered, else -errno */
	bool is_sm;
	int sm_r;
	struct smp_sm_info sm;
};

struct fabric {
	struct fabric_port *p; /* end ports (CAs, routers), by port GUID */
	size_t n, alloc;
	size_t switches;
	uint16_t sm_lid; /* MasterSMLID of the local port */
	uint64_t local_guid;
	/* the local port's GidPrefix: the subnet walked (one SM's, with its
	 * standbys: a walk never leaves its subnet) */
	uint64_t gid_prefix;
};

/*
 * Walks the fabric from port `port` of `ca` (NULL / 0: the first active
 * one libibumad finds), every SMP with M_Key mkey. 0, or -errno with one
 * line in err.
 */
int fabric_scan(const char *ca, int port, int timeout_ms, uint64_t mkey,
		struct fabric *f, char *err, size_t errlen);

void fabric_free(struct fabric *f);

#endif
