// SPDX-License-Identifier: Apache-2.0
/*
 * Virtual clusters packed by leaf (fabric/leafpack.h), from pool listings
 * read by the one pool reader: on two leaves of two hosts with four VFs
 * each, a cluster lands under one leaf, a second tenant's under the other,
 * a third that fits under neither spreads with the fewest VMs across; two
 * bursts that come together part; a waiting VM keeps its leaf while it
 * fits, one host under it having a VF for each of its NICs; spread and none; the gate for VMs not yet PENDING; hosts the
 * scheduler does not use or that serve other clusters give no room. And
 * the map of its cluster a VM gets with its leaf (fabric/topology.h): a
 * burst behind the gate learns the whole cluster and nothing of another
 * tenant's, once.
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

#include "fabric/leafpack.h"
#include "fabric/poolread.h"
#include "fabric/topology.h"
#include "fabric/vfcount.h"

#define LEAF_A "0x0002c90200000a00"
#define LEAF_B "0x0002c90200000b00"

struct cloud {
	char *vms, *hosts, *nets;
};

static void append(char **s, const char *fmt, ...) ONEIB_PRINTF(2, 3);
static void append(char **s, const char *fmt, ...)
{
	char *add, *p;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&add, fmt, ap) >= 0);
	va_end(ap);
	assert_true(asprintf(&p, "%s%s", *s ? *s : "", add) >= 0);
	free(add);
	free(*s);
	*s = p;
}

/* An InfiniBand network of cluster 0 (1 too when wide), IB_PLACEMENT. */
static void net(struct cloud *c, int id, const char *placement, bool wide)
{
	append(&c->nets,
	       "<VNET><ID>%d</ID><NAME>n%d</NAME><CLUSTERS><ID>0</ID>%s"
	       "</CLUSTERS><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>0x%x"
	       "</IB_PKEY>%s%s%s</TEMPLATE></VNET>",
	       id, id, wide ? "<ID>1</ID>" : "", 0x8100 + id,
	       placement ? "<IB_PLACEMENT>" : "", placement ? placement : "",
	       placement ? "</IB_PLACEMENT>" : "");
}

/* A ConnectX-5 host of cluster, STATE, under leaf, usable VFs, VMS. */
static void host(struct cloud *c, int id, int cluster, int state,
		 const char *leaf, int usable, const char *vms)
{
	append(&c->hosts,
	       "<HOST><ID>%d</ID><NAME>hv%d</NAME><STATE>%d</STATE>"
	       "<CLUSTER_ID>%d</CLUSTER_ID><VMS>%s</VMS><TEMPLATE>"
	       "<IB_PF><PORT_GUID>0x0c42a1030000%04x</PORT_GUID>"
	       "<LINK_LAYER>InfiniBand</LINK_LAYER><DRIVER>mlx5_core</DRIVER>"
	       "<LEAF_GUID>%s</LEAF_GUID></IB_PF>"
	       "<IB_VFS_USABLE>%d</IB_VFS_USABLE></TEMPLATE></HOST>",
	       id, id, state, cluster, vms, id, leaf, usable);
}

/* A VM: ID, STATE (3: RUNNING), nics IB NICs on network net, its
 * SCHED_REQUIREMENTS or NULL. */
static void vm(struct cloud *c, int id, int state, int net, int nics,
	       const char *req)
{
	int i;

	append(&c->vms,
	       "<VM><ID>%d</ID><STATE>%d</STATE><LCM_STATE>%d"
	       "</LCM_STATE><TEMPLATE>",
	       id, state, state == 3 ? 3 : 0);
	for (i = 0; i < nics; i++)
		append(&c->vms,
		       "<NIC><NIC_ID>%d</NIC_ID><NETWORK_ID>%d"
		       "</NETWORK_ID><VN_MAD>ib</VN_MAD></NIC>",
		       i, net);
	append(&c->vms, "</TEMPLATE><USER_TEMPLATE>");
	if (req)
		append(&c->vms,
		       "<SCHED_REQUIREMENTS><![CDATA[%s]]>"
		       "</SCHED_REQUIREMENTS>",
		       req);
	append(&c->vms, "</USER_TEMPLATE></VM>");
}

