// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-partitions: the fabric's partitions from the cloud's state
 * (design decision 7), unprivileged (decision 6): it reads the cloud's XML,
 * which tenants influence, and never needs root.
 *
 *   { onevm list -x --extended all; onehost list -x; onevnet list -x all; } |
 *       oneib-partitions render --installed /etc/opensm/partitions.conf - \
 *       > partitions.conf
 *       the whole partitions.conf on stdout (or --output FILE); what it
 *       leaves out is one "warning:" line each on stderr, exit 0
 *   oneib-partitions verify --conf /etc/opensm/partitions.conf
 *       the P_Key tables of the fabric's ports (needs access to
 *       /dev/infiniband/umad*) against the file, or against the cloud's XML
 *       rendered as above: one "drift:" line per port that differs, one
 *       "refused:" line per thing left out; exit 1 when there is any
 *   oneib-partitions list [FILE]
 *       the partitions of a file, every member GUID decoded ("VM 42 NIC 1")
 *
 * The root part on the SM's host, oneib-partitions-install, takes the
 * rendered file, re-parses it strictly, installs it and reloads opensm.
 *
 * Exit status: 0 done, 1 refused or failed (one line on stderr naming the
 * object and the reason), 2 wrong usage.
 */
#include <errno.h>
#include <getopt.h>
#include <infiniband/umad.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conffile.h"
#include "core/guid.h"
#include "core/log.h"
#include "root/partconf.h"
#include "fabric/partitions.h"
#include "fabric/partverify.h"
#include "fabric/poolread.h"
#include "fabric/smp.h"
#include "core/strbuf.h"

#define ERRLEN 512

static void usage(FILE *f)
{
	fputs("usage: oneib-partitions render [--cloud-id N] [--legacy-guids] "
	      "[--installed FILE]\n"
	      "                               [--output FILE] [XML...]\n"
	      "       oneib-partitions verify [--conf FILE | [--cloud-id N] "
	      "[--legacy-guids]\n"
	      "                               [--installed FILE] XML...] "
	      "[--ca NAME] [--port N]\n"
	      "                               [--timeout MS]\n"
	      "       oneib-partitions list [FILE]\n"
	      "XML: `onevm list -x --extended`, `onehost list -x`, `onevnet "
	      "list -x` output,\nas files or on standard input (-, the "
	      "default).\n",
	      f);
}

/* What render and verify share: how the cloud becomes partitions. */
struct desired {
	struct render_opts o;
	const char *installed; /* --installed FILE */
	struct partitions inst;
};

static int desired_opt(struct desired *d, int o, const char *cmd)
{
	switch (o) {
	case 'c':
		if (cloud_id_parse(optarg, &d->o.cloud_id)) {
			log_msg("%s: --cloud-id '%.20s': not a cloud id 0..255",
				cmd, optarg);
			return 2;
		}
		return 0;
	case 'l':
		d->o.legacy_guids = true;
		return 0;
	case 'i':
		d->installed = optarg;
		return 0;
	}
	return 2;
}

/*
 * The partitions as installed, which a network left out keeps. An empty
 * file is none yet; one that does not read is a warning (the networks
 * left out then have no partition), not a reason to freeze the rest.
 */
static int read_installed(struct desired *d, const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	char err[ERRLEN] = "";
	int r;

	if (!d->installed)
		return 0;
	r = sb_read_file(&sb, d->installed, CONFFILE_MAX);
	if (r) {
		log_msg("%s: --installed %.200s: %s", cmd, d->installed,
			strerror(-r));
	} else if (sb.len && partconf_parse(sb.buf, sb.len, PARTCONF_OLD_NAMES,
					    &d->inst, err, sizeof(err))) {
		log_msg("warning: %.200s: %s; a network left out keeps no "
			"partition",
			d->installed, err);
	} else {
		d->o.installed = &d->inst;
	}
	sb_release(&sb);
	return r ? 1 : 0;
}

static int desired_from_xml(struct desired *d, int n, char **args,
			    struct partitions *m, const char *cmd)
{
	struct cloud_facts f = { 0 };
	char err[ERRLEN] = "";
	int r = read_installed(d, cmd);

