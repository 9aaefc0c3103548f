// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-pkey: a tenant's port GUID and partition on one VF. The only part
 * of one-ib that runs as root, through one sudoers rule for oneadmin:
 *
 *   oneib-pkey map   0000:3b:00.2 0x02000000002a0001 0x8101 [--port 1]
 *   oneib-pkey unmap 0000:3b:00.2 [--port 1]
 *   oneib-pkey show  0000:3b:00.2 [--port 1]
 *
 * and, on the subnet manager's host, the fabric's partitions (decision 7):
 *
 *   { onevm list -x; onehost list -x; onevnet list -x; } |
 *       oneib-pkey partitions --output /etc/opensm/partitions.conf -
 *   oneib-pkey verify --conf /etc/opensm/partitions.conf
 *
 * It trusts no argument: each is parsed once into a typed value and checked
 * (a VF of an InfiniBand PF on this host that the host itself does not
 * use, a GUID one-ib hands out that nothing on this host carries yet, a
 * tenant P_Key: 0x0001-0x7ffe once the membership bit is masked) before
 * any path is built or anything written; a refusal is one line and changes
 * nothing. See vf_map in lib/vf.h.
 */
#include <errno.h>
#include <getopt.h>
#include <infiniband/umad.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/conffile.h"
#include "lib/guid.h"
#include "lib/log.h"
#include "lib/opensm.h"
#include "lib/partitions.h"
#include "lib/pci.h"
#include "lib/pkey.h"
#include "lib/pools.h"
#include "lib/smp.h"
#include "lib/strbuf.h"
#include "lib/vf.h"

#define ERRLEN 512

static void usage(FILE *f)
{
	fputs("usage: oneib-pkey map VF GUID PKEY [--port N]\n"
	      "       oneib-pkey unmap VF [--port N]\n"
	      "       oneib-pkey show VF [--port N]\n"
	      "       oneib-pkey partitions [--output FILE [--backup FILE]\n"
	      "                  [--pid-file FILE | --reload-cmd CMD | "
	      "--no-reload]] [XML...]\n"
	      "       oneib-pkey verify [--conf FILE | XML...] [--ca NAME] "
	      "[--port N]\n"
	      "XML: `onevm list -x`, `onehost list -x`, `onevnet list -x` "
	      "output, as files\nor on standard input (-, the default).\n",
	      f);
}

/* --- partitions ----------------------------------------------------------- */

/*
 * The desired partitions from the cloud's XML (files, "-" or none:
 * standard input), streamed document by document.
 */
static int desired_from_xml(int n, char **args, struct partitions *m, char *err,
			    size_t errlen)
{
	struct partitions_builder *b = NULL;
	struct pool_stream *s = malloc(sizeof(*s));
	bool stdin_read = false;
	int i, r = s ? partitions_builder_new(&b) : -ENOMEM;

	for (i = 0; i < (n ? n : 1) && !r; i++) {
		const char *a = n ? args[i] : "-";
		enum pool_kind kind;
		FILE *f = stdin;

		if (!strcmp(a, "-")) {
			if (stdin_read) {
				err_set(err, errlen, "- given twice");
				r = -EINVAL;
				break;
			}
			stdin_read = true;
			pool_stream_init(s, stdin, "standard input");
		} else {
			f = fopen(a, "re");
			if (!f) {
				r = -errno;
				err_set(err, errlen, "%.200s: %s", a,
					strerror(-r));
				break;
			}
			pool_stream_init(s, f, a);
		}
		while (!r &&
		       (r = pool_stream_next(s, &kind, err, errlen)) == 1) {
			r = partitions_read(b, -1, pool_stream_read, s,
					    s->origin, err, errlen);
			if (r && s->err[0]) /* the input, not the XML */
				err_set(err, errlen, "%s", s->err);
		}
		if (f != stdin)
			fclose(f);
	}
	if (r == -ENOMEM && !err[0])
		err_set(err, errlen, "partitions: out of memory");
	if (!r)
		r = partitions_finish(b, m, err, errlen);
	partitions_builder_free(b);
	free(s);
	return r;
}

/* The file text, read back before anyone uses it. */
static int render_checked(const struct partitions *m, struct strbuf *text,
			  char *err, size_t errlen)
{
	if (partitions_render(m, text)) {
		err_set(err, errlen, "partitions: out of memory");
		return -ENOMEM;
	}
	/* Never hand opensm a file its grammar would read differently. */
	return partitions_check(sb_str(text), m, err, errlen) ? -EINVAL : 0;
}

static size_t members(const struct partitions *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->n; i++)
		n += m->p[i].n;
	return n;
}

struct reload {
	const char *pid_file, *cmd;
	bool none;
};

