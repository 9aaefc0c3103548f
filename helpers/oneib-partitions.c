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
 *       hold: it never drops them; with --counters FILE it writes into
 *       FILE what `counters` prints, from the same reading of the cloud
 *       (also when it refuses the render, once the listings were read);
 *       with --sls-in-force FILE also the same partitions with the SLs
 *       their installed partitions have (fabric/partitions.h), which the
 *       hook installs when the QoS policy cannot be
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
 *   oneib-partitions counters XML...
 *       the free-VF counters (fabric/vfcount.h) to write where they are not
 *       current, and the requirements (fabric/schedreq.h) of the VMs to be
 *       placed whose VF or leaf term (fabric/leafpack.h) is not what it
 *       should be, one line each for the front-end hook:
 *         host 3 IB_VFS_USED=2 IB_VFS_AVAIL=6 IB_SYNC_VMS=2 IB_SYNC_SUM=17
 *         vm 42 SCHED_REQUIREMENTS="\"/HOST[...]/TEMPLATE/IB_VFS_AVAIL\" > 0 & IB_LEAVES = \"*,0x0002c90200000a00,*\""
 *       (a template line for `onehost update --append`, `onevm update
 *       --append`); "# " lines say what is left for the next run, a
 *       requirement it cannot extend is one "warning:" line on stderr.
 *       Without the VNET listing no VM gets a leaf term.
 *   oneib-partitions rpc-string [FILE]
 *       the document an answer of oned's XML-RPC API carries (curl's
 *       output, fabric/onerpc.h) on stdout, as the CLI prints it: how the
 *       hook lists the cloud without the Ruby CLI; a failed call is one
 *       line, "oned: " and oned's message, exit 1
 *   oneib-partitions vmcache [--refresh IDS] FILE...
 *       the VM listing the hook keeps between runs (fabric/vmcache.h) on
 *       stdout: the VMs of the VM_POOL FILEs reduced to what render and
 *       counters read, one per ID (a later FILE's wins), none DONE; the
 *       first FILE's VMs whose IDs the comma-separated IDS names are
 *       dropped (the later FILEs hold them as they are now)
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

#include "core/conffile.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/onerpc.h"
#include "fabric/vmcache.h"
#include "fabric/osmconf.h"
#include "fabric/partitions.h"
#include "fabric/partverify.h"
#include "fabric/poolread.h"
#include "fabric/qosverify.h"
#include "core/sapath.h"
#include "fabric/smp.h"
#include "fabric/leafpack.h"
#include "fabric/schedreq.h"
#include "fabric/topology.h"
#include "fabric/vfcount.h"
#include "core/onetmpl.h"
#include "root/partconf.h"
#include "root/qospolicy.h"

#define ERRLEN 512

static void usage(FILE *f)
{
	fputs("usage: oneib-partitions render [--cloud-id N] [--legacy-guids] "
	      "[--installed FILE]\n"
	      "                               [--static FILE] "
	      "[--hosts-partition NAME]\n"
	      "                               [--sls LIST [--sl-best-effort "
	      "SL]]\n"
	      "                               [--output FILE] [--qos-policy "
	      "FILE]\n"
	      "                               [--counters FILE] "
	      "[--sls-in-force FILE] [XML...]\n"
	      "       oneib-partitions plan --sls LIST [--sl-best-effort SL] "
	      "[render's options] [XML...]\n"
	      "       oneib-partitions verify [--conf FILE | [--cloud-id N] "
	      "[--legacy-guids]\n"
	      "                               [--installed FILE] [--static "
	      "FILE]\n"
	      "                               [--hosts-partition NAME] "
	      "XML...]\n"
	      "                               [--opensm-conf FILE] [--ca NAME] "
	      "[--port N]\n"
	      "                               [--timeout MS]\n"
	      "       oneib-partitions list [FILE]\n"
	      "       oneib-partitions counters [XML...]\n"
	      "       oneib-partitions rpc-string [FILE]\n"
	      "       oneib-partitions vmcache [--refresh IDS] FILE...\n"
	      "XML: `onevm list -x --extended`, `onehost list -x`, `onevnet "
	      "list -x` output,\nas files or on standard input (-, the "
	      "default).\n",
	      f);
}

/* What render and verify share: how the cloud becomes partitions. */
struct desired {
	struct render_opts o;
	const char *installed; /* --installed FILE */
	const char *stat; /* --static FILE */
	const char *sls, *best_effort; /* --sls LIST, --sl-best-effort SL */
	const char *counters; /* render --counters FILE */
	bool keep_installed; /* inst outlives desired_from_xml */
	struct sl_opts so;
	struct partitions inst, st;
};

/* An option of the cloud model render, plan and verify share: 0, or 2
 * with one line (a bad value, or an option none of them has). */
static int desired_opt(struct desired *d, int o, const char *cmd,
		       const char *arg)
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
	case 's':
		d->stat = optarg;
		return 0;
	case 'h':
		d->o.hosts_partition = optarg;
		return 0;
	case 'S':
		d->sls = optarg;
		return 0;
	case 'B':
		d->best_effort = optarg;
		return 0;
	}
	log_msg("%s: %.40s: unknown option or missing value "
		"(usage: oneib-partitions --help)",
		cmd, arg);
	return 2;
}

