// SPDX-License-Identifier: Apache-2.0
/*
 * The desired partitions (partitions.h) from the cloud's facts: the sample
 * cloud of tests/unit/data/partitions/ (VM 42 RUNNING with NICs on ib
 * networks 5 and 7 and a bridge NIC, VM 43 PENDING, VM 44 SHUTDOWN_POWEROFF
 * (on its way to POWEROFF, its VF still held); node01
 * a ConnectX-3 host in cluster 100 with one IB and one Ethernet port,
 * node02 a ConnectX-4 host, node03 a ConnectX-3 host in cluster 101)
 * rendered to the exact expected text; the same cloud listed in another
 * order renders the same bytes; what one tenant's bad data leaves out and
 * what it never touches (decision 7); one GUID never in two partitions;
 * names within opensm's 31 characters; and what still fails the whole run.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "core/guid.h"
#include "fabric/partitions.h"
#include "fabric/poolread.h"
#include "host/onexml.h"

static const struct render_opts plain = { .cloud_id = 0 };

/* tests/unit/data/partitions/<name> */
static char *read_data(const char *name, size_t *len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "partitions/%s", name);
	return unit_read_data(rel, len);
}

static int build_files(const char *vms, const char *hosts, const char *vnets,
		       struct partitions *m, char *err, size_t errlen)
{
	size_t lv, lh, ln;
	char *v = read_data(vms, &lv), *h = read_data(hosts, &lh),
	     *n = read_data(vnets, &ln);
	int r = partitions_build(v, lv, h, lh, n, ln, &plain, m, err, errlen);

	free(v);
	free(h);
	free(n);
	return r;
}

static int build_opts(const char *vms, const char *hosts, const char *vnets,
		      const struct render_opts *o, struct partitions *m,
		      char *err, size_t errlen)
{
	return partitions_build(vms, strlen(vms), hosts, strlen(hosts), vnets,
				strlen(vnets), o, m, err, errlen);
}

static int build_str(const char *vms, const char *hosts, const char *vnets,
		     struct partitions *m, char *err, size_t errlen)
{
	return build_opts(vms, hosts, vnets, &plain, m, err, errlen);
}

/* Renders m and checks the text round-trips; the caller frees *sb. */
static void render_checked(const struct partitions *m, struct strbuf *sb)
{
	char err[256] = "";

	assert_int_equal(partconf_render(m, sb), 0);
	assert_int_equal(partconf_check(sb->buf, sb->len, m, err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
}

static const struct partition *find_pkey(const struct partitions *m,
					 uint16_t pkey)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->p[i].pkey == pkey)
			return &m->p[i];
	return NULL;
}

static bool has_guid(const struct partition *p, uint64_t g)
{
	size_t i;

	for (i = 0; p && i < p->n; i++)
		if (p->guids[i] == g)
			return true;
	return false;
}

/* The one note that contains want; fails when none or several do. */
static void one_note(const struct partitions *m, const char *want)
{
	size_t i, n = 0;

	for (i = 0; i < m->nnotes; i++) {
		assert_null(strchr(m->notes[i], '\n'));
		n += strstr(m->notes[i], want) != NULL;
	}
	if (n != 1) {
		for (i = 0; i < m->nnotes; i++)
			print_message("note: %s\n", m->notes[i]);
		fail_msg("%zu notes contain '%s'", n, want);
	}
}

/* --- the sample cloud ------------------------------------------------------ */

static void sample_renders_expected_text(void **state)
{
	struct partitions m;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "", *want;
	size_t len;

	(void)state;
	assert_int_equal(build_files("vms.xml", "hosts.xml", "vnets.xml", &m,
				     err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(m.n, 2);
	assert_int_equal(m.nnotes, 0);
	render_checked(&m, &sb);
	want = read_data("expected.conf", &len);
	assert_string_equal(sb_str(&sb), want);
	free(want);
	sb_release(&sb);
	partitions_free(&m);
}

static void sample_membership(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_files("vms.xml", "hosts.xml", "vnets.xml", &m,
				     err, sizeof(err)),
			 0);
	/* VM 42 NIC 0 on tenant-a, its NIC 2 on tenant-b: cloud 0 GUIDs */
	assert_true(has_guid(&m.p[0], 0x02000000002a0000ULL));
	assert_true(has_guid(&m.p[1], 0x02000000002a0002ULL));
	/* VM 43 (PENDING) has no host: its GUID is nowhere. */
	assert_false(has_guid(&m.p[0], 0x02000000002b0000ULL));
	/* node02 is mlx5: its PF is not pre-provisioned anywhere. */
	assert_false(has_guid(&m.p[0], 0x248a070300b1c2d3ULL));
	/* node03 (cluster 101) only in tenant-a, which is in 101. */
	assert_int_equal(m.p[1].n, 2);
	assert_int_equal(m.p[1].guids[0], 0x0002c90300a1b2c1ULL);
	assert_int_equal(m.p[1].guids[1], 0x02000000002a0002ULL);
	partitions_free(&m);
}

/*
 * A member is a VM that holds VFs or is about to: ACTIVE, any LCM_STATE
 * but LCM_INIT. POWEROFF and SUSPENDED keep their host but kvm-ib has
 * released their VFs; resume goes through ACTIVE/BOOT_POWEROFF or
 * BOOT_SUSPENDED before the VFs are attached again. VM 44 in each state.
 */
static void membership_follows_the_vfs(void **state)
{
	static const struct {
		const char *state;
		bool member;
	} cases[] = {
		{ "<STATE>8</STATE><LCM_STATE>0</LCM_STATE>",
		  false }, /* POWEROFF */
		{ "<STATE>5</STATE><LCM_STATE>0</LCM_STATE>",
		  false }, /* SUSPENDED */
		{ "<STATE>4</STATE><LCM_STATE>0</LCM_STATE>",
		  false }, /* STOPPED */
		{ "<STATE>9</STATE><LCM_STATE>0</LCM_STATE>",
		  false }, /* UNDEPLOYED */
		{ "<STATE>3</STATE><LCM_STATE>20</LCM_STATE>",
		  true }, /* BOOT_POWEROFF */
		{ "<STATE>3</STATE><LCM_STATE>21</LCM_STATE>",
		  true }, /* BOOT_SUSPENDED */
		{ "<STATE>3</STATE><LCM_STATE>6</LCM_STATE>",
		  true }, /* SAVE_SUSPEND */
		{ "<STATE>3</STATE><LCM_STATE>18</LCM_STATE>",
		  true }, /* SHUTDOWN_POWEROFF */
	};
	static const char vm44[] = "<STATE>3</STATE><LCM_STATE>18</LCM_STATE>";
	size_t lv, lh, ln, i;
	char *v = read_data("vms.xml", &lv), *h = read_data("hosts.xml", &lh),
	     *n = read_data("vnets.xml", &ln), *at, err[256];
	struct partitions m;

	(void)state;
	at = strstr(v, "<ID>44</ID>");
	assert_non_null(at);
	at = strstr(at, vm44);
	assert_non_null(at);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *doc = malloc(lv + 64);
		size_t pre = (size_t)(at - v);

		assert_non_null(doc);
		snprintf(doc, lv + 64, "%.*s%s%s", (int)pre, v, cases[i].state,
			 at + strlen(vm44));
		err[0] = '\0';
		assert_int_equal(partitions_build(doc, strlen(doc), h, lh, n,
						  ln, &plain, &m, err,
						  sizeof(err)),
				 0);
		assert_int_equal(has_guid(&m.p[0], 0x02000000002c0000ULL),
				 cases[i].member);
		partitions_free(&m);
		free(doc);
	}
	free(v);
	free(h);
	free(n);
}

/*
 * Rails are places on one fabric (design decision 15): a VM's NICs on 8
 * rails of an HGX host are all members of their network's partition, by
 * their GUIDs, whatever rail each VF is on; the other tenant's VM on the
 * same rails is in its own partition only.
 */
static void every_rail_a_member(void **state)
{
	char *vms = strdup("<VM_POOL>"),
	     *hosts = strdup("<HOST_POOL><HOST>"
			     "<ID>3</ID><NAME>hgx"
			     "</NAME><CLUSTER_ID>"
			     "0</CLUSTER_ID>"
			     "<TEMPLATE>"),
	     *p, err[256] = "";
	static const char vnets[] =
		"<VNET_POOL><VNET><ID>5</ID><NAME>a</NAME><CLUSTERS><ID>0</ID>"
		"</CLUSTERS><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>0x8105"
		"</IB_PKEY></TEMPLATE></VNET><VNET><ID>6</ID><NAME>b</NAME>"
		"<CLUSTERS><ID>0</ID></CLUSTERS><VN_MAD>ib</VN_MAD><TEMPLATE>"
		"<IB_PKEY>0x8106</IB_PKEY></TEMPLATE></VNET></VNET_POOL>";
	struct partitions m;
	int k, id;

	(void)state;
	for (k = 0; k < 8; k++) {
		assert_true(asprintf(&p,
				     "%s<IB_PF><ADDRESS>0000:%02x:00.0</"
				     "ADDRESS>"
				     "<PORT>1</PORT><PORT_GUID>0xa088c20300b%d"
				     "0001</PORT_GUID><LINK_LAYER>InfiniBand"
				     "</LINK_LAYER><DRIVER>mlx5_core</DRIVER>"
				     "<RAIL>%d</RAIL></IB_PF>",
				     hosts, 0x19 + k, k + 1, k) > 0);
		free(hosts);
		hosts = p;
	}
	assert_true(asprintf(&p, "%s</TEMPLATE></HOST></HOST_POOL>", hosts) >
		    0);
	free(hosts);
	hosts = p;
	/* VM 50: 8 NICs on network 5; VM 51: 2 on network 6, same host */
	for (id = 50; id <= 51; id++) {
		assert_true(asprintf(&p,
				     "%s<VM><ID>%d</ID><STATE>3</STATE>"
				     "<LCM_STATE>3</LCM_STATE><TEMPLATE>",
				     vms, id) > 0);
		free(vms);
		vms = p;
		for (k = 0; k < (id == 50 ? 8 : 2); k++) {
			assert_true(asprintf(&p,
					     "%s<NIC><NIC_ID>%d</NIC_ID>"
					     "<NETWORK_ID>%d</NETWORK_ID><MAC>"
					     "02:00:0a:00:%02x:%02x</MAC>"
					     "<VN_MAD>ib</VN_MAD></NIC>",
					     vms, k, id == 50 ? 5 : 6, id,
					     k) > 0);
			free(vms);
			vms = p;
		}
		assert_true(asprintf(&p,
				     "%s</TEMPLATE><HISTORY_RECORDS><HISTORY>"
				     "<HID>3</HID></HISTORY></HISTORY_RECORDS>"
				     "</VM>",
				     vms) > 0);
		free(vms);
		vms = p;
	}
	assert_true(asprintf(&p, "%s</VM_POOL>", vms) > 0);
	free(vms);
	vms = p;
	assert_int_equal(build_str(vms, hosts, vnets, &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.p[0].pkey, 0x0105);
	assert_int_equal(m.p[0].n, 8);
	for (k = 0; k < 8; k++) {
		assert_true(has_guid(&m.p[0], 0x0200000000320000ULL + k));
		assert_false(has_guid(&m.p[1], 0x0200000000320000ULL + k));
	}
	assert_int_equal(m.p[1].n, 2);
	assert_true(has_guid(&m.p[1], 0x0200000000330000ULL));
	assert_true(has_guid(&m.p[1], 0x0200000000330001ULL));
	partitions_free(&m);
	free(vms);
	free(hosts);
}

static void shuffled_input_renders_same_bytes(void **state)
{
	struct partitions a, b;
	struct strbuf sa = STRBUF_INIT, sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_files("vms.xml", "hosts.xml", "vnets.xml", &a,
				     err, sizeof(err)),
			 0);
	assert_int_equal(build_files("vms_shuffled.xml", "hosts_shuffled.xml",
				     "vnets_shuffled.xml", &b, err,
				     sizeof(err)),
			 0);
	render_checked(&a, &sa);
	render_checked(&b, &sb);
	assert_int_equal(sa.len, sb.len);
	assert_memory_equal(sa.buf, sb.buf, sa.len);
	assert_true(partitions_equal(&a, &b));
	sb_release(&sa);
	sb_release(&sb);
	partitions_free(&a);
	partitions_free(&b);
}

