/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unprivileged side of a port's cable: oneib-discover runs the
 * configured oneib-peer command (ONEIB_PEER in kvm-ibrc, "sudo -n
 * /usr/sbin/oneib-peer"; words split on blanks, no shell) as
 *
 *   <cmd> 0000:3b:00.0 1
 *
 * and oneib-peer, as root, asks the node at the other end of the cable
 * (core/smp.h, one Get of NodeInfo and one of NodeDescription, hop count
 * 1) and prints it; its four lines are read back here, strictly. Its
 * stderr (one line) becomes err on failure.
 */
#ifndef ONEIB_PEERCMD_H
#define ONEIB_PEERCMD_H

#include <stddef.h>

#include "core/pci.h"
#include "core/smp.h"

/*
 * 0, or -errno with one line in err: oneib-peer's own refusal, or
 *   cannot run sudo: No such file or directory
 *   oneib-peer printed no peer: peer: expected 'type ...', got ''
 */
int peercmd_query(const char *cmd, const struct pci_addr *pf, int port,
		  struct smp_peer *out, char *err, size_t errlen);

#endif
