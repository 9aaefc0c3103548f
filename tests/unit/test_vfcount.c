// SPDX-License-Identifier: Apache-2.0
/*
 * The free-VF counters (fabric/vfcount.h), from pool listings read by the
 * one pool reader: what a host shows (used by its VMs in any state,
 * available, the fingerprint of VMS), when it is current, a host whose VMS
 * names a VM the listing lacks left stale, a host whose VMS changed
 * without a VF moving not current (the requirement is test_schedreq's).
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

#include "fabric/poolread.h"
#include "fabric/vfcount.h"

#define IB_NIC "<NIC><NIC_ID>%d</NIC_ID><VN_MAD>ib</VN_MAD></NIC>"
#define ETH_NIC "<NIC><NIC_ID>9</NIC_ID><VN_MAD>bridge</VN_MAD></NIC>"
/* pool so far, ID, STATE, LCM_STATE, IB NICs, the requirement's parts */
#define VM_FMT                                                                 \
	"%s<VM><ID>%d</ID><STATE>%d</STATE><LCM_STATE>%d</LCM_STATE>"          \
	"<TEMPLATE>%s" ETH_NIC "</TEMPLATE>"                                   \
	"<USER_TEMPLATE>%s%s%s</USER_TEMPLATE></VM>"

/* A VM: ID, STATE, IB NICs, an Ethernet NIC, SCHED_REQUIREMENTS or NULL. */
static void vm(char **pool, int id, int state, int ib, const char *req)
{
	char *nics = strdup(""), *p;
	int i, r;

	for (i = 0; i < ib; i++) {
		assert_true(asprintf(&p, "%s" IB_NIC, nics, i) > 0);
		free(nics);
		nics = p;
	}
	r = asprintf(&p, VM_FMT, *pool, id, state, state == 3 ? 3 : 0, nics,
		     req ? "<SCHED_REQUIREMENTS><![CDATA[" : "", req ? req : "",
		     req ? "]]></SCHED_REQUIREMENTS>" : "");
	assert_true(r > 0);
	free(nics);
	free(*pool);
	*pool = p;
}

/* A ConnectX-5 host with VMS vms ("<ID>3</ID>...") and template extra. */
static char *host(int id, const char *vms, const char *extra)
{
	char *p;

	assert_true(asprintf(&p,
			     "<HOST_POOL><HOST><ID>%d</ID><NAME>hv%d</NAME>"
			     "<CLUSTER_ID>0</CLUSTER_ID><VMS>%s</VMS><TEMPLATE>"
			     "<IB_PF><PORT_GUID>0x0c42a10300001001</PORT_GUID>"
			     "<LINK_LAYER>InfiniBand</LINK_LAYER>"
			     "<DRIVER>mlx5_core</DRIVER></IB_PF>%s"
			     "</TEMPLATE></HOST></HOST_POOL>",
			     id, id, vms, extra) > 0);
	return p;
}

static void read_pools(struct cloud_facts *f, const char *vms,
		       const char *hosts)
{
	char err[256] = "";
	char *pool;

	assert_true(asprintf(&pool, "<VM_POOL>%s</VM_POOL>", vms) > 0);
	assert_int_equal(poolread_mem(f, POOL_VM, pool, strlen(pool), "VM pool",
				      err, sizeof(err)),
			 0);
	assert_int_equal(poolread_mem(f, POOL_HOST, hosts, strlen(hosts),
				      "HOST pool", err, sizeof(err)),
			 0);
	free(pool);
	assert_int_equal(vfcount_prepare(f), 0);
}

