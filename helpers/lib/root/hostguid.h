/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The GUIDs this host's InfiniBand hardware already carries or has been
 * asked to carry, so that oneib-pkey never gives a VF one of them (design
 * decision 2: every layer refuses a GUID in use). Where each comes from:
 *
 *   every RDMA device: PFs, and VFs the host's own driver holds
 *     /sys/class/infiniband/<dev>/node_guid            "0c42:a103:0000:1000"
 *     /sys/class/infiniband/<dev>/ports/<p>/gids/0     the port GUID in the
 *                                                      low half (IB ports)
 *   mlx4 PFs: every function's alias GUIDs, asked for and granted
 *     /sys/class/infiniband/<dev>/iov/ports/<p>/admin_guids/<n>
 *     /sys/class/infiniband/<dev>/iov/ports/<p>/gids/<n>
 *   mlx5 PFs: every VF's port GUID
 *     /sys/bus/pci/devices/<pf>/sriov/<i>/port         MLNX_OFED; its node
 *                  file is not read: its show() reads the neighbour vport
 *     RTM_GETLINK on each IPoIB netdev of the PF       IFLA_VF_IB_NODE_GUID,
 *                  IFLA_VF_IB_PORT_GUID (kernels from late 2019 on; older
 *                  ones report none, and then there is nothing to compare)
 *
 * Zero ("not set", "ask the SM") and all ones ("deleted") are nobody's
 * GUID. A sysfs value that does not parse is nobody's either: the kernel
 * writes these files, so it is not a GUID a port carries. An IPoIB netdev
 * the kernel no longer knows (ENODEV) has no VFs to report; any other
 * rtnetlink failure is an error, since what that PF's VFs carry is then
 * unknown.
 */
#ifndef ONEIB_HOSTGUID_H
#define ONEIB_HOSTGUID_H

#include <stddef.h>
#include <stdint.h>

#include "core/log.h"
#include "root/vfmap.h"

#define HOST_GUID_OWNER_MAX 96

struct host_guid {
	uint64_t guid;
	/* "port 1 of mlx5_0 (0000:3b:00.0)", "VF 0000:3b:00.4 (sriov/3/port)" */
	char owner[HOST_GUID_OWNER_MAX];
};

struct host_guids {
	struct host_guid *v;
	size_t n, cap;
};

/*
 * Every GUID in use on this host but those of self, the VF about to be
 * programmed (mapping it again with the GUID it has is no conflict). For
 * an mlx4 self only its own slot, self->port admin_guids/<slave>, is left
 * out: its slot on the other port counts, since both ports may be on one
 * subnet. out is emptied first; free it with host_guids_free.
 */
int host_guids_scan(const struct vf_target *self, struct host_guids *out,
		    char *err, size_t errlen);

/* Adds one (0 and all ones are ignored); -ENOMEM. */
int host_guids_add(struct host_guids *g, uint64_t guid, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);
/* The first entry carrying guid, or NULL. */
const struct host_guid *host_guids_find(const struct host_guids *g,
					uint64_t guid);
void host_guids_free(struct host_guids *g);

#endif