/* After a new file is in place: 0, or 1 with the reason on stderr. */
static int reload_opensm(const struct reload *how, const char *file)
{
	char err[ERRLEN] = "";
	pid_t pid;
	int r;

	if (how->none)
		return 0;
	if (how->pid_file) {
		r = opensm_hup_pidfile(how->pid_file, &pid, err, sizeof(err));
		if (!r)
			printf("opensm %ld: SIGHUP, re-reading %s\n", (long)pid,
			       file);
	} else if (how->cmd) {
		r = opensm_run_cmd(how->cmd, err, sizeof(err));
		if (!r)
			printf("reload command done: %s\n", how->cmd);
	} else {
		r = opensm_hup_all(err, sizeof(err));
		if (r == 0)
			log_msg("warning: no opensm is running; it reads %s "
				"when it starts",
				file);
		else if (r > 0)
			printf("opensm: SIGHUP to %d process%s, re-reading "
			       "%s\n",
			       r, r == 1 ? "" : "es", file);
		r = r < 0 ? r : 0;
	}
	if (r) {
		log_msg("%s installed, but opensm was not told: %s", file, err);
		return 1;
	}
	return 0;
}

/* --- verify -------------------------------------------------------------- */

struct membership {
	uint64_t guid;
	uint16_t pkey; /* full member: 0x8000 set */
};

static int cmp_membership(const void *a, const void *b)
{
	const struct membership *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->pkey < y->pkey ? -1 : x->pkey > y->pkey;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return x < y ? -1 : x > y;
}

/* Every (member GUID, full P_Key) of the model, sorted by GUID. */
static struct membership *memberships(const struct partitions *m, size_t *n)
{
	struct membership *v = malloc((members(m) + 1) * sizeof(*v));
	size_t i, j;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < m->n; i++)
		for (j = 0; j < m->p[i].n; j++) {
			v[*n].guid = m->p[i].guids[j];
			v[(*n)++].pkey = (uint16_t)(m->p[i].pkey | 0x8000);
		}
	qsort(v, *n, sizeof(*v), cmp_membership);
	return v;
}

static size_t first_of(const struct membership *v, size_t n, uint64_t g)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].guid < g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void print_keys(const uint16_t *k, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf(" 0x%04x", k[i]);
	if (!n)
		fputs(" (none)", stdout);
}

/*
 * One end port against the model: what it should hold is the default
 * partition (full on the SM's port, limited elsewhere) plus, as a full
 * member, every partition listing its GUID. 1 when it differs.
 */
static int verify_port(const struct fabric_port *fp, uint16_t sm_lid,
		       const struct membership *v, size_t nv)
{
	uint16_t want[PARTITIONS_MLX4_MAX_PKEYS * 2], *have;
	size_t nw = 0, i = first_of(v, nv, fp->port_guid), j;
	int diff = 0;

	want[nw++] = fp->lid && fp->lid == sm_lid ? 0xffff : 0x7fff;
	for (; i < nv && v[i].guid == fp->port_guid; i++) {
		if (nw < sizeof(want) / sizeof(want[0]))
			want[nw++] = v[i].pkey;
		else
			diff = 1; /* more than any port's table holds */
	}
	have = malloc((fp->npkeys + 1) * sizeof(*have));
	if (!have)
		return 1;
	memcpy(have, fp->pkeys, fp->npkeys * sizeof(*have));
	qsort(have, fp->npkeys, sizeof(*have), cmp_u16);
	qsort(want, nw, sizeof(*want), cmp_u16);
	if (nw != fp->npkeys)
		diff = 1;
	for (j = 0; j < nw && !diff; j++)
		diff = want[j] != have[j];
	if (diff) {
		char g[GUID_STRLEN];

		guid_fmt_hex(fp->port_guid, g);
		printf("drift: port %s (lid %u, \"%s\") holds", g, fp->lid,
		       fp->desc);
		print_keys(have, fp->npkeys);
		fputs(", should hold", stdout);
		print_keys(want, nw);
		putchar('\n');
	}
	free(have);
	return diff;
}

static int verify(const struct partitions *m, const struct fabric *f)
{
	size_t nv, i, drift = 0, present = 0, absent = 0;
	struct membership *v = memberships(m, &nv);
	uint64_t *ports = malloc((f->n + 1) * sizeof(*ports));

	if (!v || !ports) {
		log_msg("verify: out of memory");
		free(v);
		free(ports);
		return 2;
	}
	for (i = 0; i < f->n; i++)
		ports[i] = f->p[i].port_guid;
	qsort(ports, f->n, sizeof(*ports), cmp_u64);
	for (i = 0; i < f->n; i++)
		drift += (size_t)verify_port(&f->p[i], f->sm_lid, v, nv);
	/* Members the SM could not find: VMs whose VF is not up yet, or
	 * ConnectX-3 alias GUIDs, which are never ports of their own. */
	for (i = 0; i < nv; i++) {
		if (i && v[i].guid == v[i - 1].guid)
			continue;
		if (bsearch(&v[i].guid, ports, f->n, sizeof(*ports), cmp_u64))
			present++;
		else
			absent++;
	}
	printf("verify: %zu end ports, %zu switches, %zu partitions; %zu "
	       "member ports in the fabric, %zu not; %zu ports differ\n",
	       f->n, f->switches, m->n, present, absent, drift);
	free(v);
	free(ports);
	return drift ? 1 : 0;
}

