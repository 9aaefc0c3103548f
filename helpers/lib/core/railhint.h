/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rail hints: the rail (host/rails.h) each InfiniBand NIC of a VM has, in
 * one form for every place it travels (design decision 15): a migration's
 * source to its destination and a save to its restore (oneib-vf rails,
 * lease --rails), and the host to the guest, in the domain's SMBIOS OEM
 * strings (RAIL_OEM_PREFIX), where oneib-context reads the NICs' rail
 * order for NCCL.
 */
#ifndef ONEIB_RAILHINT_H
#define ONEIB_RAILHINT_H

#include <stddef.h>

#include "core/strbuf.h"

/* The OEM string deploy writes: "one-ib rails 0=3,1=5" */
#define RAIL_OEM_PREFIX "one-ib rails "

/*
 * The rail each InfiniBand NIC of a VM had, carried from a migration's
 * source, or a save, to where it lands, so each NIC keeps its rail where
 * that host has it (oneib-vf rails, lease --rails):
 *   "0=3,1=5"    NIC 0 on rail 3, NIC 1 on rail 5; "" none
 * NIC IDs ascending, each once, rails 0-255 (RAIL_MAX of host/rails.h).
 */
struct rail_hint {
	int nic_id;
	int rail;
};

/* s into *out (malloc'd; NULL when *n is 0). -EINVAL with one line:
 *   --rails: '0=3,x' is not NIC=RAIL pairs (0=3,1=5) */
int rail_hints_parse(const char *s, struct rail_hint **out, size_t *n,
		     char *err, size_t errlen);
/* The form above of the n hints of h (sorted here), appended to out. */
int rail_hints_fmt(struct rail_hint *h, size_t n, struct strbuf *out);
/* The rail hinted for nic_id, -1 when none. */
int rail_hint_find(const struct rail_hint *h, size_t n, int nic_id);

#endif
