/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What libvirt runs: every domain (running or only defined) and the PCI
 * functions it holds as hostdevs. libvirt is the truth for VF use: a VF any
 * domain holds is never leased, whoever started that domain.
 *
 * OpenNebula names its domains "one-<vmid>" ("one-42" -> vmid 42).
 */
#ifndef ONEIB_VIRT_H
#define ONEIB_VIRT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pci.h"

struct virt_domain {
	char *name;
	int vmid; /* -1: not an OpenNebula domain */
	bool active;
	bool paused; /* e.g. the destination of a live migration until it ends */
	bool read; /* its XML was read: pcis is all it holds */
	struct pci_addr *pcis;
	size_t npcis;
	char *xml; /* its XML, kept when need() said VIRT_READ_KEEP */
};

struct virt_domains {
	struct virt_domain *v;
	size_t n;
};

/*
 * Whether a domain's XML must be read: VIRT_SKIP when the caller already
 * knows what that domain holds (its pcis stay empty, read false);
 * VIRT_READ_KEEP also keeps the text (xml), for a caller that reads more
 * of it than the hostdevs.
 */
enum virt_read { VIRT_SKIP, VIRT_READ, VIRT_READ_KEEP };
typedef enum virt_read (*virt_need_xml)(const char *name, int vmid, void *ctx);

/*
 * Every domain of uri (e.g. "qemu:///system"; read-only connection), and
 * the PCI functions of those need() wants read (need NULL: all). libvirt
 * is loaded here, on first use: "cannot load libvirt: ..." if it is not
 * installed.
 */
int virt_scan(const char *uri, virt_need_xml need, void *ctx,
	      struct virt_domains *out, char *err, size_t errlen);
void virt_domains_free(struct virt_domains *d);
/* The domain holding this PCI function, or NULL. */
const struct virt_domain *virt_pci_user(const struct virt_domains *d,
					const struct pci_addr *a);
const struct virt_domain *virt_find_vm(const struct virt_domains *d, int vmid);
/* "one-42" -> 42, anything else -> -1 */
int virt_vmid_of(const char *name);

#endif
