/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where a PCI function sits in a PCIe tree, read from the sysfs device
 * path the kernel links it by: the facts "each VF beside its GPU" (design
 * decision 15) ranks HCAs by on the host, and that oneib-context pairs a
 * guest's VFs with its GPUs by. One reader for both ends.
 *
 * The kernel links every function by its device path, the bridges between
 * the host bridge and the function in order (Documentation/PCI/sysfs-pci):
 *
 *   /sys/bus/pci/devices/0000:18:00.0 ->
 *     ../../../devices/pci0000:14/0000:14:01.0/0000:15:00.0/0000:16:00.0/0000:18:00.0
 *
 *   host bridge   pci0000:14    domain 0000, root bus 0x14
 *   bridges       0000:14:01.0  the root port
 *                 0000:15:00.0  the switch's upstream port
 *                 0000:16:00.0  its downstream port the GPU hangs from
 *   -> root port 0000:14:01.0, PCIe switch 0000:15:00.0
 *
 * A port's PCIe type (root, upstream, downstream) is in the PCIe
 * capability, past the 64 bytes of config space an unprivileged reader
 * gets, so it is inferred from the tree, as NCCL's topology does it: the
 * first bridge under the host bridge is a root port; a function behind
 * three or more bridges hangs off a switch, named by its upstream port,
 * the bridge two above the function (a two-level switch: the nearest);
 * one or two bridges: no switch (a root port, or a PCIe-to-PCI bridge
 * below it). Every bridge of the chain must say it is one (class
 * 0x0604xx), or the chain is not trusted and no switch is named.
 */
#ifndef ONEIB_PCIPLACE_H
#define ONEIB_PCIPLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"

/* Bridges between a host bridge and a function that are told apart. */
#define PCI_CHAIN_MAX 8

struct pci_place {
	bool known; /* the device path was read and makes sense */
	uint16_t domain; /* of the host bridge, "pci0000:14" */
	uint8_t root_bus;
	struct pci_addr chain[PCI_CHAIN_MAX]; /* bridges, root port first */
	size_t nchain;
	bool has_switch;
	struct pci_addr sw; /* the nearest switch's upstream port */
	int numa_node; /* -1 unknown */
};

/*
 * The place of function dev from its link's target (readlink of
 * SYS_PCI/<dev>), without reading anything: the chain and the switch as
 * the tree shows them; numa_node -1. -EINVAL when the target is not a
 * device path ending in dev ("../../../devices/pci0000:14/.../<dev>").
 */
int pci_place_parse(const char *target, const struct pci_addr *dev,
		    struct pci_place *out);

/*
 * The place of dev as sysfs shows it: its link and the class of each
 * bridge of the chain (one that is not a bridge: warned, no switch); the
 * caller sets numa_node from the numa_node it read. A function sysfs
 * lacks, or an odd link: known false, one warning. Never fails.
 */
void pci_place_read(const struct pci_addr *dev, struct pci_place *out);

/*
 * A place as the probe's attributes give it (PCIE_ROOT_PORT, PCIE_SWITCH,
 * NUMA_NODE of IB_PF and IB_PCI), for the front-end, which sees no sysfs:
 * the chain is the root port, then the switch (NULL: none; no root port:
 * not known). pci_near then ranks as on the host, but for a two-level
 * switch (the probe names the nearest), whose devices under two inner
 * switches are near by node only.
 */
void pci_place_from(const struct pci_addr *root_port, const struct pci_addr *sw,
		    int numa_node, struct pci_place *out);

/*
 * How near two functions are, best first: under one PCIe switch (their
 * traffic never crosses a root port), on one NUMA node, or neither.
 * Unknown places and nodes are never near.
 */
enum pci_near { PCI_NEAR_SWITCH, PCI_NEAR_NODE, PCI_NEAR_NONE };

enum pci_near pci_near(const struct pci_place *a, const struct pci_place *b);
/* "switch", "numa", "none" */
const char *pci_near_name(enum pci_near n);
/* Within PCI_NEAR_SWITCH: how many bridges they share (more: nearer). */
size_t pci_shared_bridges(const struct pci_place *a, const struct pci_place *b);

/* The PCI device class of a GPU: 0x03 display controllers (0x0300 VGA,
 * 0x0302 3D controller: data-centre GPUs) and 0x12 processing
 * accelerators. */
bool pci_class_is_gpu(uint32_t class_code);

#endif
