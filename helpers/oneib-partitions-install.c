// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-partitions-install: the only root part of the partitions, on the
 * subnet manager's host (design decision 6), through one sudoers rule that
 * pins every argument:
 *
 *   oneib-partitions render ... | oneib-partitions-install \
 *       --output /etc/opensm/partitions.conf -
 *   oneib-partitions-install --qos-policy /etc/opensm/qos-policy.conf - \
 *       < the policy oneib-partitions render --qos-policy FILE wrote
 *
 * It takes an already rendered partitions.conf and trusts none of it: the
 * text must be exactly what oneib-partitions render writes (the strict
 * opensm grammar, re-rendered and compared byte for byte) or nothing
 * happens. Then the old file is kept as FILE.bak, the new one written
 * beside it, fsynced and renamed over it, and opensm told to re-read it:
 * SIGHUP to the subnet manager it is configured for, the main process of
 * the systemd units --service names (default opensm@*.service, Debian's
 * opensm) or the process in --pid-file, and only if that process is root's
 * and runs /usr/sbin/opensm (lib/root/opensm.h); or --reload-cmd. Never a
 * process found by its name. A reload that failed is retried by the next run, even when
 * the text is unchanged. It reads no cloud XML and is linked with no XML
 * library. --qos-policy FILE instead of --output FILE installs opensm's
 * QoS policy the same way, taken only if it is exactly what the renderer
 * writes (root/qospolicy.h: `any, pkey` rules and a default, nothing
 * else); the hook installs the policy first, so opensm never reads new
 * partitions with an old policy's default over their sl=.
 *
 *   oneib-partitions-install --ufm /opt/ufm/files/conf/partitions.conf.user_ext -
 *
 * is for NVIDIA UFM as the subnet manager (root/partinstall.h): the
 * rendered file is checked the same way, and what is written is its
 * partitions but the default one (UFM's own stays), into UFM's user
 * extension file; UFM is told by running its sync_partitions_conf.sh
 * (--reload-cmd another; --service and --pid-file do not apply).
 *
 * Exit status: 0 done; 1 refused, failed, or installed but opensm not told
 * (one line on stderr); 2 wrong usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "core/conffile.h"
#include "core/log.h"
#include "root/partinstall.h"
#include "core/strbuf.h"

#define ERRLEN 512

static void usage(FILE *f)
{
	fputs("usage: oneib-partitions-install --output FILE | --qos-policy "
	      "FILE [--backup FILE]\n"
	      "           [--service UNITS | --pid-file FILE | --reload-cmd "
	      "CMD | --no-reload] FILE|-\n"
	      "       oneib-partitions-install --ufm FILE [--backup FILE]\n"
	      "           [--reload-cmd CMD | --no-reload] FILE|-\n"
	      "  (UFM: FILE its " UFM_USER_EXT ",\n"
	      "  told by running " UFM_SYNC_CMD ")\n"
	      "  opensm is told by SIGHUP to the main process of the systemd "
	      "units\n"
	      "  (default --service '" OPENSM_UNITS "') or to the pid in "
	      "FILE,\n"
	      "  only a process of root's running " OPENSM_EXE "\n",
	      f);
}

static void say_counts(const struct install_opts *o,
		       const struct install_report *rep)
{
	if (o->kind == INSTALL_QOS_POLICY) {
		printf("(%zu partition%s with an SL, default SL %d)",
		       rep->rules, rep->rules == 1 ? "" : "s", rep->default_sl);
		return;
	}
	printf("(%zu partition%s, %zu member%s", rep->partitions,
	       rep->partitions == 1 ? "" : "s", rep->members,
	       rep->members == 1 ? "" : "s");
	if (rep->notes)
		printf(", %zu left out", rep->notes);
	putchar(')');
}

static void say(const struct install_opts *o, const struct install_report *rep)
{
	int i;

	printf("%s: %s ", o->path,
	       rep->state == INSTALL_UNCHANGED ? "unchanged" : "installed");
	say_counts(o, rep);
	if (rep->state == INSTALL_REPLACED)
		printf(", previous file kept as %s", o->backup);
	if (rep->retried)
		printf("; %s was not told after the last install: telling it "
		       "now",
		       o->kind == INSTALL_UFM ? "UFM" : "opensm");
	putchar('\n');
	if (!rep->reloaded || o->how == RELOAD_NONE)
		return;
	if (o->how == RELOAD_CMD) {
		printf("reload command done: %s\n", o->cmd);
		return;
	}
	fputs("opensm", stdout);
	for (i = 0; i < rep->signalled && i < OPENSM_TOLD_MAX; i++)
		printf("%s%ld", i ? ", " : " ", (long)rep->pid[i]);
	if (rep->signalled > OPENSM_TOLD_MAX)
		printf(" and %d more", rep->signalled - OPENSM_TOLD_MAX);
	if (o->how == RELOAD_SERVICE)
		printf(" (%s)", o->units);
	printf(": SIGHUP, re-reading %s\n", o->path);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "qos-policy", required_argument, NULL, 'q' },
		{ "ufm", required_argument, NULL, 'u' },
		{ "backup", required_argument, NULL, 'b' },
		{ "service", required_argument, NULL, 's' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "reload-cmd", required_argument, NULL, 'c' },
		{ "no-reload", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct install_opts o = { .how = RELOAD_SERVICE,
				  .units = OPENSM_UNITS };
	struct install_report rep;
	struct strbuf text = STRBUF_INIT, bak = STRBUF_INIT;
	char err[ERRLEN] = "";
	const char *in;
	int c, r, reloads = 0, outputs = 0;

	opterr = 0; /* one line of ours, not getopt's */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
		case 'q':
		case 'u':
			o.kind = c == 'q'   ? INSTALL_QOS_POLICY
				 : c == 'u' ? INSTALL_UFM
					    : INSTALL_PARTITIONS;
			o.path = optarg;
			outputs++;
			break;
		case 'b':
			o.backup = optarg;
			break;
		case 's':
			o.how = RELOAD_SERVICE;
			o.units = optarg;
			reloads++;
			break;
		case 'p':
			o.how = RELOAD_PIDFILE;
			o.pid_file = optarg;
			reloads++;
			break;
		case 'c':
			o.how = RELOAD_CMD;
			o.cmd = optarg;
			reloads++;
			break;
		case 'n':
			o.how = RELOAD_NONE;
			reloads++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			log_msg("%.40s: unknown option or missing value "
				"(usage: oneib-partitions-install --help)",
				argv[optind - 1]);
			return 2;
		}
	}
	if (!o.path || !*o.path || optind != argc - 1 || reloads > 1 ||
	    outputs != 1 || (o.backup && !strcmp(o.backup, o.path))) {
		log_msg("--output FILE, --qos-policy FILE or --ufm FILE, at "
			"most one of --service, --pid-file, --reload-cmd, "
			"--no-reload, a --backup other than FILE, and FILE or "
			"- "
			"(usage: oneib-partitions-install --help)");
		return 2;
	}
	if (o.kind == INSTALL_UFM && reloads &&
	    (o.how == RELOAD_SERVICE || o.how == RELOAD_PIDFILE)) {
		log_msg("--ufm: UFM is told by its sync script (--reload-cmd "
			"or its default " UFM_SYNC_CMD "), not --service or "
			"--pid-file (usage: oneib-partitions-install --help)");
		return 2;
	}
	if (o.kind == INSTALL_UFM && !reloads) {
		o.how = RELOAD_CMD;
		o.cmd = UFM_SYNC_CMD;
	}
	if (!o.backup) {
		if (sb_addf(&bak, "%s.bak", o.path)) {
			log_msg("out of memory");
			return 1;
		}
		o.backup = sb_str(&bak);
	}
	in = argv[optind];
	r = strcmp(in, "-") ? sb_read_file(&text, in, CONFFILE_MAX)
			    : sb_read(&text, stdin, CONFFILE_MAX);
	if (r) {
		log_msg("%.200s: %s; nothing installed",
			strcmp(in, "-") ? in : "standard input", strerror(-r));
		r = 1;
		goto out;
	}
	r = partitions_install(text.buf, text.len, &o, &rep, err, sizeof(err));
	if (r < 0) {
		log_msg("%s: %s; nothing installed", o.path, err);
		r = 1;
		goto out;
	}
	say(&o, &rep);
	if (r) {
		log_msg("%s installed, but %s was not told: %s; the next "
			"run retries",
			o.path, o.kind == INSTALL_UFM ? "UFM" : "opensm",
			rep.reload_err);
		r = 1;
	}
out:
	fflush(stdout);
	sb_release(&text);
	sb_release(&bak);
	return r;
}
