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
#include "host/hca.h"

/*
 * 0, or -errno with one line in err that names the PF and the port:
 * oneib-peer's own line (it names them), or
 *   PF 0000:3b:00.0 port 1: cannot run sudo: No such file or directory
 *   PF 0000:3b:00.0 port 1: sudo: a password is required
 *   PF 0000:3b:00.0 port 1: oneib-peer printed no peer: peer: expected ...
 */
int peercmd_query(const char *cmd, const struct pci_addr *pf, int port,
		  struct smp_peer *out, char *err, size_t errlen);

/*
 * The peer of every InfiniBand port of every PF in l (ib_port.peer_*):
 * asked through cmd when the port's link is up (phys_state LinkUp: a
 * directed-route SMP needs no SM, only the physical link), else peer_why
 * says why it was not ("PF 0000:3b:00.0 port 1: link down (Polling)", "...
 * no peer command configured (ONEIB_PEER in kvm-ibrc)" for cmd NULL or
 * blank). Ports of other link layers and CAs without a PCI function are
 * left alone ("" peer_why). Never fails: what it cannot learn it says.
 */
void peercmd_read_all(const char *cmd, struct hca_list *l);

/* The port has a leaf switch: known, and the peer a switch. */
bool port_has_leaf(const struct ib_port *p);

/*
 * Why port p of PF h has no leaf switch, one line into buf naming the PF
 * and the port: peer_why, or what the peer is instead
 *   PF 0000:3b:00.0 port 1: cabled to a CA, not a switch (0x0002c903...
 *   port 1, "stor1 HCA-1")
 * false (buf "") when it has one, or has nothing to say (not InfiniBand).
 */
bool port_no_leaf(const struct hca *h, const struct ib_port *p, char *buf,
		  size_t len);

#endif
