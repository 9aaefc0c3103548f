// SPDX-License-Identifier: Apache-2.0
/*
 * Looking up what a scan of libvirt found (host/virt.h): apart from
 * virt.c, so that placement, which asks these and never libvirt itself,
 * links without libvirt's loader and the domain XML parser (oneib-discover
 * counts free VFs by placement's rule, and links no XML library).
 */
#include <stddef.h>

#include "host/virt.h"

const struct virt_domain *virt_pci_user(const struct virt_domains *d,
					const struct pci_addr *a)
{
	size_t i, j;

	for (i = 0; i < d->n; i++)
		for (j = 0; j < d->v[i].npcis; j++)
			if (!pci_addr_cmp(&d->v[i].pcis[j], a))
				return &d->v[i];
	return NULL;
}

const struct virt_domain *virt_find_vm(const struct virt_domains *d, int vmid)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].vmid == vmid)
			return &d->v[i];
	return NULL;
}
