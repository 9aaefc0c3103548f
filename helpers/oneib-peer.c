// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-peer: what the cable of one InfiniBand port of this host ends in.
 * The host/system probe (oneadmin) asks it through one sudoers rule,
 * because only root may open /dev/infiniband/umad*:
 *
 *   oneib-peer 0000:3b:00.0 1
 *   type switch
 *   node_guid 0x248a070300f4c1a0
 *   port 17
 *   desc MF0;leaf01:MQM8700/U1
 *
 * (the leaf switch, the port of it the cable is plugged into, its name;
 * "type CA" when the port is cabled straight to another host's HCA).
 *
 * Read only: one Get NodeInfo and one Get NodeDescription, directed
 * route, hop count 1, out of that port (core/smp.h, smp_peer); no option
 * asks for anything else, and nothing here can build a Set. It trusts no
 * argument: the PCI address must be a PF of this host with an RDMA device
 * whose port PORT is InfiniBand (root/ibdev.h, ibdev_pf_check), checked in
 * sysfs before libibumad is even initialised, so a refusal is one line and
 * no MAD is sent. Exit 0; 2 for arguments of the wrong form; 1 for a
 * refused PF or port, or a peer that does not answer.
 */
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/pci.h"
#include "core/smp.h"
#include "core/strbuf.h"
#include "root/ibdev.h"

#define ERRLEN 512
/* Per SMP, sent up to 3 times: a peer that says nothing costs < 2 s. */
#define TIMEOUT_MS 200

static void usage(FILE *f)
{
	fputs("usage: oneib-peer PF PORT   e.g. oneib-peer 0000:3b:00.0 1\n",
	      f);
}

int main(int argc, char **argv)
{
	char err[ERRLEN] = "", ibdev[IBDEV_NAME_MAX], bdf[PCI_ADDR_STRLEN];
	struct strbuf out = STRBUF_INIT;
	struct smp_peer peer;
	struct pci_addr pf;
	int port, r;

	if (argc == 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 3) {
		log_msg("takes a PF and a port (usage: oneib-peer --help)");
		return 2;
	}
	if (pci_addr_parse(argv[1], &pf)) {
		log_msg("PF '%s': not a PCI address (0000:3b:00.0)",
			str_sanitize(argv[1]).s);
		return 2;
	}
	pci_addr_fmt(&pf, bdf);
	if (dec_parse_int(argv[2], &port) || port < 1 || port > 254) {
		log_msg("port '%s': not a port number (1-254)",
			str_sanitize(argv[2]).s);
		return 2;
	}
	if (ibdev_pf_check(&pf, port, ibdev, err, sizeof(err))) {
		log_msg("%s", err);
		return 1;
	}
	r = smp_peer(ibdev, port, TIMEOUT_MS, &peer, err, sizeof(err));
	if (!r)
		r = smp_peer_fmt(&peer, &out);
	if (r) {
		log_msg("PF %s port %d: %s", bdf, port,
			err[0] ? err : strerror(-r));
		sb_release(&out);
		return 1;
	}
	fputs(sb_str(&out), stdout);
	sb_release(&out);
	if (fflush(stdout) || ferror(stdout)) {
		log_msg("cannot write the answer");
		return 1;
	}
	return 0;
}
