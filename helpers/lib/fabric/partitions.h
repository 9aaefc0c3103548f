/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The partitions the fabric should have, from the cloud's facts
 * (cloudfacts.h): design decision 7, desired state, rendered whole by
 * partconf_render() and installed by the root part on the SM's host.
 *
 * One partition per InfiniBand network (VN_MAD "ib", READY or
 * UPDATE_FAILURE), named for the network, its ID first and within the 31
 * characters opensm keeps: VNET 7 "tenant b; lab #2" -> "vnet7_tenant_b__lab__2"
 * (other characters become '_', the name is cut to fit; the ID keeps it
 * unique). Its P_Key, mtu, rate and sl come from IB_PKEY, IB_MTU, IB_RATE,
 * IB_SL. Its members, all full:
 * - the port GUID of every NIC on the network of every VM that holds VFs
 *   or is about to: STATE 3 ACTIVE with any LCM_STATE but 0 (LCM_INIT;
 *   PROLOG and BOOT come before the VF is programmed, so the SM knows its
 *   GUID before the guest boots; RUNNING, MIGRATE, HOTPLUG, SAVE_*,
 *   SHUTDOWN*, EPILOG, the *_FAILURE and *_UNKNOWN states). Every other
 *   state has no VF: no member. That includes STATE 8 POWEROFF and STATE 5
 *   SUSPENDED, though the VM keeps its host: kvm-ib's shutdown (poweroff)
 *   and save (suspend) unmap and release its VFs, and resume leases them
 *   again through ACTIVE/BOOT_POWEROFF or BOOT_SUSPENDED (hooks on both
 *   re-render first); likewise INIT, PENDING, HOLD, STOPPED, DONE, FAILED,
 *   UNDEPLOYED, CLONING*. The GUID is the one the host gives
 *   the VF, guid_for_nic(cloud id, VM ID, NIC_ID): VM 42 NIC 1 -> 
 *   0x02000000002a0001. With legacy_guids also guid_from_mac(MAC), the GUID
 *   a VF deployed before that change still carries;
 * - the PF port GUID of every ConnectX-3 host (IB_PF with DRIVER
 *   "mlx4_core") whose CLUSTER_ID is one of the network's CLUSTERS/ID,
 *   whether or not a VM of it is there now: on mlx4 the port must hold the
 *   key before deploy maps a VF to it. ConnectX-3 has 127 usable P_Key
 *   entries: a port the cloud would give more than 126 tenant keys keeps
 *   the 126 networks with the lowest IDs and is left out of the others
 *   (one note each), so creating networks never freezes anyone.
 *
 * One tenant's bad data never freezes the others. What cannot be rendered
 * is left out, and each case is one note (a warning of the renderer, a
 * "# refused:" line of the file, a line of `verify`):
 * - a network whose IB_* attributes break their rules (ibattr.h), that has
 *   no IB_PKEY, or whose partition another network also claims: it keeps
 *   the partition it had in the installed file (same key, flags and
 *   members), or has none if it had none; two networks on one partition:
 *   the one that held it in the installed file keeps it, or neither;
 * - a NIC whose own IB_PKEY (full listing only) is malformed or not its
 *   network's, without NIC_ID, or (legacy GUIDs) without a MAC;
 * - a NIC whose GUID another NIC or a host port also has: one GUID in two
 *   partitions would join two tenants, so every NIC sharing it is left out.
 * A member of a kept partition that the cloud now puts elsewhere is dropped
 * from it, and a kept partition whose P_Key is now another network's is
 * dropped. Notes are sorted, so the same cloud always renders the same
 * bytes.
 */
#ifndef ONEIB_PARTITIONS_H
#define ONEIB_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "fabric/cloudfacts.h"
#include "root/partconf.h"

struct render_opts {
	unsigned cloud_id; /* 0..255, ONEIB_CLOUD_ID */
	bool legacy_guids; /* also guid_from_mac(MAC) of every NIC */
	const struct partitions *installed; /* the file as installed, or NULL */
};

/*
 * The desired partitions, notes included. The facts must hold all three
 * pools. Returns 0, or -EINVAL / -ENOMEM with one line in err and *out
 * empty: only what no single network or NIC can be blamed for, e.g.
 *   VNET pool: VNET 7 listed twice
 */
int partitions_desired(const struct cloud_facts *f, const struct render_opts *o,
		       struct partitions *out, char *err, size_t errlen);

/*
 * The same from the three documents in memory (tests, fuzzing), each read
 * by poolread_mem().
 */
int partitions_build(const char *vms, size_t vms_len, const char *hosts,
		     size_t hosts_len, const char *vnets, size_t vnets_len,
		     const struct render_opts *o, struct partitions *out,
		     char *err, size_t errlen);

/* "vnet7_tenant-b" (and the names written before: "one_vnet_7_...") -> 7,
 * or -1. */
int partition_vnet_id(const char *name);

#endif