static void read_pool(struct cloud_facts *f, int kind, const char *tag,
		      const char *body)
{
	char err[256] = "", *xml;

	assert_true(asprintf(&xml, "<%s>%s</%s>", tag, body ? body : "", tag) >
		    0);
	if (poolread_mem(f, kind, xml, strlen(xml), tag, err, sizeof(err)))
		fail_msg("%s", err);
	free(xml);
}

/* The three listings of c, read as the hook reads them. */
static void read_cloud(struct cloud *c, struct cloud_facts *f)
{
	read_pool(f, POOL_VM, "VM_POOL", c->vms);
	read_pool(f, POOL_HOST, "HOST_POOL", c->hosts);
	read_pool(f, POOL_VNET, "VNET_POOL", c->nets);
	assert_int_equal(vfcount_prepare(f), 0);
}

/*
 * The leaf term of each VM, in ID order: "A", "B" (a leaf), "-" (no leaf
 * term), "G" (the gate), "R" (refused), "." (not one to place), e.g.
 * "AAAB.".
 */
static void plan(struct cloud *c, char *out)
{
	struct cloud_facts f = { 0 };
	struct leaf_pick *pick;
	size_t i;

	read_cloud(c, &f);
	pick = calloc(f.nvms + 1, sizeof(*pick));
	assert_non_null(pick);
	assert_int_equal(leafpack_plan(&f, pick), 0);
	for (i = 0; i < f.nvms; i++) {
		char k = '.';

		if (pick[i].to_place && pick[i].has == SR_NO_LEAF)
			k = '-';
		if (pick[i].to_place && pick[i].has == SR_GATE)
			k = 'G';
		if (pick[i].to_place && pick[i].has == SR_REFUSED)
			k = 'R';
		if (pick[i].to_place && pick[i].has == SR_LEAF)
			k = pick[i].leaf == 0x0002c90200000a00ULL   ? 'A'
			    : pick[i].leaf == 0x0002c90200000b00ULL ? 'B'
			    : pick[i].leaf == 0x0002c90200000a01ULL ? 'a'
			    : pick[i].leaf == 0x0002c90200000b01ULL ? 'b'
								    : '?';
		out[i] = k;
	}
	out[f.nvms] = '\0';
	free(pick);
	cloud_facts_free(&f);
}

static void cloud_free(struct cloud *c)
{
	free(c->vms);
	free(c->hosts);
	free(c->nets);
	memset(c, 0, sizeof(*c));
}

/* hv1, hv2 under leaf A, hv3, hv4 under B, four VFs each; VMS as given */
static void two_leaves(struct cloud *c, const char *v1, const char *v2,
		       const char *v3, const char *v4)
{
	host(c, 1, 0, 2, LEAF_A, 4, v1);
	host(c, 2, 0, 2, LEAF_A, 4, v2);
	host(c, 3, 0, 2, LEAF_B, 4, v3);
	host(c, 4, 0, 2, LEAF_B, 4, v4);
}

/* The acceptance of issue 22, item 3, one cluster after the other. */
static void clusters_packed(void **state)
{
	struct cloud c = { 0 };
	char got[64];
	int i;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	net(&c, 7, "pack", false);
	two_leaves(&c, "", "", "", "");
	for (i = 10; i < 14; i++)
		vm(&c, i, 1, 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "AAAA");

	/* placed on hv1 and hv2: the second tenant goes to the other leaf */
	cloud_free(&c);
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	net(&c, 7, "pack", false);
	two_leaves(&c, "<ID>10</ID><ID>11</ID>", "<ID>12</ID><ID>13</ID>", "",
		   "");
	for (i = 10; i < 14; i++)
		vm(&c, i, 3, 5, 1, NULL);
	for (i = 20; i < 24; i++)
		vm(&c, i, 1, 6, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "....BBBB");

	/* both placed: six VMs fit under neither, four go under one */
	cloud_free(&c);
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	net(&c, 7, "pack", false);
	two_leaves(&c, "<ID>10</ID><ID>11</ID>", "<ID>12</ID><ID>13</ID>",
		   "<ID>20</ID><ID>21</ID>", "<ID>22</ID><ID>23</ID>");
	for (i = 10; i < 14; i++)
		vm(&c, i, 3, 5, 1, NULL);
	for (i = 20; i < 24; i++)
		vm(&c, i, 3, 6, 1, NULL);
	for (i = 30; i < 36; i++)
		vm(&c, i, 1, 7, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "........AAAABB");
	cloud_free(&c);
}

