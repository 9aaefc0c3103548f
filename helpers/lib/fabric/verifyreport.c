// SPDX-License-Identifier: Apache-2.0
/* What verify found, said (verifyreport.h). */
#include "fabric/verifyreport.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/conffile.h"
#include "core/log.h"
#include "core/guid.h"
#include "core/strbuf.h"
#include "fabric/partdiff.h"
#include "root/qospolicy.h"

static void print_keys(FILE *out, const uint16_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(out, " 0x%04x", k[i]);
	if (!n)
		fputs(" (none)", out);
}

/* "port 0x... (VM 10 NIC 0; lid 6, "vm10")" or its switch's port. */
static void print_where(FILE *out, const struct fabric_port *fp, bool sw)
{
	char g[GUID_STRLEN], desc[GUID_DESC_LEN];

	if (sw) {
		guid_fmt_hex(fp->sw_guid, g);
		fprintf(out, "switch %s port %u toward ", g, fp->sw_port);
	}
	guid_fmt_hex(fp->port_guid, g);
	guid_describe(fp->port_guid, desc);
	if (strcmp(desc, "-"))
		fprintf(out, "port %s (%s; lid %u, \"%s\")", g, desc, fp->lid,
			fp->desc);
	else
		fprintf(out, "port %s (lid %u, \"%s\")", g, fp->lid, fp->desc);
}

/* "what: port 0x02000000000a0000 (VM 10 NIC 0; lid 6, "node02-vf0")" */
static void print_port(FILE *out, const char *what,
		       const struct fabric_port *fp)
{
	fprintf(out, "%s: ", what);
	print_where(out, fp, false);
}

static void print_drift(FILE *out, const struct port_drift *d)
{
	print_port(out, "drift", d->port);
	fputs(" holds", out);
	print_keys(out, d->have, d->nhave);
	fputs(", should hold", out);
	print_keys(out, d->want, d->nwant);
	fputc('\n', out);
}

static void print_capacity(FILE *out, const struct port_capacity *c)
{
	const struct fabric_port *fp = c->port;

	print_port(out, "capacity", fp);
	fprintf(out, " needs %zu P_Key entries", c->need);
	if (fp->pcap && c->need > fp->pcap)
		fprintf(out, ", its table holds %u", fp->pcap);
	if (fp->sw_enf_cap && c->need > fp->sw_enf_cap) {
		char sw[GUID_STRLEN];

		guid_fmt_hex(fp->sw_guid, sw);
		fprintf(out,
			", switch %s port %u enforces at most %u (opensm "
			"turns its enforcement off)",
			sw, fp->sw_port, fp->sw_enf_cap);
	}
	if (c->ndropped) {
		fputs(": opensm dropped", out);
		print_keys(out, c->dropped, c->ndropped);
	}
	fputc('\n', out);
}

/* opensm's configuration, one line; M_Key unset is a warning. */
static void print_osmconf(FILE *out, const struct osm_conf *oc,
			  const char *path)
{
	if (!oc->found)
		fprintf(out,
			"opensm: %s: none, opensm's defaults: qos FALSE, no "
			"M_Key\n",
			path);
	else if (!oc->m_key)
		fprintf(out, "opensm: %s: qos %s, no M_Key\n", path,
			oc->qos ? "TRUE" : "FALSE");
	else
		fprintf(out,
			"opensm: %s: qos %s, m_key set, "
			"m_key_protection_level %d, m_key_lease_period %u s\n",
			path, oc->qos ? "TRUE" : "FALSE", oc->m_key_protection,
			oc->m_key_lease);
	if (!oc->m_key)
		fprintf(out, "warning: opensm: m_key is not set: whoever can "
			     "send "
			     "SMPs (root on any node of the fabric) can "
			     "reprogram "
			     "every port's P_Key table, a tenant's partition "
			     "too (one-ib-qos(7))\n");
	else if (!oc->m_key_protection)
		fprintf(out, "warning: opensm: m_key_protection_level 0: ports "
			     "hand "
			     "their M_Key to whoever asks, which protects "
			     "nothing (one-ib-qos(7))\n");
}

