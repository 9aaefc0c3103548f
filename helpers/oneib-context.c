// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-context: IPoIB inside an OpenNebula guest, from its context.
 *
 *   oneib-context [--context FILE] [--dry-run] [--wait SECONDS]
 *                 [--state-dir DIR]
 *
 * Reads the context (default /var/run/one-context/context.sh.local, the
 * copy one-context keeps; never sourced), finds each NIC's IPoIB netdev by
 * the port GUID the host gave that NIC (VM ID and NIC ID in it), and sets
 * it up over rtnetlink: the tenant partition's P_Key child when the VF's
 * table has the tenant key past index 0, mode, MTU, addresses, routes,
 * link up. NICs without such a netdev are left to one-context.
 *
 *   --dry-run       one line per NIC of what it would do, nothing changed:
 *       ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0.8011 mode datagram mtu 2044 ip 10.11.0.5/24 gw 10.11.0.1
 *   --wait SECONDS  how long a port may lack its tenant P_Key (60)
 *   --state-dir DIR its lock and the record of what it created
 *                   (/run/oneib-context)
 *
 * One line per NIC on stdout ("ETH1 ib0.8011: configured (...)"), notes
 * and refusals on stderr. Exit 0 when every InfiniBand NIC is configured
 * or skipped, 1 when one is not (the others are still configured) or
 * nothing could be read, 2 on wrong usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/guest.h"
#include "core/log.h"

#define ERRLEN 512
#define WAIT_MAX 3600

static void usage(FILE *f)
{
	fputs("usage: oneib-context [--context FILE] [--dry-run] "
	      "[--wait SECONDS] [--state-dir DIR]\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "context", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'w' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct guest_opts o = { .context = GUEST_CONTEXT,
				.state_dir = GUEST_STATE_DIR,
				.wait_s = GUEST_WAIT_S };
	char err[ERRLEN] = "";
	int c, r;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o.context = optarg;
			break;
		case 'n':
			o.dry_run = true;
			break;
		case 'w':
			if (opt_int("--wait", optarg, 0, WAIT_MAX,
				    "a number of seconds", &o.wait_s))
				return 2;
			break;
		case 's':
			o.state_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	r = guest_run(&o, stdout, err, sizeof(err));
	if (fflush(stdout) && !r) {
		log_msg("standard output: %s", strerror(errno));
		return 1;
	}
	if (r < 0) {
		log_msg("%s", err);
		return 1;
	}
	return r ? 1 : 0;
}