/* Two tenants' bursts at once, their VMs interleaved: they part. */
static void bursts_part(void **state)
{
	struct cloud c = { 0 };
	char got[64];
	int i;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "", "", "", "");
	for (i = 10; i < 18; i++)
		vm(&c, i, 1, i % 2 ? 6 : 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "ABABABAB");
	/* a cluster that has a VM under B already follows it there */
	cloud_free(&c);
	net(&c, 5, NULL, false);
	two_leaves(&c, "", "", "<ID>9</ID>", "");
	vm(&c, 9, 8, 5, 1, NULL); /* POWEROFF: still its leaf */
	vm(&c, 10, 1, 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, ".B");
	cloud_free(&c);
}

/* A waiting VM keeps the leaf it has while it fits, then moves. */
static void waiting_vm_keeps_its_leaf(void **state)
{
	static const char req_b[] = "\"/HOST[count(VMS/ID) = "
				    "TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) "
				    "= "
				    "TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
				    "IB_VFS_AVAIL\" > 0 & "
				    "IB_LEAVES = \"*,0x0002c90200000b00,*\"";
	struct cloud c = { 0 };
	char got[64];

	(void)state;
	net(&c, 5, NULL, false);
	two_leaves(&c, "<ID>1</ID>", "", "", "");
	vm(&c, 1, 3, 5, 1, NULL); /* the cluster is under A... */
	vm(&c, 10, 1, 5, 1, req_b); /* ...but VM 10 was given B */
	vm(&c, 11, 1, 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, ".BA");
	/* B full (hv3, hv4 hold other VMs): VM 10 moves */
	cloud_free(&c);
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "<ID>1</ID>", "", "<ID>2</ID>", "<ID>3</ID>");
	vm(&c, 1, 3, 5, 1, NULL);
	vm(&c, 2, 3, 6, 4, NULL);
	vm(&c, 3, 3, 6, 4, NULL);
	vm(&c, 10, 1, 5, 1, req_b);
	plan(&c, got);
	assert_string_equal(got, "...A");
	cloud_free(&c);
}

/*
 * A leaf fits a VM with N InfiniBand NICs only where one host under it has
 * N VFs free (all of a VM's VFs come from its host): a waiting VM keeps
 * its leaf by that rule too, not by the leaf's room summed over its hosts.
 */
static void waiting_vm_keeps_its_leaf_only_where_it_fits(void **state)
{
	static const char req_b[] = "\"/HOST[count(VMS/ID) = "
				    "TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "
				    "TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
				    "IB_VFS_AVAIL\" > 1 & IB_LEAVES = "
				    "\"*," LEAF_B ",*\"";
	struct cloud c = { 0 };
	char got[64];

	(void)state;
	/* hv3 and hv4 (B) one VF free each, two in all: VM 10 moves to A */
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "", "", "<ID>2</ID>", "<ID>3</ID>");
	vm(&c, 2, 3, 6, 3, NULL);
	vm(&c, 3, 3, 6, 3, NULL);
	vm(&c, 10, 1, 5, 2, req_b);
	plan(&c, got);
	assert_string_equal(got, "..A");
	cloud_free(&c);

	/* no host under either leaf has two free: no leaf term at all */
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "<ID>4</ID>", "<ID>5</ID>", "<ID>2</ID>", "<ID>3</ID>");
	vm(&c, 2, 3, 6, 3, NULL);
	vm(&c, 3, 3, 6, 3, NULL);
	vm(&c, 4, 3, 6, 3, NULL);
	vm(&c, 5, 3, 6, 3, NULL);
	vm(&c, 10, 1, 5, 2, req_b);
	plan(&c, got);
	assert_string_equal(got, "....-");
	cloud_free(&c);

	/* hv3 has exactly two free: VM 10 keeps B */
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "", "", "<ID>2</ID>", "<ID>3</ID>");
	vm(&c, 2, 3, 6, 2, NULL);
	vm(&c, 3, 3, 6, 3, NULL);
	vm(&c, 10, 1, 5, 2, req_b);
	plan(&c, got);
	assert_string_equal(got, "..B");
	cloud_free(&c);
}

