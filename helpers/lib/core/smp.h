/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directed-route SMPs (subnet management packets) from one local port,
 * through libibumad: Get of one attribute along a path of ports, and the
 * attributes one-ib reads. Directed routes need no LIDs and no SA, so they
 * work on a fabric whose SM is confused, or absent. Shared by the fabric
 * walk of oneib-partitions verify (fabric/smp.h) and oneib-peer, the
 * read-only root query of a port's cable (root code includes only core/).
 *
 * Only Get is ever built here: nothing in one-ib sends an SMP Set.
 *
 * MAD layout (IBA vol. 1, 14.2.1.2 "directed route SMP"): 24-byte common
 * header, M_Key, DrSLID, DrDLID, 28 reserved, 64 bytes of attribute data
 * at offset 64, InitialPath at 128, ReturnPath at 192; all big-endian
 * (core/mad.h reads and writes the fields, of attribute data too).
 * Every SMP carries the M_Key of its smp_port: with opensm's
 * m_key_protection_level 2 or 3 a port answers a Get only with its key
 * (IBA 14.2.4.1; opensm sets one subnet-wide m_key on every port).
 *
 * The one-hop query, what `smpquery -D nodeinfo 0,1` and `smpquery -D
 * nodedesc 0,1` ask from port 1, in the text oneib-peer prints and
 * oneib-discover reads back:
 *
 *   type switch                      (CA, router; another NodeType: its number)
 *   node_guid 0x0002c90200000001     NodeInfo.NodeGUID of the node cabled there
 *   port 2                           NodeInfo.LocalPortNum: the port of that
 *                                    node the cable ends in (IBA: the port the
 *                                    SMP arrived on)
 *   desc leaf1 desc                  its NodeDescription, printable ASCII
 */
#ifndef ONEIB_SMP_CORE_H
#define ONEIB_SMP_CORE_H

#include "core/madport.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/mad.h"
#include "core/strbuf.h"

#define SMP_MAX_HOPS 63
#define SMP_DATA_LEN 64 /* attribute data of one SMP */
#define SMP_DESC_MAX 64 /* NodeDescription */

#define SMP_ATTR_NODE_DESC 0x0010
#define SMP_ATTR_NODE_INFO 0x0011
#define SMP_ATTR_SWITCH_INFO 0x0012
#define SMP_ATTR_PORT_INFO 0x0015
#define SMP_ATTR_PKEY_TABLE 0x0016
#define SMP_ATTR_SL2VL_TABLE 0x0017
#define SMP_ATTR_VLARB_TABLE 0x0018
#define SMP_ATTR_SM_INFO 0x0020

/* PortInfo.CapabilityMask: a subnet manager runs on the port */
#define SMP_CAP_IS_SM 0x00000002u

/* NodeInfo.NodeType */
#define SMP_NODE_CA 1
#define SMP_NODE_SWITCH 2
#define SMP_NODE_ROUTER 3

/* 0 = the local port; {hops 1, port[1] = 1} is "0,1": out of local port 1. */
struct smp_path {
	uint8_t port[SMP_MAX_HOPS + 1]; /* [1..hops], [0] unused */
	int hops;
};

/* A local port opened for SMPs, with its agent (smp_open). */
struct smp_port {
	struct mad_port mp;
	uint64_t mkey; /* the M_Key of every SMP: 0 after smp_open */
};

/*
 * Port `port` of RDMA device `ca` (NULL / 0: the first active one
 * libibumad finds) opened for SMPs, each waited for timeout_ms (and sent
 * up to three times), with M_Key 0 until the caller sets s->mkey. 0, or
 * -errno with one line in err:
 *   mlx5_0 port 1: cannot open its umad device: No such file or directory
 * smp_close is safe after a failed open.
 */
int smp_open(struct smp_port *s, const char *ca, int port, int timeout_ms,
	     char *err, size_t errlen);
void smp_close(struct smp_port *s);

/*
 * The SMP smp_get sends, into mad: a directed-route Get (the only method
 * built here) of attr/mod along path, transaction ID tid, carrying mkey;
 * every other byte 0.
 */
void smp_build_get(uint8_t mad[MAD_LEN], const struct smp_path *path,
		   uint16_t attr, uint32_t mod, uint32_t tid, uint64_t mkey);

/*
 * Get attr/mod along path: the 64 bytes of attribute data into data. 0, or
 * -errno with one line in err naming the path ("SMP to 0,1,3: no answer").
 */
int smp_get(struct smp_port *s, const struct smp_path *path, uint16_t attr,
	    uint32_t mod, uint8_t data[SMP_DATA_LEN], char *err, size_t errlen);

struct smp_node_info {
	uint8_t type, nports;
	uint8_t local_port; /* the port of this node the SMP came in by */
	uint16_t pcap; /* PartitionCap */
	uint64_t node_guid, port_guid;
};

