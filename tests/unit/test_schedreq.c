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

	const struct schedreq_want w = { .nics = nics,
					 .has = has,
					 .leaf = leaf };

	r = schedreq_update(9, old, &w, &req, err, sizeof(err));
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

/* VM 9's new requirement for w, or "=" when unchanged. */
static void update_w(const char *old, const struct schedreq_want *w, char *out,
		     size_t len)
{
	char err[256] = "", *req = NULL;
	int r = schedreq_update(9, old, w, &req, err, sizeof(err));

	assert_true(r >= 0);
	snprintf(out, len, "%s", r ? req : "=");
	free(req);
}

#define RAILS " & IB_RAILS_AVAIL > "
#define BESIDE_3_7 " & \"/HOST[ID = 3 or ID = 7]/ID\" > -1"
#define BESIDE_NONE " & IB_BESIDE = \"no-vf-beside-its-gpus\""

static void rails_and_beside(void **state)
{
	static const int hosts[] = { 3, 7 };
	struct schedreq_want w = {
		.nics = 8, .rails = 8, .has = SR_LEAF, .leaf = A
	};
	struct schedreq r;
	char got[1024];

	(void)state;
	/* 8 NICs on one spread network: 8 rails with a VF left */
	update_w(TERM "0" GATE " & (CPU > 1)", &w, got, sizeof(got));
	assert_string_equal(got, TERM "7" RAILS "7" LEAF_A " & (CPU > 1)");
	update_w(got, &w, got + 512, 512);
	assert_string_equal(got + 512, "=");
	/* one rail needed is no term; the term goes with the NICs */
	w.rails = 1;
	update_w(got, &w, got + 512, 512);
	assert_string_equal(got + 512, TERM "7" LEAF_A " & (CPU > 1)");
	/* required: the hosts beside, or none, and back */
	w = (struct schedreq_want){ .nics = 2,
				    .rails = 2,
				    .beside = true,
				    .hosts = hosts,
				    .nhosts = 2 };
	update_w(TERM "1 & (CPU > 1)", &w, got, sizeof(got));
	assert_string_equal(got, TERM "1" RAILS "1" BESIDE_3_7 " & (CPU > 1)");
	assert_int_equal(schedreq_parse(got, &r), 0);
	assert_int_equal(r.rails, 1);
	assert_true(r.beside);
	assert_int_equal(r.ulen, strlen("CPU > 1"));
	update_w(got, &w, got + 512, 512);
	assert_string_equal(got + 512, "=");
	w.nhosts = 0;
	update_w(got, &w, got + 512, 512);
	assert_string_equal(got + 512, TERM "1" RAILS "1" BESIDE_NONE " & (CPU "
								      "> 1)");
	w.nhosts = 1;
	update_w(got + 512, &w, got, 512);
	assert_string_equal(got, TERM "1" RAILS "1 & \"/HOST[ID = 3]/ID\" > "
				      "-1 & (CPU > 1)");
	/* IDs not as one-ib writes them (edited): the user's, wrapped */
	assert_int_equal(schedreq_parse(TERM "1 & \"/HOST[ID = 7 or ID = "
					     "3]/ID\" > -1",
					&r),
			 0);
	assert_int_equal(r.vfs, -1);
	w = (struct schedreq_want){ .nics = 1 };
	update_w(TERM "1 & \"/HOST[ID = 7 or ID = 3]/ID\" > -1", &w, got,
		 sizeof(got));
	assert_string_equal(got, TERM "0 & (" TERM "1 & \"/HOST[ID = 7 or ID = "
						   "3]/ID\" > "
				      "-1)");
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
	/* a leaf term that is no GUID of ours goes on unlike the form: all
	 * of it the user's */
	assert_int_equal(schedreq_parse(TERM "0 & IB_LEAVES = \"*,0x1,*\"", &r),
			 0);
	assert_int_equal(r.vfs, -1);
	assert_int_equal(r.ulen, strlen(TERM "0 & IB_LEAVES = \"*,0x1,*\""));
	assert_int_equal(schedreq_parse(TERM "0 & (A = 1", &r), -EINVAL);
}

#define REFUSED " & IB_LEAVES = \"*,refused-by-one-ib,*\""

