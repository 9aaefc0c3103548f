/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The renderer's work in progress (partitions.c), shared by the modules
 * that do one part of it: partitions.c the model, partsl.c the service
 * levels (slplan.h) over it. Not for other callers: partitions.h is the
 * way in.
 */
#ifndef ONEIB_PARTWORK_H
#define ONEIB_PARTWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/cloudfacts.h"
#include "fabric/partitions.h"

/* NET_RESERVATION: a slice of another network (cloudfacts.h, parent):
 * no partition of its own, its NICs the parent's */
enum net_status { NET_PENDING, NET_FRESH, NET_BAD, NET_RESERVATION };

struct net {
	const struct vnet_fact *f;
	enum net_status status;
	char *why; /* NET_BAD: the reason, without the outcome (malloc'd) */
	const struct partition *inst; /* its partition in the installed file */
	long part; /* index into out->p, -1 when it has none */
};

struct by_id {
	int id;
	size_t i;
};

/* One claim on a GUID: a member of partition part. */
enum { SRC_PF = -1, SRC_KEPT = -2, SRC_SERVICE = -3 };
struct entry {
	uint64_t guid;
	uint32_t part;
	uint8_t pm; /* PM_FULL or PM_LIMITED */
	bool drop; /* SRC_KEPT: the cloud has it elsewhere */
	long src; /* a NIC index, SRC_PF, SRC_KEPT or SRC_SERVICE */
};

struct note {
	int kind, a, b; /* sort keys: 0 networks by ID, 1 NICs by VM, NIC */
	char *text;
};

struct work {
	const struct cloud_facts *f;
	const struct render_opts *o;
	struct net *nets;
	size_t nnets;
	struct by_id *ids; /* nets by VNET ID */
	struct by_id *inst; /* installed partitions by VNET ID */
	size_t ninst;
	uint64_t *pf; /* every ConnectX-3 PF port GUID, sorted */
	size_t npf;
	const struct partitions *stat; /* the static file's, or an empty one */
	struct entry *e;
	size_t ne, cape;
	bool *nic_out; /* per NIC fact: left out */
	struct note *notes;
	size_t nnotes, capnotes;
	struct partitions *out;
	size_t capp;
	size_t nparts; /* out->p[0..nparts-1]: the networks' partitions */
	char *err;
	size_t errlen;
};

/* The entry of v[0..n) with ID id (v sorted by ID), or NULL. */
const struct by_id *partwork_find_id(const struct by_id *v, size_t n, int id);

/* The static file's path for messages ("the static file" when unnamed). */
const char *partwork_stat_label(const struct work *w);

/*
 * The SL plan over the networks that have a partition (partsl.c), applied
 * to their partitions' sl=; before finish(), which sorts the partitions.
 * 0 or -ENOMEM.
 */
int partwork_plan_sls(struct work *w, struct partitions_plan *pp);

#endif