static void empty_cloud_is_default_only(void **state)
{
	struct partitions m;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_str("<VM_POOL/>", "<HOST_POOL/>", "<VNET_POOL/>",
				   &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 0);
	render_checked(&m, &sb);
	assert_string_equal(sb_str(&sb), "# oneib-partitions: generated from "
					 "the cloud's "
					 "state, do not edit\n"
					 "# from: one-ib\n"
					 "Default=0x7fff, ipoib : ALL=limited, "
					 "SELF=full ;\n");
	sb_release(&sb);
	partitions_free(&m);
}

/* --- small clouds ---------------------------------------------------------- */

#define IBNET(id, name, tmpl)                                                  \
	"<VNET><ID>" #id "</ID><NAME>" name "</NAME>"                          \
	"<CLUSTERS><ID>0</ID></CLUSTERS><VN_MAD>ib</VN_MAD>"                   \
	"<TEMPLATE>" tmpl "</TEMPLATE></VNET>"
#define PKEY(v) "<IB_PKEY><![CDATA[" v "]]></IB_PKEY>"
#define NIC(id, mac, net, extra)                                               \
	"<NIC><MAC>" mac "</MAC><NETWORK_ID>" #net "</NETWORK_ID>"             \
	"<NIC_ID>" #id "</NIC_ID>" extra "</NIC>"
#define VM(id, nics)                                                           \
	"<VM><ID>" #id "</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE>"         \
	"<TEMPLATE>" nics "</TEMPLATE></VM>"
#define VM_NIC(mac)                                                            \
	"<VM_POOL>" VM(42, NIC(1, mac, 5, "<VN_MAD>ib</VN_MAD>")) "</VM_POOL>"
#define MLX4_HOST(guid)                                                        \
	"<HOST_POOL><HOST><ID>3</ID><NAME>node03</NAME>"                       \
	"<CLUSTER_ID>0</CLUSTER_ID><TEMPLATE><IB_PF><PORT>1</PORT>"            \
	"<PORT_GUID>" guid "</PORT_GUID><DRIVER>mlx4_core</DRIVER>"            \
	"</IB_PF></TEMPLATE></HOST></HOST_POOL>"
#define TWO_NETS(tmpl_b)                                                       \
	"<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))                            \
		IBNET(7, "b", tmpl_b) "</VNET_POOL>"

/*
 * `onevm list -x` gives the short VM body: NICs without VN_MAD. A NIC is
 * InfiniBand because its network is; a NIC on another network, or on no
 * network of the pool, is not.
 */
static const char short_vms[] = "<VM_POOL>" VM(
	42, NIC(0, "02:00:c0:a8:01:05", 5, "")
		    NIC(1, "02:00:c0:a8:01:06", 2, "") "<NIC><MAC>02:00:c0:a8:"
						       "01:07</MAC><NIC_ID>"
						       "2</NIC_ID></NIC>") "</"
									   "VM_"
									   "POO"
									   "L>";
#define BRIDGE_NET "<VNET><ID>2</ID><VN_MAD>bridge</VN_MAD></VNET>"
static const char short_vnets[] = "<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))
	BRIDGE_NET "</VNET_POOL>";

