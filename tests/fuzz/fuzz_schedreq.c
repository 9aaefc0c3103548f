// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the SCHED_REQUIREMENTS the hook rewrites (fabric/schedreq.h),
 * whatever a user or an earlier one-ib wrote there. No crash, no leak; a
 * refusal leaves an error line and no output; what the hook writes is a
 * fixed point (the next run finds nothing to change, so no run rewrites a
 * requirement for ever), starts with one-ib's terms and keeps the user's
 * part byte for byte; and the leaf term reads back as the leaf written.
 *
 * Input: byte 0 = InfiniBand NICs (1..4), the leaf term (bits 2-3: none,
 * gate, leaf), and whether the requirement starts with one-ib's free-VF
 * term (bit 4) and a leaf term's head after it (bit 5), so the fuzzer
 * reaches one-ib's own forms; bytes 1-8 the leaf's GUID; then the rest of
 * the requirement.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/schedreq.h"

#define TERM_HEAD                                                              \
	"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "      \
	"TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > "

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedreq had, got;
	struct schedreq_want w = { 0 };
	enum schedreq_leaf has;
	char err[256] = "", *old, *out = NULL, *again = NULL;
	uint64_t leaf = 0;
	size_t n;
	int nics, r, i;

	if (size < 9)
		return 0;
	nics = 1 + (data[0] & 3);
	has = (enum schedreq_leaf)((data[0] >> 2) % 4);
	for (i = 1; i <= 8; i++)
		leaf = leaf << 8 | data[i];
	if (has == SR_LEAF && !leaf)
		leaf = 1;
	old = malloc(size + 256);
	if (!old)
		return 0;
	n = (size_t)snprintf(old, 256, "%s%s", data[0] & 0x10 ? TERM_HEAD : "",
			     (data[0] & 0x30) == 0x30 ? "0 & IB_LEAVES = \"*,"
						      : "");
	memcpy(old + n, data + 9, size - 9);
	old[n + size - 9] = '\0';
	w.nics = nics;
	w.has = has;
	w.leaf = leaf;
	r = schedreq_update(7, old, &w, &out, err, sizeof(err));
	if (r < 0 || (r == 0 && out) || (r > 0 && !out))
		abort();
	if (r > 0) {
		/* whatever old was, the VF term holds for all of it */
		if (schedreq_parse(out, &got) || got.vfs != nics - 1)
			abort();
		/* refused: one-ib's terms alone, named in the warning */
		if (err[0] && (got.has != SR_REFUSED || got.ulen))
			abort();
		/* the next run changes nothing */
		err[0] = '\0';
		if (schedreq_update(7, out, &w, &again, err, sizeof(err)) ||
		    again || err[0])
			abort();
		/* else one-ib's terms first, the user's part as it was */
		if (got.has != SR_REFUSED && !schedreq_parse(old, &had) &&
		    (got.has != has || (has == SR_LEAF && got.leaf != leaf) ||
		     got.ulen != had.ulen ||
		     memcmp(got.user, had.user, had.ulen)))
			abort();
	}
	free(out);
	free(old);
	return 0;
}
