// SPDX-License-Identifier: Apache-2.0
/*
 * The names half of pci.h, the one part that needs libpci: apart from
 * pci.c's address forms, so that a program that only parses addresses
 * (the guest's oneib-context, through ibattr.c) does not link libpci.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "core/pci.h"

struct pci_names {
	struct pci_access *pacc;
};

struct pci_names *pci_names_open(void)
{
	struct pci_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	/*
	 * Names only: pci_init() is not called, so libpci never scans the bus
	 * (its scanner exits the process on an unreadable device file).
	 */
	n->pacc = pci_alloc();
	if (!n->pacc) {
		free(n);
		return NULL;
	}
	return n;
}

void pci_names_close(struct pci_names *n)
{
	if (!n)
		return;
	pci_cleanup(n->pacc);
	free(n);
}

static int lookup(struct pci_names *n, char *buf, size_t len, int flags,
		  unsigned vendor, unsigned device)
{
	char tmp[256];
	const char *name;

	/* hwdb off: the same database on every host, whatever udev has. */
	flags |= PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
	name = pci_lookup_name(n->pacc, tmp, sizeof(tmp), flags, vendor,
			       device);
	if (!name)
		return -ENOENT;
	if (strlen(name) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, name, strlen(name) + 1);
	return 0;
}

int pci_vendor_name(struct pci_names *n, uint16_t vendor, char *buf, size_t len)
{
	return lookup(n, buf, len, PCI_LOOKUP_VENDOR, vendor, 0);
}

int pci_device_name(struct pci_names *n, uint16_t vendor, uint16_t device,
		    char *buf, size_t len)
{
	return lookup(n, buf, len, PCI_LOOKUP_DEVICE, vendor, device);
}