static void short_form_nics(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_str(short_vms, "<HOST_POOL/>", short_vnets, &m,
				   err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(m.n, 1);
	assert_int_equal(m.p[0].n, 1);
	assert_true(m.p[0].guids[0] == 0x02000000002a0000ULL);
	assert_int_equal(m.nnotes, 0);
	partitions_free(&m);
}

/*
 * OpenNebula 6.4+: a network vnet_create has not finished (LOCK_CREATE, no
 * IB_PKEY yet) or refused (ERROR) has no partition and fails nothing; READY
 * and UPDATE_FAILURE ones do have one.
 */
#define NET_IN(id, st, tmpl)                                                   \
	"<VNET><ID>" #id "</ID><STATE>" #st "</STATE><VN_MAD>ib</VN_MAD>"      \
	"<TEMPLATE>" tmpl "</TEMPLATE></VNET>"
static const char states_vnets[] = "<VNET_POOL>" NET_IN(5, 2, "")
	NET_IN(6, 5, "") NET_IN(7, 6, PKEY("0x8102"))
		NET_IN(8, 1, PKEY("0x8103")) "</VNET_POOL>";

static void networks_not_ready_have_no_partition(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_str(VM_NIC("02:00:c0:a8:01:05"), "<HOST_POOL/>",
				   states_vnets, &m, err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(m.n, 2);
	assert_int_equal(m.p[0].pkey, 0x0102);
	assert_int_equal(m.p[1].pkey, 0x0103);
	assert_int_equal(m.p[0].n + m.p[1].n, 0); /* VM 42's NIC: network 5 */
	assert_int_equal(m.nnotes, 0);
	partitions_free(&m);
}

/* --- the GUID: VM ID and NIC ID, never the MAC (decision 2) --------------- */

/*
 * Two tenants' networks on one address range hand out the same MAC: VM 10
 * on a and VM 11 on b both have 02:00:c0:a8:01:0a. Their GUIDs differ, and
 * each is a member of its own tenant's partition only.
 */
#define SAME_MAC_VMS                                                           \
	"<VM_POOL>" VM(10, NIC(0, "02:00:c0:a8:01:0a", 5, ""))                 \
		VM(11, NIC(0, "02:00:c0:a8:01:0a", 7, "")) "</VM_POOL>"

static void same_mac_two_tenants_distinct_guids(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_str(SAME_MAC_VMS, "<HOST_POOL/>",
				   TWO_NETS(PKEY("0x8102")), &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.p[0].n, 1);
	assert_int_equal(m.p[1].n, 1);
	assert_true(m.p[0].guids[0] == 0x02000000000a0000ULL); /* VM 10 NIC 0 */
	assert_true(m.p[1].guids[0] == 0x02000000000b0000ULL); /* VM 11 NIC 0 */
	assert_int_equal(m.nnotes, 0);
	partitions_free(&m);
}

static void cloud_id_in_every_guid(void **state)
{
	const struct render_opts o = { .cloud_id = 3 };
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_opts(SAME_MAC_VMS, "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_true(m.p[0].guids[0] == 0x02030000000a0000ULL);
	assert_true(m.p[1].guids[0] == 0x02030000000b0000ULL);
	partitions_free(&m);
}

/*
 * The upgrade bridge: a VF deployed before the change still has its
 * MAC-derived GUID, so --legacy-guids adds it too. Where two tenants'
 * MACs meet, that old GUID would put one port in both partitions: both
 * NICs are left out, each named, while a NIC whose old GUID is its own
 * stays in with both of its GUIDs.
 */
static void legacy_guids_and_their_collisions(void **state)
{
	const struct render_opts o = { .legacy_guids = true };
	const struct partition *a, *b;
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		build_opts("<VM_POOL>" VM(10,
					  NIC(0, "02:00:c0:a8:01:0a", 5, ""))
				   VM(11, NIC(0, "02:00:c0:a8:01:0a", 7, ""))
					   VM(12, NIC(0, "02:00:c0:a8:01:0c", 5,
						      "")) "</VM_POOL>",
			   "<HOST_POOL/>", TWO_NETS(PKEY("0x8102")), &o, &m,
			   err, sizeof(err)),
		0);
	a = find_pkey(&m, 0x0101);
	b = find_pkey(&m, 0x0102);
	assert_int_equal(a->n, 2);
	assert_true(has_guid(a, 0x02000000000c0000ULL));
	assert_true(has_guid(a, 0x0200c0fffea8010cULL));
	assert_int_equal(b->n, 0);
	assert_int_equal(m.nnotes, 2);
	one_note(&m, "VM 10 NIC 0: GUID 0x0200c0fffea8010a (MAC "
		     "02:00:c0:a8:01:0a (old GUID)) is also VM 11 NIC 0's, on "
		     "VNET 7 (b); left out of VNET 5 (a)");
	one_note(&m, "VM 11 NIC 0: GUID 0x0200c0fffea8010a (MAC "
		     "02:00:c0:a8:01:0a (old GUID)) is also VM 10 NIC 0's, on "
		     "VNET 5 (a); left out of VNET 7 (b)");
	partitions_free(&m);

	/* without a MAC there is no old GUID to add: that NIC only */
	assert_int_equal(build_opts("<VM_POOL>" VM(10, "<NIC><NETWORK_ID>5</"
						       "NETWORK_ID><NIC_ID>0</"
						       "NIC_ID></NIC>")
					    VM(12, NIC(0, "02:00:c0:a8:01:0c",
						       5, "")) "</VM_POOL>",
				    "<HOST_POOL/>", TWO_NETS(PKEY("0x8102")),
				    &o, &m, err, sizeof(err)),
			 0);
	assert_int_equal(find_pkey(&m, 0x0101)->n, 2);
	one_note(&m, "VM 10 NIC 0: no MAC (--legacy-guids); left out of "
		     "VNET 5 (a)");
	partitions_free(&m);
}

/*
 * One GUID in two partitions, or twice: the same NIC_ID given to two NICs
 * of one VM on two networks (a crafted listing), or a NIC whose GUID is a
 * ConnectX-3 host's port. Every NIC sharing it is left out; a VM listed
 * twice (overlapping pages) is one NIC, not a collision.
 */
static void one_guid_never_in_two_partitions(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		build_str("<VM_POOL>" VM(20, NIC(3, "02:00:00:00:00:01", 5, "")
						     NIC(3, "02:00:00:00:00:02",
							 7, ""))
				  VM(21, NIC(0, "02:00:00:00:00:03", 5, ""))
					  VM(21, NIC(0, "02:00:00:00:00:03", 5,
						     "")) "</VM_POOL>",
			  "<HOST_POOL/>", TWO_NETS(PKEY("0x8102")), &m, err,
			  sizeof(err)),
		0);
	assert_int_equal(find_pkey(&m, 0x0101)->n, 1);
	assert_true(has_guid(find_pkey(&m, 0x0101), 0x0200000000150000ULL));
	assert_int_equal(find_pkey(&m, 0x0102)->n, 0);
	assert_int_equal(m.nnotes, 2);
	one_note(&m, "VM 20 NIC 3: GUID 0x0200000000140003 (VM 20 NIC 3) is "
		     "also VM 20 NIC 3's, on VNET 7 (b); left out of VNET 5 "
		     "(a)");
	one_note(&m, "on VNET 5 (a); left out of VNET 7 (b)");
	partitions_free(&m);

	/* a host port with a NIC's GUID (a hand-made PORT_GUID) */
	assert_int_equal(build_str(VM_NIC("02:00:c0:a8:01:05"),
				   MLX4_HOST("0x02000000002a0001"),
				   TWO_NETS(PKEY("0x8102")), &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(find_pkey(&m, 0x0101)->n, 1); /* the port only */
	one_note(&m, "VM 42 NIC 1: GUID 0x02000000002a0001 (VM 42 NIC 1) is a "
		     "ConnectX-3 host's port; left out of VNET 5 (a)");
	partitions_free(&m);
}

/* --- one tenant's bad data (decision 7) ------------------------------------ */

/* What installed.conf held: a with VM 40, b with VM 41 and the sl it had. */
static const char installed_text[] = "# oneib-partitions: generated from the "
				     "cloud's state, do not edit\n"
				     "Default=0x7fff, ipoib : ALL=limited, "
				     "SELF=full ;\n"
				     "vnet5_a=0x0101, ipoib :\n"
				     "\t0x0200000000280000=full ;\n"
				     "vnet7_b=0x0102, ipoib, sl=2 :\n"
				     "\t0x0200000000290000=full ;\n";

static void read_installed(struct partitions *in)
{
	char err[256] = "";

	/* as the renderer reads the installed file: whoever wrote it (this
	 * one by one-ib before the origin marks) */
	assert_int_equal(partconf_parse(installed_text, strlen(installed_text),
					PARTCONF_ANY, in, err, sizeof(err)),
			 0);
}

/* Now VM 40 is gone, VM 42 is on a, VM 43 on b, and b asks for IB_SL 16. */
#define NOW_VMS                                                                \
	"<VM_POOL>" VM(42, NIC(0, "02:00:00:00:00:2a", 5, ""))                 \
		VM(43, NIC(0, "02:00:00:00:00:2b", 7, "")) "</VM_POOL>"

static void bad_network_keeps_installed_partition(void **state)
{
	struct partitions in, m;
	const struct render_opts o = { .installed = &in };
	const struct partition *a, *b;
	char err[256] = "";
	static const char *const bad[] = {
		"<IB_SL>16</IB_SL>",
		"<IB_RATE>100</IB_RATE>",
		"<IB_MTU>9000</IB_MTU>",
		"<IB_MTU>2048</IB_MTU><IB_MTU>4096</IB_MTU>",
		"<IB_PF>3b:00.0</IB_PF>",
		"<IB_PORT>0</IB_PORT>",
		"<IB_MODE>fast</IB_MODE>",
	};
	static const char *const why[] = {
		"VNET 7 (b): IB_SL '16' is not a service level 0..15",
		"VNET 7 (b): IB_RATE '100' is not a rate code 2..24",
		"VNET 7 (b): IB_MTU '9000' is not 256, 512, 1024, 2048 or "
		"4096",
		"VNET 7 (b): IB_MTU given twice",
		"VNET 7 (b): IB_PF '3b:00.0' is not a PCI address",
		"VNET 7 (b): IB_PORT '0' is not a port number 1..9",
		"VNET 7 (b): IB_MODE 'fast' is not datagram or connected",
	};
	char vnets[512];
	size_t i;

	(void)state;
	read_installed(&in);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(vnets, sizeof(vnets),
			 "<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))
				 IBNET(7, "b", PKEY("0x8102") "%s") "</VNET_"
								    "POOL>",
			 bad[i]);
		assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>", vnets, &o,
					    &m, err, sizeof(err)),
				 0);
		/* a follows the cloud: VM 40 left, VM 42 joined */
		a = find_pkey(&m, 0x0101);
		assert_non_null(a);
		assert_int_equal(a->n, 1);
		assert_true(a->guids[0] == 0x02000000002a0000ULL);
		/* b is as installed: VM 41, sl 2; VM 43 did not join */
		b = find_pkey(&m, 0x0102);
		assert_non_null(b);
		assert_string_equal(b->name, "vnet7_b");
		assert_int_equal(b->sl, 2);
		assert_int_equal(b->n, 1);
		assert_true(b->guids[0] == 0x0200000000290000ULL);
		assert_int_equal(m.nnotes, 1);
		one_note(&m, why[i]);
		one_note(&m, "; left out, its installed partition 0x0102 kept");
		partitions_free(&m);
	}
	/* with nothing installed, b has no partition at all */
	assert_int_equal(build_str(NOW_VMS, "<HOST_POOL/>",
				   TWO_NETS(PKEY("0x8102") "<IB_SL>16</IB_SL>"),
				   &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 1);
	one_note(&m, "VNET 7 (b): IB_SL '16' is not a service level 0..15; "
		     "left out, no partition (none was installed)");
	partitions_free(&m);
	partitions_free(&in);
}

static void bad_pkeys_are_left_out(void **state)
{
	struct partitions m;
	char err[256] = "";
	static const struct {
		const char *tmpl, *why;
	} cases[] = {
		{ PKEY("0x7fff"), "VNET 7 (b): IB_PKEY '0x7fff' is the default "
				  "partition" },
		{ PKEY("0xffff"), "IB_PKEY '0xffff' is the default partition" },
		{ PKEY("0x8000"), "IB_PKEY '0x8000' is partition 0" },
		{ PKEY("0x1zz"), "IB_PKEY '0x1zz' is not a P_Key" },
		{ PKEY("0x0102"), "IB_PKEY '0x0102' is a limited-member key "
				  "(write 0x8102" },
		{ PKEY("258"), "IB_PKEY '258' is a limited-member key" },
		{ PKEY("0x8102") PKEY("0x8103"), "IB_PKEY given twice" },
		{ "<IB_MTU>2048</IB_MTU>", "VNET 7 (b): no IB_PKEY;" },
		{ PKEY(""), "VNET 7 (b): no IB_PKEY;" },
		/* the other partition: neither held it before, both out */
		{ PKEY("0x8101"), "VNET 7 (b): IB_PKEY 0x8101 is partition "
				  "0x0101, also claimed by VNET 5 (a)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char vnets[512];

		snprintf(vnets, sizeof(vnets),
			 "<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))
				 IBNET(7, "b", "%s") "</VNET_POOL>",
			 cases[i].tmpl);
		assert_int_equal(build_str(NOW_VMS, "<HOST_POOL/>", vnets, &m,
					   err, sizeof(err)),
				 0);
		one_note(&m, cases[i].why);
		assert_null(find_pkey(&m, 0x0102));
		if (i + 1 < sizeof(cases) / sizeof(cases[0])) {
			assert_int_equal(m.n, 1); /* a follows the cloud */
			assert_int_equal(m.p[0].n, 1);
		} else {
			assert_int_equal(m.n, 0);
			one_note(&m, "VNET 5 (a): IB_PKEY 0x8101 is partition "
				     "0x0101, also claimed by VNET 7 (b)");
		}
		partitions_free(&m);
	}
}

/*
 * b takes a's partition (an update): a held it in the installed file, so a
 * keeps it and follows the cloud; b keeps its own installed partition.
 */
static void collision_holder_keeps_its_partition(void **state)
{
	struct partitions in, m;
	const struct render_opts o = { .installed = &in };
	char err[256] = "";

	(void)state;
	read_installed(&in);
	assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8101")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_int_equal(m.n, 2);
	assert_true(find_pkey(&m, 0x0101)->guids[0] == 0x02000000002a0000ULL);
	assert_true(find_pkey(&m, 0x0102)->guids[0] == 0x0200000000290000ULL);
	one_note(&m, "VNET 7 (b): IB_PKEY 0x8101 is partition 0x0101, held by "
		     "VNET 5 (a); left out, its installed partition 0x0102 "
		     "kept");
	partitions_free(&m);

	/* a good network now has b's old key: b's installed one is gone */
	assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>",
				    "<VNET_POOL>" IBNET(5, "a", PKEY("0x8102"))
					    IBNET(7, "b",
						  PKEY("0x8102") "<IB_SL>16</"
								 "IB_SL>") "</"
									   "VNE"
									   "T_"
									   "POO"
									   "L>",
				    &o, &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.p[0].name, "vnet5_a");
	one_note(&m, "its installed partition 0x0102 is now VNET 5 (a)'s: no "
		     "partition");
	partitions_free(&m);
	partitions_free(&in);
}

/*
 * A kept partition's member that the cloud now has in a good partition
 * is dropped from the kept one: VM 41 moved its NIC 0 to a.
 */
static void kept_member_the_cloud_moved(void **state)
{
	struct partitions in, m;
	const struct render_opts o = { .installed = &in };
	char err[256] = "";

	(void)state;
	read_installed(&in);
	assert_int_equal(build_opts("<VM_POOL>" VM(41, NIC(0,
							   "02:00:00:00:00:"
							   "29",
							   5, "")) "</VM_POOL>",
				    "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8102") "<IB_SL>16</"
							    "IB_SL>"),
				    &o, &m, err, sizeof(err)),
			 0);
	assert_true(has_guid(find_pkey(&m, 0x0101), 0x0200000000290000ULL));
	assert_int_equal(find_pkey(&m, 0x0102)->n, 0);
	partitions_free(&m);
	partitions_free(&in);
}

/*
 * The upgrade: the installed file was written by `oneib-pkey partitions`,
 * with names up to 52 characters ("one_vnet_<ID>_<name>"). A refused
 * network still keeps its partition from it, under a name opensm keeps
 * whole; the first render rewrites every name.
 */
static void kept_from_a_file_of_before(void **state)
{
	static const char old[] =
		"# oneib-pkey partitions: generated from the cloud's state, do "
		"not edit\n"
		"Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"one_vnet_5_a=0x0101, ipoib :\n\t0x0200c0fffea80105=full ;\n"
		"one_vnet_7_b_with_a_name_of_thirty_two_chars=0x0102, ipoib, "
		"sl=2 :\n\t0x0200c0fffea80106=full ;\n";
	struct partitions in, m;
	const struct render_opts o = { .installed = &in };
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(partconf_parse(old, strlen(old), 0, &in, err,
					sizeof(err)),
			 -EINVAL); /* too long for what we write now */
	assert_int_equal(partconf_parse(old, strlen(old), PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8102") "<IB_SL>16</"
							    "IB_SL>"),
				    &o, &m, err, sizeof(err)),
			 0);
	assert_string_equal(find_pkey(&m, 0x0102)->name, "vnet7_b");
	assert_int_equal(find_pkey(&m, 0x0102)->sl, 2);
	assert_true(find_pkey(&m, 0x0102)->guids[0] == 0x0200c0fffea80106ULL);
	assert_string_equal(find_pkey(&m, 0x0101)->name, "vnet5_a");
	render_checked(&m, &sb);
	sb_release(&sb);
	partitions_free(&m);
	partitions_free(&in);
}

/*
 * Finding 4: a NIC whose own IB_PKEY (the full listing carries it) is not
 * its network's, or is malformed, is left out and named; a NIC without
 * NIC_ID too. The rest of its network follows the cloud.
 */
