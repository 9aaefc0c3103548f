// SPDX-License-Identifier: Apache-2.0
/*
 * The free-VF counters per rail and what a VM needs there
 * (fabric/railfit.h), from pool listings read by the one pool reader, on
 * the hosts of tests/fixtures (hgx: 4 PCIe switches of 2 GPUs and 2 rails;
 * gpu2: 2 switches of 1 GPU and 1 rail) as their probe and oned show them:
 * each VM counted takes its VFs by deploy's rule (distinct rails, beside
 * its GPUs), the rails it needs, oned's choice of a VM's GPUs foreseen,
 * required affinity fitting only where its GPUs' rails have VFs, and the
 * counter and the terms the write-back gives (IB_RAILS_AVAIL, the rail and
 * beside terms).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit.h"

#include "core/strbuf.h"
#include "fabric/poolread.h"
#include "fabric/railfit.h"
#include "fabric/vfcount.h"
#include "fabric/writeback.h"

/* text appended to *s */
static void add(char **s, const char *fmt, ...)
{
	char *p, *q;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&p, fmt, ap) >= 0);
	va_end(ap);
	assert_true(asprintf(&q, "%s%s", *s ? *s : "", p) >= 0);
	free(p);
	free(*s);
	*s = q;
}

/*
 * One PCIe switch of an HGX host, as its probe and oned show it: switch at
 * bus b + 1 under root port b:01.0, ngpu GPUs at b+3.., then npf rails
 * (first rail *rail) with usable[rail] VFs. *pcis gets oned's PCI devices
 * (vmid[gpu], -1 free), *tmpl the probe's attributes.
 */
static void hgx_switch(char **pcis, char **tmpl, int b, int numa, int ngpu,
		       int npf, int *gpu, int *rail, const long *usable,
		       const int *vmid)
{
	int k;

	for (k = 0; k < ngpu + npf; k++) {
		int bus = b + 3 + k;
		char place[256];

		snprintf(place, sizeof(place),
			 "<NUMA_NODE>%d</NUMA_NODE><PCIE_SWITCH>0000:%02x:00.0"
			 "</PCIE_SWITCH><PCIE_ROOT_PORT>0000:%02x:01.0"
			 "</PCIE_ROOT_PORT>",
			 numa, b + 1, b);
		if (k < ngpu) {
			add(pcis,
			    "<PCI><ADDRESS>0000:%02x:00:0</ADDRESS><CLASS>0302"
			    "</CLASS><VENDOR>10de</VENDOR><DEVICE>2330</DEVICE>"
			    "<VMID>%d</VMID></PCI>",
			    bus, vmid ? vmid[*gpu] : -1);
			add(tmpl,
			    "<IB_PCI><ADDRESS>0000:%02x:00.0</ADDRESS>%s"
			    "</IB_PCI>",
			    bus, place);
			(*gpu)++;
			continue;
		}
		add(tmpl,
		    "<IB_PF><ADDRESS>0000:%02x:00.0</ADDRESS><PORT>1</PORT>"
		    "<PORT_GUID>0xa088c20300b%02x001</PORT_GUID><STATE>ACTIVE"
		    "</STATE><LINK_LAYER>InfiniBand</LINK_LAYER><DRIVER>"
		    "mlx5_core</DRIVER><RAIL>%d</RAIL>%s</IB_PF>"
		    "<IB_RAIL><RAIL>%d</RAIL><ADDRESS>0000:%02x:00.0</ADDRESS>"
		    "<PORT>1</PORT><VFS_FREE>0</VFS_FREE><VFS_USABLE>%ld"
		    "</VFS_USABLE></IB_RAIL>",
		    bus, *rail, *rail, place, *rail, bus, usable[*rail]);
		(*rail)++;
	}
}

/* Host id (hgx, or gpu2 when !hgx) with VMS vms and the rails' usable
 * VFs, the GPUs' VMIDs (NULL: all free). */
