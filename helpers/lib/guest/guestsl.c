// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <string.h>

#include "core/pkey.h"
#include "core/sapath.h"
#include "guest/guestsl.h"

/* What the SA answers from the NIC's own port: 1 with p->sl, 0 not. */
static int ask_sa(struct nic_plan *p, int timeout_ms, char *why, size_t len)
{
	struct sa_conn c;
	struct sa_path rec;
	struct sa_mcmember mc;
	int r;

	if (!pkey_is_full(p->pkey)) {
		snprintf(why, len,
			 "a limited member (0x%04x) has no path to itself",
			 p->pkey.raw);
		return 0;
	}
	if (sa_open(&c, p->dev.ibdev, p->dev.port, timeout_ms, why, len))
		return 0;
	c.pkey_index = p->sa_pkey_index;
	r = sa_path_get(&c, p->dev.guid, p->dev.guid, p->pkey.raw, &rec, why,
			len);
	if (r == 1) {
		uint8_t mgid[16];

		p->sl = rec.sl;
		p->sl_source = SLS_SA;
		sa_ipoib_mgid(p->pkey.raw, mgid);
		if (sa_mcmember_get(&c, mgid, &mc, why, len) == 1) {
			p->has_ipoib_sl = true;
			p->ipoib_sl = mc.sl;
		}
	}
	sa_close(&c);
	return r == 1;
}

void guest_sl(struct nic_plan *p, int timeout_ms)
{
	char why[160] = "";

	if (p->what != PLAN_CONFIGURE)
		return;
	if (ask_sa(p, timeout_ms, why, sizeof(why))) {
		if (p->conf.has_sl && p->conf.sl != p->sl)
			plan_note(p,
				  "ETH%d_IB_SL %d is not what the SA answers "
				  "for its partition (SL %d): the SA's is used",
				  p->nic, p->conf.sl, p->sl);
		if (p->has_ipoib_sl && p->ipoib_sl != p->sl)
			plan_note(p,
				  "its IPoIB broadcast group has SL %d, its "
				  "paths SL %d: the group keeps the SL it was "
				  "made with until the subnet manager makes it "
				  "again",
				  p->ipoib_sl, p->sl);
		return;
	}
	if (!p->conf.has_sl)
		return;
	p->sl = p->conf.sl;
	p->sl_source = SLS_CONTEXT;
	plan_note(p, "SL %d from ETH%d_IB_SL: the SA was not asked (%s)", p->sl,
		  p->nic, why);
}

int guest_sl_environment(struct nic_plan *plans, size_t n, struct strbuf *out)
{
	const struct nic_plan *mpi = NULL;
	size_t i;
	int r = sb_adds(out, "# oneib-context: the service levels of this "
			     "VM's InfiniBand NICs (design decision 13);\n"
			     "# rewritten at every run: source it with set "
			     "-a, or EnvironmentFile= of a unit\n");

	for (i = 0; i < n && !r; i++) {
		const struct nic_plan *p = &plans[i];

		if (p->what != PLAN_CONFIGURE || p->sl_source == SLS_NONE)
			continue;
		r = sb_addf(out,
			    "# ETH%d %s (partition 0x%04x): SL %d, %s\n"
			    "ONEIB_ETH%d_IB_SL=%d\n",
			    p->nic, p->link, p->pkey.raw, p->sl,
			    p->sl_source == SLS_SA ? "as the SA answers for "
						     "its partition"
						   : "from the context "
						     "(ETH<n>_IB_SL)",
			    p->nic, p->sl);
		if (!r && p->has_ipoib_sl)
			r = sb_addf(out, "ONEIB_ETH%d_IPOIB_SL=%d\n", p->nic,
				    p->ipoib_sl);
		if (!mpi && pkey_is_full(p->pkey))
			mpi = p;
	}
	if (r || !mpi)
		return r;
	for (i = 0; i < n; i++) {
		struct nic_plan *p = &plans[i];

		if (p != mpi && p->what == PLAN_CONFIGURE &&
		    p->sl_source != SLS_NONE && pkey_is_full(p->pkey) &&
		    p->sl != mpi->sl)
			plan_note(p,
				  "SL %d, ETH%d's %d: UCX_IB_SL and "
				  "NCCL_IB_SL are ETH%d's (one per process)",
				  p->sl, mpi->nic, mpi->sl, mpi->nic);
	}
	return sb_addf(out, "UCX_IB_SL=%d\nNCCL_IB_SL=%d\n", mpi->sl, mpi->sl);
}