static void nic_that_cannot_be_rendered(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		build_str("<VM_POOL>" VM(50, NIC(0, "02:00:00:00:00:01", 5,
						 PKEY("0x8102")))
				  VM(51, NIC(0, "02:00:00:00:00:02", 5,
					     PKEY("0x0101")))
					  VM(52, NIC(0, "02:00:00:00:00:03", 5,
						     PKEY("0x8101"))) VM(53,
									 "<NIC>"
									 "<NETW"
									 "ORK_"
									 "ID>5<"
									 "/"
									 "NETWO"
									 "RK_"
									 "ID></"
									 "NIC>")
						  VM(54, NIC(0,
							     "02:00:00:00:"
							     "00:05",
							     9,
							     "<VN_MAD>ib</"
							     "VN_MAD>")) "<"
									 "/"
									 "V"
									 "M"
									 "_"
									 "P"
									 "O"
									 "O"
									 "L"
									 ">",
			  "<HOST_POOL/>", TWO_NETS(PKEY("0x8102")), &m, err,
			  sizeof(err)),
		0);
	assert_int_equal(find_pkey(&m, 0x0101)->n, 1);
	assert_true(find_pkey(&m, 0x0101)->guids[0] == 0x0200000000340000ULL);
	assert_int_equal(m.nnotes, 4);
	one_note(&m, "VM 50 NIC 0: IB_PKEY 0x8102 is not its network's 0x8101; "
		     "left out of VNET 5 (a)");
	one_note(&m, "VM 51 NIC 0: IB_PKEY '0x0101' is a limited-member key");
	one_note(&m, "VM 53 (NIC element 1): no NIC_ID; left out of VNET 5 "
		     "(a)");
	one_note(&m, "VM 54 NIC 0: network 9 is not an InfiniBand network of "
		     "the pool; left out");
	partitions_free(&m);
}

/*
 * One <NIC> reader (core/onenic.h) for deploy and the renderer: a NIC that
 * breaks a rule of it is refused by deploy and left out of the partitions
 * here, each time in the same words, and the stricter rule of the two
 * readers holds on both sides (every element once, IB_PF and IB_PORT by
 * IB_PF's and IB_PORT's rules).
 */
static void nic_read_as_deploy_reads_it(void **state)
{
	static const char *const bad[] = {
		NIC(0, "02:00:00:00:00:01", 5,
		    PKEY("0x8101") "<IB_PF>3b:00.0</IB_PF>"),
		NIC(0, "02:00:00:00:00:01", 5,
		    PKEY("0x8101") "<IB_PORT>10</IB_PORT>"),
		NIC(0, "02:00:00:00:00:01", 5,
		    PKEY("0x8101") "<MAC>02:00:00:00:00:02</MAC>"),
		NIC(0, "02:00:00:00:00:01", 5,
		    PKEY("0x8101") "<TARGET>a</TARGET><TARGET>b</TARGET>"),
		"<NIC><MAC>02:00:00:00:00:01</MAC><NETWORK_ID>5</NETWORK_ID>"
		"<NIC_ID>1a</NIC_ID>" PKEY("0x8101") "</NIC>",
		NIC(0, "02:00:00:00:00:01", 5, PKEY("0x0101")),
	};
	char vms[1024], vm[1024], err[256], want[300];
	struct partitions m;
	struct one_vm v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(vm, sizeof(vm),
			 "<VM><ID>60</ID><TEMPLATE>%.*s<VN_MAD>ib</VN_MAD>"
			 "</NIC></TEMPLATE></VM>",
			 (int)(strlen(bad[i]) - strlen("</NIC>")), bad[i]);
		assert_int_equal(onexml_parse_vm(vm, strlen(vm), &v, err,
						 sizeof(err)),
				 -EINVAL);
		snprintf(want, sizeof(want), "%s; left out of VNET 5 (a)", err);
		/* the same NIC in the pool, whose VM has a STATE */
		snprintf(vms, sizeof(vms),
			 "<VM_POOL><VM><ID>60</ID><STATE>3</STATE>"
			 "<LCM_STATE>3</LCM_STATE>%s</VM_POOL>",
			 strstr(vm, "<TEMPLATE>"));
		assert_int_equal(build_str(vms, "<HOST_POOL/>",
					   TWO_NETS(PKEY("0x8102")), &m, err,
					   sizeof(err)),
				 0);
		assert_int_equal(find_pkey(&m, 0x0101)->n, 0);
		one_note(&m, want);
		partitions_free(&m);
	}
}

/* --- names ----------------------------------------------------------------- */

static void names_fit_opensm(void **state)
{
	struct partitions m;
	char err[256] = "";
	size_t i;

	(void)state;
	assert_int_equal(
		build_str("<VM_POOL/>", "<HOST_POOL/>",
			  "<VNET_POOL>" IBNET(2147483647,
					      "a-very-long-tenant-network-name-"
					      "of-52-characters-xx",
					      PKEY("0x8101")) IBNET(2147483646,
								    "a-very-"
								    "long-"
								    "tenant-"
								    "network-"
								    "name-of-"
								    "52-"
								    "characters"
								    "-xx",
								    PKEY("0x810"
									 "2"))
				  IBNET(3, "x y#z", PKEY("0x8103"))
					  IBNET(4, "", PKEY("0x8104")) "</"
								       "VNET_"
								       "POOL>",
			  &m, err, sizeof(err)),
		0);
	assert_int_equal(m.n, 4);
	for (i = 0; i < m.n; i++)
		assert_true(strlen(m.p[i].name) <= PARTCONF_NAME_MAX);
	assert_string_equal(find_pkey(&m, 0x0101)->name, "vnet2147483647_a-"
							 "very-long-tena");
	assert_string_equal(find_pkey(&m, 0x0102)->name, "vnet2147483646_a-"
							 "very-long-tena");
	assert_string_equal(find_pkey(&m, 0x0103)->name, "vnet3_x_y_z");
	assert_string_equal(find_pkey(&m, 0x0104)->name, "vnet4");
	partitions_free(&m);

	assert_int_equal(partition_vnet_id("vnet7_tenant-b"), 7);
	assert_int_equal(partition_vnet_id("vnet7"), 7);
	assert_int_equal(partition_vnet_id("one_vnet_7_tenant_b__lab__2"), 7);
	assert_int_equal(partition_vnet_id("vnet07_x"), -1);
	assert_int_equal(partition_vnet_id("vnet7x"), -1);
	assert_int_equal(partition_vnet_id("vnet"), -1);
	assert_int_equal(partition_vnet_id("vnet99999999999_x"), -1);
	assert_int_equal(partition_vnet_id("storage"), -1);
}

/* --- what still fails the whole run ---------------------------------------- */

static void refused(const char *vms, const char *hosts, const char *vnets,
		    const char *want)
{
	struct partitions m = { .p = (struct partition *)&m, .n = 99 };
	char err[256] = "";

	assert_int_equal(build_str(vms, hosts, vnets, &m, err, sizeof(err)),
			 -EINVAL);
	assert_null(m.p);
	assert_int_equal(m.n, 0);
	if (!strstr(err, want))
		fail_msg("'%s' does not contain '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void refuses_malformed_pf_guid(void **state)
{
	(void)state;
	refused("<VM_POOL/>", MLX4_HOST("0x0002c9zz00a1b2c1"),
		TWO_NETS(PKEY("0x8102")),
		"HOST 3 (node03): IB_PF PORT_GUID '0x0002c9zz00a1b2c1' is not "
		"a GUID");
	refused("<VM_POOL/>", MLX4_HOST("0x0"), TWO_NETS(PKEY("0x8102")),
		"is not a GUID");
}

static void refuses_broken_listings(void **state)
{
	(void)state;
	refused("<!DOCTYPE x [<!ENTITY e \"a\">]><VM_POOL>&e;</VM_POOL>",
		"<HOST_POOL/>", "<VNET_POOL/>", "VM pool");
	refused("<VM_POOL/>", "<HOST_POOL/>", "<VNET/>", "<VNET_POOL>");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))
			IBNET(5, "a", PKEY("0x8101")) "</VNET_POOL>",
		"VNET pool: VNET 5 listed twice");
	refused("<VM_POOL><VM><STATE>3</STATE></VM></VM_POOL>", "<HOST_POOL/>",
		"<VNET_POOL/>", "VM pool: VM element 1 has no single <ID>");
	refused("<VM_POOL><VM><ID>4</ID></VM></VM_POOL>", "<HOST_POOL/>",
		"<VNET_POOL/>", "VM 4: no STATE or LCM_STATE");
}

/* Finding 9: libxml2's message ends with a newline, cut before it could
 * be sanitized into a stray '?'. */
static void xml_errors_end_cleanly(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_str("<VM_POOL><VM></VM_POOL>", "<HOST_POOL/>",
				   "<VNET_POOL/>", &m, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "VM pool: not well-formed XML: line 1: "));
	assert_int_not_equal(err[strlen(err) - 1], '?');
	assert_null(strchr(err, '?'));
}

/* n ib networks 0x8001.. in cluster 0, and one mlx4 host there. */
static char *many_vnets(int n)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	assert_int_equal(sb_adds(&sb, "<VNET_POOL>"), 0);
	for (i = 1; i <= n; i++)
		assert_int_equal(sb_addf(&sb,
					 "<VNET><ID>%d</ID><NAME>n%d</"
					 "NAME><CLUSTERS>"
					 "<ID>0</ID></CLUSTERS><VN_MAD>ib</"
					 "VN_MAD>"
					 "<TEMPLATE><IB_PKEY>0x%04x</IB_PKEY></"
					 "TEMPLATE>"
					 "</VNET>",
					 i, i, 0x8000 | i),
				 0);
	assert_int_equal(sb_adds(&sb, "</VNET_POOL>"), 0);
	return sb.buf;
}