static char *host(int id, bool hgx, const char *vms, const long *usable,
		  const int *vmid)
{
	char *pcis = strdup(""), *tmpl = strdup(""), *p;
	int gpu = 0, rail = 0;

	if (hgx) {
		hgx_switch(&pcis, &tmpl, 0x14, 0, 2, 2, &gpu, &rail, usable,
			   vmid);
		hgx_switch(&pcis, &tmpl, 0x38, 0, 2, 2, &gpu, &rail, usable,
			   vmid);
		hgx_switch(&pcis, &tmpl, 0x94, 1, 2, 2, &gpu, &rail, usable,
			   vmid);
		hgx_switch(&pcis, &tmpl, 0xb8, 1, 2, 2, &gpu, &rail, usable,
			   vmid);
	} else {
		hgx_switch(&pcis, &tmpl, 0x14, 0, 1, 1, &gpu, &rail, usable,
			   vmid);
		hgx_switch(&pcis, &tmpl, 0x94, 1, 1, 1, &gpu, &rail, usable,
			   vmid);
	}
	assert_true(asprintf(&p,
			     "<HOST><ID>%d</ID><NAME>hv%d</NAME><STATE>2</"
			     "STATE>"
			     "<CLUSTER_ID>0</CLUSTER_ID><VMS>%s</VMS>"
			     "<HOST_SHARE><PCI_DEVICES>%s</PCI_DEVICES>"
			     "</HOST_SHARE><TEMPLATE>%s<IB_VFS_USABLE>64"
			     "</IB_VFS_USABLE></TEMPLATE></HOST>",
			     id, id, vms, pcis, tmpl) > 0);
	free(pcis);
	free(tmpl);
	return p;
}

/*
 * A VM: ID, STATE (3 RUNNING on host, 1 PENDING), its GPUs' addresses
 * ("17 18": on a host; "" with ngpu > 0: asked for by CLASS), nics NICs
 * on network 5 with IB_AFFINITY aff (NULL: the default).
 */
static void vm(char **pool, int id, int state, int host, const char *gpus,
	       int ngpu, int nics, const char *aff)
{
	char *t = strdup("");
	int k;

	for (k = 0; k < ngpu; k++) {
		int bus = 0;

		if (*gpus)
			assert_int_equal(sscanf(gpus + 3 * k, "%x", &bus), 1);
		if (bus)
			add(&t,
			    "<PCI><CLASS>0302</CLASS><ADDRESS>0000:%02x:00:0"
			    "</ADDRESS></PCI>",
			    bus);
		else
			add(&t, "<PCI><CLASS>0302</CLASS></PCI>");
	}
	for (k = 0; k < nics; k++) {
		add(&t,
		    "<NIC><NIC_ID>%d</NIC_ID><NETWORK_ID>5</NETWORK_ID>"
		    "<VN_MAD>ib</VN_MAD>",
		    k);
		if (aff)
			add(&t, "<IB_AFFINITY>%s</IB_AFFINITY>", aff);
		add(&t, "</NIC>");
	}
	add(pool,
	    "<VM><ID>%d</ID><STATE>%d</STATE><LCM_STATE>%d</LCM_STATE>"
	    "<TEMPLATE>%s</TEMPLATE><HISTORY_RECORDS>%s</HISTORY_RECORDS></VM>",
	    id, state, state == 3 ? 3 : 0, t,
	    state == 3 ? "<HISTORY><HID>3</HID></HISTORY>" : "");
	(void)host;
	free(t);
}

static void read_pools(struct cloud_facts *f, const char *vms,
		       const char *hosts)
{
	char err[256] = "", *a, *b;

	assert_true(asprintf(&a, "<VM_POOL>%s</VM_POOL>", vms) > 0);
	assert_true(asprintf(&b, "<HOST_POOL>%s</HOST_POOL>", hosts) > 0);
	if (poolread_mem(f, POOL_VM, a, strlen(a), "VM pool", err,
			 sizeof(err)) ||
	    poolread_mem(f, POOL_HOST, b, strlen(b), "HOST pool", err,
			 sizeof(err)))
		fail_msg("%s", err);
	free(a);
	free(b);
	assert_int_equal(vfcount_prepare(f), 0);
}

static const long eight[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };

/* rf's VFs left per rail, "7 7 7 7 8 8 8 8" */
static void left_is(const struct railfit *rf, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < rf->h->nrails; i++)
		sb_addf(&sb, "%s%ld", i ? " " : "", rf->left[i]);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

/* Each VM counted takes its VFs by deploy's rule: distinct rails, each
 * beside its GPU (node 1's GPUs: rails 4-7), the rails by number. */
