/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unprivileged side of a VF's GUID and partition: oneib-vf runs the
 * configured oneib-pkey command (ONEIB_PKEY in kvm-ibrc, "sudo -n
 * /usr/sbin/oneib-pkey"; words split on blanks, no shell), as
 *
 *   <cmd> map 0000:3b:00.2 0x02000000002a0001 0x8101 --port 1
 *   <cmd> unmap 0000:3b:00.2 --port 1
 *
 * and oneib-pkey, as root, does it (root/vfmap.h). Its stderr (one line)
 * becomes err on failure.
 */
#ifndef ONEIB_PKEYCMD_H
#define ONEIB_PKEYCMD_H

#include <stddef.h>
#include <stdint.h>

#include "core/pci.h"
#include "core/pkey.h"

int pkeycmd_map(const char *cmd, const struct pci_addr *vf, int port,
		uint64_t guid, struct pkey pk, char *err, size_t errlen);
int pkeycmd_unmap(const char *cmd, const struct pci_addr *vf, int port,
		  char *err, size_t errlen);

#endif
