/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Vendor and device names of the HCAs, from the pci.ids database through
 * libpci: 15b3 1017 -> "Mellanox Technologies", "MT27800 Family
 * [ConnectX-5]". Only oneib-discover's table and JSON show them, so only
 * oneib-discover links libpci.
 */
#ifndef ONEIB_PCINAMES_H
#define ONEIB_PCINAMES_H

#include "host/hca.h"

/* h->vendor and h->device of every HCA of l with a PCI function; "" where
 * pci.ids does not know it (or libpci cannot be used at all). */
void hca_read_names(struct hca_list *l);

#endif
