/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A tenant's identity on one VF: its port GUID and its partition.
 *
 * mlx4 (ConnectX-3): the host programs it, in the PF's paravirtualized
 * tables under /sys/class/infiniband/mlx4_0/iov/ (mlx4.c):
 *   ports/<p>/admin_guids/<gid_idx>      the VF's alias GUID, "%llx"
 *   <vf-dir>/ports/<p>/pkey_idx/<n>      VF virtual P_Key index n ->
 *                                        physical index, or "none"
 * mlx5 (ConnectX-4 and later): the host sets the VF's node GUID, port GUID
 * and link state, over rtnetlink on the PF's IPoIB netdev or through the
 * MLNX_OFED files <pf>/sriov/<vf>/{node,port,policy} (mlx5.c); the subnet
 * manager enforces the partition by the port GUID.
 *
 * Everything here runs as root (oneib-pkey through sudo) on arguments that
 * came from a tenant's VM: every path is built from parsed, checked values.
 * The unprivileged side, which runs oneib-pkey, is host/pkeycmd.h.
 */
#ifndef ONEIB_VFMAP_H
#define ONEIB_VFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"
#include "core/pkey.h"
#include "core/strbuf.h"
#include "root/ibdev.h"

enum vf_kind { VF_MLX4, VF_MLX5 };

struct vf_target {
	struct pci_addr pf, vf;
	char pf_bdf[PCI_ADDR_STRLEN], vf_bdf[PCI_ADDR_STRLEN];
	int index; /* N of the PF's virtfnN */
	int port; /* PF port, 1.. */
	enum vf_kind kind;
	char ibdev[IBDEV_NAME_MAX]; /* the PF's RDMA device: "mlx4_0" */
	char vf_driver[IBDEV_NAME_MAX]; /* "vfio-pci", "mlx5_core" or "" */
	bool ofed; /* mlx5: <pf>/sriov/<index>/ exists (MLNX_OFED) */
	char pf_netdev[IBDEV_NAME_MAX]; /* mlx5: the PF's IPoIB netdev, "ib0" */
	int pf_ifindex; /* its ifindex, 0 if none */
};

/*
 * Checks and fills t: vf must be a VF (it has a physfn link) of a PF driven
 * by mlx4_core or mlx5_core, whose RDMA device has port `port` with
 * InfiniBand link layer. One line in err naming the VF otherwise:
 *   0000:3b:00.9: not a VF of an InfiniBand PF on this host
 */
int vf_target_resolve(const struct pci_addr *vf, int port, struct vf_target *t,
		      char *err, size_t errlen);

/*
 * What oneib-pkey runs, checks first, then the back end below:
 *
 * vf_map refuses, with one line in err and nothing written,
 *   - a VF the host uses: bound to any driver but vfio-pci
 *     (vf_driver_assignable; "0000:3b:01.0: held by the host's mlx5_core
 *     driver ..."), -EBUSY;
 *   - a GUID one-ib never hands out (guid_assignable), -EINVAL;
 *   - a GUID already in use on this host (host_guids_scan: PF node and
 *     port GUIDs, other VFs' GUIDs, mlx4 alias GUIDs), -EEXIST;
 * and on mlx4 a VF with SMI (QP0) access (see mlx4_map), -EPERM.
 * vf_unmap refuses a VF the host uses the same way. vf_show reads any VF.
 */
int vf_map(const struct vf_target *t, uint64_t guid, struct pkey pk, char *err,
	   size_t errlen);
int vf_unmap(const struct vf_target *t, char *err, size_t errlen);
int vf_show(const struct vf_target *t, struct strbuf *out, char *err,
	    size_t errlen);

/*
 * The back ends of vf_map, vf_unmap and vf_show; call those, which check
 * what is common to both first.
 *
 * mlx4: alias GUID `guid`; virtual P_Key index 0 -> the physical index of
 * `pk` (its low 15 bits), index 1 -> the physical index holding the default
 * partition as a limited member (0x7fff) if the port has one, every other
 * index none. A `pk` missing from the port's table: every index none (the
 * VF blocked, never left in the default partition), -ENOENT.
 * Before anything else it refuses a VF whose smi_enabled reads 1 (SMI/QP0
 * access, granted at the VF's last reset), and it turns enable_smi_admin
 * off when it reads 1 (it would take effect at the next reset: when the
 * guest's driver starts), and never turns it back on.
 * mlx5: node GUID = port GUID = guid, link state auto (follow the port).
 * The VF is held by vfio-pci or by no driver (vf_map checks), so the
 * guest's driver reads the new GUIDs when it starts.
 * Both verify every write by reading it back and undo what they wrote
 * when a later step fails.
 */
int mlx4_map(const struct vf_target *t, uint64_t guid, struct pkey pk,
	     char *err, size_t errlen);
int mlx5_map(const struct vf_target *t, uint64_t guid, char *err,
	     size_t errlen);
/* GUID invalidated (all ones), every P_Key index none / link disabled. */
int mlx4_unmap(const struct vf_target *t, char *err, size_t errlen);
int mlx5_unmap(const struct vf_target *t, char *err, size_t errlen);
/* What is programmed now, read back, as "key: value" lines appended to out. */
int mlx4_show(const struct vf_target *t, struct strbuf *out, char *err,
	      size_t errlen);
int mlx5_show(const struct vf_target *t, struct strbuf *out, char *err,
	      size_t errlen);

#endif
