/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SCHED_REQUIREMENTS one-ib writes for a VM with InfiniBand NICs
 * (design decision 12), read and written in one place. It is one-ib's
 * terms first, then what the user asked for in parentheses:
 *
 *   "/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) =
 *   TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" > 0
 *   & IB_LEAVES = "*,0x0002c90200000a00,*" & (IB_SRIOV = "YES")
 *
 * (one line), that is:
 *   - the free-VF term (vfcount.h), "> N-1" for N InfiniBand NICs;
 *   - then, optionally, the leaf term (leafpack.h): the leaf switch the
 *     VM is to go under, or the gate
 *         IB_LEAVES = "*,chosen-by-one-ib,*"
 *     which no host matches: the VM waits until the hook has chosen its
 *     leaf (or none), so no scheduling cycle places it before that
 *     (templates/ib-vm.tmpl ships it);
 *   - then, optionally, " & (" the user's own requirement ")".
 * A requirement that does not start with the free-VF term is the user's
 * alone. Only the hook writes one-ib's terms; a leaf term of the user's
 * own belongs inside the parentheses.
 */
#ifndef ONEIB_SCHEDREQ_H
#define ONEIB_SCHEDREQ_H

#include <stddef.h>
#include <stdint.h>

/* what the gate's leaf term names instead of a switch */
#define SCHEDREQ_GATE "chosen-by-one-ib"

/* The leaf term: none, the gate, or a switch (leaf). */
enum schedreq_leaf { SR_NO_LEAF, SR_GATE, SR_LEAF };

struct schedreq {
	long vfs; /* "> vfs" of the free-VF term; -1: no term of one-ib's */
	enum schedreq_leaf has;
	uint64_t leaf; /* SR_LEAF: the leaf switch's node GUID */
	const char *user; /* the user's requirement (in the parsed text) */
	size_t ulen;
};

/*
 * req as one-ib's terms and the user's part (out->user points into req).
 * -EINVAL when req starts with the free-VF term but goes on unlike the
 * form above (someone edited it): nothing is safe to rewrite then.
 */
int schedreq_parse(const char *req, struct schedreq *out);

/* The requirement r describes (malloc'd), or NULL on ENOMEM. */
char *schedreq_format(const struct schedreq *r);

/*
 * The requirement VM vm, with nics InfiniBand NICs, is to be scheduled by,
 * from the one it has (old, "" for none) and the leaf term it should carry
 * (leafpack.h): one-ib's terms replaced, the user's part kept. 1 with *out
 * (malloc'd) when that is not old, 0 when it is. -EINVAL, one line in err:
 *   VM 8: SCHED_REQUIREMENTS starts with one-ib's VF term but goes on
 *   unlike it: left as it is
 *   VM 7: SCHED_REQUIREMENTS holds a newline or a backslash: the free-VF
 *   term is not added
 * (a template value cannot carry either); -ENOMEM.
 */
int schedreq_update(int vm, const char *old, int nics, enum schedreq_leaf has,
		    uint64_t leaf, char **out, char *err, size_t errlen);

#endif
