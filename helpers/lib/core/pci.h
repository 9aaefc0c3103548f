/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PCI function addresses (their names in pci.ids: host/pcinames.h).
 *
 * The one textual form is the kernel's: "0000:3b:00.2" (domain:bus:slot.func,
 * lowercase hex, as in /sys/bus/pci/devices). Input is parsed strictly, since
 * addresses reach root-run helpers from OpenNebula templates.
 */
#ifndef ONEIB_PCI_H
#define ONEIB_PCI_H

#include <stddef.h>
#include <stdint.h>

struct pci_addr {
	uint16_t domain;
	uint8_t bus;
	uint8_t slot; /* 0..31 */
	uint8_t func; /* 0..7 */
};

/* "DDDD:BB:SS.F" exactly (12 characters); -EINVAL otherwise. */
int pci_addr_parse(const char *s, struct pci_addr *out);
/*
 * An address as OpenNebula writes it, or the kernel's: oned's PCI ADDRESS
 * is "0000:17:00:0" (HostSharePCI: domain:bus:slot:func), its
 * SHORT_ADDRESS "17:00.0" (bus:slot.func, domain 0). -EINVAL otherwise.
 */
int pci_addr_parse_one(const char *s, struct pci_addr *out);
int pci_addr_parse_short(const char *s, struct pci_addr *out);
#define PCI_ADDR_STRLEN 16
void pci_addr_fmt(const struct pci_addr *a, char buf[PCI_ADDR_STRLEN]);
int pci_addr_cmp(const struct pci_addr *a, const struct pci_addr *b);

#endif
