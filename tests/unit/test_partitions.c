// SPDX-License-Identifier: Apache-2.0
/*
 * The partitions.conf renderer: the sample cloud of tests/unit/data/
 * partitions/ (VM 42 RUNNING with NICs on ib networks 5 and 7 and a bridge
 * NIC, VM 43 PENDING, VM 44 POWEROFF; node01 a ConnectX-3 host in cluster
 * 100 with one IB and one Ethernet port, node02 a ConnectX-4 host, node03 a
 * ConnectX-3 host in cluster 101) rendered to the exact expected text; the
 * same cloud listed in another order renders the same bytes; every refusal;
 * and the strict reader that checks the text before it is installed.
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

#include "lib/partitions.h"

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
	int r = partitions_build(v, lv, h, lh, n, ln, m, err, errlen);

	free(v);
	free(h);
	free(n);
	return r;
}

static int build_str(const char *vms, const char *hosts, const char *vnets,
		     struct partitions *m, char *err, size_t errlen)
{
	return partitions_build(vms, strlen(vms), hosts, strlen(hosts), vnets,
				strlen(vnets), m, err, errlen);
}

/* Renders m and checks the text round-trips; the caller frees *sb. */
static void render_checked(const struct partitions *m, struct strbuf *sb)
{
	char err[256] = "";

	assert_int_equal(partitions_render(m, sb), 0);
	assert_int_equal(partitions_check(sb_str(sb), m, err, sizeof(err)), 0);
	assert_string_equal(err, "");
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
	size_t i;

	(void)state;
	assert_int_equal(build_files("vms.xml", "hosts.xml", "vnets.xml", &m,
				     err, sizeof(err)),
			 0);
	/* VM 43 (PENDING) has no host: its GUID is nowhere. */
	for (i = 0; i < m.p[0].n; i++)
		assert_true(m.p[0].guids[i] != 0x0200c0fffea80109ULL);
	/* node02 is mlx5: its PF is not pre-provisioned anywhere. */
	for (i = 0; i < m.p[0].n; i++)
		assert_true(m.p[0].guids[i] != 0x248a070300b1c2d3ULL);
	/* node03 (cluster 101) only in tenant-a, which is in 101. */
	assert_int_equal(m.p[1].n, 2);
	assert_int_equal(m.p[1].guids[0], 0x0002c90300a1b2c1ULL);
	assert_int_equal(m.p[1].guids[1], 0x0200c0fffea80207ULL);
	partitions_free(&m);
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
	assert_string_equal(sb_str(&sb), "# oneib-pkey partitions: generated "
					 "from the "
					 "cloud's state, do not edit\n"
					 "Default=0x7fff, ipoib : ALL=limited, "
					 "SELF=full ;\n");
	sb_release(&sb);
	partitions_free(&m);
}

/* --- refusals -------------------------------------------------------------- */

#define IBNET(id, name, tmpl)                                                  \
	"<VNET><ID>" #id "</ID><NAME>" name "</NAME>"                          \
	"<CLUSTERS><ID>0</ID></CLUSTERS><VN_MAD>ib</VN_MAD>"                   \
	"<TEMPLATE>" tmpl "</TEMPLATE></VNET>"
#define PKEY(v) "<IB_PKEY><![CDATA[" v "]]></IB_PKEY>"
#define VM_NIC(mac)                                                            \
	"<VM_POOL><VM><ID>42</ID><STATE>3</STATE><LCM_STATE>1</LCM_STATE>"     \
	"<TEMPLATE><NIC><MAC>" mac "</MAC><NETWORK_ID>5</NETWORK_ID>"          \
	"<NIC_ID>1</NIC_ID><VN_MAD>ib</VN_MAD></NIC></TEMPLATE></VM>"          \
	"</VM_POOL>"
#define MLX4_HOST(guid)                                                        \
	"<HOST_POOL><HOST><ID>3</ID><NAME>node03</NAME>"                       \
	"<CLUSTER_ID>0</CLUSTER_ID><TEMPLATE><IB_PF><PORT>1</PORT>"            \
	"<PORT_GUID>" guid "</PORT_GUID><DRIVER>mlx4_core</DRIVER>"            \
	"</IB_PF></TEMPLATE></HOST></HOST_POOL>"

/*
 * `onevm list -x` gives the short VM body: NICs without VN_MAD. A NIC is
 * InfiniBand because its network is; a NIC on another network, or on no
 * network of the pool, is not.
 */
static const char short_vms[] =
	"<VM_POOL><VM><ID>42</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE>"
	"<TEMPLATE><NIC><MAC>02:00:c0:a8:01:05</MAC><NETWORK_ID>5</NETWORK_ID>"
	"<NIC_ID>0</NIC_ID></NIC><NIC><MAC>02:00:c0:a8:01:06</MAC>"
	"<NETWORK_ID>2</NETWORK_ID><NIC_ID>1</NIC_ID></NIC>"
	"<NIC><MAC>02:00:c0:a8:01:07</MAC><NIC_ID>2</NIC_ID></NIC></TEMPLATE>"
	"</VM></VM_POOL>";
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
	assert_true(m.p[0].guids[0] == 0x0200c0fffea80105ULL);
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
	partitions_free(&m);
}

