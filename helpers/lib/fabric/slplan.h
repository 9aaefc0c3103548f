/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service-level plan (design decision 13): each InfiniBand network
 * (one virtual cluster, one partition) gets a service level of its own
 * wherever its traffic can meet another network's, so that one tenant's
 * all-to-all does not take another's bandwidth, and networks that never
 * share a link reuse one ("Virtual InfiniBand Clusters for HPC Clouds",
 * Network Performance Isolation). A pure function of the cloud's
 * placement: the hosts of each network's VMs and the leaf switch of each
 * host's ports (IB_PF LEAF_GUID, the hosts' probe).
 *
 * Two networks conflict (can share a link) when
 *   - a VM of each runs on one host: their VFs may sit on one PF port, and
 *     then share its cable (which PF a VF is on is the host's choice at
 *     deploy and not in the cloud's state, so a host counts as one port);
 *   - or both span leaves: their VMs are on hosts under two or more leaf
 *     switches (or on a host whose leaf is not known), so both send over
 *     the leaves' uplinks. A network whose VMs are all under one leaf
 *     keeps its traffic between that leaf and its own hosts.
 *
 * SLs, in this order (the input order of nets breaks every tie, so the
 * same cloud always gets the same plan):
 *   1. pinned: IB_SL set by oneadmin on the network is its SL, whatever
 *      else (a network left out with its installed partition too);
 *   2. kept: a network with VMs keeps the SL of its installed partition
 *      while that SL is one of the pool's (ONEIB_SLS) and no pinned
 *      network it conflicts with has it: adding a VM never changes its SL;
 *   3. new (no installed SL, back from no VMs, on best effort before, or
 *      its SL gone): networks that span first (they all conflict with one
 *      another), then by how many networks they conflict with, most first,
 *      then by VNET ID: the lowest SL of the pool that no network it
 *      conflicts with has;
 *   4. none free: the shared best-effort SL (ONEIB_SL_BEST_EFFORT), named
 *      in one warning; it gets its own SL at the first plan one is free;
 *   5. no VMs: no SL of its own (sl -1: opensm's best effort).
 * Two kept networks that conflict since a VM was added keep their SL
 * (rule 2) and are a clash: reported, never resolved by moving one.
 *
 * Example (SLs 1-7, best effort 0): a on HOST 1 and 2 (leaf A), b on HOST
 * 3 and 4 (leaf B), c on HOST 1 and 3 (leaves A and B, spans):
 *   a: SL 1 (new; conflicts with c, shares HOST 1)
 *   b: SL 1 (new; conflicts with c, shares HOST 3; never meets a)
 *   c: SL 2 (new, placed first as it spans; conflicts with a and b)
 *
 * K, the number of SLs one cluster may have alone, is the pool's size:
 * the data VLs every port of the fabric has (PortInfo VLCap: 8 on Quantum
 * switches and ConnectX, VL0-7, and on ibsim) less the SLs the operator
 * keeps for best effort and the site's own partitions. opensm maps SL n to
 * VL n on ports with more than n data VLs and folds the rest (SL 9 and SL 1
 * share VL 1 on an 8-VL port), so the pool is 1-7 on such a fabric with SL
 * 0 for best effort; `verify` reads each port's VLCap and SL2VL table and
 * says when two planned SLs share a VL.
 */
#ifndef ONEIB_SLPLAN_H
#define ONEIB_SLPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define SL_MAX 15
#define SLPLAN_HOST_UNKNOWN (-1) /* a VM without a host in the listing */
#define SLPLAN_SHOWN 3 /* conflicting networks named per network */

struct sl_opts {
	uint16_t pool; /* bit n: SL n may be one network's own (ONEIB_SLS) */
	int best_effort; /* ONEIB_SL_BEST_EFFORT: the shared one, 0..15 */
};

/*
 * ONEIB_SLS and ONEIB_SL_BEST_EFFORT: "1-7", "1,2,5-7" and "0". 0, or
 * -EINVAL with one line in err:
 *   ONEIB_SLS '1-16': SL 16 is not 0..15
 *   ONEIB_SL_BEST_EFFORT 0 is in ONEIB_SLS 0-7: the shared SL cannot be one network's own too
 */
int sl_opts_parse(const char *sls, const char *best_effort, struct sl_opts *o,
		  char *err, size_t errlen);

/* 0x00fe -> "1-7", 0x0026 -> "1-2,5", 0 -> "none" */
#define SL_LIST_STRLEN 48
void sl_list_fmt(uint16_t mask, char buf[SL_LIST_STRLEN]);

struct slplan_host {
	int id;
	const uint64_t *leaves; /* of its InfiniBand ports; 0 is unknown */
	size_t nleaves;
};

struct slplan_net {
	int id; /* VNET ID */
	const char *label; /* "VNET 5 (tenant-a)", for explanations */
	int pinned; /* its IB_SL, or -1 */
	int installed; /* the sl= of its installed partition, or -1 */
	/* the hosts of its VMs (one per NIC, repeats allowed), in any order;
	 * SLPLAN_HOST_UNKNOWN for a VM whose host is not listed */
	const int *hosts;
	size_t nhosts;
};

enum sl_why {
	SLW_NO_VMS, /* sl -1 */
	SLW_PINNED,
	SLW_KEPT,
	SLW_NEW,
	SLW_BEST_EFFORT,
};

/* Why a network with an installed SL did not keep it (SLW_NEW, ..._EFFORT). */
enum sl_lost {
	SLL_NONE, /* it had none (or had no VMs) */
	SLL_NOT_IN_POOL, /* that SL is no longer one of ONEIB_SLS */
	SLL_PINNED, /* a pinned network it conflicts with has it */
	SLL_BEST_EFFORT, /* it was the best-effort SL */
};

struct sl_conflict {
	size_t net; /* index into the plan's nets */
	int host; /* a host both have VMs on, or -1: both span leaves */
};

struct sl_choice {
	int sl; /* 0..15, -1 with SLW_NO_VMS */
	enum sl_why why;
	enum sl_lost lost;
	size_t taker; /* SLL_PINNED: the pinned network that has the SL */
	bool spans;
	bool unknown; /* a VM's host, or a host's leaf, is not known */
	size_t nhosts, nleaves; /* distinct hosts, distinct known leaves */
	size_t nconflicts; /* networks with VMs it can share a link with */
	struct sl_conflict shown[SLPLAN_SHOWN]; /* the first, by index */
	size_t nshown;
};

/* Two networks on one SL that can share a link (kept SLs, pins); never
 * the best-effort SL, which is everyone's by design. */
struct sl_clash {
	size_t a, b; /* a < b */
	int host; /* as in sl_conflict */
};

struct sl_plan {
	struct sl_choice *c; /* per network, in the input's order */
	size_t n;
	size_t *shared; /* the networks on the best-effort SL, in order */
	size_t nshared;
	struct sl_clash *clash; /* sorted */
	size_t nclash;
	struct sl_opts o;
};

/*
 * The plan for nets (a deterministic order: the caller's, by VNET ID) on
 * hosts. 0, or -ENOMEM (*out then empty).
 */
int sl_plan_make(const struct slplan_net *nets, size_t n,
		 const struct slplan_host *hosts, size_t nhosts,
		 const struct sl_opts *o, struct sl_plan *out);
void sl_plan_free(struct sl_plan *p);

/*
 * Why network i has its SL, one line without the SL itself:
 *   new: the lowest of SLs 1-7 no network it conflicts with has; VMs on 2 hosts under 2 leaves (spans); conflicts with 2: VNET 5 (a) on HOST 1, VNET 7 (b) on HOST 3
 * 0 or -ENOMEM.
 */
int sl_plan_explain(const struct sl_plan *p, const struct slplan_net *nets,
		    size_t i, struct strbuf *out);

/*
 * The plan's warnings, one line each ending in '\n', appended to out
 * (nothing when there is none):
 *   SL plan: no SL of 1-7 is free for VNET 12 (x), VNET 13 (y): they share best-effort SL 0
 *   SL plan: VNET 5 (a) and VNET 9 (c) both have SL 3 and can share a link (HOST 3): ...
 * 0 or -ENOMEM.
 */
int sl_plan_warnings(const struct sl_plan *p, const struct slplan_net *nets,
		     struct strbuf *out);

#endif