/* spread, none, the gate, VMs not to place, two NICs on one host. */
static void modes_and_states(void **state)
{
	struct cloud c = { 0 };
	char got[64];

	(void)state;
	net(&c, 5, "spread", false);
	net(&c, 6, "none", false);
	net(&c, 7, NULL, false);
	two_leaves(&c, "<ID>1</ID><ID>2</ID><ID>3</ID>", "<ID>4</ID>", "", "");
	vm(&c, 1, 3, 5, 1, NULL); /* spread: one under A already */
	vm(&c, 2, 3, 7, 1, NULL);
	vm(&c, 3, 3, 7, 1, NULL);
	vm(&c, 4, 3, 7, 3, NULL); /* hv1 1 free, hv2 0: A has room 1 */
	vm(&c, 10, 1, 5, 1, NULL); /* spread: B, used least */
	vm(&c, 11, 1, 5, 1, NULL); /* A 1, B 1: the most room, B */
	vm(&c, 12, 1, 6, 1, NULL); /* none */
	vm(&c, 13, 2, 7, 1, NULL); /* HOLD: the gate */
	vm(&c, 14, 4, 6, 1, NULL); /* STOPPED, none: no gate */
	vm(&c, 15, 1, 7, 2, NULL); /* two NICs: no host under A has two */
	vm(&c, 16, 1, 8, 1, NULL); /* a network not listed: no leaf */
	vm(&c, 17, 9, 7, 1, NULL); /* UNDEPLOYED: the gate */
	vm(&c, 18, 3, 7, 1, NULL); /* RUNNING (no host: not counted) */
	plan(&c, got);
	assert_string_equal(got, "....BB-G-B-G.");
	cloud_free(&c);
}

/* Only hosts the scheduler uses, in the network's clusters, give room. */
static void room_only_where_it_may_go(void **state)
{
	struct cloud c = { 0 };
	char got[64];

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, true);
	host(&c, 1, 0, 4, LEAF_A, 4, ""); /* DISABLED */
	host(&c, 2, 1, 2, LEAF_A, 8, ""); /* cluster 1 */
	host(&c, 3, 0, 2, LEAF_B, 1, "");
	vm(&c, 10, 1, 5, 1, NULL); /* B: the only room in cluster 0 */
	vm(&c, 11, 1, 5, 1, NULL); /* none left: no leaf term */
	vm(&c, 12, 1, 6, 1, NULL); /* clusters 0 and 1: A */
	plan(&c, got);
	assert_string_equal(got, "B-A");
	/* no leaf known at all: no leaf term, the gate taken off */
	cloud_free(&c);
	net(&c, 5, NULL, false);
	host(&c, 1, 0, 2, "", 4, "");
	vm(&c, 10, 1, 5, 1, NULL);
	vm(&c, 11, 2, 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "-G");
	cloud_free(&c);
}

/* What the scheduler cannot match is never chosen: a port not ACTIVE
 * (not in IB_LEAVES), a network left out (bad). */
static void only_what_matches(void **state)
{
	struct cloud c = { 0 };
	char got[64], *req, *user;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, "Pack", false); /* bad: left out, no leaf term */
	host(&c, 1, 0, 2, LEAF_A, 4, "");
	append(&c.hosts, "<HOST><ID>2</ID><NAME>hv2</NAME><STATE>2</STATE>"
			 "<CLUSTER_ID>0</CLUSTER_ID><VMS></"
			 "VMS><TEMPLATE><IB_PF>"
			 "<PORT_GUID>0x0c42a10300000002</"
			 "PORT_GUID><STATE>INIT</STATE>"
			 "<LINK_LAYER>InfiniBand</"
			 "LINK_LAYER><DRIVER>mlx5_core</DRIVER>"
			 "<LEAF_GUID>" LEAF_B "</LEAF_GUID></IB_PF>"
			 "<IB_VFS_USABLE>8</IB_VFS_USABLE></TEMPLATE></HOST>");
	/* the user's part longer than any fixed buffer, after leaf B */
	user = calloc(1, 801);
	assert_non_null(user);
	memset(user, 'y', 800);
	assert_true(asprintf(&req,
			     "\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and "
			     "sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
			     "IB_VFS_AVAIL\" > 0 & IB_LEAVES = \"*," LEAF_B
			     ",*\" & (X = \"%s\")",
			     user) > 0);
	vm(&c, 10, 1, 5, 1, req); /* B's port is INIT: moved to A */
	vm(&c, 11, 1, 6, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, "A-");
	free(req);
	free(user);
	cloud_free(&c);
}

