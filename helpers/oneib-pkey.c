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

#include "core/command.h"
#include "core/guid.h"
#include "core/ibattr.h"
#include "core/log.h"
#include "core/pci.h"
#include "core/pkey.h"
#include "core/strbuf.h"
#include "root/vfmap.h"

#define ERRLEN 512

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

/* What every command has parsed: its VF, resolved, and the options. */
struct ctx {
	int port;
	struct vf_target t;
	struct strbuf out;
	char err[ERRLEN];
};

/* The VF argv[optind] (after nargs - 1 more arguments), resolved. */
static int target(int argc, char **argv, int nargs, const char *what,
		  struct ctx *c)
{
	struct pci_addr vf;

	if (argc - optind != nargs) {
		command_misuse("oneib-pkey", "%s takes %s", argv[1], what);
		return 2;
	}
	if (pci_addr_parse(argv[optind], &vf)) {
		log_msg("VF '%.40s': not a PCI address (0000:3b:00.2)",
			argv[optind]);
		return 2;
	}
	if (vf_target_resolve(&vf, c->port, &c->t, c->err, sizeof(c->err))) {
		log_msg("%s", c->err);
		return 1;
	}
	return 0;
}

static int cmd_map(int argc, char **argv, void *arg)
{
	struct ctx *c = arg;
	struct pkey pk = { 0 };
	uint64_t guid = 0;
	int r;

	/* every argument parsed before the VF is even looked up */
	if (argc - optind == 3 && (parse_guid(argv[optind + 1], &guid) ||
				   parse_pkey(argv[optind + 2], &pk)))
		return 2;
	r = target(argc, argv, 3, "VF GUID PKEY", c);
	return r ? r : vf_map(&c->t, guid, pk, c->err, sizeof(c->err));
}

static int cmd_unmap(int argc, char **argv, void *arg)
{
	struct ctx *c = arg;
	int r = target(argc, argv, 1, "VF", c);

	return r ? r : vf_unmap(&c->t, c->err, sizeof(c->err));
}

static int cmd_show(int argc, char **argv, void *arg)
{
	struct ctx *c = arg;
	int r = target(argc, argv, 1, "VF", c);

	return r ? r : vf_show(&c->t, &c->out, c->err, sizeof(c->err));
}

static const struct command commands[] = {
	{ "map", cmd_map, "VF GUID PKEY [--port N]" },
	{ "unmap", cmd_unmap, "VF [--port N]" },
	{ "show", cmd_show, "VF [--port N]" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { .port = 1, .out = STRBUF_INIT };
	const struct command *cmd;
	int o, r;

	r = command_help(argc, argv, "oneib-pkey", commands, NCOMMANDS, NULL);
	if (r >= 0)
		return r;
	cmd = command_find(commands, NCOMMANDS, argv[1]);
	if (!cmd)
		return 2;
	opterr = 0; /* one line of ours, not getopt's */
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			if (opt_int("--port", optarg, 1, 9, "a port number",
				    &c.port))
				return 2;
			break;
		case 'h':
			command_usage(stdout, "oneib-pkey", commands, NCOMMANDS,
				      NULL);
			return 0;
		default:
			command_misuse("oneib-pkey", "%.40s: unknown option",
				       argv[optind - 1]);
			return 2;
		}
	}
	r = cmd->run(argc, argv, &c);
	if (r < 0) {
		log_msg("%s", c.err[0] ? c.err : strerror(-r));
		r = 1;
	} else if (!r) {
		fputs(sb_str(&c.out), stdout);
	}
	sb_release(&c.out);
	return r;
}