/* The SL plan's settings, once the options are read: 0, or 2 (usage). */
static int desired_sls(struct desired *d, const char *cmd)
{
	char err[ERRLEN] = "";

	if (!d->sls && d->best_effort) {
		log_msg("%s: --sl-best-effort without --sls", cmd);
		return 2;
	}
	if (!d->sls)
		return 0;
	if (sl_opts_parse(d->sls, d->best_effort, &d->so, err, sizeof(err))) {
		log_msg("%s: %s", cmd, err);
		return 2;
	}
	d->o.sls = &d->so;
	return 0;
}

/*
 * The operator's static file (design decision 11): strictly its rules,
 * or nothing is rendered.
 */
static int read_static(struct desired *d, const char *cmd)
{
	char err[ERRLEN] = "";

	if (!d->stat)
		return 0;
	if (partitions_read_static(d->stat, &d->st, err, sizeof(err))) {
		log_msg("%s: %s", cmd, err);
		return 1;
	}
	d->o.stat = &d->st;
	d->o.stat_label = d->stat;
	return 0;
}

/*
 * The partitions as installed, which a network left out keeps. An empty
 * file is none yet. Adoption (design decision 11): a file that does not
 * read, or that holds partitions one-ib did not write and the static
 * file does not hold, is never replaced.
 */
static int read_installed(struct desired *d, const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	char err[ERRLEN] = "", names[ERRLEN];
	int r;

	if (!d->installed)
		return 0;
	r = sb_read_file(&sb, d->installed, CONFFILE_MAX);
	if (r) {
		log_msg("%s: --installed %.200s: %s", cmd, d->installed,
			strerror(-r));
	} else if (sb.len && partconf_parse_as("the installed partitions.conf",
					       sb.buf, sb.len, PARTCONF_ANY,
					       &d->inst, err, sizeof(err))) {
		log_msg("%s: %s: one-ib replaces only a file it can read; "
			"move its partitions into the static file "
			"(INSTALL, section 8.3)",
			cmd, err);
		r = 1;
	} else if (partitions_foreign(&d->inst, d->o.stat, names,
				      sizeof(names))) {
		log_msg("%s: the installed partitions.conf holds partitions "
			"one-ib did not write: %s; move them into the static "
			"file (ONEIB_PARTITIONS_STATIC), then run again "
			"(INSTALL, section 8.3)",
			cmd, names);
		r = 1;
	} else {
		d->o.installed = &d->inst;
	}
	sb_release(&sb);
	return r ? 1 : 0;
}

/* --- counters -------------------------------------------------------------- */

/*
 * What the front-end hook writes for the scheduler (fabric/vfcount.h,
 * leafpack.h, schedreq.h), from one reading of the cloud, to out: 0, or 1
 * with one line (the VM and HOST listings incomplete, no memory, out not
 * written).
 */
