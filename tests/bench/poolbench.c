// SPDX-License-Identifier: Apache-2.0
/*
 * poolbench: the front-end run's steps one at a time (fabric/sync.h), on
 * files, for make bench (b42, b43) and the demo, which time or show them
 * without oned; not installed (oneib-partitions sync runs them itself):
 *
 *   poolbench writeback XML...        what the run writes back to oned
 *       (fabric/writeback.h) for the listings, one line per update:
 *       host 3 IB_VFS_USED=2 IB_VFS_AVAIL=6 IB_SYNC_VMS=2 IB_SYNC_SUM=17
 *       ctx 42 ONEIB_TOPOLOGY="..."
 *       vm 42 SCHED_REQUIREMENTS="..."
 *   poolbench render-writeback OUT XML...  the run's render step: one
 *       parse, partitions.conf into OUT, the write-back plan (not printed)
 *   poolbench rpc-string FILE          the document an answer of oned's
 *       XML-RPC API carries (fabric/onerpc.h), on stdout
 *   poolbench vmcache FILE...           the kept listing of VM_POOL files
 *       (fabric/vmcache.h), on stdout
 *
 * Exit 1 with one line when a step fails, 2 on wrong usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conffile.h"
#include "core/strbuf.h"
#include "fabric/desired.h"
#include "fabric/onerpc.h"
#include "fabric/poolread.h"
#include "fabric/vmcache.h"
#include "fabric/writeback.h"

static int writeback(int n, char **paths, const char *out)
{
	struct cloud_facts f = { 0 };
	struct desired d = { 0 };
	struct partitions m = { 0 };
	struct wb_plan p;
	struct strbuf sb = STRBUF_INIT;
	char err[512] = "";
	int r = poolread_files(&f, -1, n, paths, err, sizeof(err));

	if (!r && out)
		r = desired_build(&d, &f, &m, NULL, err, sizeof(err));
	if (!r && out)
		r = desired_text(&m, &sb, err, sizeof(err));
	if (!r && out)
		r = conffile_install(out, NULL, sb.buf, sb.len, err,
				     sizeof(err)) < 0;
	sb_reset(&sb);
	if (!r)
		r = writeback_plan(&f, &p, err, sizeof(err));
	if (!r && !out) {
		r = writeback_text(&p, &sb);
		fputs(sb_str(&sb), stdout);
		fputs(sb_str(&p.warnings), stderr);
	}
	if (!r)
		writeback_free(&p);
	if (r)
		fprintf(stderr, "poolbench: %s\n", err);
	partitions_free(&m);
	cloud_facts_free(&f);
	sb_release(&sb);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	char err[512] = "";
	FILE *in;
	int r;

	if (argc >= 3 && !strcmp(argv[1], "writeback"))
		return writeback(argc - 2, argv + 2, NULL);
	if (argc >= 4 && !strcmp(argv[1], "render-writeback"))
		return writeback(argc - 3, argv + 3, argv[2]);
	if (argc == 3 && !strcmp(argv[1], "rpc-string")) {
		in = fopen(argv[2], "re");
		if (!in) {
			perror(argv[2]);
			return 1;
		}
		r = onerpc_string(in, stdout, err, sizeof(err));
		fclose(in);
		if (r)
			fprintf(stderr, "poolbench: %s\n", err);
		return r ? 1 : 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "vmcache")) {
		r = vmcache_write(stdout, argc - 2, argv + 2, NULL, 0, err,
				  sizeof(err));
		if (r)
			fprintf(stderr, "poolbench: %s\n", err);
		return r ? 1 : 0;
	}
	fprintf(stderr, "usage: poolbench writeback XML... | render-writeback "
			"OUT XML... | rpc-string FILE | vmcache FILE...\n");
	return 2;
}