static void mlx4_port_key_limit(void **state)
{
	struct partitions m;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "", *v = many_vnets(126);

	(void)state;
	/* 126 tenant keys + the default = 127 entries: fits. */
	assert_int_equal(build_str("<VM_POOL/>",
				   MLX4_HOST("0x0002c90300a1b2c1"), v, &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(m.n, 126);
	assert_int_equal(m.p[125].n, 1);
	render_checked(&m, &sb);
	sb_release(&sb);
	partitions_free(&m);
	free(v);

	/* One network more freezes no one: the port keeps the 126 oldest
	 * networks, the newest is left out on it and said so. */
	v = many_vnets(127);
	assert_int_equal(build_str("<VM_POOL/>",
				   MLX4_HOST("0x0002c90300a1b2c1"), v, &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(m.n, 127);
	assert_int_equal(m.p[0].n, 1);
	assert_int_equal(m.p[125].n, 1);
	assert_int_equal(m.p[126].pkey, 0x7f);
	assert_int_equal(m.p[126].n, 0);
	assert_int_equal(m.nnotes, 1);
	assert_string_equal(m.notes[0], "VNET 127 (n127): HOST 3 (node03) port "
					"0x0002c90300a1b2c1 already holds the "
					"126 tenant "
					"keys a ConnectX-3 port can; left out "
					"on that "
					"port");
	render_checked(&m, &sb);
	sb_release(&sb);
	partitions_free(&m);
	/* The same networks without an mlx4 host are fine (mlx5 has no
	 * pre-provisioned PF). */
	assert_int_equal(build_str("<VM_POOL/>", "<HOST_POOL/>", v, &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(m.n, 127);
	partitions_free(&m);
	free(v);
}

/* --- the shared fabric (design decision 11) --------------------------------- */

static const char site[] = "Default=0x7fff, ipoib : ALL=limited, SELF=full,\n"
			   "    0x0002c903000c0001=full ;         # the login "
			   "node\n"
			   "infra=0x0105, ipoib : 0x0002c903000a0001=full ;\n"
			   "storage=0x0200, ipoib, sl=2 :\n"
			   "    0x0002c903000a0001=full, "
			   "0x0002c903000b0001=full,\n"
			   "    0x0002c903000d0001=limited ;\n";

static void read_site(const char *text, struct partitions *st)
{
	char err[256] = "";

	assert_int_equal(partconf_parse_as("site.conf", text, strlen(text),
					   PARTCONF_STATIC, st, err,
					   sizeof(err)),
			 0);
}

#define MLX5_HOST(id, name, guid)                                              \
	"<HOST><ID>" #id "</ID><NAME>" name "</NAME>"                          \
	"<CLUSTER_ID>0</CLUSTER_ID><TEMPLATE><IB_PF><PORT>1</PORT>"            \
	"<PORT_GUID>" guid "</PORT_GUID><DRIVER>mlx5_core</DRIVER>"            \
	"<LINK_LAYER>InfiniBand</LINK_LAYER></IB_PF>"                          \
	"<IB_PF><PORT>2</PORT><PORT_GUID>0x248a0703000010ff</PORT_GUID>"       \
	"<DRIVER>mlx5_core</DRIVER><LINK_LAYER>Ethernet</LINK_LAYER></IB_PF>"  \
	"</TEMPLATE></HOST>"
#define MLX4_HOST_IN(guid)                                                     \
	"<HOST><ID>3</ID><NAME>node03</NAME>"                                  \
	"<CLUSTER_ID>0</CLUSTER_ID><TEMPLATE><IB_PF><PORT>1</PORT>"            \
	"<PORT_GUID>" guid "</PORT_GUID><DRIVER>mlx4_core</DRIVER>"            \
	"</IB_PF></TEMPLATE></HOST>"
#define TWO_HOSTS                                                              \
	"<HOST_POOL>" MLX4_HOST_IN("0x0002c90300a1b2c1")                       \
		MLX5_HOST(4, "node04", "0x248a070300001001") "</HOST_POOL>"

static const char grown_hosts[] =
	"<HOST_POOL>" MLX5_HOST(4, "node04", "0x248a070300001001")
		MLX5_HOST(5, "node05", "0x248a070300005001") "</HOST_POOL>";

/*
 * The operator's partitions come through as they read, the default one
 * too; rendering the same cloud again gives the same bytes; the hosts
 * partition gets every InfiniBand PF port (not the Ethernet one).
 */
static void static_partitions_carried(void **state)
{
	struct partitions st, m, again;
	struct render_opts o = { .stat = &st, .stat_label = "site.conf" };
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	const struct partition *infra;
	char err[256] = "";

	(void)state;
	read_site(site, &st);
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 0);
	assert_int_equal(m.n, 4);
	assert_non_null(m.def);
	assert_int_equal(m.def->origin, PO_STATIC);
	assert_int_equal(m.def->n, 1);
	assert_int_equal(find_pkey(&m, 0x0101)->origin, PO_ONEIB);
	assert_int_equal(find_pkey(&m, 0x0200)->origin, PO_STATIC);
	assert_int_equal(find_pkey(&m, 0x0200)->nlimited, 1);
	assert_int_equal(find_pkey(&m, 0x0200)->sl, 2);
	infra = find_pkey(&m, 0x0105);
	assert_int_equal(infra->origin, PO_STATIC);
	assert_int_equal(infra->n, 1);
	render_checked(&m, &sb);
	assert_non_null(strstr(sb.buf, "# from: the static file\n"
				       "storage=0x0200, ipoib, sl=2 :\n"));
	partitions_free(&m);

	/* again: byte for byte */
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &again, err,
				    sizeof(err)),
			 0);
	render_checked(&again, &sb2);
	assert_string_equal(sb.buf, sb2.buf);
	partitions_free(&again);

	/* the hosts partition: the PF ports of both hosts join it */
	o.hosts_partition = "infra";
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 0);
	infra = find_pkey(&m, 0x0105);
	assert_int_equal(infra->origin, PO_STATIC_HOSTS);
	assert_int_equal(infra->n, 3);
	assert_true(has_guid(infra, 0x0002c90300a1b2c1ULL));
	assert_true(has_guid(infra, 0x248a070300001001ULL));
	assert_false(has_guid(infra, 0x248a0703000010ffULL)); /* Ethernet */
	assert_false(has_guid(find_pkey(&m, 0x0200), 0x248a070300001001ULL));
	partitions_free(&m);
	sb_reset(&sb);

	/* a host the cloud gains joins at the next render */
	assert_int_equal(build_opts(NOW_VMS, grown_hosts,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_true(has_guid(find_pkey(&m, 0x0105), 0x248a070300005001ULL));
	render_checked(&m, &sb);
	partitions_free(&m);

	/* ... and it has to be one of the static file's */
	o.hosts_partition = "infra2";
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_HOSTS_PARTITION 'infra2' is no "
				 "partition of site.conf");
	/* ... and one no tenant joins: not the default partition */
	o.hosts_partition = "Default";
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "site.conf line 1: ONEIB_HOSTS_PARTITION "
				 "Default has every tenant VF as a member "
				 "(ALL): give the hosts a partition no tenant "
				 "joins");
	sb_release(&sb);
	sb_release(&sb2);
	partitions_free(&st);
}

/*
 * A network asking for a key of the static file is left out, one note;
 * a static partition taking a partition a network has installed is
 * refused as a whole (it would hand a tenant's partition to others).
 */
static void static_keys_reserved(void **state)
{
	struct partitions st, in, m;
	struct render_opts o = { .stat = &st, .stat_label = "site.conf" };
	char err[256] = "";

	(void)state;
	read_site(site, &st);
	assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8200")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 1);
	assert_string_equal(m.notes[0], "VNET 7 (b): IB_PKEY 0x8200 is "
					"partition 0x0200, "
					"the static file's (storage); left "
					"out, no "
					"partition (none was installed)");
	assert_int_equal(find_pkey(&m, 0x0200)->origin, PO_STATIC);
	assert_false(has_guid(find_pkey(&m, 0x0200), 0x02000000002b0000ULL));
	partitions_free(&m);

	/* b installed on 0x0102, the static file now wants 0x0102 */
	read_installed(&in);
	o.installed = &in;
	partitions_free(&st);
	read_site("x=0x0001 : ;\n\nlab=0x8102 : 0x0002c903000a0001=full ;\n",
		  &st);
	assert_int_equal(build_opts(NOW_VMS, "<HOST_POOL/>",
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "site.conf line 3: partition lab takes P_Key "
				 "0x0102, the installed partition of VNET 7 "
				 "(b): give the operator's partition another "
				 "key");
	assert_null(m.p);
	partitions_free(&st);
	partitions_free(&in);
}

#define SVC_NET(id, name, tmpl)                                                \
	IBNET(id, name, "<IB_MEMBERSHIP>limited</IB_MEMBERSHIP>" tmpl)
#define SVC_VMS                                                                \
	"<VM_POOL>" VM(42, NIC(0, "02:00:00:00:00:2a", 5, "")                  \
				   NIC(1, "02:00:00:00:00:2b", 9, ""))         \
		VM(43, NIC(0, "02:00:00:00:00:2c", 7, "")                      \
			       NIC(1, "02:00:00:00:00:2d", 9, ""))             \
			VM(44, NIC(0, "02:00:00:00:00:2e", 11, "")) "</"       \
								    "VM_POOL>"

#define SVC_GUIDS(g) "<IB_SERVICE_GUIDS>" g "</IB_SERVICE_GUIDS>"
#define SVC_PART(n) "<IB_SERVICE_PARTITION>" n "</IB_SERVICE_PARTITION>"
#define TENANTS IBNET(5, "a", PKEY("0x8101")) IBNET(7, "b", PKEY("0x8102"))
#define VNET_POOL(nets) "<VNET_POOL>" nets "</VNET_POOL>"
#define STOR_A "0x0002c903000a0001"
#define STOR_E "0x0002c903000e0001"
static const char svc_nets[] = VNET_POOL(
	TENANTS SVC_NET(9, "storage",
			PKEY("0x8109") SVC_GUIDS(STOR_E) SVC_PART("storage"))
		SVC_NET(11, "scratch", PKEY("0x810b") SVC_GUIDS(STOR_A)));
static const char bad_svc_nets[] = VNET_POOL(
	TENANTS SVC_NET(9, "storage", PKEY("0x8109") SVC_PART("nas")) SVC_NET(
		11, "scratch", PKEY("0x810b") SVC_GUIDS("0x0002c90300a1b2c1")));

/*
 * A service network: its VMs' NICs and the ConnectX-3 ports of its
 * cluster are limited members, its endpoints full, whether listed or the
 * full members of the static partition it names; two service networks
 * may share endpoints.
 */
static void service_networks(void **state)
{
	struct partitions st, m;
	struct render_opts o = { .stat = &st, .stat_label = "site.conf" };
	struct strbuf sb = STRBUF_INIT;
	const struct partition *p;
	char err[256] = "";

	(void)state;
	read_site(site, &st);
	assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS, svc_nets, &o, &m, err,
				    sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(m.nnotes, 0);
	p = find_pkey(&m, 0x0109);
	assert_int_equal(p->origin, PO_ONEIB);
	assert_int_equal(p->n, 3); /* a0001, b0001 (storage), e0001 */
	assert_true(has_guid(p, 0x0002c903000a0001ULL));
	assert_true(has_guid(p, 0x0002c903000b0001ULL));
	assert_true(has_guid(p, 0x0002c903000e0001ULL));
	/* the static partition's limited member is no endpoint */
	assert_int_equal(partition_member(p, 0x0002c903000d0001ULL), PM_NONE);
	assert_int_equal(p->nlimited, 3);
	assert_int_equal(partition_member(p, 0x02000000002a0001ULL),
			 PM_LIMITED);
	assert_int_equal(partition_member(p, 0x02000000002b0001ULL),
			 PM_LIMITED);
	assert_int_equal(partition_member(p, 0x0002c90300a1b2c1ULL),
			 PM_LIMITED); /* the ConnectX-3 port */
	/* tenant networks stay full */
	assert_int_equal(partition_member(find_pkey(&m, 0x0101),
					  0x02000000002a0000ULL),
			 PM_FULL);
	assert_int_equal(partition_member(find_pkey(&m, 0x0101),
					  0x0002c90300a1b2c1ULL),
			 PM_FULL);
	/* the other service network shares an endpoint */
	assert_int_equal(partition_member(find_pkey(&m, 0x010b),
					  0x0002c903000a0001ULL),
			 PM_FULL);
	assert_int_equal(partition_member(find_pkey(&m, 0x010b),
					  0x02000000002c0000ULL),
			 PM_LIMITED);
	render_checked(&m, &sb);
	assert_non_null(strstr(sb.buf, "\t0x02000000002a0001=limited,\n"));
	sb_release(&sb);
	partitions_free(&m);

	/* endpoints that cannot be: left out, one note each */
	assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS, bad_svc_nets, &o, &m,
				    err, sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 2);
	one_note(&m, "VNET 9 (storage): IB_SERVICE_PARTITION 'nas' is no "
		     "partition of site.conf; left out");
	one_note(&m, "VNET 11 (scratch): service endpoint 0x0002c90300a1b2c1 "
		     "is HOST 3 (node03)'s ConnectX-3 port, whose VFs would "
		     "all be full members; left out");
	assert_null(find_pkey(&m, 0x0109));
	partitions_free(&m);
	partitions_free(&st);
}

static const char kept_svc_nets[] = VNET_POOL(
	SVC_NET(9, "storage", PKEY("0x8109") "<IB_SL>16</IB_SL>")
		SVC_NET(11, "scratch", PKEY("0x810b") SVC_GUIDS(STOR_A)));

/* A refused service network keeps its installed partition as it was:
 * limited members limited, its endpoints (in other partitions too). */
static void kept_service_partition(void **state)
{
	static const char inst[] =
		"# oneib-partitions: generated from the cloud's state, do not "
		"edit\n# from: one-ib\n"
		"Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"# from: one-ib\nvnet9_storage=0x0109, ipoib :\n"
		"\t0x0002c903000a0001=full,\n\t0x0200000000280001=limited ;\n"
		"# from: one-ib\nvnet11_scratch=0x010b, ipoib :\n"
		"\t0x0002c903000a0001=full ;\n";
	struct partitions in, m;
	const struct render_opts o = { .installed = &in };
	const struct partition *p;
	char err[256] = "";

	(void)state;
	assert_int_equal(partconf_parse(inst, strlen(inst), PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	assert_int_equal(build_opts("<VM_POOL/>", "<HOST_POOL/>", kept_svc_nets,
				    &o, &m, err, sizeof(err)),
			 0);
	p = find_pkey(&m, 0x0109);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->nlimited, 1);
	assert_int_equal(partition_member(p, 0x0200000000280001ULL),
			 PM_LIMITED);
	assert_int_equal(partition_member(find_pkey(&m, 0x010b),
					  0x0002c903000a0001ULL),
			 PM_FULL);
	partitions_free(&m);
	partitions_free(&in);
}

/*
 * The hosts partition holds the hypervisors' PF ports as full members, so
 * no tenant VF may be in it: a static file whose hosts partition takes
 * every CA (ALL_CAS, a tenant VF is a CA), even limited, is refused as it
 * is with ALL, whatever partition it names, the default one too.
 */
static void hosts_partition_no_tenant_joins(void **state)
{
	static const char *const every_ca[] = {
		"infra=0x0105, ipoib : ALL_CAS=limited, "
		"0x0002c903000a0001=full ;\n",
		"infra=0x0105, ipoib, defmember=limited : ALL_CAS, "
		"0x0002c903000a0001=full ;\n",
		"infra=0x0105, ipoib : ALL=limited ;\n",
	};
	static const char def_cas[] = "Default=0x7fff, ipoib : "
				      "ALL_CAS=limited, "
				      "SELF=full ;\n";
	struct partitions st, m;
	struct render_opts o = { .stat = &st,
				 .stat_label = "site.conf",
				 .hosts_partition = "infra" };
	char err[256] = "";
	size_t i;

	(void)state;
	/* the same partition without them: the hosts join it */
	read_site("infra=0x0105, ipoib : 0x0002c903000a0001=full ;\n", &st);
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 0);
	assert_true(has_guid(find_pkey(&m, 0x0105), 0x248a070300001001ULL));
	partitions_free(&m);
	partitions_free(&st);
	for (i = 0; i < sizeof(every_ca) / sizeof(*every_ca); i++) {
		read_site(every_ca[i], &st);
		assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
					    TWO_NETS(PKEY("0x8102")), &o, &m,
					    err, sizeof(err)),
				 -EINVAL);
		assert_null(m.p);
		if (!strstr(err, "ONEIB_HOSTS_PARTITION infra has every tenant "
				 "VF as a member"))
			fail_msg("%s: '%s'", every_ca[i], err);
		partitions_free(&st);
	}
	assert_non_null(strstr(err, "(ALL)"));
	read_site(def_cas, &st);
	o.hosts_partition = "Default";
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "site.conf line 1: ONEIB_HOSTS_PARTITION "
				 "Default has every tenant VF as a member "
				 "(ALL_CAS): give the hosts a partition no "
				 "tenant joins");
	partitions_free(&st);
}