/*
 * A VM dispatched between the VM and the host listings: PENDING in one,
 * on hv1 in the other. It counts on hv1, once: the burst still splits 4
 * and 2 (counted twice, it split 3 and 3, as t0706 saw once on 7.0).
 */
static void dispatched_between_listings(void **state)
{
	struct cloud c = { 0 };
	char got[64];
	int i;

	(void)state;
	net(&c, 7, NULL, false);
	host(&c, 1, 0, 2, LEAF_A, 2, "<ID>30</ID>");
	host(&c, 2, 0, 2, LEAF_A, 2, "");
	host(&c, 3, 0, 2, LEAF_B, 2, "");
	host(&c, 4, 0, 2, LEAF_B, 2, "");
	for (i = 30; i < 36; i++)
		vm(&c, i, 1, 7, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, ".AAABB");
	cloud_free(&c);
}

/* --- the cluster's map a VM gets with its leaf (fabric/topology.h) ------- */

/* as the shipped template has it: the VF term, then the gate */
#define GATE                                                                   \
	"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "      \
	"TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > 0 & IB_LEAVES = "     \
	"\"*,chosen-by-one-ib,*\""

/* A VM of network net with one IB NIC at 10.0.<net>.<id>; its CONTEXT
 * (with ONEIB_TOPOLOGY topo unless NULL) when ctx. */
static void vm_ip(struct cloud *c, int id, int state, int net, const char *req,
		  bool ctx, const char *topo)
{
	append(&c->vms,
	       "<VM><ID>%d</ID><STATE>%d</STATE><LCM_STATE>%d</LCM_STATE>"
	       "<TEMPLATE><NIC><NIC_ID>0</NIC_ID><NETWORK_ID>%d</NETWORK_ID>"
	       "<IP>10.0.%d.%d</IP><VN_MAD>ib</VN_MAD></NIC>",
	       id, state, state == 3 ? 3 : 0, net, net, id);
	if (ctx)
		append(&c->vms,
		       "<CONTEXT><NETWORK>YES</NETWORK>%s%s%s</CONTEXT>",
		       topo ? "<ONEIB_TOPOLOGY><![CDATA[" : "",
		       topo ? topo : "", topo ? "]]></ONEIB_TOPOLOGY>" : "");
	append(&c->vms, "</TEMPLATE><USER_TEMPLATE>");
	if (req)
		append(&c->vms,
		       "<SCHED_REQUIREMENTS><![CDATA[%s]]></"
		       "SCHED_REQUIREMENTS>",
		       req);
	append(&c->vms, "</USER_TEMPLATE></VM>");
}

/* "ID=map;" for each VM that gets a map, in ID order. */
static char *maps(struct cloud *c)
{
	struct cloud_facts f = { 0 };
	struct leaf_pick *pick;
	char **topo, *out = NULL;
	size_t i;

	read_cloud(c, &f);
	pick = calloc(f.nvms + 1, sizeof(*pick));
	topo = calloc(f.nvms + 1, sizeof(*topo));
	assert_true(pick && topo);
	assert_int_equal(leafpack_plan(&f, pick), 0);
	assert_int_equal(topology_plan(&f, pick, topo), 0);
	append(&out, "%s", "");
	for (i = 0; i < f.nvms; i++) {
		if (topo[i])
			append(&out, "%d=%s;", f.vms[i].id, topo[i]);
		free(topo[i]);
	}
	free(topo);
	free(pick);
	cloud_facts_free(&f);
	return out;
}