static int print_counters(struct cloud_facts *f, FILE *out, const char *cmd)
{
	struct leaf_pick *pick = NULL;
	char **topo = NULL, err[ERRLEN] = "";
	size_t i;
	int r;

	r = cloud_facts_complete(f, 1u << POOL_VM | 1u << POOL_HOST, err,
				 sizeof(err));
	if (r) {
		log_msg("%s: %s", cmd, err);
		return 1;
	}
	vfcount_prepare(f);
	for (i = 0; i < f->nhosts; i++) {
		const struct host_fact *h = &f->hosts[i];
		long c[HC_COUNT];

		if (vfcount_host(f, h, c)) {
			fprintf(out,
				"# HOST %d (%s): VMS holds a VM the listing "
				"does not: counted at the next run\n",
				h->id, f->texts[h->name]);
			continue;
		}
		if (vfcount_current(h, c))
			continue;
		fprintf(out,
			"host %d IB_VFS_USED=%ld IB_VFS_AVAIL=%ld "
			"IB_SYNC_VMS=%ld IB_SYNC_SUM=%ld\n",
			h->id, c[HC_USED], c[HC_AVAIL], c[HC_SYNC_VMS],
			c[HC_SYNC_SUM]);
	}
	pick = calloc(f->nvms + 1, sizeof(*pick));
	topo = calloc(f->nvms + 1, sizeof(*topo));
	r = !pick || !topo || leafpack_plan(f, pick) ||
			    topology_plan(f, pick, topo)
		    ? -ENOMEM
		    : 0;
	for (i = 0; !r && i < f->nvms; i++) {
		const struct vm_fact *v = &f->vms[i];
		char *req = NULL;

		if (!pick[i].to_place)
			continue;
		r = schedreq_update(v->id,
				    v->req == FACT_NONE ? "" : f->texts[v->req],
				    v->ib_nics, pick[i].has, pick[i].leaf, &req,
				    err, sizeof(err));
		if (r == -EINVAL)
			log_msg("warning: %s", err);
		/* The cluster's map (topology.h) before the leaf term that
		 * lifts the gate: the hook applies the lines in order. */
		if (r > 0 && topo[i]) {
			fprintf(out, "ctx %d ", v->id);
			tmpl_attr(out, "ONEIB_TOPOLOGY", topo[i]);
		}
		if (r > 0) {
			fprintf(out, "vm %d ", v->id);
			tmpl_attr(out, "SCHED_REQUIREMENTS", req);
		}
		free(req);
		r = r == -ENOMEM ? r : 0;
	}
	for (i = 0; topo && i < f->nvms; i++)
		free(topo[i]);
	free(topo);
	free(pick);
	if (r) {
		log_msg("%s: %s", cmd, strerror(ENOMEM));
		return 1;
	}
	if (fflush(out) || ferror(out)) {
		log_msg("%s: cannot write the counters", cmd);
		return 1;
	}
	return 0;
}

/*
 * render --counters FILE: print_counters into FILE, whole or not at all
 * (written beside it, renamed when complete: a killed render leaves no
 * half line for the hook to apply).
 */
static int write_counters(struct cloud_facts *f, const char *path,
			  const char *cmd)
{
	char tmp[4096];
	FILE *out;
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.part", path) >=
	    sizeof(tmp)) {
		log_msg("%s: --counters: path too long", cmd);
		return 1;
	}
	out = fopen(tmp, "w");
	if (!out) {
		log_msg("%s: --counters %.200s: %s", cmd, tmp, strerror(errno));
		return 1;
	}
	r = print_counters(f, out, cmd);
	if (fclose(out) && !r) {
		log_msg("%s: --counters %.200s: %s", cmd, tmp, strerror(errno));
		r = 1;
	}
	if (!r && rename(tmp, path)) {
		log_msg("%s: --counters %.200s: %s", cmd, path,
			strerror(errno));
		r = 1;
	}
	if (r)
		unlink(tmp);
	return r;
}

static int desired_from_xml(struct desired *d, int n, char **args,
			    struct partitions *m, struct partitions_plan *pp,
			    const char *cmd)
{
	struct cloud_facts f = { 0 };
	char err[ERRLEN] = "";
	int r = read_static(d, cmd), rd;

	if (!r)
		r = read_installed(d, cmd);
	if (r)
		goto out;
	rd = poolread_files(&f, -1, n, args, err, sizeof(err));
	r = rd ? rd
	       : partitions_desired_plan(&f, &d->o, m, pp, err, sizeof(err));
	if (r) {
		log_msg("%s: %s", cmd, err);
		r = 1;
	}
	/* the counters from the same reading, also when the render refused */
	if (d->counters && !rd)
		write_counters(&f, d->counters, cmd); /* none: counters alone */
	cloud_facts_free(&f);
out:
	if (r || !d->keep_installed)
		partitions_free(&d->inst);
	partitions_free(&d->st);
	return r;
}