/*
 * Found by a reviewer: the hosts partition listing a tenant VF's GUID,
 * even as a limited member, lets that VM reach every hypervisor (full
 * members there). Refused, in any form opensm reads (abbreviated, by
 * defmember, in a second definition of the key), with the line of the
 * entry opensm reads last for it. Nothing in opensm's grammar takes a
 * port out again ("NONE" adds nothing), so no later entry saves it.
 */
static void hosts_partition_no_tenant_guid(void **state)
{
	static const char *const listed[] = {
		"infra=0x0105, ipoib : 0x0002c903000a0001=full,\n"
		"    0x02000000002a0000=limited ;\n",
		"infra=0x0105, ipoib : 0x02000000002a0000=l ;\n",
		"infra=0x0105 : 0x0002c903000a0001 ;\n"
		"infra=0x0105 :\n    0x02000000002a0000 ;\n",
		/* the old MAC form */
		"infra=0x0105 : 0x0002c903000a0001=full,\n"
		"    0x0200c0fffea80105 ;\n",
	};
	struct partitions st, m;
	struct render_opts o = { .stat = &st,
				 .stat_label = "site.conf",
				 .hosts_partition = "infra" };
	char err[256] = "";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(listed) / sizeof(*listed); i++) {
		read_site(listed[i], &st);
		assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
					    TWO_NETS(PKEY("0x8102")), &o, &m,
					    err, sizeof(err)),
				 -EINVAL);
		assert_null(m.p);
		if (!strstr(err, "is a tenant VF's port GUID: no member of "
				 "ONEIB_HOSTS_PARTITION infra, whose "
				 "hypervisors it would reach"))
			fail_msg("%s: '%s'", listed[i], err);
		partitions_free(&st);
	}
	assert_string_equal(err, "site.conf line 2: 0x0200c0fffea80105 (MAC "
				 "02:00:c0:a8:01:05 (old GUID)) is a tenant "
				 "VF's port GUID: no member of "
				 "ONEIB_HOSTS_PARTITION infra, whose "
				 "hypervisors it would reach");
	/* two partitions of that name (opensm lets names repeat) */
	read_site("infra=0x0105 : ;\ninfra=0x0106 : ;\n", &st);
	assert_int_equal(build_opts(NOW_VMS, TWO_HOSTS,
				    TWO_NETS(PKEY("0x8102")), &o, &m, err,
				    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_HOSTS_PARTITION 'infra' names 2 "
				 "partitions of site.conf: give the hosts' one "
				 "a name of its own");
	partitions_free(&st);
}

/*
 * The operator's partitions carried as written (opensm reads what the
 * operator wrote: the order of its members is its meaning), the hosts'
 * PF ports after the hosts partition's last entry, full (the last entry
 * wins), even where the operator listed one limited; and a static
 * partition's members count as a service network's endpoints only where
 * opensm leaves them full: here a later ALL_CAS=limited makes the servers
 * limited, so they are none.
 */
static void static_partitions_as_opensm_reads_them(void **state)
{
	static const char text[] =
		"# the site\n"
		"storage=0x0200, ipoib : 0x0002c903000a0001=full, "
		"0x0002c903000b0001=full, ALL_CAS=limited ;\n"
		"infra=0x0105, ipoib, defmember=full :\n"
		"    0x0002c903000c0001,   # login\n"
		"    0x248a070300001001=limited ;   # node04, limited here\n"
		"Default=0x7fff, ipoib : SELF=full, ALL=limited ;\n";
	struct partitions st, m;
	struct render_opts o = { .stat = &st,
				 .stat_label = "site.conf",
				 .hosts_partition = "infra" };
	const struct partition *infra, *p;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	read_site(text, &st);
	assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS,
				    VNET_POOL(TENANTS SVC_NET(
					    9, "storage",
					    PKEY("0x8109") SVC_PART("storag"
								    "e"))),
				    &o, &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 0);
	render_checked(&m, &sb);
	assert_non_null(strstr(sb.buf, "# from: the static file\n"
				       "storage=0x0200, ipoib : "
				       "0x0002c903000a0001=full, "
				       "0x0002c903000b0001=full, "
				       "ALL_CAS=limited ;\n"));
	assert_non_null(strstr(sb.buf, "# from: the static file, with the "
				       "cloud's hosts\n"
				       "infra=0x0105, ipoib, defmember=full :\n"
				       "    0x0002c903000c0001,   # login\n"
				       "    0x248a070300001001=limited,\n"
				       "\t0x0002c90300a1b2c1=full,\n"
				       "\t0x248a070300001001=full ;\n"));
	assert_non_null(strstr(sb.buf, "# from: the static file\n"
				       "Default=0x7fff, ipoib : SELF=full, "
				       "ALL=limited ;\n"));
	infra = find_pkey(&m, 0x0105);
	assert_int_equal(partition_port(infra, 0x248a070300001001ULL, PCLASS_CA,
					false),
			 PM_FULL);
	/* the SM's port limited in the default partition, as opensm has it */
	assert_int_equal(partition_port(m.def, 0x0002c90300000001ULL, PCLASS_CA,
					true),
			 PM_LIMITED);
	/* the servers are limited members of storage: no endpoints */
	p = find_pkey(&m, 0x0109);
	assert_int_equal(partition_member(p, 0x0002c903000a0001ULL), PM_NONE);
	assert_int_equal(partition_member(p, 0x0002c903000b0001ULL), PM_NONE);
	partitions_free(&m);
	partitions_free(&st);
	sb_release(&sb);

	/* the servers full after it: they are */
	read_site("storage=0x0200 : ALL_CAS=limited, 0x0002c903000a0001=full "
		  ";\n",
		  &st);
	o.hosts_partition = NULL;
	assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS,
				    VNET_POOL(TENANTS SVC_NET(
					    9, "storage",
					    PKEY("0x8109") SVC_PART("storag"
								    "e"))),
				    &o, &m, err, sizeof(err)),
			 0);
	assert_int_equal(partition_member(find_pkey(&m, 0x0109),
					  0x0002c903000a0001ULL),
			 PM_FULL);
	partitions_free(&m);
	partitions_free(&st);
}

/*
 * A service network's endpoints are full members of its partition; a
 * ConnectX-3 host's port shares its table with every VF it carries, so it
 * is never one, whether IB_SERVICE_GUIDS names it or it is a full member
 * of the static partition IB_SERVICE_PARTITION names: the network is left
 * out (none was installed: no partition), one note, and the port is no
 * full member of it.
 */
static void mlx4_port_never_a_service_endpoint(void **state)
{
	static const char *const nets[] = {
		VNET_POOL(TENANTS SVC_NET(9, "storage",
					  PKEY("0x8109") SVC_PART("storage"))),
		VNET_POOL(TENANTS SVC_NET(9, "storage",
					  PKEY("0x8109") SVC_GUIDS("0x0002c9030"
								   "0a1b2c1"))),
	};
	struct partitions st, m;
	struct render_opts o = { .stat = &st, .stat_label = "site.conf" };
	const struct partition *p;
	char err[256] = "";
	size_t i;

	(void)state;
	/* the operator's storage partition, node03's ConnectX-3 port in it */
	read_site("storage=0x0200, ipoib :\n"
		  "    0x0002c903000a0001=full, 0x0002c90300a1b2c1=full ;\n",
		  &st);
	for (i = 0; i < sizeof(nets) / sizeof(*nets); i++) {
		assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS, nets[i], &o, &m,
					    err, sizeof(err)),
				 0);
		p = find_pkey(&m, 0x0109);
		if (p && partition_member(p, 0x0002c90300a1b2c1ULL) & PM_FULL)
			fail_msg("case %zu: the ConnectX-3 port is a full "
				 "member of the service network",
				 i);
		assert_null(p);
		one_note(&m, "VNET 9 (storage): service endpoint "
			     "0x0002c90300a1b2c1 is HOST 3 (node03)'s "
			     "ConnectX-3 port, whose VFs would all be full "
			     "members; left out");
		/* the tenants' networks still follow the cloud */
		assert_int_equal(partition_member(find_pkey(&m, 0x0101),
						  0x02000000002a0000ULL),
				 PM_FULL);
		partitions_free(&m);
	}
	partitions_free(&st);
}