/* A burst behind the gate learns its whole cluster, and only it. */
static void topology_of_a_burst(void **state)
{
	struct cloud c = { 0 };
	char *got;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	two_leaves(&c, "<ID>10</ID>", "<ID>11</ID>", "<ID>20</ID>", "");
	vm_ip(&c, 10, 3, 5, NULL, true, NULL); /* running, under A */
	vm_ip(&c, 11, 3, 5, NULL, true, NULL);
	vm_ip(&c, 12, 1, 5, GATE, true, NULL); /* the burst */
	vm_ip(&c, 13, 1, 5, GATE, true, NULL);
	vm_ip(&c, 20, 3, 6, NULL, true, NULL); /* the other tenant */
	vm_ip(&c, 21, 1, 6, GATE, true, NULL);
	got = maps(&c);
	assert_string_equal(got, "12=" LEAF_A "=10.0.5.10,10.0.5.11,10.0.5.12,"
				 "10.0.5.13;"
				 "13=" LEAF_A "=10.0.5.10,10.0.5.11,10.0.5.12,"
				 "10.0.5.13;"
				 "21=" LEAF_B "=10.0.6.20,10.0.6.21;");
	free(got);
	cloud_free(&c);

	/* six that fit under neither leaf: the map says where each goes */
	net(&c, 7, NULL, false);
	two_leaves(&c, "", "", "", "");
	for (int i = 30; i < 36; i++)
		vm_ip(&c, i, 1, 7, GATE, true, NULL);
	got = maps(&c);
	assert_string_equal(got, "30=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;"
				 "31=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;"
				 "32=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;"
				 "33=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;"
				 "34=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;"
				 "35=" LEAF_A "=10.0.7.30,10.0.7.31,10.0.7.32,"
				 "10.0.7.33,10.0.7.34,10.0.7.35;");
	free(got);
	cloud_free(&c);
}

/* Who gets no map: written already, no gate, no CONTEXT, not PENDING. */
static void topology_only_at_the_gate(void **state)
{
	struct cloud c = { 0 };
	char *got;

	(void)state;
	net(&c, 5, NULL, false);
	two_leaves(&c, "", "", "", "");
	vm_ip(&c, 12, 1, 5, GATE, true,
	      LEAF_A "=10.0.5.12,10.0.5.13,10.0.5.14,10.0.5.15"); /* written */
	vm_ip(&c, 13, 1, 5, GATE, true, LEAF_A "=10.0.5.12"); /* stale */
	vm_ip(&c, 14, 1, 5, NULL, true, NULL); /* no gate: VF term only */
	vm_ip(&c, 15, 1, 5, GATE, false, NULL); /* no CONTEXT */
	vm_ip(&c, 16, 2, 5, GATE, true, NULL); /* on HOLD */
	got = maps(&c);
	assert_string_equal(got, "13=" LEAF_A "=10.0.5.12,10.0.5.13,10.0.5.14,"
				 "10.0.5.15;");
	free(got);
	cloud_free(&c);
}

/* A VM with one IB NIC on each network of nets (-1 ends), NIC k at
 * 10.0.<net>.<id>, with a CONTEXT. */
static void vm_nets(struct cloud *c, int id, int state, const char *req,
		    const int *nets)
{
	int k;

	append(&c->vms,
	       "<VM><ID>%d</ID><STATE>%d</STATE><LCM_STATE>%d</LCM_STATE>"
	       "<TEMPLATE>",
	       id, state, state == 3 ? 3 : 0);
	for (k = 0; nets[k] >= 0; k++)
		append(&c->vms,
		       "<NIC><NIC_ID>%d</NIC_ID><NETWORK_ID>%d</NETWORK_ID>"
		       "<IP>10.0.%d.%d</IP><VN_MAD>ib</VN_MAD></NIC>",
		       k, nets[k], nets[k], id);
	append(&c->vms, "<CONTEXT><NETWORK>YES</NETWORK></CONTEXT></TEMPLATE>"
			"<USER_TEMPLATE>");
	if (req)
		append(&c->vms,
		       "<SCHED_REQUIREMENTS><![CDATA[%s]]></"
		       "SCHED_REQUIREMENTS>",
		       req);
	append(&c->vms, "</USER_TEMPLATE></VM>");
}

