/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What oneib-context needs to know about the InfiniBand port behind a
 * guest's IPoIB netdev: its state, its active MTU, its P_Key table (which
 * the subnet manager fills, and whose entries say the VF's partition) and
 * the GUID in its GID 0.
 *
 * The source is libibverbs: ibv_query_port, ibv_query_pkey, ibv_query_gid
 * on the RDMA device the netdev belongs to. When libibverbs cannot open
 * that device, the same facts are read from the device's sysfs files:
 *
 *   /sys/class/infiniband/mlx5_0/ports/1/state      "4: ACTIVE"
 *   /sys/class/infiniband/mlx5_0/ports/1/pkeys/<i>  "0xffff", "0x8011", ...
 *   /sys/class/infiniband/mlx5_0/ports/1/gids/0     "fe80:0000:...:002a:0001"
 *
 * Why a second source, in production: IPoIB needs ib_core, ib_ipoib and
 * the HCA driver, and nothing of the verbs stack (ib_uverbs and
 * /dev/infiniband/uverbs*, a user-space provider from ibverbs-providers);
 * an image without those still has working IPoIB and these files, which
 * the kernel fills from the same driver queries (ib_query_port,
 * ib_query_pkey, rdma_query_gid). What sysfs lacks is the port's active
 * MTU, so facts read there have active_mtu 0, "unknown". The tests run
 * this second source, since no RDMA device exists where they run.
 */
#ifndef ONEIB_IBPORT_H
#define ONEIB_IBPORT_H

#include <stddef.h>
#include <stdint.h>

struct ib_port_facts {
	int state; /* 1 DOWN 2 INIT 3 ARMED 4 ACTIVE (IBV_PORT_*); -1 unknown */
	int active_mtu; /* 256 .. 4096 bytes; 0 unknown */
	uint16_t *pkeys; /* the whole table in index order, empty slots 0 */
	size_t npkeys;
	uint64_t guid; /* low 8 bytes of GID 0 */
	const char *source; /* "libibverbs" or "sysfs" */
};

/*
 * Facts of port `port` of RDMA device ibdev. When libibverbs cannot tell,
 * why goes to note ("libibverbs: no device mlx5_0") and sysfs is read.
 * 0, or -errno with err when neither source can.
 */
int ibport_query(const char *ibdev, int port, struct ib_port_facts *f,
		 char *note, size_t notelen, char *err, size_t errlen);
void ibport_facts_free(struct ib_port_facts *f);

/* "fe80:0000:0000:0000:0200:0000:002a:0001" -> 0x02000000002a0001 */
int gid_parse_guid(const char *s, uint64_t *guid);
/* 4 -> "ACTIVE" */
const char *ibport_state_name(int state);

#endif