static const struct option desired_opts[] = {
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
	{ "counters", required_argument, NULL, 'K' },
	{ "sls-in-force", required_argument, NULL, 'F' },
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
 * opensm's QoS policy for m (root/qospolicy.h), its default the
 * best-effort SL, checked as the installer will check it, into path.
 */
static int write_policy(const struct desired *d, const struct partitions *m,
			const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct qos_policy q, back;
	char err[ERRLEN] = "";
	int r = qospolicy_from_partitions(m, d->o.sls ? d->so.best_effort : 0,
					  &q);

	if (!r)
		r = qospolicy_render(&q, &text);
	qospolicy_free(&q);
	if (r) {
		log_msg("render: out of memory");
		sb_release(&text);
		return 1;
	}
	/* never hand on a policy the installer would refuse */
	r = qospolicy_canonical(text.buf, text.len, &back, err, sizeof(err));
	qospolicy_free(&back);
	if (!r) {
		r = conffile_install(path, NULL, text.buf, text.len, err,
				     sizeof(err));
		r = r < 0 ? r : 0;
	}
	if (r)
		log_msg("render: --qos-policy: %s", err);
	sb_release(&text);
	return r ? 1 : 0;
}

/* --- render ---------------------------------------------------------------- */

/*
 * m as partitions.conf, checked as the installer will check it, into path
 * (atomically) or on stdout (path NULL): 0, or 1 with one line.
 */
static int write_partitions(const struct partitions *m, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	char err[ERRLEN] = "";
	int r = 0;

	if (partconf_render(m, &text)) {
		log_msg("render: out of memory");
		r = 1;
	} else if (partconf_check(text.buf, text.len, m, err, sizeof(err))) {
		/* never hand on a file the grammar reads differently */
		log_msg("render: %s", err);
		r = 1;
	} else if (path) {
		r = conffile_install(path, NULL, text.buf, text.len, err,
				     sizeof(err));
		if (r < 0)
			log_msg("render: %s", err);
		r = r < 0 ? 1 : 0;
	} else if (fwrite(text.buf, 1, text.len, stdout) != text.len ||
		   fflush(stdout)) {
		log_msg("render: cannot write the file on standard output");
		r = 1;
	}
	sb_release(&text);
	return r;
}

static int cmd_render(int argc, char **argv)
{
	struct desired d = { 0 };
	struct partitions m = { 0 };
	struct partitions_plan pp = { 0 };
	const char *out = NULL, *policy = NULL, *in_force = NULL;
	size_t i;
	int o, r;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", desired_opts, NULL)) != -1) {
		if (o == 'o' || o == 'Q' || o == 'F') {
			*(o == 'o'   ? &out
			  : o == 'Q' ? &policy
				     : &in_force) = optarg;
			continue;
		}
		if (o == 'K') {
			d.counters = optarg;
			continue;
		}
		r = desired_opt(&d, o, "render", argv[optind - 1]);
		if (r)
			return r;
	}
	d.keep_installed = in_force != NULL;
	r = desired_sls(&d, "render");
	if (!r)
		r = desired_from_xml(&d, argc - optind, argv + optind, &m, &pp,
				     "render");
	if (r)
		return r;
	for (i = 0; i < m.nnotes; i++)
		log_msg("warning: %s", m.notes[i]);
	fflush(stdout);
	plan_warnings(&pp, stderr);
	partitions_plan_free(&pp);
	/* the policy first: the hook installs it before the file */
	r = policy ? write_policy(&d, &m, policy) : 0;
	if (!r)
		r = write_partitions(&m, out);
	/* last: it changes m's SLs */
	if (!r && in_force) {
		partitions_sls_in_force(&m, &d.inst);
		r = write_partitions(&m, in_force);
	}
	partitions_free(&d.inst);
	partitions_free(&m);
	return r;
}

/* --- plan ------------------------------------------------------------------ */