/*
 * A service (limited) network is no cluster (issue 35): its VMs are
 * other tenants' who share its servers. A VM whose first InfiniBand NIC
 * is on the storage network is packed with, and learns of, its own
 * tenant network's VMs only; one with only a storage NIC is packed with
 * nobody and learns nothing (no leaf term, the gate lifted).
 */
static void service_network_is_no_cluster(void **state)
{
	static const int a_st[] = { 5, 9, -1 }, st_b[] = { 9, 6, -1 },
			 st[] = { 9, -1 };
	struct cloud c = { 0 };
	char got[16], *maps_got;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	append(&c.nets, "<VNET><ID>9</ID><NAME>storage</NAME><CLUSTERS><ID>0"
			"</ID></CLUSTERS><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>"
			"0x8109</IB_PKEY><IB_MEMBERSHIP>limited</IB_MEMBERSHIP>"
			"</TEMPLATE></VNET>");
	two_leaves(&c, "<ID>10</ID>", "", "<ID>20</ID>", "");
	vm_nets(&c, 10, 3, NULL, a_st); /* tenant a, under A */
	vm_nets(&c, 20, 3, NULL, st_b); /* tenant b, under B */
	vm_nets(&c, 21, 1, GATE, st_b); /* b's next: joins b */
	vm_nets(&c, 22, 1, GATE, a_st); /* a's next: joins a */
	vm_nets(&c, 30, 1, GATE, st); /* storage only */
	plan(&c, got);
	assert_string_equal(got, "..BA-");
	maps_got = maps(&c);
	assert_string_equal(maps_got, "21=" LEAF_B "=10.0.6.20,10.0.6.21;"
				      "22=" LEAF_A "=10.0.5.10,10.0.5.22;");
	free(maps_got);
	cloud_free(&c);
}

/*
 * A requirement the parentheses cannot hold (schedreq.h) is refused: the
 * VM gets no leaf, takes no room, and is not placed by a gate lifted.
 */
static void refused_requirement_no_leaf(void **state)
{
	struct cloud c = { 0 };
	char got[16];

	(void)state;
	net(&c, 5, NULL, false);
	host(&c, 1, 0, 2, LEAF_A, 1, ""); /* one VF free under A */
	host(&c, 3, 0, 2, LEAF_B, 0, "");
	vm(&c, 20, 1, 5, 1, "ID = 1) | !(ID = 99999");
	vm(&c, 21, 1, 5, 1, GATE " & (ID = 1) | !(ID = 2)");
	vm(&c, 22, 1, 5, 1,
	   "\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and "
	   "sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/"
	   "IB_VFS_AVAIL\" > 0 & IB_LEAVES = \"*,refused-by-"
	   "one-ib,*\"");
	vm(&c, 23, 1, 5, 1, GATE);
	plan(&c, got);
	/* 21 wraps whole (the gate's text is the user's then), 23 takes the
	 * one VF; the refused ones took none */
	assert_string_equal(got, "RAR-");
	cloud_free(&c);
}

/* A reservation's VMs are its parent's cluster: packed and mapped with
 * the parent's VMs (its NICs are in the parent's partition). */
static void reservation_is_its_parents_cluster(void **state)
{
	static const int a[] = { 5, -1 }, res[] = { 12, -1 };
	struct cloud c = { 0 };
	char got[16], *m;

	(void)state;
	net(&c, 5, NULL, false);
	net(&c, 6, NULL, false);
	append(&c.nets, "<VNET><ID>12</ID><NAME>slice</NAME><PARENT_NETWORK_ID>"
			"5</PARENT_NETWORK_ID><CLUSTERS><ID>0</ID></CLUSTERS>"
			"<VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>0x8105</IB_PKEY>"
			"</TEMPLATE></VNET>");
	two_leaves(&c, "", "", "<ID>10</ID>", "");
	vm_nets(&c, 10, 3, NULL, a); /* a's, under B */
	vm_nets(&c, 11, 1, GATE, res); /* through the reservation */
	plan(&c, got);
	assert_string_equal(got, ".B");
	m = maps(&c);
	assert_string_equal(m, "11=" LEAF_B "=10.0.5.10,10.0.12.11;");
	free(m);
	cloud_free(&c);
}