static void refused(const char *vms, const char *hosts, const char *vnets,
		    const char *want)
{
	struct partitions m = { (struct partition *)&m, 99 };
	char err[256] = "";

	assert_int_equal(build_str(vms, hosts, vnets, &m, err, sizeof(err)),
			 -EINVAL);
	assert_null(m.p);
	assert_int_equal(m.n, 0);
	if (!strstr(err, want))
		fail_msg("'%s' does not contain '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void refuses_same_partition_twice(void **state)
{
	(void)state;
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x0101"))
			IBNET(7, "b", PKEY("0x8101")) "</VNET_POOL>",
		"VNET 7 (b): IB_PKEY is partition 0x0101, already used by "
		"VNET 5 (a)");
}

static void refuses_default_and_zero_pkey(void **state)
{
	(void)state;
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x7fff")) "</VNET_POOL>",
		"VNET 5 (a): IB_PKEY '0x7fff' is the default partition");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0xffff")) "</VNET_POOL>",
		"is the default partition");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x8000")) "</VNET_POOL>",
		"VNET 5 (a): IB_PKEY '0x8000' is partition 0");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x1zz")) "</VNET_POOL>",
		"IB_PKEY '0x1zz' is not a P_Key");
}

static void refuses_vnet_without_pkey(void **state)
{
	(void)state;
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(9, "x", "<IB_MTU>2048</IB_MTU>") "</"
								     "VNET_"
								     "POOL>",
		"VNET 9 (x): no IB_PKEY");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(9, "x", PKEY("")) "</VNET_POOL>",
		"VNET 9 (x): no IB_PKEY");
}

static void refuses_bad_flags(void **state)
{
	(void)state;
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(
			5, "a", PKEY("0x0101") "<IB_MTU>1500</IB_MTU>") "</"
									"VNET_"
									"POOL>",
		"IB_MTU '1500' is not 256, 512, 1024, 2048 or 4096");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a",
				    PKEY("0x0101") "<IB_SL>16</IB_SL>") "</"
									"VNET_"
									"POOL>",
		"IB_SL '16' is not a number 0..15");
	refused("<VM_POOL/>", "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a",
				    PKEY("0x0101") "<IB_RATE>1</IB_RATE>") "</"
									   "VNE"
									   "T_"
									   "POO"
									   "L>",
		"IB_RATE '1' is not a number 2..24");
}

static void refuses_malformed_mac(void **state)
{
	(void)state;
	refused(VM_NIC("02:00:zz:a8:01:05"), "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x0101")) "</VNET_POOL>",
		"VM 42 NIC 1: malformed MAC '02:00:zz:a8:01:05'");
	refused(VM_NIC("02:00:c0:a8:01"), "<HOST_POOL/>",
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x0101")) "</VNET_POOL>",
		"VM 42 NIC 1: malformed MAC");
}

static void refuses_malformed_pf_guid(void **state)
{
	(void)state;
	refused("<VM_POOL/>", MLX4_HOST("0x0002c9zz00a1b2c1"),
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x0101")) "</VNET_POOL>",
		"HOST 3 (node03): IB_PF PORT_GUID '0x0002c9zz00a1b2c1' is not "
		"a GUID");
	refused("<VM_POOL/>", MLX4_HOST("0x0"),
		"<VNET_POOL>" IBNET(5, "a", PKEY("0x0101")) "</VNET_POOL>",
		"is not a GUID");
}

static void refuses_nic_on_unknown_network(void **state)
{
	(void)state;
	refused(VM_NIC("02:00:c0:a8:01:05"), "<HOST_POOL/>", "<VNET_POOL/>",
		"VM 42 NIC 1: network 5 is not an InfiniBand network");
}

static void refuses_hostile_xml(void **state)
{
	(void)state;
	refused("<!DOCTYPE x [<!ENTITY e \"a\">]><VM_POOL>&e;</VM_POOL>",
		"<HOST_POOL/>", "<VNET_POOL/>", "VM pool");
	refused("<VM_POOL/>", "<HOST_POOL/>", "<VNET/>", "<VNET_POOL>");
}

/* n ib networks 0x0001.. in cluster 0, and one mlx4 host there. */
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
					 i, i, i),
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

	v = many_vnets(127);
	refused("<VM_POOL/>", MLX4_HOST("0x0002c90300a1b2c1"), v,
		"HOST 3 (node03): port 0x0002c90300a1b2c1 would hold 128 "
		"P_Keys, ConnectX-3 holds 127");
	/* The same networks without an mlx4 host are fine (mlx5 has no
	 * pre-provisioned PF). */
	assert_int_equal(build_str("<VM_POOL/>", "<HOST_POOL/>", v, &m, err,
				   sizeof(err)),
			 0);
	assert_int_equal(m.n, 127);
	partitions_free(&m);
	free(v);
}

/* --- the strict reader ----------------------------------------------------- */

#define DEF "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