int smp_node_info(struct smp_port *s, const struct smp_path *path,
		  struct smp_node_info *ni, char *err, size_t errlen);
/* NodeDescription, every byte outside printable ASCII as '?', trailing
 * blanks dropped. */
int smp_node_desc(struct smp_port *s, const struct smp_path *path,
		  char desc[SMP_DESC_MAX + 1], char *err, size_t errlen);

struct smp_switch_info {
	/* PartitionEnforcementCap: how many P_Keys each of its ports can
	 * enforce (0: none) */
	uint16_t enf_cap;
};

/* SwitchInfo of the switch at the end of path. */
int smp_switch_info(struct smp_port *s, const struct smp_path *path,
		    struct smp_switch_info *si, char *err, size_t errlen);

/*
 * SMInfo of the subnet manager on the port at the end of path (IBA
 * 14.2.5.13): its GUID, ActCount, priority and state. The port's SM
 * answers it, master or standby, so this is how verify says which SM of
 * the fabric masters it:
 *   d[0..7] GUID, d[16..19] ActCount, d[20] = priority << 4 | state
 */
enum smp_sm_state {
	SMP_SM_NOT_ACTIVE = 0,
	SMP_SM_DISCOVERING = 1,
	SMP_SM_STANDBY = 2,
	SMP_SM_MASTER = 3,
};
struct smp_sm_info {
	uint64_t guid;
	uint32_t act_count;
	uint8_t priority, state;
};
int smp_sm_info(struct smp_port *s, const struct smp_path *path,
		struct smp_sm_info *out, char *err, size_t errlen);
/* "MASTER", "STANDBY", "DISCOVERING", "NOT ACTIVE" */
const char *smp_sm_state_name(uint8_t state);

/*
 * What PortInfo says of a port's virtual lanes (bytes 37-43 of its data):
 * VLCap (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14) and OperVLs in
 * the same code, the VLArbitration tables' sizes and VLHighLimit.
 *   d[37] = 0x41, d[43] = 0x40 -> { .vl_cap = 4, .oper_vls = 4 }: 8 data VLs
 */
struct smp_port_vls {
	uint8_t vl_cap, oper_vls, high_limit, arb_high_cap, arb_low_cap;
};
void smp_port_vls(const uint8_t portinfo[SMP_DATA_LEN],
		  struct smp_port_vls *out);
/* VLCap / OperVLs code -> data VLs: 4 -> 8, 5 -> 15; 0 for no code. */
int smp_data_vls(uint8_t code);

/*
 * SLtoVLMappingTable (Get only, as everything here): vl[sl] for SLs 0..15.
 * mod is 0 on a CA port; on a switch (in port << 8 | out port): the map
 * for packets from in to out. VL 15 drops the SL's packets.
 */
int smp_sl2vl(struct smp_port *s, const struct smp_path *path, uint32_t mod,
	      uint8_t vl[16], char *err, size_t errlen);

/*
 * VLArbitrationTable: the low- and high-priority tables of a port (their
 * first block of 32 entries: blocks 1 and 3; what every HCA and switch of
 * today has, VLArbitration*Cap <= 32), as a weight per VL: the sum of the
 * weights (units of 64 bytes) of the entries naming it. port is 0 on a
 * CA, the switch's port otherwise.
 */
struct smp_vlarb {
	unsigned low[16], high[16];
};
int smp_vlarb(struct smp_port *s, const struct smp_path *path, uint8_t port,
	      struct smp_vlarb *out, char *err, size_t errlen);
/* One block's 32 (VL, weight) entries summed into w[16]. */
void smp_vlarb_sum(const uint8_t block[SMP_DATA_LEN], unsigned w[16]);

/* The node at the far end of a local port's cable. */
struct smp_peer {
	uint8_t type; /* SMP_NODE_* */
	uint64_t node_guid;
	uint8_t port; /* its port the cable ends in */
	char desc[SMP_DESC_MAX + 1];
};

/*
 * Get NodeInfo and NodeDescription one hop out of port `port` of `ca`
 * (path "0,<port>"), nothing else. 0, or -errno with one line in err.
 */
int smp_peer(const char *ca, int port, int timeout_ms, struct smp_peer *out,
	     char *err, size_t errlen);

/* "switch", "CA", "router"; NULL for any other NodeType. */
const char *smp_node_type_name(uint8_t type);
/* The same, or the number ("7") into buf for any other NodeType. */
#define SMP_TYPE_STRLEN 8
const char *smp_node_type_str(uint8_t type, char buf[SMP_TYPE_STRLEN]);
/* The text form above, four lines. */
int smp_peer_fmt(const struct smp_peer *p, struct strbuf *out);
/* ... read back, strictly: those four lines in that order, or -EINVAL with
 * one line in err naming what does not fit. */
int smp_peer_parse(const char *text, struct smp_peer *out, char *err,
		   size_t errlen);

#endif
