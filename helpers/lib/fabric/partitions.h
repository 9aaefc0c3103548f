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
 * IB_SL. Its members are full members, or limited ones where the network
 * is a service network (IB_MEMBERSHIP limited: its VMs reach its service
 * endpoints, never each other):
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
 *   key before deploy maps a VF to it (a service network's limited: the
 *   host maps the VF to the entry the port holds). ConnectX-3 has 127
 *   usable P_Key entries: a port the cloud would give more than 126 tenant
 *   keys (less one per partition of the static file it is in) keeps the
 *   networks with the lowest IDs and is left out of the others (one note
 *   each), so creating networks never freezes anyone;
 * - full: the service endpoints, IB_SERVICE_GUIDS and the full GUID
 *   members of the static file's partition IB_SERVICE_PARTITION names.
 *
 * The operator's static file (design decision 11; render_opts.stat) is
 * carried into the result as written (partconf.h: opensm reads exactly
 * the operator's definitions), its default partition too (else one-ib's:
 * every port limited, the SM's full). Its P_Keys are reserved: a network
 * that asks for one is left out (the operator wins), but a static
 * partition that takes a network's installed partition is refused as a
 * whole. The partition hosts_partition names (one of the static file's,
 * and only one by that name) also gets every cloud host's InfiniBand PF
 * port as a full member, appended after its last entry, so a new host
 * joins it without an edit and stays full whatever came before (opensm's
 * last entry for a port wins); it must be one no tenant VF is in as opensm
 * reads it (no ALL, no ALL_CAS, no tenant GUID even limited), or the
 * hypervisors would be reachable from that VM. A service network's
 * endpoints in IB_SERVICE_PARTITION are the GUIDs opensm leaves full
 * members of that partition whatever port they are.
 *
 * One tenant's bad data never freezes the others. What cannot be rendered
 * is left out, and each case is one note (a warning of the renderer, a
 * "# refused:" line of the file, a line of `verify`):
 * - a network whose IB_* attributes break their rules (ibattr.h), that has
 *   no IB_PKEY, or whose partition another network also claims: it keeps
 *   the partition it had in the installed file (same key, flags and
 *   members), or has none if it had none; two networks on one partition:
 *   the one that held it in the installed file keeps it, or neither;
 * - a network whose key the static file reserves, whose
 *   IB_SERVICE_PARTITION is no partition of the static file, or whose
 *   service endpoint is a ConnectX-3 host's port (its VFs would become
 *   full members): the same;
 * - a NIC whose own IB_PKEY (full listing only) is malformed or not its
 *   network's, without NIC_ID, or (legacy GUIDs) without a MAC;
 * - a NIC whose GUID another NIC or a host port also has: one GUID in two
 *   partitions would join two tenants, so every NIC sharing it is left out;
 * - a NIC on a reservation (cloudfacts.h: PARENT_NETWORK_ID) whose key is
 *   not its parent's, or whose parent is no InfiniBand network of the
 *   pool. A reservation has no partition: its NICs are members of its
 *   parent's, as the parent's members, and it never claims the parent's
 *   key against it.
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
#include "fabric/partsl.h"
#include "fabric/partstatic.h"
#include "fabric/slplan.h"
#include "root/partconf.h"

struct render_opts {
	unsigned cloud_id; /* 0..255, ONEIB_CLOUD_ID */
	bool legacy_guids; /* also guid_from_mac(MAC) of every NIC */
	const struct partitions *installed; /* the file as installed, or NULL */
	const struct partitions *stat; /* the operator's (PARTCONF_STATIC) */
	const char *stat_label; /* its path, for messages */
	const char *hosts_partition; /* ONEIB_HOSTS_PARTITION, or NULL */
	/* the SL plan's settings (ONEIB_SLS, ONEIB_SL_BEST_EFFORT), or NULL:
	 * no plan, each network's IB_SL alone */
	const struct sl_opts *sls;
};

/*
 * The desired partitions, notes included. The facts must hold all three
 * pools. Returns 0, or -EINVAL / -ENOMEM with one line in err and *out
 * empty: only what no single network or NIC can be blamed for, e.g.
 *   VNET pool: VNET 7 listed twice
 *   /etc/one/ib/partitions.static.conf line 3: partition storage takes P_Key 0x0101, VNET 5 (tenant-a)'s installed partition
 *   ONEIB_HOSTS_PARTITION 'infra' is no partition of the static file
 */
int partitions_desired(const struct cloud_facts *f, const struct render_opts *o,
		       struct partitions *out, char *err, size_t errlen);

/*
 * partitions_desired, and the SL plan into *plan when render_opts.sls is
 * given (plan may be NULL; without sls it is left empty).
 */
int partitions_desired_plan(const struct cloud_facts *f,
			    const struct render_opts *o, struct partitions *out,
			    struct partitions_plan *plan, char *err,
			    size_t errlen);

/*
 * The same from the three documents in memory (tests, fuzzing), each read
 * by poolread_mem().
 */
int partitions_build(const char *vms, size_t vms_len, const char *hosts,
		     size_t hosts_len, const char *vnets, size_t vnets_len,
		     const struct render_opts *o, struct partitions *out,
		     char *err, size_t errlen);

#endif