/* One partition's SL as the SA answers it; 1 when not in force. */
static int print_sl(FILE *out, const struct sl_check *c,
		    const struct osm_conf *oc)
{
	const struct partition *p = c->p;
	char a[GUID_STRLEN], b[GUID_STRLEN];

	fprintf(out, "sl: %s (0x%04x) sl=%d: ", p->name, p->pkey, p->sl);
	if (!c->src) {
		fprintf(out, "no path to ask, no port of the fabric holds its "
			     "key\n");
		return 0;
	}
	guid_fmt_hex(c->src, a);
	guid_fmt_hex(c->dst, b);
	if (!c->found) {
		fprintf(out, "no path %s -> %s in it (%s)\n", a, b, c->why);
		return 1;
	}
	fprintf(out, "the SA answers SL %u (%s -> %s): ", c->sl, a, b);
	if (c->sl == p->sl) {
		fprintf(out, "in force\n");
		return 0;
	}
	if (!oc->qos)
		fprintf(out, "NOT in force: qos is not TRUE in opensm's "
			     "configuration, and opensm then gives every path "
			     "SL 0 (one-ib-qos(7))\n");
	else
		fprintf(out, "NOT in force: the configuration says qos TRUE, "
			     "so "
			     "opensm has not re-read it (SIGHUP) or a QoS "
			     "policy "
			     "file gives this partition another SL "
			     "(one-ib-qos(7))\n");
	return 1;
}

/* Tenant VF GUIDs the SA does not know: the SM cannot see those VFs. */
static void print_unknown(FILE *out, const struct sa_result *sr,
			  const struct osm_conf *oc)
{
	size_t i;

	if (!sr->nunknown)
		return;
	fprintf(out, "warning: %zu VF port GUID%s of VMs unknown to the SA (",
		sr->nunknown, sr->nunknown == 1 ? "" : "s");
	for (i = 0; i < sr->nunknown && i < 8; i++) {
		char desc[GUID_DESC_LEN];

		guid_describe(sr->unknown[i], desc);
		fprintf(out, "%s%s", i ? ", " : "", desc);
	}
	fprintf(out,
		"%s): ConnectX-4 and later VFs are virtual ports that only a "
		"virtualization-capable subnet manager manages (NVIDIA's "
		"opensm with virt_enabled 2, or UFM; Debian's opensm has "
		"none%s); ConnectX-3 alias GUIDs appear once their host "
		"registered them (one-ib-sm(7))\n",
		i < sr->nunknown ? ", ..." : "",
		oc->virt_enabled >= 0 ? ", and opensm.conf sets virt_enabled"
				      : "");
}

/*
 * The QoS policy opensm reads (its qos_policy_file): one-ib's and what it
 * gives each partition, or what else. Only read while qos is TRUE.
 */
static void print_policy(FILE *out, const struct osm_conf *oc,
			 const struct partitions *m)
{
	struct strbuf text = STRBUF_INIT;
	const struct partition *p;
	struct qos_policy q;
	char err[512] = "";
	size_t n;
	int r, sl = 0;

	if (!oc->qos)
		return;
	r = sb_read_file(&text, oc->policy_file, CONFFILE_MAX);
	if (r == -ENOENT) {
		fprintf(out,
			"qos-policy: %s: none, each partition's sl= alone\n",
			oc->policy_file);
	} else if (r) {
		fprintf(out, "warning: qos-policy: %s: %s\n", oc->policy_file,
			strerror(-r));
	} else if (qospolicy_canonical(text.buf, text.len, &q, err,
				       sizeof(err))) {
		fprintf(out,
			"warning: qos-policy: %s is not one-ib's (%s): its "
			"default level overrides every partition's sl= it has "
			"no rule for (one-ib-qos(7))\n",
			oc->policy_file, err);
	} else {
		fprintf(out,
			"qos-policy: %s: one-ib's, %zu partition%s with an SL, "
			"default SL %d\n",
			oc->policy_file, q.n, q.n == 1 ? "" : "s",
			q.default_sl);
		n = qos_policy_differs(&q, m, &p, &sl);
		if (n)
			fprintf(out,
				"warning: qos-policy: it gives %s (0x%04x) SL "
				"%d, its sl= %d (and %zu more): install both "
				"files of one render\n",
				p->name, p->pkey, sl, p->sl, n - 1);
		qospolicy_free(&q);
	}
	sb_release(&text);
}