/* VM 9's new requirement as update() gives it, and the warning. */
static void update_warned(const char *old, int nics, enum schedreq_leaf has,
			  char *out, size_t len, char *warn, size_t wlen)
{
	struct schedreq_want w = { 0 };
	char *req = NULL;
	int r;

	warn[0] = '\0';
	w.nics = nics;
	w.has = has;
	r = schedreq_update(9, old, &w, &req, warn, wlen);
	assert_true(r >= 0);
	snprintf(out, len, "%s", r ? req : "=");
	free(req);
}

/*
 * A user's text the parentheses cannot hold whole is refused: the VM
 * gets one-ib's terms and the refusal, which nothing lifts, and one
 * warning; never the user's text outside the VF term.
 */
static void refused(void **state)
{
	static const char *const bad[] = {
		"ID = 1) | !(ID = 99999",
		"ID = 1) | (ID = 2",
		"(ID = 1",
		"NAME = \"a)\" | ID > 1) | (ID > 1",
		"NAME = \"open",
		"NAME = \"a\\b\"",
		"A = 1\n| B = 2",
	};
	char got[1024], warn[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		update_warned(bad[i], 1, SR_NO_LEAF, got, sizeof(got), warn,
			      sizeof(warn));
		assert_string_equal(got, TERM "0" REFUSED);
		assert_non_null(strstr(warn, "VM 9: SCHED_REQUIREMENTS '"));
		assert_non_null(strstr(warn, ": the VM waits, refused, until "
					     "its owner sets one that can be "
					     "wrapped (onevm update)"));
		/* whatever leaf the caller had in mind */
		update_warned(bad[i], 2, SR_LEAF, got, sizeof(got), warn,
			      sizeof(warn));
		assert_string_equal(got, TERM "1" REFUSED);
	}
	update_warned(bad[0], 1, SR_NO_LEAF, got, sizeof(got), warn,
		      sizeof(warn));
	assert_non_null(strstr(warn, "closes a parenthesis it did not open"));
	/* the same behind one-ib's terms, as the hook once wrapped it: whole,
	 * it wraps, and the VF term holds for all of it */
	update_warned(TERM "0 & (ID = 1) | !(ID = 99999)", 1, SR_NO_LEAF, got,
		      sizeof(got), warn, sizeof(warn));
	assert_string_equal(got, TERM "0 & (" TERM "0 & (ID = 1) | !(ID = "
				      "99999))");
	assert_string_equal(warn, "");
	/* refused stays refused, silently */
	update_warned(TERM "0" REFUSED, 1, SR_REFUSED, got, sizeof(got), warn,
		      sizeof(warn));
	assert_string_equal(got, "=");
	assert_string_equal(warn, "");
	/* its owner sets one that can be wrapped: wrapped */
	update_warned("ID = 1", 1, SR_NO_LEAF, got, sizeof(got), warn,
		      sizeof(warn));
	assert_string_equal(got, TERM "0 & (ID = 1)");
	assert_string_equal(warn, "");
}

/* One-ib's VF term in any other form: all of it the user's, wrapped. */
static void edited_terms_rewrapped(void **state)
{
	char got[1024], warn[512];

	(void)state;
	update_warned(TERM "0 | CPU > 1", 1, SR_NO_LEAF, got, sizeof(got), warn,
		      sizeof(warn));
	assert_string_equal(got, TERM "0 & (" TERM "0 | CPU > 1)");
	assert_string_equal(warn, "");
	/* (A) | (B) behind the VF term: no one part of the user's */
	update_warned(TERM "0 & (ID = 1) | (ID = 2)", 1, SR_NO_LEAF, got,
		      sizeof(got), warn, sizeof(warn));
	assert_string_equal(got, TERM "0 & (" TERM "0 & (ID = 1) | (ID = 2))");
	/* a fixed point */
	update_warned(got, 1, SR_NO_LEAF, got + 512, 512, warn, sizeof(warn));
	assert_string_equal(got + 512, "=");
	/* parentheses inside a string are text */
	update_warned("NAME = \"(\"", 1, SR_NO_LEAF, got, sizeof(got), warn,
		      sizeof(warn));
	assert_string_equal(got, TERM "0 & (NAME = \"(\")");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(terms_added_kept_recounted),
		cmocka_unit_test(leaf_and_gate),
		cmocka_unit_test(rails_and_beside),
		cmocka_unit_test(parsed),
		cmocka_unit_test(refused),
		cmocka_unit_test(edited_terms_rewrapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
