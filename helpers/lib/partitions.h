/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The whole opensm partitions.conf, rendered from the cloud's state: the
 * XML of `onevm list -x` (<VM_POOL>), `onehost list -x` (<HOST_POOL>) and
 * `onevnet list -x` (<VNET_POOL>). Decision 7: the renderer is the only
 * writer, the file is desired state, and what it writes is re-parsed and
 * compared with the model before anything is installed. Example:
 *
 *   # oneib-pkey partitions: generated from the cloud's state, do not edit
 *   Default=0x7fff, ipoib : ALL=limited, SELF=full ;
 *   one_vnet_5_tenant-a=0x0101, ipoib, mtu=5 :
 *   	0x0002c90300a1b2c1=full,
 *   	0x0200c0fffea80105=full ;
 *   one_vnet_7_tenant-b=0x0102, ipoib :
 *   	;
 *
 * One member per line: opensm reads the file with fgets() into a fixed
 * buffer, so a long member list on one line would be cut mid-GUID.
 *
 * Membership of the partition of an "ib" network (VN_MAD "ib" in the pool,
 * and READY or UPDATE_FAILURE when it has a STATE: OpenNebula 6.4+ lists a
 * network vnet_create has not finished or refused, without IB_PKEY):
 * - the port GUID guid_from_mac(MAC) of every NIC with that NETWORK_ID (with
 *   or without VN_MAD: `onevm list -x` prints NICs without it) of
 *   every VM that has a host: STATE 3 ACTIVE with any LCM_STATE but 0
 *   (LCM_INIT; PROLOG, BOOT, RUNNING, MIGRATE, HOTPLUG, EPILOG, the *_FAILURE
 *   and *_UNKNOWN states all still hold the host and its VF lease),
 *   STATE 8 POWEROFF and STATE 5 SUSPENDED (the VM stays on its host, the VF
 *   lease is kept). Every other state (INIT, PENDING, HOLD, STOPPED, DONE,
 *   FAILED, UNDEPLOYED, CLONING*) has no host: no member;
 * - the PF port GUID of every ConnectX-3 host (IB_PF with DRIVER
 *   "mlx4_core") whose CLUSTER_ID is one of the network's CLUSTERS/ID,
 *   whether or not a VM of it is there now. Such a port holds the default
 *   partition plus one key per network; ConnectX-3 has 127 usable entries,
 *   so a port that would need more than 126 tenant keys is refused.
 * Every member is full: a tenant's ports must reach each other.
 */
#ifndef ONEIB_PARTITIONS_H
#define ONEIB_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pools.h"
#include "strbuf.h"

/* One P_Key table entry is the default; the rest may be tenant keys. */
#define PARTITIONS_MLX4_MAX_PKEYS 127
/* "one_vnet_2147483647_" + 32 characters of the name, plus NUL. */
#define PARTITION_NAME_MAX 64

struct partition {
	char name[PARTITION_NAME_MAX]; /* "one_vnet_5_tenant-a" */
	uint16_t pkey; /* low 15 bits: 0x0001..0x7ffe */
	bool ipoib; /* always set by partitions_build */
	int mtu; /* opensm enum 1..5 (256..4096), 0 = not given */
	int rate; /* opensm enum 2..24, 0 = not given */
	int sl; /* 0..15, -1 = not given */
	uint64_t *guids; /* sorted, unique, all full members */
	size_t n;
};

struct partitions {
	struct partition *p; /* sorted by pkey, unique */
	size_t n;
};

/*
 * Builds the model from the three documents. Returns 0, or -EINVAL / -ENOMEM
 * with one line in err and *out empty, e.g.
 *   VNET 7 (tenant-b): IB_PKEY 0x8101 is partition 0x0101, already used by VNET 5 (tenant-a)
 *   VNET 9 (x): no IB_PKEY
 *   VM 42 NIC 1: malformed MAC '02:00:zz:a8:01:05'
 *   HOST 3 (node03): port 0x0002c90300a1b2c1 would hold 128 P_Keys, ConnectX-3 holds 127
 */
int partitions_build(const char *vms, size_t vms_len, const char *hosts,
		     size_t hosts_len, const char *vnets, size_t vnets_len,
		     struct partitions *out, char *err, size_t errlen);

/*
 * The same, streamed (what `oneib-pkey partitions` uses: a large cloud's
 * listings are far larger than the model): documents are read one at a
 * time, in any order and any number per pool, each child (<VM>, <HOST>,
 * <VNET>) expanded alone and freed once its facts are kept; the
 * memberships are resolved by partitions_finish. read is a libxml2
 * xmlInputReadCallback (pool_stream_read); expect is the pool the document
 * must be, or -1 for any. Errors as partitions_build; after one, free the
 * builder.
 */
struct partitions_builder;
int partitions_builder_new(struct partitions_builder **b);
int partitions_read(struct partitions_builder *b, int expect,
		    int (*read)(void *ctx, char *buf, int len), void *ctx,
		    const char *what, char *err, size_t errlen);
int partitions_finish(struct partitions_builder *b, struct partitions *out,
		      char *err, size_t errlen);
void partitions_builder_free(struct partitions_builder *b);

/* The file text, appended to out. 0 or -ENOMEM. */
int partitions_render(const struct partitions *m, struct strbuf *out);

/*
 * The strict reader of what partitions_render writes: comments, whitespace
 * anywhere a token ends, the Default line exactly as rendered first, then
 * NAME=0xPPPP, ipoib[, mtu=N][, rate=N][, sl=N] : [0x<16 hex>=full, ...] ;
 * with partitions in increasing P_Key order and members in increasing GUID
 * order. Anything else is -EINVAL with one line in err naming the line.
 */
int partitions_parse(const char *text, struct partitions *out, char *err,
		     size_t errlen);

bool partitions_equal(const struct partitions *a, const struct partitions *b);

/* Parses text and compares it with m: 0, or -EINVAL with the reason. */
int partitions_check(const char *text, const struct partitions *m, char *err,
		     size_t errlen);

void partitions_free(struct partitions *m);

#endif
