// SPDX-License-Identifier: Apache-2.0
/*
 * The guest's environment file (guest/guestsl.h) from plans built in
 * memory: each NIC with an SL gets its lines; UCX_IB_SL and NCCL_IB_SL are
 * the lowest NIC's that is a full member, a note on each other full
 * member whose SL differs; a service network's (limited) NIC never sets
 * them; NICs without an SL or not configured write nothing.
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

#include "guest/guestsl.h"

static struct nic_plan nic(int n, uint16_t pkey, enum sl_source src, int sl)
{
	struct nic_plan p;

	memset(&p, 0, sizeof(p));
	p.nic = n;
	p.what = PLAN_CONFIGURE;
	p.pkey.raw = pkey;
	snprintf(p.link, sizeof(p.link), "ib%d.%04x", n, pkey | 0x8000);
	p.sl_source = src;
	p.sl = sl;
	return p;
}

#define HEAD                                                                   \
	"# oneib-context: the service levels of this VM's InfiniBand NICs "    \
	"(design decision 13);\n# rewritten at every run: source it with "     \
	"set -a, or EnvironmentFile= of a unit\n"

static void environment(void **state)
{
	struct nic_plan p[4] = { nic(1, 0x0109, SLS_SA, 0),
				 nic(2, 0x8101, SLS_SA, 3),
				 nic(3, 0x8102, SLS_CONTEXT, 5),
				 nic(4, 0x8103, SLS_NONE, 0) };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	p[1].has_ipoib_sl = true;
	p[1].ipoib_sl = 3;
	assert_int_equal(guest_sl_environment(p, 4, &sb), 0);
	assert_string_equal(sb_str(&sb), HEAD "# ETH1 ib1.8109 (partition "
					      "0x0109): SL 0, as the SA "
					      "answers for its "
					      "partition\nONEIB_ETH1_IB_SL=0\n"
					      "# ETH2 ib2.8101 (partition "
					      "0x8101): SL 3, as the SA "
					      "answers for its "
					      "partition\nONEIB_ETH2_IB_SL=3\n"
					      "ONEIB_ETH2_IPOIB_SL=3\n"
					      "# ETH3 ib3.8102 (partition "
					      "0x8102): SL 5, from the "
					      "context "
					      "(ETH<n>_IB_SL)\nONEIB_ETH3_IB_"
					      "SL=5\n"
					      "UCX_IB_SL=3\nNCCL_IB_SL=3\n");
	assert_int_equal(p[2].nnotes, 1);
	assert_string_equal(p[2].note[0], "SL 5, ETH2's 3: UCX_IB_SL and "
					  "NCCL_IB_SL are ETH2's (one per "
					  "process)");
	assert_int_equal(p[0].nnotes, 0);
	sb_release(&sb);

	/* nothing known: the header alone */
	p[0].sl_source = p[1].sl_source = p[2].sl_source = SLS_NONE;
	p[3].what = PLAN_WAIT;
	assert_int_equal(guest_sl_environment(p, 4, &sb), 0);
	assert_string_equal(sb_str(&sb), HEAD);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(environment),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