/* A partition's SL in the tables opensm programmed; 1 when not in force. */
static int print_tables(FILE *out, const struct qos_class *c)
{
	const struct partition *p = c->p;

	if (!c->nports)
		return 0; /* no port of the fabric holds its key */
	fprintf(out, "tables: %s (0x%04x) SL %d: ", p->name, p->pkey, p->sl);
	if (c->nfaults) {
		fprintf(out, "%zu fault%s, e.g. ", c->nfaults,
			c->nfaults == 1 ? "" : "s");
		print_where(out, c->fault_port, c->fault_sw);
		fprintf(out,
			" maps it to VL %u: %s: NOT in force (one-ib-qos(7))\n",
			c->fault_vl, qos_fault_text(c->fault));
		return 1;
	}
	if (c->vl < 0)
		fprintf(out, "its %zu port%s map it to different VLs",
			c->nports, c->nports == 1 ? "" : "s");
	else
		fprintf(out, "VL %d on its %zu port%s", c->vl, c->nports,
			c->nports == 1 ? "" : "s");
	fprintf(out, "%s: weight low %u high %u",
		c->sw ? " and the switch ports "
			"toward them"
		      : "",
		c->low, c->high);
	if (c->sw)
		fprintf(out, ", switch low %u high %u", c->sw_low, c->sw_high);
	fprintf(out, ": in force\n");
	return 0;
}

static int print_qos(FILE *out, const struct qos_result *q)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < q->nc; i++)
		bad += print_tables(out, &q->c[i]);
	for (i = 0; i < q->nm; i++) {
		const struct qos_merge *g = &q->m[i];

		fprintf(out,
			"tables: SL %u and SL %u share VL %u on %zu port%s, "
			"e.g. ",
			g->a, g->b, g->vl, g->nports,
			g->nports == 1 ? "" : "s");
		print_where(out, g->example, g->example_sw);
		fprintf(out, ": their partitions are one class there: NOT in "
			     "force (one-ib-qos(7))\n");
		bad++;
	}
	if (q->nread)
		fprintf(out,
			"vls: the %zu port%s read have %d data VLs or more "
			"(OperVLs)%s",
			q->nread, q->nread == 1 ? "" : "s", q->min_vls,
			q->min_sw_vls ? ", the switch ports toward them "
				      : "\n");
	if (q->nread && q->min_sw_vls)
		fprintf(out, "%d\n", q->min_sw_vls);
	return bad;
}

/*
 * The subnet walked (one per walk: verify each subnet from one of its
 * ports), every port the walk found running a subnet manager, and its
 * SMInfo:
 *   subnet: 0xfe80000000000002 (GidPrefix of port 0x0002c903000a0001, where the walk began), master SM at lid 1
 *   sm: port 0x0002c90300000001 (lid 1, "sm"): MASTER, priority 10
 */
