/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NCCL's view of this guest's InfiniBand NICs (design decision 15): which
 * GPU each one is beside, and their rails, for NCCL and UCX.
 *
 * The pairs come from the guest's own PCIe tree (core/pciplace.h): each
 * configured NIC's VF (its RDMA device's PCI function) pairs with the GPU
 * (class 0x03xx, 0x12xx) under its PCIe switch, more bridges shared first,
 * else one on its NUMA node, lowest address first. one-ib's deploy puts
 * every GPU and its VFs under a switch of their own, so the guest's tree
 * shows the host's pairing. The rails come from the host: the domain's
 * SMBIOS OEM string "one-ib rails 1=5,2=3" (core/railhint.h; NIC ID =
 * rail), read from /sys/firmware/dmi/entries/11-N/raw, since OpenNebula's
 * context is written before the host leases the VFs.
 *
 * oneib-context writes GUEST_NCCL_FILE in its state directory, an NCCL
 * topology file (NCCL_TOPO_FILE), when a NIC has a GPU beside it:
 *
 *   <system version="1">
 *     <cpu numaid="0">
 *       <pci busid="0000:21:00.0" class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">
 *         <pci busid="0000:23:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"/>
 *         <pci busid="0000:24:00.0" class="0x020700" link_speed="32.0 GT/s PCIe" link_width="16"/>
 *       </pci>
 *     </cpu>
 *   </system>
 *
 * one <cpu> per guest NUMA node (0 when the guest has none), one <pci> per
 * switch (its upstream port) holding its GPUs and VFs; a NIC beside no GPU
 * under its switch hangs off its <cpu> alone. The switch gets the link of
 * the GPU under it (a passed-through device reports its own link, an
 * emulated switch port a slow one that NCCL would take for a bottleneck).
 * And to the environment file (guestsl.h) it adds
 *
 *   NCCL_TOPO_FILE=/run/oneib-context/nccl-topology.xml   (with the file)
 *   NCCL_IB_HCA==mlx5_1:1,mlx5_0:1
 *   UCX_NET_DEVICES=mlx5_1:1,mlx5_0:1
 *
 * the NICs in rail order (a NIC without a known rail after them, by NIC
 * number); "=": NCCL takes the names exactly, not as prefixes. Only the
 * NICs of full members (a service network's NIC carries no collective
 * traffic), and only when there is something to tell: two NICs or more,
 * or one beside a GPU.
 */
#ifndef ONEIB_GUESTNCCL_H
#define ONEIB_GUESTNCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"
#include "core/pciplace.h"
#include "core/railhint.h"
#include "core/strbuf.h"
#include "guest/guestplan.h"

#define GUEST_NCCL_FILE "nccl-topology.xml"
#define NCCL_LINK_MAX 32

/* A PCI function as NCCL's topology file names it. */
struct nccl_fn {
	struct pci_addr addr;
	uint32_t class_code;
	char speed[NCCL_LINK_MAX]; /* max_link_speed, "32.0 GT/s PCIe" */
	int width; /* max_link_width */
	struct pci_place place;
};

struct nccl_nic {
	int nic; /* ETH<n> */
	char ibdev[IPOIB_IBDEV_MAX];
	int port;
	int rail; /* -1: not known */
	struct nccl_fn vf;
	bool has_gpu;
	struct nccl_fn gpu;
};

/*
 * The NICs of plans that are configured and have an RDMA device, each
 * with its VF, the GPU beside it and its rail (hints: the host's, n of
 * them), read from sysfs: *out malloc'd, in plan order. 0 or -ENOMEM; a
 * NIC whose VF sysfs does not show is left out.
 */
int nccl_read(const struct nic_plan *plans, size_t n,
	      const struct rail_hint *hints, size_t nhints,
	      struct nccl_nic **out, size_t *nout);

/* The rails the host put in the guest's SMBIOS OEM strings (dmi_dir:
 * SYS_DMI "/entries"): *h malloc'd, none when there are none. -ENOMEM. */
int nccl_oem_rails(const char *dmi_dir, struct rail_hint **h, size_t *n);

/* "one-ib rails 1=5" among the strings of one OEM table (raw, len bytes:
 * SMBIOS type 11), into *h; false when it holds none that parses. */
bool nccl_oem_parse(const unsigned char *raw, size_t len, struct rail_hint **h,
		    size_t *n);

/* The topology file's text; -ENOENT when no NIC has a GPU beside it. */
int nccl_topology(const struct nccl_nic *v, size_t n, struct strbuf *out);

/* The environment lines (above) appended to out; topo: the topology
 * file's path, NULL when none was written. v is sorted in rail order. */
int nccl_environment(struct nccl_nic *v, size_t n, const char *topo,
		     struct strbuf *out);

#endif
