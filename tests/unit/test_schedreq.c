// SPDX-License-Identifier: Apache-2.0
/*
 * The SCHED_REQUIREMENTS one-ib writes (fabric/schedreq.h): one-ib's terms
 * read back out of what it wrote, the user's part kept through every
 * rewrite, the VF term added, recounted, the leaf term and the gate put in,
 * moved and taken out, and requirements it must not touch refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "fabric/schedreq.h"

#define TERM                                                                   \
	"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "      \
	"TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > "
#define LEAF_A " & IB_LEAVES = \"*,0x0002c90200000a00,*\""
#define LEAF_B " & IB_LEAVES = \"*,0x0002c90200000b00,*\""
#define GATE " & IB_LEAVES = \"*,chosen-by-one-ib,*\""
#define A 0x0002c90200000a00ULL
#define B 0x0002c90200000b00ULL

/* VM 9's new requirement, or "=" when unchanged, or "!reason". */
static void update(const char *old, int nics, enum schedreq_leaf has,
		   uint64_t leaf, char *out, size_t len)
{
	char err[256] = "", *req = NULL;
	int r;

	r = schedreq_update(9, old, nics, has, leaf, &req, err, sizeof(err));
	if (r < 0)
		snprintf(out, len, "!%s", err);
	else
		snprintf(out, len, "%s", r ? req : "=");
	if (r <= 0)
		assert_null(req);
	free(req);
}

static void terms_added_kept_recounted(void **state)
{
	char got[1024];

	(void)state;
	update("", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, TERM "0");
	update("CPU > 1", 2, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, TERM "1 & (CPU > 1)");
	update(TERM "0", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, "=");
	update(TERM "0 & (CPU > 1)", 3, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, TERM "2 & (CPU > 1)");
	update(TERM "0 & (ID > 1)", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, "=");
	/* the user's own leaf term, in parentheses, is the user's */
	update("IB_LEAVES = \"*,0x0002c90200000b00,*\"", 1, SR_LEAF, A, got,
	       sizeof(got));
	assert_string_equal(got, TERM "0" LEAF_A " & (IB_LEAVES = "
				      "\"*,0x0002c90200000b00,*\")");
}

static void leaf_and_gate(void **state)
{
	char got[1024];

	(void)state;
	/* the shipped template's gate, then a leaf */
	update(TERM "0" GATE " & (IB_SRIOV = \"YES\")", 1, SR_LEAF, A, got,
	       sizeof(got));
	assert_string_equal(got, TERM "0" LEAF_A " & (IB_SRIOV = \"YES\")");
	update(TERM "0" GATE " & (IB_SRIOV = \"YES\")", 1, SR_GATE, 0, got,
	       sizeof(got));
	assert_string_equal(got, "=");
	/* no leaf fits: the gate goes, the VF term alone keeps it waiting */
	update(TERM "0" GATE, 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, TERM "0");
	/* kept, moved, taken out; a NIC more */
	update(TERM "0" LEAF_A " & (CPU > 1)", 1, SR_LEAF, A, got, sizeof(got));
	assert_string_equal(got, "=");
	update(TERM "0" LEAF_A " & (CPU > 1)", 1, SR_LEAF, B, got, sizeof(got));
	assert_string_equal(got, TERM "0" LEAF_B " & (CPU > 1)");
	update(TERM "0" LEAF_A, 2, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, TERM "1");
	update(TERM "1", 2, SR_GATE, 0, got, sizeof(got));
	assert_string_equal(got, TERM "1" GATE);
}

static void parsed(void **state)
{
	struct schedreq r;

	(void)state;
	assert_int_equal(schedreq_parse(TERM "2" LEAF_B " & (A = 1)", &r), 0);
	assert_int_equal(r.vfs, 2);
	assert_int_equal(r.has, SR_LEAF);
	assert_true(r.leaf == B);
	assert_int_equal(r.ulen, 5);
	assert_memory_equal(r.user, "A = 1", 5);
	assert_int_equal(schedreq_parse("A = 1", &r), 0);
	assert_int_equal(r.vfs, -1);
	assert_int_equal(r.has, SR_NO_LEAF);
	assert_int_equal(r.ulen, 5);
	/* a leaf term that is no GUID of ours goes on unlike the form */
	assert_int_equal(schedreq_parse(TERM "0 & IB_LEAVES = \"*,0x1,*\"", &r),
			 -EINVAL);
	assert_int_equal(schedreq_parse(TERM "0 & IB_LEAVES = \"*,0x0002c902000"
					     "00a0g,*\"",
					&r),
			 -EINVAL);
}

static void refused(void **state)
{
	char got[1024];

	(void)state;
	update("NAME = \"a\\b\"", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, "!VM 9: SCHED_REQUIREMENTS holds a newline or "
				 "a backslash: the free-VF term is not added");
	update(TERM "2 | CPU > 1", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, "!VM 9: SCHED_REQUIREMENTS starts with "
				 "one-ib's VF term but goes on unlike it: left "
				 "as it is");
	update(TERM "0 & (", 1, SR_NO_LEAF, 0, got, sizeof(got));
	assert_string_equal(got, "!VM 9: SCHED_REQUIREMENTS starts with "
				 "one-ib's VF term but goes on unlike it: left "
				 "as it is");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(terms_added_kept_recounted),
		cmocka_unit_test(leaf_and_gate),
		cmocka_unit_test(parsed),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