	if (r)
		return r;
	r = poolread_files(&f, -1, n, args, err, sizeof(err));
	if (!r)
		r = partitions_desired(&f, &d->o, m, err, sizeof(err));
	cloud_facts_free(&f);
	partitions_free(&d->inst);
	if (r) {
		log_msg("%s: %s", cmd, err);
		return 1;
	}
	return 0;
}

static const struct option desired_opts[] = {
	{ "cloud-id", required_argument, NULL, 'c' },
	{ "legacy-guids", no_argument, NULL, 'l' },
	{ "installed", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "conf", required_argument, NULL, 'f' },
	{ "ca", required_argument, NULL, 'C' },
	{ "port", required_argument, NULL, 'p' },
	{ "timeout", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 },
};

/* --- render ---------------------------------------------------------------- */

static int cmd_render(int argc, char **argv)
{
	struct desired d = { 0 };
	struct partitions m = { 0 };
	struct strbuf text = STRBUF_INIT;
	const char *out = NULL;
	char err[ERRLEN] = "";
	size_t i;
	int o, r;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", desired_opts, NULL)) != -1) {
		if (o == 'o') {
			out = optarg;
			continue;
		}
		if (o != 'c' && o != 'l' && o != 'i') {
			log_msg("render: %.40s: unknown option or missing "
				"value (usage: oneib-partitions --help)",
				argv[optind - 1]);
			return 2;
		}
		r = desired_opt(&d, o, "render");
		if (r)
			return r;
	}
	r = desired_from_xml(&d, argc - optind, argv + optind, &m, "render");
	if (r)
		return r;
	for (i = 0; i < m.nnotes; i++)
		log_msg("warning: %s", m.notes[i]);
	if (partconf_render(&m, &text)) {
		log_msg("render: out of memory");
		r = 1;
	} else if (partconf_check(text.buf, text.len, &m, err, sizeof(err))) {
		/* never hand on a file the grammar reads differently */
		log_msg("render: %s", err);
		r = 1;
	} else if (out) {
		r = conffile_install(out, NULL, text.buf, text.len, err,
				     sizeof(err));
		if (r < 0)
			log_msg("render: %s", err);
		r = r < 0 ? 1 : 0;
	} else if (fwrite(text.buf, 1, text.len, stdout) != text.len ||
		   fflush(stdout)) {
		log_msg("render: cannot write the file on standard output");
		r = 1;
	}
	partitions_free(&m);
	sb_release(&text);
	return r;
}

/* --- verify ---------------------------------------------------------------- */

static void print_keys(const uint16_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf(" 0x%04x", k[i]);
	if (!n)
		fputs(" (none)", stdout);
}

static void print_drift(const struct port_drift *d)
{
	char g[GUID_STRLEN], desc[GUID_DESC_LEN];

	guid_fmt_hex(d->port->port_guid, g);
	guid_describe(d->port->port_guid, desc);
	if (strcmp(desc, "-"))
		printf("drift: port %s (%s; lid %u, \"%s\") holds", g, desc,
		       d->port->lid, d->port->desc);
	else
		printf("drift: port %s (lid %u, \"%s\") holds", g, d->port->lid,
		       d->port->desc);
	print_keys(d->have, d->nhave);
	fputs(", should hold", stdout);
	print_keys(d->want, d->nwant);
	putchar('\n');
}