static int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'f' },
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf text = STRBUF_INIT;
	struct partitions m = { 0 };
	struct fabric f = { 0 };
	const char *conf = NULL, *ca = NULL;
	char err[ERRLEN] = "", *end;
	int o, r, port = 0, timeout = 200;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
		case 't':
			r = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || r < 1 ||
			    r > (o == 'p' ? 254 : 60000)) {
				log_msg("verify: '%.20s': not a %s", optarg,
					o == 'p' ? "port number"
						 : "timeout in ms (1-60000)");
				return 2;
			}
			*(o == 'p' ? &port : &timeout) = r;
			break;
		default:
			log_msg("verify: %.40s: unknown option or missing "
				"value (usage: oneib-pkey --help)",
				argv[optind - 1]);
			return 2;
		}
	}
	if (conf && optind < argc) {
		log_msg("verify: --conf or XML, not both");
		return 2;
	}
	if (conf) {
		r = sb_read_file(&text, conf, CONFFILE_MAX);
		if (r)
			err_set(err, sizeof(err), "%.200s: %s", conf,
				strerror(-r));
		else
			r = partitions_parse(sb_str(&text), &m, err,
					     sizeof(err));
	} else {
		r = desired_from_xml(argc - optind, argv + optind, &m, err,
				     sizeof(err));
	}
	if (!r)
		r = fabric_scan(ca, port, timeout, &f, err, sizeof(err));
	if (r) {
		log_msg("verify: %s", err);
		r = 2;
	} else {
		r = verify(&m, &f);
	}
	fabric_free(&f);
	partitions_free(&m);
	sb_release(&text);
	return r;
}

static int cmd_partitions(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "backup", required_argument, NULL, 'b' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "reload-cmd", required_argument, NULL, 'c' },
		{ "no-reload", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf text = STRBUF_INIT, bak = STRBUF_INIT;
	struct partitions m = { 0 };
	struct reload how = { 0 };
	const char *out = NULL, *backup = NULL;
	char err[ERRLEN] = "";
	int o, r, reloads = 0;

	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			backup = optarg;
			break;
		case 'p':
			how.pid_file = optarg;
			reloads++;
			break;
		case 'c':
			how.cmd = optarg;
			reloads++;
			break;
		case 'n':
			how.none = true;
			reloads++;
			break;
		default:
			log_msg("partitions: %.40s: unknown option or missing "
				"value (usage: oneib-pkey --help)",
				argv[optind - 1]);
			return 2;
		}
	}
	if (reloads > 1 || ((reloads || backup) && !out)) {
		log_msg("partitions: --backup and one of --pid-file, "
			"--reload-cmd, --no-reload go with --output");
		return 2;
	}
	if (out && (!*out || (backup && !strcmp(out, backup)))) {
		log_msg("partitions: --output '%.200s' is not a file name "
			"distinct from the backup",
			out);
		return 2;
	}
	r = desired_from_xml(argc - optind, argv + optind, &m, err,
			     sizeof(err));
	if (!r)
		r = render_checked(&m, &text, err, sizeof(err));
	if (r) {
		log_msg("partitions: %s", err);
		r = 1;
		goto out;
	}
	if (!out) {
		r = fwrite(text.buf, 1, text.len, stdout) == text.len ? 0 : 1;
		goto out;
	}
	if (!backup) {
		if (sb_addf(&bak, "%s.bak", out)) {
			log_msg("partitions: out of memory");
			r = 1;
			goto out;
		}
		backup = sb_str(&bak);
	}
	r = conffile_install(out, backup, text.buf, text.len, err, sizeof(err));
	if (r < 0) {
		log_msg("partitions: %s; nothing installed", err);
		r = 1;
	} else if (r == 1) {
		printf("%s: unchanged (%zu partitions, %zu members)\n", out,
		       m.n, members(&m));
		r = 0;
	} else {
		printf("%s: installed (%zu partitions, %zu members)%s%s\n", out,
		       m.n, members(&m),
		       r == 2 ? "" : ", previous file kept as ",
		       r == 2 ? "" : backup);
		r = reload_opensm(&how, out);
	}
out:
	partitions_free(&m);
	sb_release(&text);
	sb_release(&bak);
	return r;
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

static int parse_pkey(const char *s, struct pkey *p)
{
	if (pkey_parse(s, p)) {
		log_msg("P_Key '%.20s': not a 16-bit number", s);
		return -1;
	}
	if (!pkey_tenant_ok(*p)) {
		log_msg("P_Key '%.20s': not a tenant partition (0x0001-0x7ffe)",
			s);
		return -1;
	}
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
	char *end;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	opterr = 0; /* one line of ours, not getopt's */
	if (!strcmp(cmd, "partitions"))
		return cmd_partitions(argc, argv);
	if (!strcmp(cmd, "verify"))
		return cmd_verify(argc, argv);
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'p':
			port = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || port < 1 || port > 9) {
				log_msg("--port '%.20s': not a port number "
					"(1-9)",
					optarg);
				return 2;
			}
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