static void parse_accepts_comments_and_layout(void **state)
{
	struct partitions m;
	char err[256] = "";

	(void)state;
	assert_int_equal(partitions_parse("# head\n  Default = 0x7fff ,ipoib: "
					  "ALL=limited"
					  ",SELF=full;# tail\n"
					  "one_vnet_5=0x0101,ipoib,sl=0:"
					  "0x0200c0fffea80105"
					  "=full, # c\n "
					  "0x0200c0fffea80107=full;\n"
					  "x=0x0102,ipoib:;",
					  &m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.p[0].name, "one_vnet_5");
	assert_int_equal(m.p[0].sl, 0);
	assert_int_equal(m.p[0].n, 2);
	assert_int_equal(m.p[1].n, 0);
	partitions_free(&m);
}

static void parse_bad(const char *text, const char *want)
{
	struct partitions m;
	char err[256] = "";

	assert_int_equal(partitions_parse(text, &m, err, sizeof(err)), -EINVAL);
	assert_null(m.p);
	if (!strstr(err, want))
		fail_msg("'%s' does not contain '%s'", err, want);
}

static void parse_refuses_what_we_never_write(void **state)
{
	(void)state;
	parse_bad("", "line 1: expected 'Default=0x7fff");
	parse_bad("Default=0x7fff, ipoib : ALL=limited, SEL=full ;", "expected "
								     "'Defaul"
								     "t");
	parse_bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80105=full", "line 2: "
								   "expected "
								   "',' or "
								   "';'");
	parse_bad(DEF "a=0x0101, ipoib : 0x200c0fffea80105=full ;", "expected "
								    "a port "
								    "GUID");
	parse_bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80105=limited ;", "expect"
									"ed "
									"'="
									"full"
									"'");
	parse_bad(DEF "a=0x0101, ipoib : 0x0000000000000000=full ;", "expected "
								     "a port "
								     "GUID");
	parse_bad(DEF "a=0x0101, ipoib : 0x0200c0fffea80107=full,\n"
		      "0x0200c0fffea80105=full ;",
		  "line 3: members not in increasing order");
	parse_bad(DEF "a=0x0102, ipoib : ;\nb=0x0101, ipoib : ;", "line 3: "
								  "partitions "
								  "not in "
								  "increasing "
								  "P_Key "
								  "order");
	parse_bad(DEF "a=0x0101, ipoib : ;\nb=0x0101, ipoib : ;", "not in "
								  "increasing "
								  "P_Key "
								  "order");
	parse_bad(DEF "a=0x7fff, ipoib : ;", "expected a P_Key 0x0001..0x7ffe");
	parse_bad(DEF "a=0x0000, ipoib : ;", "expected a P_Key");
	parse_bad(DEF "a=0x8101, ipoib : ;", "expected a P_Key");
	parse_bad(DEF "a=257, ipoib : ;", "expected a P_Key");
	parse_bad(DEF "a=0x0101, ipoib, ipoib : ;", "unknown or repeated flag");
	parse_bad(DEF "a=0x0101, ipoib, mtu=6 : ;", "flag value out of range");
	parse_bad(DEF "a=0x0101, ipoib, indx0 : ;", "unknown or repeated flag");
	parse_bad(DEF "a=0x0101, ipoib : ALL=full ;", "expected a port GUID");
	parse_bad(DEF "5a=0x0101, ipoib : ;", "expected a partition name");
	parse_bad(DEF "a\x01=0x0101 : ;", "unexpected byte");
}

static void check_catches_a_difference(void **state)
{
	struct partitions m;
	struct strbuf sb = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(build_files("vms.xml", "hosts.xml", "vnets.xml", &m,
				     err, sizeof(err)),
			 0);
	render_checked(&m, &sb);
	m.p[1].guids[0]++;
	assert_int_equal(partitions_check(sb_str(&sb), &m, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "does not round-trip: partition "
				    "one_vnet_7_tenant_b__lab__2 (0x0102)"));
	m.p[1].guids[0]--;
	m.n = 1;
	assert_int_equal(partitions_check(sb_str(&sb), &m, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "2 partitions read back, 1 expected"));
	m.n = 2;
	sb_release(&sb);
	partitions_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_renders_expected_text),
		cmocka_unit_test(sample_membership),
		cmocka_unit_test(shuffled_input_renders_same_bytes),
		cmocka_unit_test(empty_cloud_is_default_only),
		cmocka_unit_test(short_form_nics),
		cmocka_unit_test(networks_not_ready_have_no_partition),
		cmocka_unit_test(refuses_same_partition_twice),
		cmocka_unit_test(refuses_default_and_zero_pkey),
		cmocka_unit_test(refuses_vnet_without_pkey),
		cmocka_unit_test(refuses_bad_flags),
		cmocka_unit_test(refuses_malformed_mac),
		cmocka_unit_test(refuses_malformed_pf_guid),
		cmocka_unit_test(refuses_nic_on_unknown_network),
		cmocka_unit_test(refuses_hostile_xml),
		cmocka_unit_test(mlx4_port_key_limit),
		cmocka_unit_test(parse_accepts_comments_and_layout),
		cmocka_unit_test(parse_refuses_what_we_never_write),
		cmocka_unit_test(check_catches_a_difference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
