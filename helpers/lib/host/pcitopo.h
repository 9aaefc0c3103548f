/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PCI devices a VM can be given besides its VFs (GPUs), with where
 * each sits (core/pciplace.h): what oneib-discover reports and deploy
 * pairs NICs with (design decision 15).
 */
#ifndef ONEIB_PCITOPO_H
#define ONEIB_PCITOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"
#include "core/pciplace.h"

/*
 * A PCI function OpenNebula can pass through (PCI=[...]) besides the VFs
 * one-ib leases: a GPU or accelerator, whatever its driver, or any other
 * function bound to vfio-pci or pci-stub (OpenNebula's passthrough needs
 * it bound to vfio-pci). Never a bridge.
 */
struct pt_dev {
	struct pci_addr addr;
	uint32_t class_code; /* 0x030200 */
	uint16_t vendor_id, device_id;
	char driver[32]; /* "" unbound */
	struct pci_place place;
};

struct pt_dev_list {
	struct pt_dev *v; /* by address */
	size_t n;
};

/*
 * The passthrough-able functions of the host, but those in skip (n
 * addresses, sorted by pci_addr_cmp: the HCAs' PFs and VFs, one-ib's
 * own), into out. 0, -ENOMEM, or -errno when SYS_PCI cannot be read.
 */
int pt_dev_scan(const struct pci_addr *skip, size_t nskip,
		struct pt_dev_list *out);
void pt_dev_list_free(struct pt_dev_list *l);

/*
 * The function at a, read as pt_dev_scan reads one, whatever it is (the
 * deployment names it): 0, -ENOENT when sysfs has no such function.
 */
int pt_dev_read(const struct pci_addr *a, struct pt_dev *out);

#endif
