/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The facts about an InfiniBand PCI function that the root side needs
 * (oneib-pkey checking a VF before it touches it) and that the host's
 * inventory (host/hca.h) reads the same way, so that a VF the inventory
 * offers is one oneib-pkey programs:
 *
 *   /sys/bus/pci/devices/0000:3b:01.0/driver -> .../vfio-pci   assignable
 *   /sys/bus/pci/devices/0000:3b:00.0/net/ib0/{type,dev_port,ifindex}
 *                                   "32", "0", "5": port 1's IPoIB netdev
 *
 * Only sysfs and libc: nothing here may pull a library into a root binary.
 */
#ifndef ONEIB_IBDEV_H
#define ONEIB_IBDEV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pci.h"

/* RDMA device, driver and netdev names ("mlx5_0", "vfio-pci", "ib0"). */
#define IBDEV_NAME_MAX 64

/*
 * VF can be handed to a guest: not held by a host driver. The rule is the
 * driver it is bound to: vfio-pci (libvirt's managed='yes' binds it at
 * domain start and leaves a pre-bound one as it is) or none at all; any
 * other driver (mlx5_core, mlx4_core: an RDMA device and an IPoIB netdev
 * of the host) means the host uses it. oneib-vf leases and oneib-pkey
 * programs only such VFs.
 */
bool vf_driver_assignable(const char *driver);

/*
 * The IPoIB netdev of PF `pf_bdf`'s port `port`: the entry of
 * /sys/bus/pci/devices/<pf>/net/ with type 32 (ARPHRD_INFINIBAND) and
 * dev_port port-1, e.g. "ib0" and its ifindex. -ENOENT when there is none
 * (ib_ipoib not loaded).
 */
int ibdev_ipoib_netdev(const char *pf_bdf, int port, char *name, size_t len,
		       int *ifindex);

/*
 * The RDMA device of PF pf_bdf, the one entry of SYS_PCI/<pf>/infiniband/
 * ("mlx5_0"), and its port `port`'s link layer, read through the PF's own
 * directory (in sysfs SYS_IB/mlx5_0 is a link to it):
 *   SYS_PCI/0000:3b:00.0/infiniband/mlx5_0/ports/1/link_layer "InfiniBand"
 * 0 when that port is InfiniBand; -ENODEV: no RDMA device; -ENOENT: no
 * such port; -EPROTOTYPE: another link layer (its name in ll, "Ethernet").
 */
int ibdev_pf_port(const char *pf_bdf, int port, char ibdev[IBDEV_NAME_MAX],
		  char *ll, size_t lllen);

/*
 * pf is a PF on this host (a PCI function sysfs has, not a VF) with an
 * RDMA device whose port `port` is InfiniBand: what oneib-peer checks
 * before it sends anything. Its RDMA device into ibdev; else -errno and
 * one line naming the PF and the reason:
 *   PF 0000:3b:00.1: a VF (of 0000:3b:00.0), not a PF
 *   PF 0000:3b:00.0 port 1: link layer Ethernet, not InfiniBand
 */
int ibdev_pf_check(const struct pci_addr *pf, int port,
		   char ibdev[IBDEV_NAME_MAX], char *err, size_t errlen);

#endif
