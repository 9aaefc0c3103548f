/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the front-end's run writes back to oned for the scheduler (design
 * decision 12), from the one reading of the cloud it renders from: for
 * each host whose free-VF counters are not current (fabric/vfcount.h)
 * its counters, and for each InfiniBand VM the scheduler will place whose
 * requirement lacks the free-VF term for its count of IB NICs or the leaf
 * term its cluster is packed by (schedreq.h, leafpack.h) the requirement,
 * with the cluster's leaf map into its CONTEXT first when the gate holds
 * it (topology.h). Each is one update, applied in order, appending (the
 * CLI's `onehost update ID --append`, `onevm update ID --append`,
 * `onevm updateconf ID --append`):
 *   WB_HOST 3     IB_VFS_USED=2\nIB_VFS_AVAIL=6\nIB_SYNC_VMS=2\nIB_SYNC_SUM=17\n
 *   WB_CONTEXT 42 CONTEXT=[ONEIB_TOPOLOGY="0x0002c90200000a00=10.0.5.10"]\n
 *   WB_VM 42      SCHED_REQUIREMENTS="\"/HOST[...]/TEMPLATE/IB_VFS_AVAIL\" > 0 & IB_LEAVES = \"*,0x0002c90200000a00,*\""\n
 * A host whose VMS holds a VM the listing does not is left for the next
 * run (a note); a requirement that cannot be extended is a warning.
 */
#ifndef ONEIB_WRITEBACK_H
#define ONEIB_WRITEBACK_H

#include <stddef.h>

#include "core/strbuf.h"
#include "fabric/cloudfacts.h"

enum wb_kind {
	WB_HOST, /* one.host.update */
	WB_CONTEXT, /* one.vm.updateconf, before the VM's WB_VM */
	WB_VM, /* one.vm.update */
};

struct wb_update {
	enum wb_kind kind;
	int id;
	char *text; /* the template text, one attribute a line */
};

struct wb_plan {
	struct wb_update *u;
	size_t n, alloc;
	/* what is left for the next run, one line each ending in '\n':
	 *   HOST 3 (hv3): VMS holds a VM the listing does not: counted at the next run */
	struct strbuf notes;
	/* a requirement it cannot extend, one line each ending in '\n' */
	struct strbuf warnings;
};

/*
 * The plan from f (the VM and HOST listings at least; without the VNET
 * listing no VM gets a leaf term). f's VMs are put in ID order. 0, or
 * -EINVAL / -ENOMEM with one line in err (a listing missing).
 */
int writeback_plan(struct cloud_facts *f, struct wb_plan *out, char *err,
		   size_t errlen);
void writeback_free(struct wb_plan *p);

/*
 * The plan as lines, for bench and the demo: "host 3 IB_VFS_USED=2
 * IB_VFS_AVAIL=6 ...", "ctx 42 ONEIB_TOPOLOGY=...", "vm 42
 * SCHED_REQUIREMENTS=...", each note as "# ..." (appended to out).
 */
int writeback_text(const struct wb_plan *p, struct strbuf *out);

#endif