/*
 * A host of a rail-optimized fabric: rail 0 cabled to leaf l0, rail 1 to
 * l1, each rail's usable VFs as its probe says (IB_RAIL VFS_USABLE).
 */
static void rail_host(struct cloud *c, int id, const char *l0, const char *l1,
		      int u0, int u1, const char *vms)
{
	append(&c->hosts,
	       "<HOST><ID>%d</ID><NAME>hv%d</NAME><STATE>2</STATE>"
	       "<CLUSTER_ID>0</CLUSTER_ID><VMS>%s</VMS><TEMPLATE>"
	       "<IB_PF><ADDRESS>0000:19:00.0</ADDRESS><PORT>1</PORT>"
	       "<PORT_GUID>0x0c42a1030001%04x</PORT_GUID><STATE>ACTIVE</STATE>"
	       "<LINK_LAYER>InfiniBand</LINK_LAYER><DRIVER>mlx5_core</DRIVER>"
	       "<LEAF_GUID>%s</LEAF_GUID><RAIL>0</RAIL></IB_PF>"
	       "<IB_PF><ADDRESS>0000:3d:00.0</ADDRESS><PORT>1</PORT>"
	       "<PORT_GUID>0x0c42a1030002%04x</PORT_GUID><STATE>ACTIVE</STATE>"
	       "<LINK_LAYER>InfiniBand</LINK_LAYER><DRIVER>mlx5_core</DRIVER>"
	       "<LEAF_GUID>%s</LEAF_GUID><RAIL>1</RAIL></IB_PF>"
	       "<IB_RAIL><RAIL>0</RAIL><ADDRESS>0000:19:00.0</ADDRESS>"
	       "<PORT>1</PORT><VFS_USABLE>%d</VFS_USABLE></IB_RAIL>"
	       "<IB_RAIL><RAIL>1</RAIL><ADDRESS>0000:3d:00.0</ADDRESS>"
	       "<PORT>1</PORT><VFS_USABLE>%d</VFS_USABLE></IB_RAIL>"
	       "<IB_VFS_USABLE>%d</IB_VFS_USABLE></TEMPLATE></HOST>",
	       id, id, vms, id, l0, id, l1, u0, u1, u0 + u1);
}

/*
 * Per rail (design decision 15): a leaf's room is what the rails cabled
 * to it have left, and a host fits a VM only with the rails it needs. The
 * cluster's VM 1 took hv1's rail 1 (leaf a); hv1's rail 0 (leaf A) has no
 * VF: VM 2, 2 NICs on distinct rails, cannot go there though hv1 has 7
 * VFs, and goes under the other unit's rail-0 leaf B; VM 3, one NIC,
 * packs with VM 1 under a.
 */
static void packed_per_rail(void **state)
{
	struct cloud c = { 0 };
	char got[16];

	(void)state;
	net(&c, 5, NULL, false);
	rail_host(&c, 1, LEAF_A, "0x0002c90200000a01", 0, 8, "<ID>1</ID>");
	rail_host(&c, 3, LEAF_B, "0x0002c90200000b01", 8, 8, "");
	vm(&c, 1, 3, 5, 1, NULL);
	vm(&c, 2, 1, 5, 2, NULL);
	vm(&c, 3, 1, 5, 1, NULL);
	plan(&c, got);
	assert_string_equal(got, ".Ba");
	cloud_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clusters_packed),
		cmocka_unit_test(bursts_part),
		cmocka_unit_test(waiting_vm_keeps_its_leaf),
		cmocka_unit_test(waiting_vm_keeps_its_leaf_only_where_it_fits),
		cmocka_unit_test(modes_and_states),
		cmocka_unit_test(room_only_where_it_may_go),
		cmocka_unit_test(only_what_matches),
		cmocka_unit_test(dispatched_between_listings),
		cmocka_unit_test(topology_of_a_burst),
		cmocka_unit_test(topology_only_at_the_gate),
		cmocka_unit_test(service_network_is_no_cluster),
		cmocka_unit_test(refused_requirement_no_leaf),
		cmocka_unit_test(reservation_is_its_parents_cluster),
		cmocka_unit_test(packed_per_rail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