static int cmd_verify(int argc, char **argv)
{
	struct desired d = { 0 };
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	struct verify_result res = { 0 };
	struct fabric f = { 0 };
	const char *conf = NULL, *ca = NULL;
	char err[ERRLEN] = "";
	int o, r, port = 0, timeout = 200;
	size_t i;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", desired_opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			conf = optarg;
			break;
		case 'C':
			ca = optarg;
			if (!*ca || strlen(ca) >= UMAD_CA_NAME_LEN ||
			    strchr(ca, '/') || ca[0] == '.') {
				log_msg("verify: --ca '%.40s': not a device "
					"name",
					optarg);
				return 2;
			}
			break;
		case 'p':
			if (opt_int("--port", optarg, 1, 254, "a port number",
				    &port))
				return 2;
			break;
		case 't':
			if (opt_int("--timeout", optarg, 1, 60000,
				    "a timeout in ms", &timeout))
				return 2;
			break;
		case 'c':
		case 'l':
		case 'i':
			r = desired_opt(&d, o, "verify");
			if (r)
				return r;
			break;
		default:
			log_msg("verify: %.40s: unknown option or missing "
				"value (usage: oneib-partitions --help)",
				argv[optind - 1]);
			return 2;
		}
	}
	if (conf && (optind < argc || d.installed || d.o.legacy_guids)) {
		log_msg("verify: --conf or the cloud's XML, not both");
		return 2;
	}
	if (conf) {
		r = sb_read_file(&text, conf, CONFFILE_MAX);
		if (r)
			err_set(err, sizeof(err), "%.200s: %s", conf,
				strerror(-r));
		else
			r = partconf_parse(text.buf, text.len,
					   PARTCONF_OLD_NAMES, &m, err,
					   sizeof(err));
		if (r) {
			log_msg("verify: %s", err);
			r = 2;
			goto out;
		}
	} else if (desired_from_xml(&d, argc - optind, argv + optind, &m,
				    "verify")) {
		r = 2;
		goto out;
	}
	r = fabric_scan(ca, port, timeout, &f, err, sizeof(err));
	if (!r)
		r = partitions_verify(&m, &f, &res);
	if (r) {
		log_msg("verify: %s", err[0] ? err : strerror(-r));
		r = 2;
		goto out;
	}
	for (i = 0; i < m.nnotes; i++)
		printf("refused: %s\n", m.notes[i]);
	for (i = 0; i < res.ndrift; i++)
		print_drift(&res.drift[i]);
	printf("verify: %zu end ports, %zu switches, %zu partitions; %zu "
	       "member ports in the fabric, %zu not; %zu ports differ; %zu "
	       "left out\n",
	       f.n, f.switches, m.n, res.present, res.absent, res.ndrift,
	       m.nnotes);
	r = res.ndrift || m.nnotes ? 1 : 0;
out:
	verify_result_free(&res);
	fabric_free(&f);
	partitions_free(&m);
	sb_release(&text);
	return r;
}

/* --- list ------------------------------------------------------------------ */

static int cmd_list(int argc, char **argv)
{
	const char *file = argc > 2 ? argv[2] : "/etc/opensm/partitions.conf";
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	char err[ERRLEN] = "";
	size_t i, j;
	int r;

	if (argc > 3) {
		log_msg("list takes one FILE (usage: oneib-partitions --help)");
		return 2;
	}
	r = !strcmp(file, "-") ? sb_read(&text, stdin, CONFFILE_MAX)
			       : sb_read_file(&text, file, CONFFILE_MAX);
	if (r)
		err_set(err, sizeof(err), "%.200s: %s", file, strerror(-r));
	else
		r = partconf_parse(text.buf, text.len, PARTCONF_OLD_NAMES, &m,
				   err, sizeof(err));
	if (r) {
		log_msg("list: %s", err);
		sb_release(&text);
		return 1;
	}
	for (i = 0; i < m.n; i++) {
		const struct partition *p = &m.p[i];

		char flags[64] = "";
		int k = 0;

		if (p->mtu)
			k += snprintf(flags + k, sizeof(flags) - (size_t)k,
				      ", mtu %d", 128 << p->mtu);
		if (p->rate)
			k += snprintf(flags + k, sizeof(flags) - (size_t)k,
				      ", rate %d", p->rate);
		if (p->sl >= 0)
			snprintf(flags + k, sizeof(flags) - (size_t)k,
				 ", sl %d", p->sl);
		printf("%s 0x%04x (%s%s): %zu member%s\n", p->name,
		       p->pkey | 0x8000, p->ipoib ? "ipoib" : "no ipoib", flags,
		       p->n, p->n == 1 ? "" : "s");
		for (j = 0; j < p->n; j++) {
			char g[GUID_STRLEN], desc[GUID_DESC_LEN];

			guid_fmt_hex(p->guids[j], g);
			guid_describe(p->guids[j], desc);
			printf("    %s  %s\n", g, desc);
		}
	}
	for (i = 0; i < m.nnotes; i++)
		printf("refused: %s\n", m.notes[i]);
	partitions_free(&m);
	sb_release(&text);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	opterr = 0; /* one line of ours, not getopt's */
	if (!strcmp(argv[1], "render"))
		return cmd_render(argc, argv);
	if (!strcmp(argv[1], "verify"))
		return cmd_verify(argc, argv);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc, argv);
	log_msg("unknown command '%.20s' (render, verify, list)", argv[1]);
	return 2;
}
