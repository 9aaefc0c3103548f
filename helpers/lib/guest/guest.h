/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One run of oneib-context: the context's NICs, each matched to the IPoIB
 * netdev that carries its port GUID, planned, and (unless dry_run) applied:
 *
 *   context.sh     VMID='42'  ETH1_IP='10.11.0.5'  ETH1_MASK='255.255.255.0' ...
 *   /sys/class/net/ib0         type 32, address ...:02:00:00:00:00:2a:00:01
 *                              = guid_for_nic(cloud, 42, 1): ETH1's netdev
 *   mlx5_0 port 1 P_Keys       0xffff 0x8011: tenant key 0x8011 at index 1
 *   -> ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0.8011 mode datagram mtu - ip 10.11.0.5/24
 *
 * A port whose table has no tenant key yet (the subnet manager has not come
 * round) is looked at again every half second for wait_s seconds, then
 * every NIC is configured that can be, and the late one is named. The
 * subnet manager normally knows a VF before its guest boots (partitions
 * follow VMs from PROLOG on), so the wait is the exception.
 *
 * Runs are serialised by an flock on <state_dir>/lock: one-context's hook
 * and the udev-started unit may run together.
 */
#ifndef ONEIB_GUEST_H
#define ONEIB_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define GUEST_CONTEXT "/var/run/one-context/context.sh.local"
#define GUEST_STATE_DIR "/run/oneib-context"
#define GUEST_WAIT_S 60

struct guest_opts {
	const char *context; /* context.sh to read */
	const char *state_dir; /* lock and record of what was created */
	bool dry_run; /* print the plans, change nothing, do not wait */
	int wait_s; /* for a tenant P_Key, at most */
};

/*
 * 0 when every InfiniBand NIC is configured (or skipped), else how many
 * are not; -errno with err when nothing could be done (no context, no
 * VMID while one-ib IPoIB netdevs exist, /sys or rtnetlink unreadable).
 */
int guest_run(const struct guest_opts *o, FILE *out, char *err, size_t errlen);

#endif