/*
 * With --legacy-guids a NIC is a member under its MAC-derived GUID too,
 * and in a service network that one is limited as well: no tenant port
 * becomes a full member of it, under either GUID; on a tenant network
 * both are full.
 */
static void legacy_guids_limited_in_service_networks(void **state)
{
	static const struct {
		uint16_t pkey;
		int vm, nic;
		const char *mac;
		enum pmember pm;
	} nics[] = {
		{ 0x0109, 42, 1, "02:00:00:00:00:2b", PM_LIMITED },
		{ 0x0109, 43, 1, "02:00:00:00:00:2d", PM_LIMITED },
		{ 0x010b, 44, 0, "02:00:00:00:00:2e", PM_LIMITED },
		{ 0x0101, 42, 0, "02:00:00:00:00:2a", PM_FULL },
		{ 0x0102, 43, 0, "02:00:00:00:00:2c", PM_FULL },
	};
	struct partitions st, m;
	struct render_opts o = { .stat = &st,
				 .stat_label = "site.conf",
				 .legacy_guids = true };
	struct member_iter it = { 0, 0 };
	const struct partition *p;
	char err[256] = "";
	enum pmember pm;
	uint64_t g;
	size_t i;

	(void)state;
	read_site(site, &st);
	assert_int_equal(build_opts(SVC_VMS, TWO_HOSTS, svc_nets, &o, &m, err,
				    sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 0);
	for (i = 0; i < sizeof(nics) / sizeof(*nics); i++) {
		uint64_t mac = 0;

		assert_int_equal(mac_parse(nics[i].mac, &mac), 0);
		p = find_pkey(&m, nics[i].pkey);
		assert_non_null(p);
		assert_int_equal(partition_member(p, guid_for_nic(0, nics[i].vm,
								  nics[i].nic)),
				 nics[i].pm);
		if (partition_member(p, guid_from_mac(mac)) != nics[i].pm)
			fail_msg("VM %d NIC %d: its MAC GUID is %d in 0x%04x, "
				 "want %d",
				 nics[i].vm, nics[i].nic,
				 partition_member(p, guid_from_mac(mac)),
				 nics[i].pkey, nics[i].pm);
	}
	/* the service networks' full members are their endpoints alone */
	p = find_pkey(&m, 0x0109);
	while ((pm = partition_next_member(p, &it, &g)))
		if (pm & PM_FULL)
			assert_false(guid_assignable(g));
	p = find_pkey(&m, 0x010b);
	assert_int_equal(p->n, 1);
	assert_true(p->guids[0] == 0x0002c903000a0001ULL);
	partitions_free(&m);
	partitions_free(&st);
}

/*
 * The static file as the renderer reads it (partitions_read_static): a
 * tenant VF listed "both" is a full member of the operator's partition,
 * refused like "full", the file named; "limited" is carried.
 */
static void static_file_tenant_both_refused(void **state)
{
	static const char *const refused[] = {
		"infra=0x0105, ipoib : 0x0002c903000a0001=full,\n"
		"    0x02000000002a0000=both ;\n",
		"infra=0x0105, ipoib, defmember=both : 0x02000000002a0000 ;\n",
	};
	char path[] = "/tmp/test_partitions.XXXXXX", err[256] = "";
	struct partitions st;
	size_t i;
	FILE *f;
	int fd;

	(void)state;
	for (i = 0; i <= sizeof(refused) / sizeof(*refused); i++) {
		const char *text = i < sizeof(refused) / sizeof(*refused)
					   ? refused[i]
					   : "infra=0x0105, ipoib : "
					     "0x02000000002a0000=limited ;\n";

		fd = mkstemp(path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		assert_non_null(f);
		assert_true(fputs(text, f) >= 0);
		assert_int_equal(fclose(f), 0);
		if (i < sizeof(refused) / sizeof(*refused)) {
			assert_int_equal(partitions_read_static(path, &st, err,
								sizeof(err)),
					 -EINVAL);
			assert_null(st.p);
			assert_non_null(strstr(err, path));
			assert_non_null(strstr(err, "0x02000000002a0000 (VM 42 "
						    "NIC 0) is a tenant VF's "
						    "port GUID: never a full "
						    "member"));
		} else {
			assert_int_equal(partitions_read_static(path, &st, err,
								sizeof(err)),
					 0);
			assert_int_equal(
				partition_member(&st.p[0],
						 0x02000000002a0000ULL),
				PM_LIMITED);
			partitions_free(&st);
		}
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
}

/* Adoption: what one-ib did not write is named, never dropped. */
static void foreign_partitions(void **state)
{
	static const char hand[] = "Default=0x7fff, ipoib : ALL=full ;\n"
				   "storage=0x0200 : 0x0002c903000a0001=full "
				   ";\n";
	static const char mine[] =
		"# oneib-partitions: generated from the cloud's state, do not "
		"edit\n# from: one-ib\n"
		"Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
		"# from: the static file\nstorage=0x0200, ipoib, sl=2 :\n"
		"\t0x0002c903000a0001=full ;\n"
		"# from: one-ib\nvnet5_a=0x0101, ipoib :\n\t;\n";
	struct partitions in, st, old;
	char err[256] = "", names[256];
	const char *body;

	(void)state;
	assert_int_equal(partconf_parse(hand, strlen(hand), PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	assert_int_equal(partitions_foreign(&in, NULL, names, sizeof(names)),
			 2);
	assert_string_equal(names, "storage (0x0200), Default (0x7fff)");
	/* moved into the static file: adopted */
	read_site(site, &st);
	assert_int_equal(partitions_foreign(&in, &st, names, sizeof(names)), 0);
	partitions_free(&in);

	/* one-ib's own file: the static file's marks count only with one */
	assert_int_equal(partconf_parse(mine, strlen(mine), PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	assert_int_equal(partitions_foreign(&in, &st, names, sizeof(names)), 0);
	assert_int_equal(partitions_foreign(&in, NULL, names, sizeof(names)),
			 1);
	assert_string_equal(names, "storage (0x0200)");
	partitions_free(&in);

	/* a file of before the marks: one-ib's, as it always was */
	read_installed(&old);
	assert_int_equal(partitions_foreign(&old, NULL, names, sizeof(names)),
			 0);
	partitions_free(&old);
	/* the same without one-ib's first line: somebody else's */
	body = strchr(installed_text, '\n') + 1;
	assert_int_equal(partconf_parse(body, strlen(body), PARTCONF_ANY, &old,
					err, sizeof(err)),
			 0);
	assert_false(old.oneib);
	assert_int_equal(partitions_foreign(&old, NULL, names, sizeof(names)),
			 2);
	assert_string_equal(names, "vnet5_a (0x0101), vnet7_b (0x0102)");
	partitions_free(&old);
	partitions_free(&st);
}

/* The hosts partition takes one entry of a ConnectX-3 port: 125 left. */
static void mlx4_limit_less_static(void **state)
{
	struct partitions st, m;
	struct render_opts o = { .stat = &st, .hosts_partition = "infra" };
	char err[256] = "", *v = many_vnets(126);

	(void)state;
	read_site("infra=0x7000 : ;\n", &st);
	assert_int_equal(build_opts("<VM_POOL/>",
				    MLX4_HOST("0x0002c90300a1b2c1"), v, &o, &m,
				    err, sizeof(err)),
			 0);
	assert_int_equal(m.nnotes, 1);
	assert_string_equal(m.notes[0], "VNET 126 (n126): HOST 3 (node03) port "
					"0x0002c90300a1b2c1 already holds the "
					"125 tenant keys a ConnectX-3 port "
					"can; left out on that port");
	assert_true(has_guid(find_pkey(&m, 0x7000), 0x0002c90300a1b2c1ULL));
	partitions_free(&m);
	partitions_free(&st);
	free(v);
}

/* --- service levels (design decision 13) ----------------------------------- */

/* Hosts 1, 2 under leaf A, 3 under leaf B (LEAF_GUID of their IB_PF). */
#define LEAF_HOST(id, guid, leaf)                                              \
	"<HOST><ID>" #id "</ID><NAME>node0" #id "</NAME>"                      \
	"<CLUSTER_ID>0</CLUSTER_ID><TEMPLATE><IB_PF><PORT>1</PORT>"            \
	"<PORT_GUID>" guid "</PORT_GUID><DRIVER>mlx5_core</DRIVER>"            \
	"<LINK_LAYER>InfiniBand</LINK_LAYER><LEAF_GUID>" leaf "</LEAF_GUID>"   \
	"</IB_PF></TEMPLATE></HOST>"
#define LEAF_HOSTS                                                             \
	"<HOST_POOL>" LEAF_HOST(1, "0x248a070300001001", "0x0a00")             \
		LEAF_HOST(2, "0x248a070300002001", "0x0a00")                   \
			LEAF_HOST(3, "0x248a070300003001", "0x0b00")           \
				LEAF_HOST(4, "0x248a070300004001", "") "</"    \
								       "HOST_" \
								       "POOL>"
/* a VM on host hid: its last history record is what counts */
#define VM_ON(id, hid, nics)                                                   \
	"<VM><ID>" #id "</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE>"         \
	"<TEMPLATE>" nics "</TEMPLATE><HISTORY_RECORDS><HISTORY><HID>9</HID>"  \
	"</HISTORY><HISTORY><SEQ>1</SEQ><HID>" #hid "</HID></HISTORY>"         \
	"</HISTORY_RECORDS></VM>"
#define IBNIC(net) NIC(0, "02:00:00:00:00:01", net, "")
#define THREE_NETS(tmpl_c)                                                     \
	"<VNET_POOL>" IBNET(5, "a", PKEY("0x8101"))                            \
		IBNET(7, "b", PKEY("0x8102"))                                  \
			IBNET(9, "c", PKEY("0x8103") tmpl_c)                   \
				IBNET(11, "idle", PKEY("0x8104")) "</"         \
								  "VNET_POOL>"

static const char sl_vms[] = "<VM_POOL>" VM_ON(20, 1, IBNIC(5))
	VM_ON(21, 2, IBNIC(5)) VM_ON(22, 3, IBNIC(7)) VM_ON(23, 1, IBNIC(9))
		VM_ON(24, 3, IBNIC(9)) "</VM_POOL>";

static int build_plan(const char *vms, const char *vnets,
		      const struct partitions *installed, struct partitions *m,
		      struct partitions_plan *pp)
{
	struct sl_opts so;
	struct render_opts o = { .sls = &so, .installed = installed };
	struct cloud_facts f = { 0 };
	char err[256] = "";
	int r;

	assert_int_equal(sl_opts_parse("1-7", "0", &so, err, sizeof(err)), 0);
	r = poolread_mem(&f, POOL_VNET, vnets, strlen(vnets), "VNET pool", err,
			 sizeof(err));
	if (!r)
		r = poolread_mem(&f, POOL_HOST, LEAF_HOSTS, strlen(LEAF_HOSTS),
				 "HOST pool", err, sizeof(err));
	if (!r)
		r = poolread_mem(&f, POOL_VM, vms, strlen(vms), "VM pool", err,
				 sizeof(err));
	if (!r)
		r = partitions_desired_plan(&f, &o, m, pp, err, sizeof(err));
	assert_string_equal(err, "");
	cloud_facts_free(&f);
	return r;
}

/*
 * With --sls, every network with VMs gets sl=: a and b (leaves A and B)
 * share one, c (VMs under both, sharing hosts 1 and 3) its own, idle none;
 * the plan reads each VM's host from its last HISTORY and each host's leaf
 * from IB_PF LEAF_GUID. Installed SLs are kept, VMs added or not.
 */
static void service_levels_planned(void **state)
{
	struct partitions m, in;
	struct partitions_plan pp;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_plan(sl_vms, THREE_NETS(""), NULL, &m, &pp), 0);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 1);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0102)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0104)->sl, -1);
	assert_int_equal(partitions_plan_text(&pp, &sb), 0);
	assert_string_equal(sb_str(&sb), "VNET 5 (a) 0x0101: SL 2, new: the "
					 "lowest of SLs 1-7 no network "
					 "it conflicts with has; VMs on 2 "
					 "hosts under 1 leaf; conflicts "
					 "with 1: VNET 9 (c) SL 1 (HOST 1)\n"
					 "VNET 7 (b) 0x0102: SL 2, new: the "
					 "lowest of SLs 1-7 no network "
					 "it conflicts with has; VMs on 1 host "
					 "under 1 leaf; conflicts "
					 "with 1: VNET 9 (c) SL 1 (HOST 3)\n"
					 "VNET 9 (c) 0x0103: SL 1, new: the "
					 "lowest of SLs 1-7 no network "
					 "it conflicts with has; VMs on 2 "
					 "hosts under 2 leaves (spans); "
					 "conflicts with 2: VNET 5 (a) SL 2 "
					 "(HOST 1), VNET 7 (b) SL 2 "
					 "(HOST 3)\n"
					 "VNET 11 (idle) 0x0104: -, no VMs: no "
					 "SL of its own, best effort "
					 "until it has some\n"
					 "plan: 3 of 4 networks with VMs; SLs "
					 "1-7 for them (7), best "
					 "effort 0; 0 on best effort, 0 "
					 "clashes\n");
	assert_string_equal(sb_str(&pp.warnings), "");
	render_checked(&m, &text);
	sb_release(&sb);
	partitions_plan_free(&pp);

	/* installed as rendered; then a VM of c on host 4 (no leaf known)
	 * and one of a on host 3: nothing moves, a and b clash on host 3 */
	assert_int_equal(partconf_parse(text.buf, text.len, PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	partitions_free(&m);
	assert_int_equal(
		build_plan("<VM_POOL>" VM_ON(20, 1, IBNIC(5)) VM_ON(
				   21, 2, IBNIC(5)) VM_ON(22, 3, IBNIC(7))
				   VM_ON(23, 1, IBNIC(9)) VM_ON(24, 3, IBNIC(9))
					   VM_ON(25, 4, IBNIC(9))
						   VM_ON(26, 3, IBNIC(5)) "</"
									  "VM_"
									  "POOL"
									  ">",
			   THREE_NETS(""), &in, &m, &pp),
		0);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 1);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0102)->sl, 2);
	assert_int_equal(pp.plan.c[0].why, SLW_KEPT);
	assert_int_equal(pp.plan.nclash, 1);
	assert_non_null(strstr(sb_str(&pp.warnings), "VNET 5 (a) and VNET 7 "
						     "(b) SL 2 (HOST 3)"));
	partitions_plan_free(&pp);
	partitions_free(&m);

	/* IB_SL pins c; without --sls only the pin is rendered */
	assert_int_equal(build_plan(sl_vms, THREE_NETS("<IB_SL>2</IB_SL>"), &in,
				    &m, &pp),
			 0);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, 1); /* moved off 2 */
	assert_int_equal(pp.plan.c[0].lost, SLL_PINNED);
	partitions_plan_free(&pp);
	partitions_free(&m);
	assert_int_equal(build_str(sl_vms, LEAF_HOSTS,
				   THREE_NETS("<IB_SL>2</IB_SL>"), &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, -1);
	partitions_free(&m);
	partitions_free(&in);
	sb_release(&text);
}

/*
 * The file installed while the QoS policy cannot be: every partition the
 * SL of its installed partition, a new one none, the members as planned
 * (VM 27 joins idle, which the plan gives an SL of its own).
 */
static void sls_in_force(void **state)
{
	static const char more[] = "<VM_POOL>" VM_ON(20, 1, IBNIC(5))
		VM_ON(21, 2, IBNIC(5)) VM_ON(22, 3, IBNIC(7))
			VM_ON(23, 1, IBNIC(9)) VM_ON(24, 3, IBNIC(9))
				VM_ON(27, 2, IBNIC(11)) "</VM_POOL>";
	struct partitions m, in, none = { 0 };
	struct partitions_plan pp;
	struct strbuf text = STRBUF_INIT;
	char err[256] = "";
	size_t members;

	(void)state;
	assert_int_equal(build_plan(sl_vms, THREE_NETS(""), NULL, &m, &pp), 0);
	render_checked(&m, &text);
	partitions_plan_free(&pp);
	partitions_free(&m);
	assert_int_equal(partconf_parse(text.buf, text.len, PARTCONF_ANY, &in,
					err, sizeof(err)),
			 0);
	/* and c pinned elsewhere since: the pin waits too */
	assert_int_equal(build_plan(more, THREE_NETS("<IB_SL>5</IB_SL>"), &in,
				    &m, &pp),
			 0);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 5);
	assert_true(find_pkey(&m, 0x0104)->sl >= 1);
	members = partitions_members(&m);
	partitions_sls_in_force(&m, &in);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0102)->sl, 2);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, 1);
	assert_int_equal(find_pkey(&m, 0x0104)->sl, -1);
	assert_int_equal(partitions_members(&m), members);
	assert_int_equal(partition_member(find_pkey(&m, 0x0104),
					  0x02000000001b0000ull),
			 PM_FULL);
	/* nothing installed: no SL anywhere */
	partitions_sls_in_force(&m, &none);
	assert_int_equal(find_pkey(&m, 0x0101)->sl, -1);
	assert_int_equal(find_pkey(&m, 0x0103)->sl, -1);
	partitions_plan_free(&pp);
	partitions_free(&m);
	partitions_free(&in);
	sb_release(&text);
}

