// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-vnet: the checks behind the `ib` virtual network driver
 * (remotes/vnm/ib), so that its scripts never parse XML themselves.
 *
 *   oneib-vnet create --id 7 --pool pool.xml [--range 0x0100-0x01ff]
 *                     [--static partitions.static.conf] < vnet.xml
 *       vnet_create on the front-end: vnet.xml is the <VNET> oned hands
 *       over, pool.xml what `onevnet list -x` prints, the static file the
 *       operator's own partitions (ONEIB_PARTITIONS_STATIC). Checks every
 *       IB_* attribute (IB_PKEY, IB_MTU, IB_RATE, IB_SL, IB_MODE, IB_PF,
 *       IB_PORT, IB_MEMBERSHIP, IB_SERVICE_GUIDS, IB_SERVICE_PARTITION) by
 *       the partitions renderer's rules, refuses a partition another
 *       InfiniBand network holds or the static file reserves, and an
 *       IB_SERVICE_PARTITION the static file does not have, assigns the
 *       lowest free one of the range when IB_PKEY is missing, and prints
 *       the one line OpenNebula appends to the network's template, always
 *       the full-member form:
 *           IB_PKEY="0x8102"
 *       (IB_PKEY="0x8102" and "33026" print that line; the limited form
 *       "0x0102" is refused, never read as full membership.)
 *   oneib-vnet vm-id < vm.xml
 *       the ID of the <VM> a host-side VNM action got, e.g. "42"
 *
 * A refusal is one line on stderr that names the network, exit 1, and
 * nothing on stdout:
 *   oneib-vnet: VNET 7 (tenant-b): IB_SL '16' is not a service level 0..15
 * Exit 2: wrong usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/command.h"
#include "core/log.h"
#include "core/onetmpl.h"
#include "fabric/onevnet.h"
#include "fabric/partstatic.h"
#include "core/pkey.h"
#include "fabric/poolread.h"
#include "core/strbuf.h"

#define ERRLEN 512
#define XML_MAX (64 << 20) /* a pool of a few thousand networks: a few MB */
#define DEFAULT_RANGE "0x0100-0x01ff"

struct ctx {
	int id; /* --id, -1 when not given */
	const char *pool; /* --pool FILE */
	const char *range; /* --range LO-HI */
	const char *stat; /* --static FILE */
};

static int cmd_create(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	struct strbuf vx = STRBUF_INIT;
	struct cloud_facts facts = { 0 };
	struct vnet_pool pool = { NULL, 0 };
	struct partitions st = { 0 };
	char err[ERRLEN] = "", label[VNET_LABEL_MAX], pk[PKEY_STRLEN];
	struct ib_vnet vn = { .id = c->id };
	struct pkey_range range;
	struct pkey key;
	int r;

	if (c->id < 0 || !c->pool) {
		log_msg("create needs --id ID and --pool FILE");
		return 2;
	}
	r = sb_read(&vx, stdin, XML_MAX);
	if (r) {
		vnet_label(&vn, label);
		log_msg("%s: cannot read the VNET XML on stdin: %s", label,
			strerror(-r));
		goto out;
	}
	r = onevnet_parse(sb_str(&vx), vx.len, c->id, &vn, err, sizeof(err));
	if (r) {
		log_msg("%s", err);
		goto out;
	}
	vnet_label(&vn, label);
	/* A bad range is the operator's to fix, whatever this VNET asks. */
	if (pkey_range_parse(c->range, &range)) {
		log_msg("%s: IB_PKEY_RANGE '%s' in etc/vnm/ib/ibrc is not "
			"LO-HI within 0x0001-0x7ffe",
			label, str_sanitize(c->range).s);
		r = -EINVAL;
		goto out;
	}
	/* The one pool reader, as the partitions renderer reads it. */
	r = poolread_files(&facts, POOL_VNET, 1, (char *const *)&c->pool, err,
			   sizeof(err));
	if (!r && onevnet_pool_from_facts(&facts, &pool)) {
		err_set(err, sizeof(err), "VNET pool: out of memory");
		r = -ENOMEM;
	}
	if (r) {
		log_msg("%s: %s", label, err);
		goto out;
	}
	/* the operator's partitions: their keys are not a network's */
	if (c->stat) {
		r = partitions_read_static(c->stat, &st, err, sizeof(err));
		if (r) {
			log_msg("%s: %s", label, err);
			goto out;
		}
	}
	r = onevnet_check_service(&vn, c->stat ? &st : NULL, err, sizeof(err));
	if (!r)
		r = onevnet_assign_pkey(&vn, &pool, &range,
					c->stat ? &st : NULL, &key, err,
					sizeof(err));
	if (r) {
		log_msg("%s", err);
		goto out;
	}
	pkey_fmt(key, pk);
	tmpl_attr(stdout, "IB_PKEY", pk);
	if (fflush(stdout) || ferror(stdout)) {
		r = -EIO;
		log_msg("%s: cannot write IB_PKEY on stdout", label);
	}
out:
	partitions_free(&st);
	vnet_pool_free(&pool);
	cloud_facts_free(&facts);
	sb_release(&vx);
	return r ? 1 : 0;
}

static int cmd_vm_id(int argc, char **argv, void *arg)
{
	(void)argc;
	(void)argv;
	(void)arg;
	struct strbuf x = STRBUF_INIT;
	char err[ERRLEN] = "";
	int id = -1, r;

	r = sb_read(&x, stdin, XML_MAX);
	if (r)
		log_msg("cannot read the VM XML on stdin: %s", strerror(-r));
	else if ((r = onevnet_vm_id(sb_str(&x), x.len, &id, err, sizeof(err))))
		log_msg("%s", err);
	else
		printf("%d\n", id);
	sb_release(&x);
	return r ? 1 : 0;
}

static const struct command commands[] = {
	{ "create", cmd_create,
	  "--id ID --pool FILE [--range LO-HI] [--static FILE] < vnet.xml" },
	{ "vm-id", cmd_vm_id, "< vm.xml" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "pool", required_argument, NULL, 'p' },
		{ "range", required_argument, NULL, 'r' },
		{ "static", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctx c = { .id = -1, .range = DEFAULT_RANGE };
	const struct command *cmd;
	int o;

	o = command_help(argc, argv, "oneib-vnet", commands, NCOMMANDS, NULL);
	if (o >= 0)
		return o;
	cmd = command_find(commands, NCOMMANDS, argv[1]);
	if (!cmd)
		return 2;
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'i':
			if (opt_int("--id", optarg, 0, INT_MAX, "a VNET ID",
				    &c.id))
				return 2;
			break;
		case 'p':
			c.pool = optarg;
			break;
		case 'r':
			c.range = optarg;
			break;
		case 's':
			c.stat = optarg;
			break;
		case 'h':
			command_usage(stdout, "oneib-vnet", commands, NCOMMANDS,
				      NULL);
			return 0;
		default:
			command_usage(stderr, "oneib-vnet", commands, NCOMMANDS,
				      NULL);
			return 2;
		}
	}
	if (optind != argc) {
		log_msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return cmd->run(argc, argv, &c);
}
