// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-partitions: the fabric's partitions from the cloud's state
 * (design decision 7), unprivileged (decision 6): it reads the cloud's XML,
 * which tenants influence, and never needs root.
 *
 *   { onevm list -x --extended all; onehost list -x; onevnet list -x all; } |
 *       oneib-partitions render --installed /etc/opensm/partitions.conf \
 *           --static /etc/one/ib/partitions.static.conf - > partitions.conf
 *       the whole partitions.conf on stdout (or --output FILE), the
 *       operator's static partitions carried into it (design decision
 *       11); what it leaves out is one "warning:" line each on stderr,
 *       exit 0. It refuses (exit 1, nothing printed) a static file that
 *       breaks the rules (partconf.h), and an installed file holding
 *       partitions one-ib did not write that the static file does not
 *       hold: it never drops them
 *   oneib-partitions verify --conf /etc/opensm/partitions.conf
 *       the P_Key tables and capacities of the fabric's ports (needs access
 *       to /dev/infiniband/umad*) against the file, or against the cloud's
 *       XML rendered as above: one "drift:" line per port that differs, one
 *       "refused:" line per thing left out, one "capacity:" line per port
 *       whose keys do not fit; opensm's configuration (qos, M_Key) and, for
 *       each partition with an SL, the SL the SA answers for a path in it;
 *       exit 1 when anything is not as the file says
 *   oneib-partitions plan --sls 1-7 [render's options] XML...
 *       the service-level plan (design decision 13): one line per network,
 *       its SL and why; render --sls puts it into the file as sl= (and,
 *       with --qos-policy FILE, into opensm's QoS policy beside it)
 *   oneib-partitions list [FILE]
 *       the partitions of a file, every member GUID decoded ("VM 42 NIC 1")
 *   oneib-partitions sync [EVENT... | --event-stdin]
 *       the front-end's run (fabric/sync.h), which the hook shim
 *       remotes/hooks/oneib-partitions starts after every event that can
 *       change who is in which partition, with its settings in the
 *       environment: lock and coalesce, list the cloud through oned's
 *       XML-RPC API, render, write the free-VF counters and requirements
 *       back to oned, install the QoS policy and partitions.conf; one
 *       line on stdout per file installed, one line on stderr per warning
 *       and for the failure
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
#include <unistd.h>

#include "core/command.h"
#include "core/conffile.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/desired.h"
#include "fabric/sync.h"
#include "fabric/osmconf.h"
#include "fabric/partdiff.h"
#include "fabric/partitions.h"
#include "fabric/partverify.h"
#include "fabric/poolread.h"
#include "fabric/qosverify.h"
#include "core/sapath.h"
#include "fabric/smp.h"
#include "fabric/verifyreport.h"
#include "root/partconf.h"
#include "root/qospolicy.h"

#define ERRLEN 512

/* The options of the cloud model render, plan and verify share, and the
 * model they make (fabric/desired.h). */
struct model_args {
	const char *installed; /* --installed FILE */
	const char *stat; /* --static FILE */
	const char *sls, *best_effort; /* --sls LIST, --sl-best-effort SL */
	struct desired d;
};

/* One such option: 0, or 2 with one line (a bad value, or an option none
 * of them has). */
static int model_opt(struct model_args *a, int o, const char *cmd,
		     const char *arg)
{
	switch (o) {
	case 'c':
		if (cloud_id_parse(optarg, &a->d.o.cloud_id)) {
			log_msg("%s: --cloud-id '%.20s': not a cloud id 0..255",
				cmd, optarg);
			return 2;
		}
		return 0;
	case 'l':
		a->d.o.legacy_guids = true;
		return 0;
	case 'i':
		a->installed = optarg;
		return 0;
	case 's':
		a->stat = optarg;
		return 0;
	case 'h':
		a->d.o.hosts_partition = optarg;
		return 0;
	case 'S':
		a->sls = optarg;
		return 0;
	case 'B':
		a->best_effort = optarg;
		return 0;
	}
	log_msg("%s: %.40s: unknown option or missing value "
		"(usage: oneib-partitions --help)",
		cmd, arg);
	return 2;
}

/* The SL plan's settings, once the options are read: 0, or 2 (usage). */
static int model_sls(struct model_args *a, const char *cmd)
{
	char err[ERRLEN] = "";

	if (desired_sls(&a->d, a->sls, a->best_effort, err, sizeof(err))) {
		log_msg("%s: %s", cmd, err);
		return 2;
	}
	return 0;
}

/*
 * The model of the cloud's XML into m (and the plan into pp, unless
 * NULL): the static file and the installed one read first, by their
 * rules (fabric/desired.h). 0, or 1 with one line.
 */
static int model_from_xml(struct model_args *a, int n, char **args,
			  struct partitions *m, struct partitions_plan *pp,
			  const char *cmd)
{
	struct cloud_facts f = { 0 };
	char err[ERRLEN] = "";
	int r = a->stat ? desired_static(&a->d, a->stat, err, sizeof(err)) : 0;

	if (!r && a->installed)
		r = desired_installed_file(&a->d, a->installed, err,
					   sizeof(err));
	if (!r)
		r = poolread_files(&f, -1, n, args, err, sizeof(err));
	if (!r)
		r = desired_build(&a->d, &f, m, pp, err, sizeof(err));
	if (r) {
		log_msg("%s: %s", cmd, err);
		r = 1;
	}
	cloud_facts_free(&f);
	desired_free(&a->d);
	return r;
}

static const struct option model_opts[] = {
	{ "cloud-id", required_argument, NULL, 'c' },
	{ "legacy-guids", no_argument, NULL, 'l' },
	{ "installed", required_argument, NULL, 'i' },
	{ "static", required_argument, NULL, 's' },
	{ "hosts-partition", required_argument, NULL, 'h' },
	{ "opensm-conf", required_argument, NULL, 'O' },
	{ "output", required_argument, NULL, 'o' },
	{ "conf", required_argument, NULL, 'f' },
	{ "ca", required_argument, NULL, 'C' },
	{ "port", required_argument, NULL, 'p' },
	{ "timeout", required_argument, NULL, 't' },
	{ "sls", required_argument, NULL, 'S' },
	{ "sl-best-effort", required_argument, NULL, 'B' },
	{ "qos-policy", required_argument, NULL, 'Q' },
	{ "sm", required_argument, NULL, 'M' },
	{ "sm-qos", required_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

/* The plan's warnings, one "warning:" line each on stderr. */
static void plan_warnings(const struct partitions_plan *pp, FILE *out)
{
	const char *s = sb_str(&pp->warnings);

	while (*s) {
		size_t n = strcspn(s, "\n");

		fprintf(out, "warning: %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
}

/*
 * text (partitions.conf or the QoS policy) into path, atomically, or on
 * stdout (path NULL): 0, or 1 with one line.
 */
static int write_text(const struct strbuf *text, const char *path,
		      const char *what)
{
	if (path) {
		char err[ERRLEN] = "";
		int r = conffile_install(path, NULL, text->buf, text->len, err,
					 sizeof(err));

		if (r < 0)
			log_msg("render: %s%s", what, err);
		return r < 0 ? 1 : 0;
	}
	if (fwrite(text->buf, 1, text->len, stdout) != text->len ||
	    fflush(stdout)) {
		log_msg("render: cannot write the file on standard output");
		return 1;
	}
	return 0;
}

static int cmd_render(int argc, char **argv, void *ctx)
{
	struct model_args a = { 0 };
	struct partitions m = { 0 };
	struct partitions_plan pp = { 0 };
	struct strbuf text = STRBUF_INIT, policy = STRBUF_INIT;
	const char *out = NULL, *qos = NULL;
	char err[ERRLEN] = "";
	size_t i;
	int o, r;

	(void)ctx;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", model_opts, NULL)) != -1) {
		if (o == 'o' || o == 'Q') {
			*(o == 'o' ? &out : &qos) = optarg;
			continue;
		}
		r = model_opt(&a, o, "render", argv[optind - 1]);
		if (r)
			return r;
	}
	r = model_sls(&a, "render");
	if (!r)
		r = model_from_xml(&a, argc - optind, argv + optind, &m, &pp,
				   "render");
	if (r)
		return r;
	for (i = 0; i < m.nnotes; i++)
		log_msg("warning: %s", m.notes[i]);
	fflush(stdout);
	plan_warnings(&pp, stderr);
	partitions_plan_free(&pp);
	/* the policy first: the hook installs it before the file */
	if (qos && desired_policy(&a.d, &m, &policy, err, sizeof(err))) {
		log_msg("render: --qos-policy: %s", err);
		r = 1;
	} else if (qos) {
		r = write_text(&policy, qos, "--qos-policy: ");
	}
	if (!r && desired_text(&m, &text, err, sizeof(err))) {
		log_msg("render: %s", err);
		r = 1;
	} else if (!r) {
		r = write_text(&text, out, "");
	}
	partitions_free(&m);
	sb_release(&text);
	sb_release(&policy);
	return r;
}

/* --- plan ------------------------------------------------------------------ */

static int cmd_plan(int argc, char **argv, void *ctx)
{
	struct model_args a = { 0 };
	struct partitions m = { 0 };
	struct partitions_plan pp = { 0 };
	struct strbuf text = STRBUF_INIT;
	int o, r;

	(void)ctx;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", model_opts, NULL)) != -1) {
		r = model_opt(&a, o, "plan", argv[optind - 1]);
		if (r)
			return r;
	}
	if (!a.sls) {
		log_msg("plan: --sls LIST is needed (ONEIB_SLS of "
			"etc/vnm/ib/ibrc, e.g. 1-7)");
		return 2;
	}
	r = model_sls(&a, "plan");
	if (!r)
		r = model_from_xml(&a, argc - optind, argv + optind, &m, &pp,
				   "plan");
	if (r)
		return r;
	if (partitions_plan_text(&pp, &text)) {
		log_msg("plan: out of memory");
		r = 1;
	} else {
		fputs(sb_str(&text), stdout);
		plan_warnings(&pp, stdout);
	}
	partitions_plan_free(&pp);
	partitions_free(&m);
	sb_release(&text);
	return r;
}

/* --- verify ---------------------------------------------------------------- */

static int cmd_verify(int argc, char **argv, void *ctx)
{
	struct model_args a = { 0 };
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	struct verify_result res = { 0 };
	struct sa_result sr = { 0 };
	struct sa_conn sa = { .mp = { .fd = -1, .agent = -1 } };
	struct fabric f = { 0 };
	struct port_tables *pt = NULL;
	struct qos_result qr = { 0 };
	size_t npt = 0;
	struct osm_conf oc;
	const char *conf = NULL, *ca = NULL, *osm = OSMCONF_DEFAULT;
	char err[ERRLEN] = "";
	int o, r, port = 0, timeout = 200;
	struct sm_file sf[16], sq[16];
	size_t nsf = 0, nsq = 0;

	(void)ctx;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", model_opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			conf = optarg;
			break;
		case 'M':
		case 'q': {
			const char *eq = strchr(optarg, '=');
			struct sm_file *l = o == 'M' ? sf : sq;
			size_t *nl = o == 'M' ? &nsf : &nsq;

			if (!eq || eq == optarg || !eq[1] ||
			    (size_t)(eq - optarg) >= sizeof(l[0].name) ||
			    *nl == sizeof(sf) / sizeof(*sf)) {
				log_msg("verify: %s '%.80s': not NAME=FILE "
					"(at most %zu)",
					o == 'M' ? "--sm" : "--sm-qos", optarg,
					sizeof(sf) / sizeof(*sf));
				return 2;
			}
			snprintf(l[*nl].name, sizeof(l[*nl].name), "%.*s",
				 (int)(eq - optarg), optarg);
			l[(*nl)++].path = eq + 1;
			break;
		}
		case 'O':
			osm = optarg;
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
		default:
			r = model_opt(&a, o, "verify", argv[optind - 1]);
			if (r)
				return r;
			break;
		}
	}
	if (conf && (optind < argc || a.installed || a.d.o.legacy_guids ||
		     a.stat || a.d.o.hosts_partition || a.sls)) {
		log_msg("verify: --conf or the cloud's XML, not both");
		return 2;
	}
	if (conf) {
		r = sb_read_file(&text, conf, CONFFILE_MAX);
		if (r)
			err_set(err, sizeof(err), "%.200s: %s", conf,
				strerror(-r));
		else
			r = partconf_parse(text.buf, text.len, PARTCONF_ANY, &m,
					   err, sizeof(err));
		if (r) {
			log_msg("verify: %s", err);
			r = 2;
			goto out;
		}
	} else if (model_sls(&a, "verify") ||
		   model_from_xml(&a, argc - optind, argv + optind, &m, NULL,
				  "verify")) {
		r = 2;
		goto out;
	}
	if (osmconf_read(osm, &oc, err, sizeof(err))) {
		log_msg("verify: opensm's configuration %s", err);
		r = 2;
		goto out;
	}
	/* with protection on, a port answers a Get only with its key */
	r = fabric_scan(ca, port, timeout, oc.m_key_protection ? oc.m_key : 0,
			&f, err, sizeof(err));
	if (!r)
		r = partitions_verify(&m, &f, oc.allow_both_pkeys, &res);
	if (!r)
		r = sa_open(&sa, ca, port, timeout, err, sizeof(err));
	if (!r)
		r = partitions_verify_sa(&m, &f, &res, &sa, &sr, err,
					 sizeof(err));
	/* the QoS tables of the ports that hold a key with an SL */
	if (!r)
		r = qos_verify_read(ca, port, timeout,
				    oc.m_key_protection ? oc.m_key : 0, &f, &m,
				    &pt, &npt, err, sizeof(err));
	if (!r)
		r = qos_verify_judge(&m, &f, pt, npt, &qr);
	if (r) {
		log_msg("verify: %s", err[0] ? err : strerror(-r));
		r = 2;
		goto out;
	}
	{
		const struct verify_findings v = {
			.m = &m,
			.f = &f,
			.res = &res,
			.sr = &sr,
			.qr = &qr,
			.oc = &oc,
			.osm_path = osm,
			.sm = sf,
			.nsm = nsf,
			.sm_qos = sq,
			.nsm_qos = nsq,
		};

		r = verify_report(stdout, &v);
	}
out:
	free(pt);
	qos_result_free(&qr);
	sa_close(&sa);
	sa_result_free(&sr);
	verify_result_free(&res);
	fabric_free(&f);
	partitions_free(&m);
	sb_release(&text);
	return r;
}

/* --- list ------------------------------------------------------------------ */

static const char *const member_note[] = {
	[PM_NONE] = "",
	[PM_LIMITED] = " (limited)",
	[PM_FULL] = "",
	[PM_BOTH] = " (full and limited)",
};

static const char *const member_word[] = {
	[PM_NONE] = "none",
	[PM_LIMITED] = "limited",
	[PM_FULL] = "full",
	[PM_BOTH] = "both",
};

/*
 *   vnet9_storage 0x8109 (ipoib, sl 2): 3 members
 *       0x0002c903000a0001  -
 *       0x02000000000a0001  VM 10 NIC 1 (limited)
 *   infra 0x8105 (ipoib; the static file's): 2 members
 *       ALL_SWITCHES=full
 *       ...
 * A carried partition (the operator's) lists its entries as opensm
 * applies them, in their order (the last one for a port wins).
 */
static void list_one(const struct partition *p)
{
	struct member_iter it = { 0, 0 };
	char flags[96] = "";
	size_t k, n = p->n + p->nlimited;
	enum pmember pm;
	uint64_t x;
	int at = 0;

	if (p->mtu)
		at += snprintf(flags + at, sizeof(flags) - (size_t)at,
			       ", mtu %d", 128 << p->mtu);
	if (p->rate)
		at += snprintf(flags + at, sizeof(flags) - (size_t)at,
			       ", rate %d", p->rate);
	if (p->sl >= 0)
		at += snprintf(flags + at, sizeof(flags) - (size_t)at,
			       ", sl %d", p->sl);
	if (p->origin == PO_STATIC || p->origin == PO_STATIC_HOSTS)
		snprintf(flags + at, sizeof(flags) - (size_t)at,
			 "; the static file's%s",
			 p->origin == PO_STATIC_HOSTS ? ", with the hosts"
						      : "");
	printf("%s 0x%04x (%s%s): %zu member%s\n", p->name, p->pkey | 0x8000,
	       p->ipoib ? "ipoib" : "no ipoib", flags, n, n == 1 ? "" : "s");
	/* carried: its entries as opensm applies them, in order */
	for (k = 0; k < p->nent; k++) {
		const struct pentry *e = &p->ent[k];
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		if (e->kind != PENTRY_GUID) {
			printf("    %s=%s\n", partconf_keyword[e->kind],
			       member_word[e->pm]);
			continue;
		}
		guid_fmt_hex(e->guid, g);
		guid_describe(e->guid, desc);
		printf("    %s  %s%s\n", g, desc, member_note[e->pm]);
	}
	for (k = 0; k < PKW_COUNT && !p->ndefs; k++)
		if (p->kw[k])
			printf("    %s=%s\n", partconf_keyword[k],
			       member_word[p->kw[k]]);
	while (!p->ndefs && (pm = partition_next_member(p, &it, &x))) {
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		guid_fmt_hex(x, g);
		guid_describe(x, desc);
		printf("    %s  %s%s\n", g, desc, member_note[pm]);
	}
}

static int cmd_list(int argc, char **argv, void *ctx)
{
	const char *file = argc > 2 ? argv[2] : "/etc/opensm/partitions.conf";
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	char err[ERRLEN] = "";
	size_t i;
	int r;

	(void)ctx;

	if (argc > 3) {
		log_msg("list takes one FILE (usage: oneib-partitions --help)");
		return 2;
	}
	r = !strcmp(file, "-") ? sb_read(&text, stdin, CONFFILE_MAX)
			       : sb_read_file(&text, file, CONFFILE_MAX);
	if (r)
		err_set(err, sizeof(err), "%.200s: %s", file, strerror(-r));
	else
		r = partconf_parse(text.buf, text.len, PARTCONF_ANY, &m, err,
				   sizeof(err));
	if (r) {
		log_msg("list: %s", err);
		sb_release(&text);
		return 1;
	}
	if (m.def)
		list_one(m.def);
	for (i = 0; i < m.n; i++)
		list_one(&m.p[i]);
	for (i = 0; i < m.nnotes; i++)
		printf("refused: %s\n", m.notes[i]);
	partitions_free(&m);
	sb_release(&text);
	return 0;
}

/* --- sync ------------------------------------------------------------------- */

/* The settings the shim exports, read once here (fabric/sync.h). */
static void sync_settings_from_env(struct sync_settings *set)
{
	set->partitions_cmd = getenv("ONEIB_PARTITIONS_CMD");
	set->read_cmd = getenv("ONEIB_PARTITIONS_READ_CMD");
	set->qos_cmd = getenv("ONEIB_QOS_POLICY_CMD");
	set->sms = getenv("ONEIB_SMS");
	set->sm_ssh = getenv("ONEIB_SM_SSH");
	set->lock = getenv("ONEIB_PARTITIONS_LOCK");
	set->timeout = getenv("ONEIB_PARTITIONS_TIMEOUT");
	set->full_every = getenv("ONEIB_PARTITIONS_FULL_EVERY");
	set->legacy_guids = getenv("ONEIB_PARTITIONS_LEGACY_GUIDS");
	set->cloud_id = getenv("ONEIB_CLOUD_ID");
	set->static_file = getenv("ONEIB_PARTITIONS_STATIC");
	set->hosts_partition = getenv("ONEIB_HOSTS_PARTITION");
	set->sls = getenv("ONEIB_SLS");
	set->sl_best_effort = getenv("ONEIB_SL_BEST_EFFORT");
	set->one_location = getenv("ONE_LOCATION");
	set->tmpdir = getenv("TMPDIR");
	set->oned.one_xmlrpc = getenv("ONE_XMLRPC");
	set->oned.one_auth = getenv("ONE_AUTH");
	set->oned.home = getenv("HOME");
	set->oned.var = "/var/lib/one";
}

/* An event on stdin (ARGUMENTS_STDIN), whole: a VM's body can be large. */
#define EVENT_MAX ((size_t)64 << 20)

static int cmd_sync(int argc, char **argv, void *ctx)
{
	struct sync_settings set = { 0 };
	struct sync_report rep;
	struct strbuf ev = STRBUF_INIT;
	int r;

	(void)ctx;

	if (argc > 2 && !strcmp(argv[2], "--event-stdin")) {
		if (argc > 3) {
			log_msg("sync: --event-stdin takes no more arguments "
				"(usage: oneib-partitions --help)");
			return 2;
		}
		/* one past the bound: unreadable, every VM */
		if (sb_read(&ev, stdin, EVENT_MAX))
			sb_reset(&ev);
	} else {
		int i;

		for (i = 2; i < argc; i++)
			sb_addf(&ev, "%s%s", i > 2 ? " " : "", argv[i]);
	}
	sync_settings_from_env(&set);
	r = sync_run(&set, sb_str(&ev), ev.len, &rep);
	sb_release(&ev);
	fputs(sb_str(&rep.out), stdout);
	fflush(stdout);
	fputs(sb_str(&rep.warnings), stderr);
	if (rep.fail[0])
		log_msg("%s", rep.fail);
	sync_report_free(&rep);
	return r;
}

/* --- the commands ------------------------------------------------------------ */

static const struct command commands[] = {
	{ "render", cmd_render,
	  "[--cloud-id N] [--legacy-guids] [--installed FILE]\n"
	  "[--static FILE] [--hosts-partition NAME]\n"
	  "[--sls LIST [--sl-best-effort SL]]\n"
	  "[--output FILE] [--qos-policy FILE] [XML...]\n" },
	{ "plan", cmd_plan,
	  "--sls LIST [--sl-best-effort SL] [render's options] [XML...]\n" },
	{ "verify", cmd_verify,
	  "[--conf FILE | [--cloud-id N] [--legacy-guids]\n"
	  "[--installed FILE] [--static FILE]\n"
	  "[--hosts-partition NAME] XML...]\n"
	  "[--opensm-conf FILE] [--ca NAME] [--port N]\n"
	  "[--timeout MS] [--sm NAME=FILE]... [--sm-qos NAME=FILE]...\n" },
	{ "list", cmd_list, "[FILE]\n" },
	{ "sync", cmd_sync, "[EVENT... | --event-stdin]\n" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

static const char more[] = "XML: `onevm list -x --extended`, `onehost list "
			   "-x`, `onevnet list -x` "
			   "output,\nas files or on standard input (-, the "
			   "default).\n";

int main(int argc, char **argv)
{
	const struct command *cmd;
	int r = command_help(argc, argv, "oneib-partitions", commands,
			     NCOMMANDS, more);

	if (r >= 0)
		return r;
	cmd = command_find(commands, NCOMMANDS, argv[1]);
	if (!cmd)
		return 2;
	opterr = 0; /* one line of ours, not getopt's */
	return cmd->run(argc, argv, NULL);
}