static int cmd_plan(int argc, char **argv)
{
	struct desired d = { 0 };
	struct partitions m = { 0 };
	struct partitions_plan pp = { 0 };
	struct strbuf text = STRBUF_INIT;
	int o, r;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", desired_opts, NULL)) != -1) {
		r = desired_opt(&d, o, "plan", argv[optind - 1]);
		if (r)
			return r;
	}
	if (!d.sls) {
		log_msg("plan: --sls LIST is needed (ONEIB_SLS of "
			"etc/vnm/ib/ibrc, e.g. 1-7)");
		return 2;
	}
	r = desired_sls(&d, "plan");
	if (!r)
		r = desired_from_xml(&d, argc - optind, argv + optind, &m, &pp,
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

static void print_keys(const uint16_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf(" 0x%04x", k[i]);
	if (!n)
		fputs(" (none)", stdout);
}

/* "port 0x... (VM 10 NIC 0; lid 6, "vm10")" or its switch's port. */
static void print_where(const struct fabric_port *fp, bool sw)
{
	char g[GUID_STRLEN], desc[GUID_DESC_LEN];

	if (sw) {
		guid_fmt_hex(fp->sw_guid, g);
		printf("switch %s port %u toward ", g, fp->sw_port);
	}
	guid_fmt_hex(fp->port_guid, g);
	guid_describe(fp->port_guid, desc);
	if (strcmp(desc, "-"))
		printf("port %s (%s; lid %u, \"%s\")", g, desc, fp->lid,
		       fp->desc);
	else
		printf("port %s (lid %u, \"%s\")", g, fp->lid, fp->desc);
}

/* "what: port 0x02000000000a0000 (VM 10 NIC 0; lid 6, "node02-vf0")" */
static void print_port(const char *what, const struct fabric_port *fp)
{
	printf("%s: ", what);
	print_where(fp, false);
}

static void print_drift(const struct port_drift *d)
{
	print_port("drift", d->port);
	fputs(" holds", stdout);
	print_keys(d->have, d->nhave);
	fputs(", should hold", stdout);
	print_keys(d->want, d->nwant);
	putchar('\n');
}

static void print_capacity(const struct port_capacity *c)
{
	const struct fabric_port *fp = c->port;

	print_port("capacity", fp);
	printf(" needs %zu P_Key entries", c->need);
	if (fp->pcap && c->need > fp->pcap)
		printf(", its table holds %u", fp->pcap);
	if (fp->sw_enf_cap && c->need > fp->sw_enf_cap) {
		char sw[GUID_STRLEN];

		guid_fmt_hex(fp->sw_guid, sw);
		printf(", switch %s port %u enforces at most %u (opensm "
		       "turns its enforcement off)",
		       sw, fp->sw_port, fp->sw_enf_cap);
	}
	if (c->ndropped) {
		fputs(": opensm dropped", stdout);
		print_keys(c->dropped, c->ndropped);
	}
	putchar('\n');
}

/* opensm's configuration, one line; M_Key unset is a warning. */
static void print_osmconf(const struct osm_conf *oc, const char *path)
{
	if (!oc->found)
		printf("opensm: %s: none, opensm's defaults: qos FALSE, no "
		       "M_Key\n",
		       path);
	else if (!oc->m_key)
		printf("opensm: %s: qos %s, no M_Key\n", path,
		       oc->qos ? "TRUE" : "FALSE");
	else
		printf("opensm: %s: qos %s, m_key set, "
		       "m_key_protection_level %d, m_key_lease_period %u s\n",
		       path, oc->qos ? "TRUE" : "FALSE", oc->m_key_protection,
		       oc->m_key_lease);
	if (!oc->m_key)
		printf("warning: opensm: m_key is not set: whoever can send "
		       "SMPs (root on any node of the fabric) can reprogram "
		       "every port's P_Key table, a tenant's partition too "
		       "(INSTALL, section 8.5)\n");
	else if (!oc->m_key_protection)
		printf("warning: opensm: m_key_protection_level 0: ports hand "
		       "their M_Key to whoever asks, which protects nothing "
		       "(INSTALL, section 8.5)\n");
}

/* One partition's SL as the SA answers it; 1 when not in force. */
static int print_sl(const struct sl_check *c, const struct osm_conf *oc)
{
	const struct partition *p = c->p;
	char a[GUID_STRLEN], b[GUID_STRLEN];

	printf("sl: %s (0x%04x) sl=%d: ", p->name, p->pkey, p->sl);
	if (!c->src) {
		printf("no path to ask, no port of the fabric holds its "
		       "key\n");
		return 0;
	}
	guid_fmt_hex(c->src, a);
	guid_fmt_hex(c->dst, b);
	if (!c->found) {
		printf("no path %s -> %s in it (%s)\n", a, b, c->why);
		return 1;
	}
	printf("the SA answers SL %u (%s -> %s): ", c->sl, a, b);
	if (c->sl == p->sl) {
		printf("in force\n");
		return 0;
	}
	if (!oc->qos)
		printf("NOT in force: qos is not TRUE in opensm's "
		       "configuration, and opensm then gives every path SL 0 "
		       "(INSTALL, section 8.5)\n");
	else
		printf("NOT in force: the configuration says qos TRUE, so "
		       "opensm has not re-read it (SIGHUP) or a QoS policy "
		       "file gives this partition another SL (INSTALL, "
		       "section 8.5)\n");
	return 1;
}

/* Tenant VF GUIDs the SA does not know: the SM cannot see those VFs. */
static void print_unknown(const struct sa_result *sr, const struct osm_conf *oc)
{
	size_t i;

	if (!sr->nunknown)
		return;
	printf("warning: %zu VF port GUID%s of VMs unknown to the SA (",
	       sr->nunknown, sr->nunknown == 1 ? "" : "s");
	for (i = 0; i < sr->nunknown && i < 8; i++) {
		char desc[GUID_DESC_LEN];

		guid_describe(sr->unknown[i], desc);
		printf("%s%s", i ? ", " : "", desc);
	}
	printf("%s): ConnectX-4 and later VFs are virtual ports that only a "
	       "virtualization-capable subnet manager manages (NVIDIA's "
	       "opensm with virt_enabled 2, or UFM; Debian's opensm has "
	       "none%s); ConnectX-3 alias GUIDs appear once their host "
	       "registered them (INSTALL, section 8.6)\n",
	       i < sr->nunknown ? ", ..." : "",
	       oc->virt_enabled >= 0 ? ", and opensm.conf sets virt_enabled"
				     : "");
}

/*
 * The QoS policy opensm reads (its qos_policy_file): one-ib's and what it
 * gives each partition, or what else. Only read while qos is TRUE.
 */
static void print_policy(const struct osm_conf *oc, const struct partitions *m)
{
	struct strbuf text = STRBUF_INIT;
	const struct partition *p;
	struct qos_policy q;
	char err[ERRLEN] = "";
	size_t n;
	int r, sl = 0;

	if (!oc->qos)
		return;
	r = sb_read_file(&text, oc->policy_file, CONFFILE_MAX);
	if (r == -ENOENT) {
		printf("qos-policy: %s: none, each partition's sl= alone\n",
		       oc->policy_file);
	} else if (r) {
		printf("warning: qos-policy: %s: %s\n", oc->policy_file,
		       strerror(-r));
	} else if (qospolicy_canonical(text.buf, text.len, &q, err,
				       sizeof(err))) {
		printf("warning: qos-policy: %s is not one-ib's (%s): its "
		       "default level overrides every partition's sl= it has "
		       "no rule for (INSTALL, section 8.8)\n",
		       oc->policy_file, err);
	} else {
		printf("qos-policy: %s: one-ib's, %zu partition%s with an SL, "
		       "default SL %d\n",
		       oc->policy_file, q.n, q.n == 1 ? "" : "s", q.default_sl);
		n = qos_policy_differs(&q, m, &p, &sl);
		if (n)
			printf("warning: qos-policy: it gives %s (0x%04x) SL "
			       "%d, its sl= %d (and %zu more): install both "
			       "files of one render\n",
			       p->name, p->pkey, sl, p->sl, n - 1);
		qospolicy_free(&q);
	}
	sb_release(&text);
}

/* A partition's SL in the tables opensm programmed; 1 when not in force. */
static int print_tables(const struct qos_class *c)
{
	const struct partition *p = c->p;

	if (!c->nports)
		return 0; /* no port of the fabric holds its key */
	printf("tables: %s (0x%04x) SL %d: ", p->name, p->pkey, p->sl);
	if (c->nfaults) {
		printf("%zu fault%s, e.g. ", c->nfaults,
		       c->nfaults == 1 ? "" : "s");
		print_where(c->fault_port, c->fault_sw);
		printf(" maps it to VL %u: %s: NOT in force (INSTALL, section "
		       "8.8)\n",
		       c->fault_vl, qos_fault_text(c->fault));
		return 1;
	}
	if (c->vl < 0)
		printf("its %zu port%s map it to different VLs", c->nports,
		       c->nports == 1 ? "" : "s");
	else
		printf("VL %d on its %zu port%s", c->vl, c->nports,
		       c->nports == 1 ? "" : "s");
	printf("%s: weight low %u high %u",
	       c->sw ? " and the switch ports "
		       "toward them"
		     : "",
	       c->low, c->high);
	if (c->sw)
		printf(", switch low %u high %u", c->sw_low, c->sw_high);
	printf(": in force\n");
	return 0;
}

static int print_qos(const struct qos_result *q)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < q->nc; i++)
		bad += print_tables(&q->c[i]);
	for (i = 0; i < q->nm; i++) {
		const struct qos_merge *g = &q->m[i];

		printf("tables: SL %u and SL %u share VL %u on %zu port%s, "
		       "e.g. ",
		       g->a, g->b, g->vl, g->nports, g->nports == 1 ? "" : "s");
		print_where(g->example, g->example_sw);
		printf(": their partitions are one class there: NOT in force "
		       "(INSTALL, section 8.8)\n");
		bad++;
	}
	if (q->nread)
		printf("vls: the %zu port%s read have %d data VLs or more "
		       "(OperVLs)%s",
		       q->nread, q->nread == 1 ? "" : "s", q->min_vls,
		       q->min_sw_vls ? ", the switch ports toward them "
				     : "\n");
	if (q->nread && q->min_sw_vls)
		printf("%d\n", q->min_sw_vls);
	return bad;
}

