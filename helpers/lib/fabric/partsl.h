/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service levels of the renderer's networks (design decision 13):
 * the SL plan (slplan.h) over the partitions partitions.h makes, what it
 * decided and why, and the SLs already in force.
 */
#ifndef ONEIB_PARTSL_H
#define ONEIB_PARTSL_H

#include <stdint.h>

#include "core/strbuf.h"
#include "fabric/cloudfacts.h"
#include "fabric/slplan.h"
#include "root/partconf.h"

/*
 * Service levels (design decision 13, slplan.h), with render_opts.sls: the
 * partition of every network that has one gets the plan's SL as sl=
 * (none for a network without VMs, unless IB_SL pins it), from the hosts
 * of its NICs that are members and the leaves of those hosts; a network
 * left out keeps its installed partition as it is, SL included, which the
 * plan counts as pinned. The SL its installed partition has is what it
 * keeps. What the plan decided, and why, for `oneib-partitions plan`:
 */
struct partitions_plan {
	struct sl_plan plan;
	struct slplan_net *nets; /* networks with a partition, by VNET ID */
	uint16_t *pkey; /* per network: its partition's key */
	char (*label)[VNET_LABEL_MAX];
	int *hosts; /* what nets[].hosts point into */
	struct slplan_host *h; /* the cloud's hosts */
	/* warnings, one line each ending in '\n': the plan's, and a static
	 * partition whose sl= is one of ONEIB_SLS */
	struct strbuf warnings;
};

void partitions_plan_free(struct partitions_plan *pp);

/*
 * The plan as `oneib-partitions plan` prints it, one line per network
 * and a last one:
 *   VNET 5 (tenant-a) 0x0101: SL 2, new: the lowest of SLs 1-7 ...; VMs on 2 hosts under 1 leaf; conflicts with 1: VNET 9 (c) SL 1 (HOST 1)
 *   VNET 11 (idle) 0x0104: -, no VMs: no SL of its own, best effort until it has some
 *   plan: 3 of 4 networks with VMs; SLs 1-7 for them (7), best effort 0; 0 on best effort, 0 clashes
 * 0 or -ENOMEM.
 */
int partitions_plan_text(const struct partitions_plan *pp, struct strbuf *out);

/*
 * The SLs already in force, for a file installed while opensm's QoS
 * policy could not be (an optional step never holds back isolation): every
 * partition of m, the default one too, gets the sl= its installed
 * partition (same key) has, or none when it had none or is new. opensm
 * then answers the SLs it answered before for every partition (the
 * installed policy maps the keys it knows, its default the rest), while
 * the members follow the cloud; the planned SLs wait for the next run
 * that installs the policy, and `verify` names them as not in force.
 * installed NULL (nothing installed yet): no partition has an SL.
 */
void partitions_sls_in_force(struct partitions *m,
			     const struct partitions *installed);

#endif
