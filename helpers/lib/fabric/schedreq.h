/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SCHED_REQUIREMENTS one-ib writes for a VM with InfiniBand NICs
 * (design decision 12), read and written in one place. It is one-ib's
 * terms first, then what the user asked for in parentheses:
 *
 *   "/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) =
 *   TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" > 3
 *   & IB_RAILS_AVAIL > 3 & "/HOST[ID = 3 or ID = 7]/ID" > -1
 *   & IB_LEAVES = "*,0x0002c90200000a00,*" & (IB_SRIOV = "YES")
 *
 * (one line), that is:
 *   - the free-VF term (vfcount.h), "> N-1" for N InfiniBand NICs;
 *   - then, for a VM whose NICs on one spread network need M >= 2
 *     distinct rails (railfit.h), the rail term "IB_RAILS_AVAIL > M-1":
 *     a host with M rails that have a VF left once its VMs are counted
 *     (the VF term's fingerprint keeps it current);
 *   - then, for a VM with IB_AFFINITY required and PCI devices, the
 *     beside term: the hosts where the devices oned would give it have
 *     the VFs beside them its NICs need (railfit.h), by host ID, or,
 *     when there is none,
 *         IB_BESIDE = "no-vf-beside-its-gpus"
 *     which no host matches: the VM stays PENDING, never sent to a
 *     deploy that would refuse it, until a run finds it a host (a VF
 *     freed, a host added);
 *   - then, optionally, the leaf term (leafpack.h): the leaf switch the
 *     VM is to go under, or the gate
 *         IB_LEAVES = "*,chosen-by-one-ib,*"
 *     which no host matches: the VM waits until the hook has chosen its
 *     leaf (or none), so no scheduling cycle places it before that
 *     (templates/ib-vm.tmpl ships it);
 *   - then, optionally, " & (" the user's own requirement ")".
 * A requirement that does not start with the free-VF term, or starts
 * with it and goes on unlike this form (someone edited it), is the user's
 * alone, wrapped whole. Only the hook writes one-ib's terms; a leaf term
 * of the user's own belongs inside the parentheses.
 *
 * The parentheses must hold the user's text whole, or a tenant's VM
 * escapes the free-VF term and takes a VF the counters promised to
 * another's: the scheduler reads
 *   TERM > 0 & (ID = 1) | !(ID = 99999)
 * as (TERM > 0 & (ID = 1)) | !(ID = 99999), true on every host. Its
 * grammar (OpenNebula's expr_parser.l, expr_bool.y) has strings in double
 * quotes without escapes and no other quoting, so a text is wrapped only
 * when its quotes pair up and its parentheses outside them close only
 * what it opened and all of it. One that does not, or that holds a
 * newline or a backslash (which a template value cannot carry back), is
 * refused: the VM gets one-ib's terms and the refusal, a leaf term no
 * host matches and the hook never lifts,
 *   TERM > 0 & IB_LEAVES = "*,refused-by-one-ib,*"
 * so it waits, named in a warning, until its owner sets a requirement
 * that can be wrapped (onevm update).
 */
#ifndef ONEIB_SCHEDREQ_H
#define ONEIB_SCHEDREQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* what the gate's and the refusal's leaf terms name instead of a switch */
#define SCHEDREQ_GATE "chosen-by-one-ib"
#define SCHEDREQ_REFUSED "refused-by-one-ib"
#define SCHEDREQ_NONE_BESIDE "no-vf-beside-its-gpus"

/* The leaf term: none, the gate, a switch (leaf), or the refusal. */
enum schedreq_leaf { SR_NO_LEAF, SR_GATE, SR_LEAF, SR_REFUSED };

struct schedreq {
	long vfs; /* "> vfs" of the free-VF term; -1: no term of one-ib's */
	long rails; /* "> rails" of the rail term; -1: none */
	bool beside; /* a beside term, of hosts[0..nhosts) (none: 0) */
	const int *hosts; /* (schedreq_format's input; parse leaves NULL) */
	size_t nhosts;
	enum schedreq_leaf has;
	uint64_t leaf; /* SR_LEAF: the leaf switch's node GUID */
	const char *user; /* the user's requirement (in the parsed text) */
	size_t ulen;
};

/*
 * req as one-ib's terms and the user's part (out->user points into req;
 * all of req when it is the user's alone). 0, or -EINVAL when the user's
 * part cannot be wrapped (the rules above).
 */
int schedreq_parse(const char *req, struct schedreq *out);

/* The requirement r describes (malloc'd), or NULL on ENOMEM. */
char *schedreq_format(const struct schedreq *r);

/* one-ib's terms for a VM, as schedreq_update writes them */
struct schedreq_want {
	int nics; /* its InfiniBand NICs: the VF term */
	int rails; /* the rails it needs: the rail term when 2 or more */
	bool beside; /* the beside term, of hosts[0..nhosts) */
	const int *hosts; /* ascending */
	size_t nhosts;
	enum schedreq_leaf has; /* the leaf term (leafpack.h) */
	uint64_t leaf;
};

/*
 * The requirement VM vm is to be scheduled by, from the one it has (old,
 * "" for none) and the terms w says it should carry: one-ib's terms
 * replaced, the user's part kept. 1 with *out (malloc'd) when that is not
 * old, 0 when it is; -ENOMEM. A user's part that cannot be wrapped gives
 * the refusal instead (1, or 0 when old is it already) and one line in
 * err, a warning:
 *   VM 8: SCHED_REQUIREMENTS 'ID = 1) | !(ID = 99999' closes a parenthesis it did not open: the VM waits, refused, until its owner sets one that can be wrapped (onevm update)
 *   VM 7: SCHED_REQUIREMENTS 'NAME = "a\b"' holds a newline or a backslash: ...
 * has SR_REFUSED keeps the refusal whatever old is.
 */
int schedreq_update(int vm, const char *old, const struct schedreq_want *w,
		    char **out, char *err, size_t errlen);

#endif