static int cmd_verify(int argc, char **argv)
{
	struct desired d = { 0 };
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
	int o, r, port = 0, timeout = 200, slbad = 0, qosbad;
	size_t i;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", desired_opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			conf = optarg;
			break;
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
			r = desired_opt(&d, o, "verify", argv[optind - 1]);
			if (r)
				return r;
			break;
		}
	}
	if (conf && (optind < argc || d.installed || d.o.legacy_guids ||
		     d.stat || d.o.hosts_partition || d.sls)) {
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
	} else if (desired_sls(&d, "verify") ||
		   desired_from_xml(&d, argc - optind, argv + optind, &m, NULL,
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
		r = partitions_verify(&m, &f, &res);
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
	for (i = 0; i < m.nnotes; i++)
		printf("refused: %s\n", m.notes[i]);
	for (i = 0; i < res.ndrift; i++)
		print_drift(&res.drift[i]);
	for (i = 0; i < res.ncap; i++)
		print_capacity(&res.cap[i]);
	print_osmconf(&oc, osm);
	print_policy(&oc, &m);
	for (i = 0; i < sr.nsl; i++)
		slbad += print_sl(&sr.sl[i], &oc);
	qosbad = print_qos(&qr);
	print_unknown(&sr, &oc);
	printf("verify: %zu end ports, %zu switches, %zu partitions; %zu "
	       "member ports in the fabric, %zu not; %zu ports differ; %zu "
	       "left out",
	       f.n, f.switches, m.n, res.present, res.absent, res.ndrift,
	       m.nnotes);
	if (slbad)
		printf("; %d SL%s not in force", slbad, slbad == 1 ? "" : "s");
	if (res.ncap)
		printf("; %zu port%s over capacity", res.ncap,
		       res.ncap == 1 ? "" : "s");
	if (qosbad)
		printf("; %d QoS table fault%s", qosbad,
		       qosbad == 1 ? "" : "s");
	putchar('\n');
	r = res.ndrift || m.nnotes || slbad || res.ncap || qosbad ? 1 : 0;
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

/*
 *   vnet9_storage 0x8109 (ipoib, sl 2): 3 members
 *       0x0002c903000a0001  -
 *       0x02000000000a0001  VM 10 NIC 1 (limited)
 *   infra 0x8105 (ipoib; the static file's): 2 members
 *       ALL_SWITCHES=full
 *       ...
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
	for (k = 0; k < PKW_COUNT; k++)
		if (p->kw[k])
			printf("    %s%s\n", partconf_keyword[k],
			       p->kw[k] == PM_LIMITED ? "=limited"
			       : p->kw[k] == PM_FULL  ? "=full"
						      : "=both");
	while ((pm = partition_next_member(p, &it, &x))) {
		char g[GUID_STRLEN], desc[GUID_DESC_LEN];

		guid_fmt_hex(x, g);
		guid_describe(x, desc);
		printf("    %s  %s%s\n", g, desc, member_note[pm]);
	}
}

static int cmd_list(int argc, char **argv)
{
	const char *file = argc > 2 ? argv[2] : "/etc/opensm/partitions.conf";
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	char err[ERRLEN] = "";
	size_t i;
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

/*
 * The document an answer of oned's XML-RPC API carries, as the CLI would
 * print it (fabric/onerpc.h): what the hook lists the cloud with.
 */
static int cmd_rpc_string(int argc, char **argv)
{
	const char *file = argc > 2 ? argv[2] : "-";
	char err[ERRLEN] = "";
	FILE *in = stdin;
	int r;

	if (argc > 3) {
		log_msg("rpc-string takes one FILE (usage: oneib-partitions "
			"--help)");
		return 2;
	}
	if (strcmp(file, "-") && !(in = fopen(file, "re"))) {
		log_msg("rpc-string: %.200s: %s", file, strerror(errno));
		return 1;
	}
	r = onerpc_string(in, stdout, err, sizeof(err));
	if (in != stdin)
		fclose(in);
	if (r) {
		log_msg("%s", err);
		return 1;
	}
	return 0;
}

/*
 * The VM listing the hook keeps (fabric/vmcache.h), from the last one and
 * the VMs an event asked oned for again.
 */
static int cmd_vmcache(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "refresh", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	char err[ERRLEN] = "", *ids = NULL, *one, *save = NULL;
	int *refresh = NULL, o, r;
	size_t n = 0;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o != 'r') {
			log_msg("vmcache: unknown option '%.40s' (usage: "
				"oneib-partitions --help)",
				argv[optind - 1]);
			return 2;
		}
		ids = optarg;
	}
	if (optind >= argc) {
		log_msg("vmcache takes at least one FILE (usage: "
			"oneib-partitions --help)");
		return 2;
	}
	/* "3,17,42": at most one ID per two bytes */
	refresh = calloc(ids ? strlen(ids) / 2 + 1 : 1, sizeof(*refresh));
	if (!refresh) {
		log_msg("vmcache: out of memory");
		return 1;
	}
	for (one = ids ? strtok_r(ids, ",", &save) : NULL; one;
	     one = strtok_r(NULL, ",", &save)) {
		if (dec_parse_int(one, &refresh[n]) || refresh[n] < 0) {
			log_msg("vmcache: --refresh: '%.40s' is not a VM ID",
				one);
			free(refresh);
			return 2;
		}
		n++;
	}
	r = vmcache_write(stdout, argc - optind, argv + optind, refresh, n, err,
			  sizeof(err));
	free(refresh);
	if (r) {
		log_msg("vmcache: %s", err);
		return 1;
	}
	return 0;
}

static int cmd_counters(int argc, char **argv)
{
	struct cloud_facts f = { 0 };
	char err[ERRLEN] = "";
	int r;

	r = poolread_files(&f, -1, argc - 2, argv + 2, err, sizeof(err));
	if (r) {
		log_msg("counters: %s", err);
		cloud_facts_free(&f);
		return 1;
	}
	r = print_counters(&f, stdout, "counters");
	cloud_facts_free(&f);
	return r;
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
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(argc, argv);
	if (!strcmp(argv[1], "counters"))
		return cmd_counters(argc, argv);
	if (!strcmp(argv[1], "rpc-string"))
		return cmd_rpc_string(argc, argv);
	if (!strcmp(argv[1], "vmcache"))
		return cmd_vmcache(argc, argv);
	log_msg("unknown command '%.20s' (render, plan, verify, list, "
		"counters, rpc-string, vmcache)",
		argv[1]);
	return 2;
}