/* VNET id, a reservation of parent (`onevnet reserve`): the parent's
 * template as oned copies it, PARENT_NETWORK_ID set */
#define RESERVATION(id, name, parent, tmpl)                                    \
	"<VNET><ID>" #id "</ID><NAME>" name "</NAME>"                          \
	"<PARENT_NETWORK_ID>" #parent "</PARENT_NETWORK_ID>"                   \
	"<CLUSTERS><ID>0</ID></CLUSTERS><VN_MAD>ib</VN_MAD>"                   \
	"<TEMPLATE>" tmpl "</TEMPLATE></VNET>"

/*
 * A reservation is a slice of its parent (issue 35, item 4): its NICs are
 * members of the parent's partition, as the parent's members (limited on
 * a service network); it has no partition of its own, and never costs its
 * parent its partition, installed file or not (two networks on one key
 * were left out both). One whose key differs from its parent's leaves its
 * NICs out, one note; the parent keeps its partition.
 */
static void reservations_join_their_parent(void **state)
{
	static const char vms[] =
		"<VM_POOL>" VM(42, NIC(0, "02:00:00:00:00:2a", 12, ""))
			VM(43, NIC(0, "02:00:00:00:00:2b", 13, ""))
				VM(44, NIC(0, "02:00:00:00:00:2c", 5, ""))
					VM(45, NIC(0, "02:00:00:00:00:2d", 14,
						   "")) "</VM_POOL>";
	static const char nets[] = VNET_POOL(
		IBNET(5, "a", PKEY("0x8101")) SVC_NET(
			9, "storage", PKEY("0x8109") SVC_GUIDS(STOR_E))
			RESERVATION(12, "mine", 9,
				    "<IB_MEMBERSHIP>limited</"
				    "IB_MEMBERSHIP>" PKEY("0x8109")
					    SVC_GUIDS(STOR_E))
				RESERVATION(13, "slice", 5, PKEY("0x8101"))
					RESERVATION(14, "edited", 5,
						    PKEY("0x8110")));
	struct partitions m;
	const struct partition *p;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		build_str(vms, "<HOST_POOL/>", nets, &m, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* no partition of their own, no collision: the parents keep theirs */
	assert_int_equal(m.n, 2);
	p = find_pkey(&m, 0x0109);
	assert_non_null(p);
	assert_string_equal(p->name, "vnet9_storage");
	assert_int_equal(partition_member(p, 0x02000000002a0000ULL),
			 PM_LIMITED);
	assert_int_equal(partition_member(p, 0x0002c903000e0001ULL), PM_FULL);
	p = find_pkey(&m, 0x0101);
	assert_non_null(p);
	assert_int_equal(partition_member(p, 0x02000000002b0000ULL), PM_FULL);
	assert_int_equal(partition_member(p, 0x02000000002c0000ULL), PM_FULL);
	assert_int_equal(partition_member(p, 0x02000000002d0000ULL), PM_NONE);
	assert_int_equal(m.nnotes, 1);
	one_note(&m, "VM 45 NIC 0: VNET 14 (edited), a reservation of it, "
		     "holds partition 0x0110, not its 0x0101; left out of "
		     "VNET 5 (a)");
	assert_null(find_pkey(&m, 0x0110));
	partitions_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_renders_expected_text),
		cmocka_unit_test(sample_membership),
		cmocka_unit_test(membership_follows_the_vfs),
		cmocka_unit_test(every_rail_a_member),
		cmocka_unit_test(shuffled_input_renders_same_bytes),
		cmocka_unit_test(empty_cloud_is_default_only),
		cmocka_unit_test(short_form_nics),
		cmocka_unit_test(networks_not_ready_have_no_partition),
		cmocka_unit_test(same_mac_two_tenants_distinct_guids),
		cmocka_unit_test(cloud_id_in_every_guid),
		cmocka_unit_test(legacy_guids_and_their_collisions),
		cmocka_unit_test(one_guid_never_in_two_partitions),
		cmocka_unit_test(bad_network_keeps_installed_partition),
		cmocka_unit_test(bad_pkeys_are_left_out),
		cmocka_unit_test(collision_holder_keeps_its_partition),
		cmocka_unit_test(kept_member_the_cloud_moved),
		cmocka_unit_test(kept_from_a_file_of_before),
		cmocka_unit_test(nic_that_cannot_be_rendered),
		cmocka_unit_test(nic_read_as_deploy_reads_it),
		cmocka_unit_test(names_fit_opensm),
		cmocka_unit_test(refuses_malformed_pf_guid),
		cmocka_unit_test(refuses_broken_listings),
		cmocka_unit_test(xml_errors_end_cleanly),
		cmocka_unit_test(mlx4_port_key_limit),
		cmocka_unit_test(static_partitions_carried),
		cmocka_unit_test(static_keys_reserved),
		cmocka_unit_test(service_networks),
		cmocka_unit_test(kept_service_partition),
		cmocka_unit_test(hosts_partition_no_tenant_joins),
		cmocka_unit_test(hosts_partition_no_tenant_guid),
		cmocka_unit_test(static_partitions_as_opensm_reads_them),
		cmocka_unit_test(mlx4_port_never_a_service_endpoint),
		cmocka_unit_test(legacy_guids_limited_in_service_networks),
		cmocka_unit_test(static_file_tenant_both_refused),
		cmocka_unit_test(foreign_partitions),
		cmocka_unit_test(mlx4_limit_less_static),
		cmocka_unit_test(service_levels_planned),
		cmocka_unit_test(sls_in_force),
		cmocka_unit_test(reservations_join_their_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