static void counts_vms_in_any_state(void **state)
{
	struct cloud_facts f = { 0 };
	char *vms = strdup("");
	char *h = host(3, "<ID>7</ID><ID>5</ID><ID>2</ID>",
		       "<IB_VFS_USABLE>8</IB_VFS_USABLE>");
	long c[HC_COUNT];

	(void)state;
	vm(&vms, 7, 3, 2, NULL); /* RUNNING, two IB NICs */
	vm(&vms, 2, 8, 1, NULL); /* POWEROFF: its VF comes back on resume */
	vm(&vms, 5, 3, 0, NULL); /* Ethernet only */
	vm(&vms, 9, 3, 3, NULL); /* on another host */
	read_pools(&f, vms, h);
	assert_int_equal(f.nhosts, 1);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_int_equal(c[HC_USABLE], 8);
	assert_int_equal(c[HC_USED], 3);
	assert_int_equal(c[HC_AVAIL], 5);
	assert_int_equal(c[HC_SYNC_VMS], 3);
	assert_int_equal(c[HC_SYNC_SUM], 14);
	assert_false(vfcount_current(&f.hosts[0], c));
	cloud_facts_free(&f);
	free(h);

	/* the same counters in its template: current */
	h = host(3, "<ID>7</ID><ID>5</ID><ID>2</ID>",
		 "<IB_VFS_USABLE>8</IB_VFS_USABLE><IB_VFS_USED>3</IB_VFS_USED>"
		 "<IB_VFS_AVAIL>5</IB_VFS_AVAIL><IB_SYNC_VMS>3</IB_SYNC_VMS>"
		 "<IB_SYNC_SUM>14</IB_SYNC_SUM>");
	read_pools(&f, vms, h);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_true(vfcount_current(&f.hosts[0], c));
	/* one more VM dispatched to it: not current any more */
	f.hosts[0].vms[2] = 9;
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_int_equal(c[HC_USED], 5);
	assert_int_equal(c[HC_AVAIL], 3);
	assert_int_equal(c[HC_SYNC_SUM], 21);
	assert_false(vfcount_current(&f.hosts[0], c));
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

static void bounds_and_unknowns(void **state)
{
	struct cloud_facts f = { 0 };
	char *vms = strdup("");
	char *h = host(1, "<ID>4</ID>", "<IB_VFS_USABLE>1</IB_VFS_USABLE>");
	long c[HC_COUNT];

	(void)state;
	vm(&vms, 4, 3, 2, NULL);
	read_pools(&f, vms, h);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_int_equal(c[HC_USED], 2);
	assert_int_equal(c[HC_AVAIL], 0); /* never below 0 */
	cloud_facts_free(&f);
	free(h);

	/* no IB_VFS_USABLE yet (a probe from before): nothing to give out */
	h = host(1, "", "");
	read_pools(&f, vms, h);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
	assert_int_equal(c[HC_AVAIL], 0);
	assert_int_equal(c[HC_SYNC_VMS], 0);
	cloud_facts_free(&f);
	free(h);

	/* VMS names a VM the listing does not hold: left stale */
	h = host(1, "<ID>4</ID><ID>6</ID>", "<IB_VFS_USABLE>8</IB_VFS_USABLE>");
	read_pools(&f, vms, h);
	assert_int_equal(vfcount_host(&f, &f.hosts[0], c), -ENOENT);
	cloud_facts_free(&f);
	free(h);
	free(vms);
}

/*
 * The fingerprint is part of being current: a host whose VMS changed is
 * counted again even when the change moves no VF (a VM without an IB
 * NIC came or went, one VM took another's place), since the requirement
 * matches only hosts whose VMS agrees with IB_SYNC_VMS and IB_SYNC_SUM: a
 * host left with an old fingerprint is never placed on again.
 */
static void fingerprint_decides_current(void **state)
{
	static const char counted[] =
		"<IB_VFS_USABLE>8</IB_VFS_USABLE><IB_VFS_USED>3</IB_VFS_USED>"
		"<IB_VFS_AVAIL>5</IB_VFS_AVAIL><IB_SYNC_VMS>3</IB_SYNC_VMS>"
		"<IB_SYNC_SUM>14</IB_SYNC_SUM>";
	struct {
		const char *vms;
		bool current;
		long n, sum;
	} cases[] = {
		{ "<ID>7</ID><ID>5</ID><ID>2</ID>", true, 3, 14 },
		/* the same VMs in another order: the same fingerprint */
		{ "<ID>2</ID><ID>7</ID><ID>5</ID>", true, 3, 14 },
		/* Ethernet-only VM 6 joined: no VF more, one VM more */
		{ "<ID>7</ID><ID>5</ID><ID>2</ID><ID>6</ID>", false, 4, 20 },
		/* VM 6 in VM 5's place: as many VMs and VFs, another sum */
		{ "<ID>7</ID><ID>6</ID><ID>2</ID>", false, 3, 15 },
		/* Ethernet-only VM 5 left */
		{ "<ID>7</ID><ID>2</ID>", false, 2, 9 },
	};
	char *vms = strdup("");
	long c[HC_COUNT];
	size_t i;

	(void)state;
	vm(&vms, 7, 3, 2, NULL);
	vm(&vms, 2, 8, 1, NULL);
	vm(&vms, 5, 3, 0, NULL);
	vm(&vms, 6, 3, 0, NULL);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct cloud_facts f = { 0 };
		char *h = host(3, cases[i].vms, counted);

		read_pools(&f, vms, h);
		assert_int_equal(vfcount_host(&f, &f.hosts[0], c), 0);
		/* the VFs are the same in every case... */
		assert_int_equal(c[HC_USED], 3);
		assert_int_equal(c[HC_AVAIL], 5);
		/* ...the fingerprint is not */
		assert_int_equal(c[HC_SYNC_VMS], cases[i].n);
		assert_int_equal(c[HC_SYNC_SUM], cases[i].sum);
		if (vfcount_current(&f.hosts[0], c) != cases[i].current)
			fail_msg("VMS %s: current %d, want %d", cases[i].vms,
				 !cases[i].current, cases[i].current);
		cloud_facts_free(&f);
		free(h);
	}
	free(vms);
}

static void malformed_vms_refused(void **state)
{
	struct cloud_facts f = { 0 };
	char *h = host(1, "<ID>x</ID>", "");
	char err[256] = "";

	(void)state;
	assert_int_equal(poolread_mem(&f, POOL_HOST, h, strlen(h), "HOST pool",
				      err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "HOST 1 (hv1): a VMS/ID is not a VM ID");
	cloud_facts_free(&f);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_vms_in_any_state),
		cmocka_unit_test(bounds_and_unknowns),
		cmocka_unit_test(fingerprint_decides_current),
		cmocka_unit_test(malformed_vms_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