static void counted_by_the_rule(void **state)
{
	static const int gpus_b[8] = { -1, -1, -1, -1, 4, 4, 4, 4 };
	struct cloud_facts f = { 0 };
	char *vms = NULL,
	     *h = host(3, true, "<ID>4</ID><ID>2</ID>", eight, gpus_b);
	struct railfit rf;
	long c[HC_COUNT];

	(void)state;
	/* VM 4 has node 1's GPUs, VM 2 none: its 2 NICs on rails 0, 1 */
	vm(&vms, 4, 3, 3, "97 98 bb bc", 4, 4, NULL);
	vm(&vms, 2, 3, 3, "", 0, 2, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(f.hosts[0].nrails, 8);
	assert_int_equal(f.hosts[0].npcis, 8);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	left_is(&rf, "7 7 8 8 7 7 7 7");
	assert_int_equal(railfit_avail(&rf), 8);
	railfit_free(&rf);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_int_equal(c[HC_RAILS_AVAIL], 8);
	cloud_facts_free(&f);
	free(h);

	/* rails of one VF each: what VM 4 and VM 2 took has none left */
	{
		static const long one[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

		h = host(3, true, "<ID>4</ID><ID>2</ID>", one, gpus_b);
		read_pools(&f, vms, h);
		assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
		assert_int_equal(c[HC_RAILS_AVAIL], 2);
		cloud_facts_free(&f);
		free(h);
	}
	free(vms);
}

/* The rails a VM needs: its most NICs on one spread network. */
static void rails_needed(void **state)
{
	struct cloud_facts f = { 0 };
	char *vms = NULL, *h = host(3, true, "", eight, NULL);

	(void)state;
	vm(&vms, 1, 1, -1, "", 0, 8, NULL);
	vm(&vms, 2, 1, -1, "", 0, 1, NULL);
	add(&vms, "<VM><ID>3</ID><STATE>1</STATE><TEMPLATE>"
		  "<NIC><NIC_ID>0</NIC_ID><NETWORK_ID>5</NETWORK_ID><VN_MAD>ib"
		  "</VN_MAD><IB_RAILS>pack</IB_RAILS></NIC>"
		  "<NIC><NIC_ID>1</NIC_ID><NETWORK_ID>5</NETWORK_ID><VN_MAD>ib"
		  "</VN_MAD><IB_RAILS>pack</IB_RAILS></NIC>"
		  "<NIC><NIC_ID>2</NIC_ID><NETWORK_ID>6</NETWORK_ID><VN_MAD>ib"
		  "</VN_MAD></NIC></TEMPLATE></VM>");
	read_pools(&f, vms, h);
	assert_int_equal(railfit_need(&f, &f.vms[0]), 8);
	assert_int_equal(railfit_need(&f, &f.vms[1]), 1);
	/* pack asks for no rails apart; the other network's one NIC: 1 */
	assert_int_equal(railfit_need(&f, &f.vms[2]), 1);
	assert_false(railfit_required(&f, &f.vms[0]));
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

/* A VM to place: 8 NICs on 8 GPUs take a VF beside each; 8 rails have
 * one, and with one rail empty 7, short of the 8 it needs. */
static void distinct_rails_fit(void **state)
{
	static const long seven[8] = { 8, 8, 8, 0, 8, 8, 8, 8 };
	struct cloud_facts f = { 0 };
	char *vms = NULL, *h = host(3, true, "", eight, NULL);
	struct railfit rf;

	(void)state;
	vm(&vms, 1, 1, -1, "", 8, 8, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	assert_true(railfit_vm(&rf, &f, &f.vms[0], true));
	/* taken: each GPU's rail, oned's GPUs 0-7 and rails 0-7 */
	left_is(&rf, "7 7 7 7 7 7 7 7");
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);

	h = host(3, true, "", seven, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	/* one rail short: the rail term keeps it off, VFs or not */
	assert_int_equal(railfit_avail(&rf), 7);
	assert_true(railfit_avail(&rf) < railfit_need(&f, &f.vms[0]));
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

/*
 * gpu2: a 2-GPU, 2-NIC VM with IB_AFFINITY required fits only where each
 * GPU's rail has a VF; oned's choice of GPUs foreseen (the first free by
 * address); preferred fits anyway.
 */
static void required_beside(void **state)
{
	static const long full0[2] = { 0, 8 }, both[2] = { 8, 8 };
	struct cloud_facts f = { 0 };
	char *vms = NULL, *h = host(3, false, "", full0, NULL);
	struct railfit rf;

	(void)state;
	vm(&vms, 1, 1, -1, "", 2, 2, "required");
	vm(&vms, 2, 1, -1, "", 2, 2, NULL);
	read_pools(&f, vms, h);
	assert_true(railfit_required(&f, &f.vms[0]));
	assert_false(railfit_required(&f, &f.vms[1]));
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	assert_false(railfit_vm(&rf, &f, &f.vms[0], false));
	/* preferred: the next best (both on rail 1; the rail term is
	 * IB_RAILS_AVAIL's, 1 here) */
	assert_true(railfit_vm(&rf, &f, &f.vms[1], false));
	assert_int_equal(railfit_avail(&rf), 1);
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);

	/* a VF freed on rail 0: it fits */
	h = host(3, false, "", both, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	assert_true(railfit_vm(&rf, &f, &f.vms[0], false));
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

/* oned gives a VM the first free GPUs by address: with GPUs 0-3 taken, a
 * 2-GPU required VM gets GPUs 4 and 5, whose rails 4 and 5 have none
 * left; with them free, GPUs 0 and 1 and rails 0 and 1. */
static void devices_foreseen(void **state)
{
	static const int taken[8] = { 9, 9, 9, 9, -1, -1, -1, -1 };
	static const long rails[8] = { 8, 8, 8, 8, 0, 0, 8, 8 };
	struct cloud_facts f = { 0 };
	char *vms = NULL, *h = host(3, true, "<ID>9</ID>", rails, taken);
	struct railfit rf;

	(void)state;
	vm(&vms, 1, 1, -1, "", 2, 2, "required");
	vm(&vms, 9, 3, 3, "17 18 3b 3c", 4, 0, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	assert_false(railfit_vm(&rf, &f, vfcount_vm(&f, 1), false));
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);

	h = host(3, true, "", rails, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(railfit_init(&rf, &f, &f.hosts[0]), 0);
	assert_true(railfit_vm(&rf, &f, vfcount_vm(&f, 1), true));
	left_is(&rf, "7 7 8 8 0 0 8 8");
	railfit_free(&rf);
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

/* The write-back: the counter on the host and the VM's terms. */
static void written_back(void **state)
{
	static const long full0[2] = { 0, 8 };
	struct cloud_facts f = { 0 };
	char *vms = NULL, *h = host(3, false, "", full0, NULL), err[256];
	struct strbuf sb = STRBUF_INIT;
	struct wb_plan p;

	(void)state;
	vm(&vms, 1, 1, -1, "", 2, 2, "required");
	vm(&vms, 2, 1, -1, "", 0, 2, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(writeback_plan(&f, &p, err, sizeof(err)), 0);
	assert_int_equal(writeback_text(&p, &sb), 0);
	assert_string_equal(sb_str(&sb), "host 3 IB_VFS_USED=0 IB_VFS_AVAIL=64 "
					 "IB_SYNC_VMS=0 "
					 "IB_SYNC_SUM=0 IB_RAILS_AVAIL=1\n"
					 "vm 1 "
					 "SCHED_REQUIREMENTS=\"\\\"/"
					 "HOST[count(VMS/ID) = "
					 "TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) "
					 "= "
					 "TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
					 "IB_VFS_AVAIL\\\" > 1 & "
					 "IB_RAILS_AVAIL > 1 & IB_BESIDE = "
					 "\\\"no-vf-beside-its-gpus\\\"\"\n"
					 "vm 2 "
					 "SCHED_REQUIREMENTS=\"\\\"/"
					 "HOST[count(VMS/ID) = "
					 "TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) "
					 "= "
					 "TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
					 "IB_VFS_AVAIL\\\" > 1 & "
					 "IB_RAILS_AVAIL > 1\"\n");
	sb_release(&sb);
	writeback_free(&p);
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counted_by_the_rule),
		cmocka_unit_test(rails_needed),
		cmocka_unit_test(distinct_rails_fit),
		cmocka_unit_test(required_beside),
		cmocka_unit_test(devices_foreseen),
		cmocka_unit_test(written_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
