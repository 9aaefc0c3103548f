// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-pkey: a tenant's port GUID and partition on one VF. The part of
 * one-ib that runs as root on a hypervisor, through one sudoers rule for
 * oneadmin:
 *
 *   oneib-pkey map   0000:3b:00.2 0x02000000002a0001 0x8101 [--port 1]
 *   oneib-pkey unmap 0000:3b:00.2 [--port 1]
 *   oneib-pkey show  0000:3b:00.2 [--port 1]
 *
 * (The fabric's partitions are oneib-partitions' and, for the one root
 * step on the subnet manager's host, oneib-partitions-install's.)
 *
 * It trusts no argument: each is parsed once into a typed value and checked
 * (a VF of an InfiniBand PF on this host that the host itself does not
 * use, a GUID one-ib hands out that nothing on this host carries yet, a
 * tenant P_Key in full-member form, as IB_PKEY is: ibattr.h) before
 * any path is built or anything written; a refusal is one line and changes
 * nothing. See vf_map in lib/root/vfmap.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/ibattr.h"
#include "core/log.h"
#include "core/pci.h"
#include "core/pkey.h"
#include "core/strbuf.h"
#include "root/vfmap.h"

#define ERRLEN 512

static void usage(FILE *f)
{
	fputs("usage: oneib-pkey map VF GUID PKEY [--port N]\n"
	      "       oneib-pkey unmap VF [--port N]\n"
	      "       oneib-pkey show VF [--port N]\n",
	      f);
}

/* "0x0200c0fffea80105" (any GUID form) -> a GUID a port may carry. */
static int parse_guid(const char *s, uint64_t *g)
{
	if (guid_parse(s, g)) {
		log_msg("GUID '%.40s': not a GUID", s);
		return -1;
	}
	if (*g == 0 || *g == UINT64_MAX) {
		log_msg("GUID '%.40s': zero and all-ones are not port GUIDs",
			s);
		return -1;
	}
	if (!guid_assignable(*g)) {
		log_msg("GUID '%.40s': not one one-ib gives a VF "
			"(02:CC:VV:VV:VV:VV:NN:NN: cloud, VM ID, NIC ID)",
			s);
		return -1;
	}
	return 0;
}

/* The P_Key by IB_PKEY's own rule: full member of a tenant partition. */
static int parse_pkey(const char *s, struct pkey *p)
{
	struct ib_attrs a = { 0 };
	char err[ERRLEN];

	if (ibattr_parse(IBA_PKEY, s, &a, "map", err, sizeof(err))) {
		log_msg("%s", err);
		return -1;
	}
	*p = a.pkey;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[ERRLEN] = "";
	struct strbuf out = STRBUF_INIT;
	struct vf_target t;
	struct pci_addr vf;
	struct pkey pk = { 0 };
	uint64_t guid = 0;
	const char *cmd;
	int port = 1, nargs, o, r;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	opterr = 0; /* one line of ours, not getopt's */
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			if (opt_int("--port", optarg, 1, 9, "a port number",
				    &port))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			log_msg("%.40s: unknown option (usage: oneib-pkey "
				"--help)",
				argv[optind - 1]);
			return 2;
		}
	}
	nargs = argc - optind;
	if (strcmp(cmd, "map") && strcmp(cmd, "unmap") && strcmp(cmd, "show")) {
		log_msg("unknown command '%.20s' (map, unmap, show)", cmd);
		return 2;
	}
	if (nargs != (strcmp(cmd, "map") ? 1 : 3)) {
		log_msg("%s takes %s (usage: oneib-pkey --help)", cmd,
			strcmp(cmd, "map") ? "VF" : "VF GUID PKEY");
		return 2;
	}
	if (pci_addr_parse(argv[optind], &vf)) {
		log_msg("VF '%.40s': not a PCI address (0000:3b:00.2)",
			argv[optind]);
		return 2;
	}
	if (!strcmp(cmd, "map") && (parse_guid(argv[optind + 1], &guid) ||
				    parse_pkey(argv[optind + 2], &pk)))
		return 2;
	r = vf_target_resolve(&vf, port, &t, err, sizeof(err));
	if (r) {
		log_msg("%s", err);
		return 1;
	}
	if (!strcmp(cmd, "map"))
		r = vf_map(&t, guid, pk, err, sizeof(err));
	else if (!strcmp(cmd, "unmap"))
		r = vf_unmap(&t, err, sizeof(err));
	else
		r = vf_show(&t, &out, err, sizeof(err));
	if (r) {
		log_msg("%s", err[0] ? err : strerror(-r));
		sb_release(&out);
		return 1;
	}
	fputs(sb_str(&out), stdout);
	sb_release(&out);
	return 0;
}