static void print_sms(FILE *out, const struct fabric *f)
{
	char pfx[GUID_STRLEN], g[GUID_STRLEN];
	size_t i, n = 0;

	/* one subnet per walk: verify each from one of its own ports */
	guid_fmt_hex(f->gid_prefix, pfx);
	guid_fmt_hex(f->local_guid, g);
	fprintf(out,
		"subnet: %s (GidPrefix of port %s, where the walk began), "
		"master SM at lid %u\n",
		pfx, g, f->sm_lid);

	for (i = 0; i < f->n; i++) {
		const struct fabric_port *fp = &f->p[i];

		if (!fp->is_sm)
			continue;
		n++;
		print_port(out, "sm", fp);
		if (fp->sm_r)
			fprintf(out, ": no SMInfo answer (%s)\n",
				strerror(-fp->sm_r));
		else
			fprintf(out, ": %s, priority %u\n",
				smp_sm_state_name(fp->sm.state),
				fp->sm.priority);
	}
	if (!n)
		fprintf(out, "warning: sm: no port of the fabric runs a subnet "
			     "manager (PortInfo IsSM)\n");
}

/*
 * Each SM's file against the one verified (design decision 17): 1 for
 * each that a failover to it would change.
 *   sm: sm2: /copies/sm2.conf: differs: vnet5_a (0x0101): ...: a failover to sm2 changes the partitions
 */
static int print_sm_files(FILE *out, const struct partitions *m,
			  const struct sm_file *sf, size_t n)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		char label[80], why[1024];
		enum partdiff_state st;

		snprintf(label, sizeof(label), "%.63s's", sf[i].name);
		st = partdiff_file(m, sf[i].path, "verified", label, why,
				   sizeof(why));
		fprintf(out, "sm: %s: %s: ", sf[i].name, sf[i].path);
		switch (st) {
		case PARTDIFF_SAME:
			fprintf(out, "holds the partitions verified\n");
			continue;
		case PARTDIFF_DIFFERS:
			fprintf(out,
				"differs: %s: a failover to %s changes the "
				"partitions\n",
				why, sf[i].name);
			break;
		case PARTDIFF_UNREADABLE:
			fprintf(out,
				"does not read (%s): at a failover to %s "
				"opensm "
				"applies what it can of it, or puts every port "
				"in the default partition as a full member\n",
				why, sf[i].name);
			break;
		case PARTDIFF_NONE:
			fprintf(out,
				"none (%s): at a failover to %s opensm puts "
				"every port in the default partition as a full "
				"member\n",
				why[0] ? why : "empty", sf[i].name);
			break;
		}
		bad++;
	}
	return bad;
}

/* A QoS policy file (text read, then taken only as one-ib writes it):
 * 0, -ENOENT none, else -errno / -EINVAL with why. */
static int read_policy(const char *path, struct qos_policy *q, char *why,
		       size_t len)
{
	struct strbuf text = STRBUF_INIT;
	int r = sb_read_file(&text, path, CONFFILE_MAX);

	if (r)
		err_set(why, len, "%s", strerror(-r));
	else
		r = qospolicy_canonical(text.buf, text.len, q, why, len);
	sb_release(&text);
	return r;
}

/*
 * Each SM's QoS policy (--sm-qos NAME=FILE) against the one opensm.conf
 * names here: 1 for each a failover to it would change.
 *   sm: sm2: /copies/sm2-qos.conf: QoS policy differs: P_Key 0x0101: SL 3 in the verified policy, SL 0 (its default) in sm2's: ...
 */
