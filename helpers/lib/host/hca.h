/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host's InfiniBand HCAs (PFs), their ports and their SR-IOV VFs.
 *
 * Where each fact comes from:
 *   RDMA devices and their ports  libibumad (/sys/class/infiniband/<dev>)
 *   PCI identity, SR-IOV, VFs     /sys/bus/pci/devices/<bdf>/{vendor,device,
 *                                 numa_node,driver,iommu_group,sriov_*,virtfnN}
 *   vendor/device names           libpci's pci.ids (host/pcinames.h)
 *
 * An RDMA device whose PCI function has a `physfn` link belongs to a VF bound
 * to the host driver (mlx5_core); it is shown on that VF, not as an HCA. A
 * device with no PCI function at all (ibsim's "ibsim0") is an HCA without an
 * address.
 *
 * Unknown numbers are -1 (numa_node -1 is also the kernel's "unknown").
 */
#ifndef ONEIB_HCA_H
#define ONEIB_HCA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"
#include "core/smp.h"
#include "host/pcitopo.h"
#include "root/ibdev.h"

#define HCA_NAME_MAX IBDEV_NAME_MAX
#define HCA_MAX_PORTS 10 /* libibumad's UMAD_CA_MAX_PORTS */

/*
 * How the host gives a VF of this port its GUIDs (what oneib-pkey map needs):
 * mlx4 through the PF's iov/ alias GUID tables; mlx5 through MLNX_OFED's
 * <pf>/sriov/<n>/ files, or upstream through rtnetlink on the PF's IPoIB
 * netdev for the port ("ib0": ib_ipoib loaded). VF_GUIDS_NONE: an mlx5 port
 * with VFs and neither, so every deploy that programs a VF would fail.
 */
enum vf_guids {
	VF_GUIDS_NA, /* no VFs, not InfiniBand, or not mlx4/mlx5 */
	VF_GUIDS_MLX4,
	VF_GUIDS_OFED,
	VF_GUIDS_NETLINK,
	VF_GUIDS_NONE,
};

struct ib_port {
	int num;
	int state; /* 4 = ACTIVE; -1 unknown */
	int phys_state; /* 5 = LinkUp; -1 unknown */
	unsigned rate; /* Gb/s as libibumad reads it: "2.5 Gb/sec" -> 2 */
	unsigned lid;
	unsigned sm_lid;
	char link_layer[20]; /* "InfiniBand", "Ethernet" (UMAD_CA_NAME_LEN) */
	uint64_t guid;
	/* the first 64 bits of its GID 0 (gids/0): the subnet prefix its SM
	 * gave it (opensm's subnet_prefix, 0xfe80000000000000 by default),
	 * which tells the fabric's subnets apart; 0 unknown */
	uint64_t gid_prefix;
	uint16_t *pkeys; /* non-zero entries, table order */
	size_t npkeys;
	size_t pkey_cap; /* entries the table has (hca_discover; 0 unknown) */
	enum vf_guids vf_guids;
	char ipoib[HCA_NAME_MAX]; /* the PF's IPoIB netdev for it, "" none */
	/* What its cable ends in (host/peercmd.h, peercmd_read_all): peer
	 * when peer_known, else peer_why says why not ("" not asked). */
	bool peer_known;
	struct smp_peer peer;
	char peer_why[256];
	/* Its rail (host/rails.h): by address once read, by leaf when
	 * rails_assign is given a map; -1: none. */
	int rail;
};

struct vf {
	int index; /* N of the PF's virtfnN */
	struct pci_addr addr;
	char driver[HCA_NAME_MAX]; /* "" when unbound */
	int iommu_group;
	int numa_node;
	char ibdev[HCA_NAME_MAX]; /* "" unless the host driver holds it */
	int vmid; /* VM holding it by lease, -1: none */
	bool unprobed; /* hca_inventory: driver not read yet (hca_vf_probe) */
	bool absent; /* probed, and sysfs has no such function */
};

struct hca {
	bool has_pci;
	struct pci_addr addr;
	uint16_t vendor_id, device_id;
	char vendor[128], device[128]; /* "" when pci.ids does not know */
	char driver[HCA_NAME_MAX];
	char ibdev[HCA_NAME_MAX];
	uint64_t node_guid;
	char fw_ver[32];
	int numa_node;
	struct pci_place place; /* its PCIe switch (host/pcitopo.h) */
	int sriov_totalvfs, sriov_numvfs;
	struct ib_port ports[HCA_MAX_PORTS];
	int nports;
	struct vf *vfs;
	size_t nvfs;
};

struct hca_list {
	struct hca *v;
	size_t n;
};

/*
 * Fills `out` (sorted: PCI address, then address-less devices by name).
 * Odd sysfs data is reported on stderr and skipped; the return value is
 * negative only when /sys itself cannot be read or memory runs out.
 */
/* vendor and device are left "": hca_read_names (host/pcinames.h) looks
 * them up in pci.ids, for those who show them. With HCA_VF_DRIVER_ONLY in
 * flags, each VF's iommu_group and numa_node are not read either (-1), for
 * those who show neither: on 1016 VFs that is four syscalls in ten. */
#define HCA_VF_DRIVER_ONLY 1u
int hca_discover(struct hca_list *out, unsigned flags);
/*
 * What VF placement needs and no more, for oneib-vf's every deploy (a full
 * hca_discover of 508 VFs is ~6000 sysfs reads, ~11 ms): the PFs with their
 * PCI address, driver and NUMA node, their ports' number, state, link
 * layer (read from sysfs directly: libibumad would read all 128 P_Keys of
 * each) and how their VFs get GUIDs (vf_guids),
 * and their VFs' index and address, numbered as the kernel numbers them
 * (VF n = the PF's routing ID + sriov_offset + n * sriov_stride), each
 * left unprobed: hca_vf_probe reads its driver when placement asks.
 */
int hca_inventory(struct hca_list *out);
/* A VF's driver, and whether sysfs has it at all (a dangling virtfnN). */
void hca_vf_probe(struct vf *vf);
/* Every unprobed VF of l probed; how many were. */
size_t hca_probe_all(struct hca_list *l);
void hca_list_free(struct hca_list *l);

/*
 * The host's PCI devices OpenNebula can pass through (pt_dev_scan), but
 * the PFs and VFs of l: one-ib's own. 0, -ENOMEM or -errno.
 */
int hca_pci_devs(const struct hca_list *l, struct pt_dev_list *out);

const char *ib_state_name(int state);
const char *ib_phys_state_name(int phys_state);
/* "4: ACTIVE" -> 4; -EINVAL unless number and name agree. */
int ib_state_parse(const char *s);
/* Port can carry a tenant VF: ACTIVE and InfiniBand. */
bool ib_port_usable(const struct ib_port *p);
/*
 * Why the VFs of this port cannot get their GUIDs, or NULL when they can
 * (or need not: guids is false when the host programs no VF, ONEIB_PKEY
 * empty). An mlx5 port with VFs, without MLNX_OFED and without the PF's
 * IPoIB netdev (VF_GUIDS_NONE):
 *   "no IPoIB netdev, so VF GUIDs cannot be set: load ib_ipoib ..."
 */
const char *ib_port_not_ready(const struct ib_port *p, bool guids);
/*
 * The port-ready rule: a VM can be given a VF of this port, usable and
 * not "not ready". oneib-discover reports by it (IB_NOT_READY, the free
 * VFs the probes count), placement chooses by it, so the monitor never
 * counts a VF that deploy would not lease, nor the reverse.
 */
bool ib_port_ready(const struct ib_port *p, bool guids);
/* vf_driver_assignable (root/ibdev.h), for a probed VF sysfs has
 * (hca_inventory leaves VFs unprobed). */
bool vf_assignable(const struct vf *vf);

#endif
