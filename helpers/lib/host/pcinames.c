// SPDX-License-Identifier: Apache-2.0
/*
 * The one part of one-ib that needs libpci, apart from hca.c's discovery
 * and core/pci.c's address forms, so that a program that never shows names
 * (oneib-vf, oneib-pkey, the guest's oneib-context) does not link libpci.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "host/pcinames.h"

struct pci_names {
	struct pci_access *pacc;
};

static struct pci_names *pci_names_open(void)
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

static void pci_names_close(struct pci_names *n)
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

void hca_read_names(struct hca_list *l)
{
	struct pci_names *n = pci_names_open();
	size_t i;

	for (i = 0; n && i < l->n; i++) {
		struct hca *h = &l->v[i];

		if (!h->has_pci || lookup(n, h->vendor, sizeof(h->vendor),
					  PCI_LOOKUP_VENDOR, h->vendor_id, 0))
			h->vendor[0] = '\0';
		if (!h->has_pci ||
		    lookup(n, h->device, sizeof(h->device), PCI_LOOKUP_DEVICE,
			   h->vendor_id, h->device_id))
			h->device[0] = '\0';
	}
	pci_names_close(n);
}