static int print_sm_policies(FILE *out, const struct osm_conf *oc,
			     const struct sm_file *sf, size_t n)
{
	struct qos_policy base = { 0 };
	char why[512];
	size_t i;
	int bad = 0, rb;

	if (!n)
		return 0;
	rb = read_policy(oc->policy_file, &base, why, sizeof(why));
	if (rb && rb != -ENOENT)
		fprintf(out,
			"warning: qos-policy: %s is not one-ib's (%s): the "
			"subnet managers' policies are compared with none\n",
			oc->policy_file, why);
	for (i = 0; i < n; i++) {
		struct qos_policy q = { 0 };
		char label[80];
		int r = read_policy(sf[i].path, &q, why, sizeof(why));

		fprintf(out, "sm: %s: %s: ", sf[i].name, sf[i].path);
		if (r == -ENOENT && rb) {
			fprintf(out, "no QoS policy, nor here\n");
			continue;
		}
		if (r == -ENOENT) {
			fprintf(out,
				"no QoS policy: at a failover to %s each "
				"partition's sl= alone applies, every other "
				"path "
				"SL 0\n",
				sf[i].name);
			bad++;
			continue;
		}
		if (r) {
			fprintf(out,
				"QoS policy not one-ib's (%s): at a failover "
				"to "
				"%s opensm may drop it, every partition's SL "
				"with "
				"it\n",
				why, sf[i].name);
			bad++;
			continue;
		}
		snprintf(label, sizeof(label), "%.63s's", sf[i].name);
		if (!qos_policy_compare(&base, &q, "verified", label, why,
					sizeof(why))) {
			fprintf(out, "holds the QoS policy verified\n");
		} else {
			fprintf(out,
				"QoS policy differs: %s: a failover to %s "
				"changes the SLs\n",
				why, sf[i].name);
			bad++;
		}
		qospolicy_free(&q);
	}
	if (!rb)
		qospolicy_free(&base);
	return bad;
}

int verify_report(FILE *out, const struct verify_findings *v)
{
	const struct partitions *m = v->m;
	const struct verify_result *res = v->res;
	const struct sa_result *sr = v->sr;
	const struct fabric *f = v->f;
	int slbad = 0, qosbad, smbad;
	size_t i;

	for (i = 0; i < m->nnotes; i++)
		fprintf(out, "refused: %s\n", m->notes[i]);
	for (i = 0; i < res->ndrift; i++)
		print_drift(out, &res->drift[i]);
	for (i = 0; i < res->ncap; i++)
		print_capacity(out, &res->cap[i]);
	for (i = 0; i < res->ndefault_full; i++) {
		print_port(out, "default", res->default_full[i]);
		fprintf(out, " is a full member of the default partition "
			     "(0xffff): "
			     "it reaches every port of the fabric, every other "
			     "tenant's VFs too; tenant VFs must be limited "
			     "members "
			     "(UFM: one-ib-sm(7))\n");
	}
	print_sms(out, f);
	smbad = print_sm_files(out, m, v->sm, v->nsm);
	print_osmconf(out, v->oc, v->osm_path);
	print_policy(out, v->oc, m);
	smbad += print_sm_policies(out, v->oc, v->sm_qos, v->nsm_qos);
	for (i = 0; i < sr->nsl; i++)
		slbad += print_sl(out, &sr->sl[i], v->oc);
	qosbad = print_qos(out, v->qr);
	print_unknown(out, sr, v->oc);
	fprintf(out,
		"verify: %zu end ports, %zu switches, %zu partitions; %zu "
		"member ports in the fabric, %zu not; %zu ports differ; %zu "
		"left out",
		f->n, f->switches, m->n, res->present, res->absent, res->ndrift,
		m->nnotes);
	if (slbad)
		fprintf(out, "; %d SL%s not in force", slbad,
			slbad == 1 ? "" : "s");
	if (res->ncap)
		fprintf(out, "; %zu port%s over capacity", res->ncap,
			res->ncap == 1 ? "" : "s");
	if (qosbad)
		fprintf(out, "; %d QoS table fault%s", qosbad,
			qosbad == 1 ? "" : "s");
	if (smbad)
		fprintf(out, "; %d subnet manager%s file differs", smbad,
			smbad == 1 ? "'s" : "s'");
	if (res->ndefault_full)
		fprintf(out, "; %zu tenant VF%s full in the default partition",
			res->ndefault_full, res->ndefault_full == 1 ? "" : "s");
	fputc('\n', out);
	return res->ndrift || m->nnotes || slbad || res->ncap || qosbad ||
			       smbad || res->ndefault_full
		       ? 1
		       : 0;
}
