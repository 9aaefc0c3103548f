// SPDX-License-Identifier: Apache-2.0
/*
 * Two partitions.conf compared for what opensm enforces (fabric/partdiff.h),
 * as the front-end's run and verify compare each subnet manager's file
 * with the rendered one: the same partitions written otherwise (comments,
 * marks, order of members) are the same; a member missing, a membership
 * changed, a partition missing or extra, a flag or the default partition
 * changed is the first difference, in P_Key order, said in one phrase; a
 * file the grammar does not read, or none, is said so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/partdiff.h"

static const char rendered[] = "# oneib-partitions: generated from the cloud's "
			       "state, do not edit\n"
			       "# from: one-ib\n"
			       "Default=0x7fff, ipoib : ALL=limited, SELF=full "
			       ";\n"
			       "# from: one-ib\n"
			       "vnet5_tenant-a=0x0101, ipoib :\n"
			       "\t0x02000000000a0000=full,\n"
			       "\t0x02000000000c0000=full ;\n"
			       "# from: one-ib\n"
			       "vnet7_tenant-b=0x0102, ipoib, sl=3 :\n"
			       "\t0x02000000000b0000=full ;\n";

static void read_text(const char *text, struct partitions *m)
{
	char err[256] = "";

	if (partconf_parse(text, strlen(text), PARTCONF_ANY, m, err,
			   sizeof(err)))
		fail_msg("%s", err);
}

/* what partdiff_text says of text against the rendered file */
static enum partdiff_state against(const char *text, char *why, size_t len)
{
	struct partitions want;
	enum partdiff_state st;

	read_text(rendered, &want);
	st = partdiff_text(&want, text, strlen(text), "rendered", "sm2's", why,
			   len);
	partitions_free(&want);
	return st;
}

static void same_partitions_otherwise_written(void **state)
{
	char why[512];

	(void)state;
	assert_int_equal(against(rendered, why, sizeof(why)), PARTDIFF_SAME);
	/* no marks, other order and spacing, upper-case hex */
	assert_int_equal(against("Default=0x7fff,ipoib:ALL=limited,SELF=full;\n"
				 "vnet7_tenant-b=0x102, sl=3, ipoib : "
				 "0x02000000000B0000=full ;\n"
				 "vnet5_tenant-a=0x0101, ipoib : "
				 "0x02000000000c0000=full, "
				 "0x02000000000a0000=full ;\n",
				 why, sizeof(why)),
			 PARTDIFF_SAME);
	assert_string_equal(why, "");
}

static void first_difference_named(void **state)
{
	char why[512];

	(void)state;
	/* a stale standby: VM 12 made since */
	assert_int_equal(against("Default=0x7fff, ipoib : ALL=limited, "
				 "SELF=full ;\n"
				 "vnet5_tenant-a=0x0101, ipoib : "
				 "0x02000000000a0000=full ;\n"
				 "vnet7_tenant-b=0x0102, ipoib, sl=3 : "
				 "0x02000000000b0000=full ;\n",
				 why, sizeof(why)),
			 PARTDIFF_DIFFERS);
	assert_string_equal(why, "vnet5_tenant-a (0x0101): 0x02000000000c0000 "
				 "(VM 12 NIC 0) is a full member in the "
				 "rendered file, none in sm2's");
	/* limited where full was rendered */
	against("Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"vnet5_tenant-a=0x0101, ipoib : 0x02000000000a0000=full, "
		"0x02000000000c0000=limited ;\n"
		"vnet7_tenant-b=0x0102, ipoib, sl=3 : 0x02000000000b0000=full "
		";\n",
		why, sizeof(why));
	assert_string_equal(why, "vnet5_tenant-a (0x0101): 0x02000000000c0000 "
				 "(VM 12 NIC 0) is a full member in the "
				 "rendered file, a limited member in sm2's");
	/* a partition missing, and an extra one: the first by P_Key */
	against("Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"vnet5_tenant-a=0x0101, ipoib : 0x02000000000a0000=full, "
		"0x02000000000c0000=full ;\n"
		"lab=0x0300, ipoib : 0x0002c90300000001=full ;\n",
		why, sizeof(why));
	assert_string_equal(why, "vnet7_tenant-b (0x0102): in the rendered "
				 "file, not in sm2's (and 1 more partition)");
	/* a flag */
	against("Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"vnet5_tenant-a=0x0101, ipoib : 0x02000000000a0000=full, "
		"0x02000000000c0000=full ;\n"
		"vnet7_tenant-b=0x0102, ipoib : 0x02000000000b0000=full ;\n",
		why, sizeof(why));
	assert_string_equal(why, "vnet7_tenant-b (0x0102): sl=3 in the "
				 "rendered file, no sl in sm2's");
	/* the default partition, last: every port full in it */
	against("Default=0x7fff, ipoib : ALL=full ;\n"
		"vnet5_tenant-a=0x0101, ipoib : 0x02000000000a0000=full, "
		"0x02000000000c0000=full ;\n"
		"vnet7_tenant-b=0x0102, ipoib, sl=3 : 0x02000000000b0000=full "
		";\n",
		why, sizeof(why));
	assert_string_equal(why, "Default (0x7fff): ALL is a limited member in "
				 "the rendered file, a full member in sm2's");
}

static void unreadable_or_none(void **state)
{
	char why[512];

	(void)state;
	/* a GUID opensm cannot read (a file cut short before its last ";"
	 * it reads as far as it goes) */
	assert_int_equal(against("Default=0x7fff, ipoib : ALL=limited ;\n"
				 "vnet5_tenant-a=0x0101, ipoib : "
				 "0x02000000000a00zz=full ;\n",
				 why, sizeof(why)),
			 PARTDIFF_UNREADABLE);
	assert_non_null(strstr(why, "line"));
	assert_int_equal(against("", why, sizeof(why)), PARTDIFF_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_partitions_otherwise_written),
		cmocka_unit_test(first_difference_named),
		cmocka_unit_test(unreadable_or_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
