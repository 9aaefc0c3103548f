// SPDX-License-Identifier: Apache-2.0
/*
 * What oneib-context decides for a NIC, without a kernel: the netdev by its
 * GUID, the tenant P_Key of a table (ConnectX-3 and ConnectX-4+ layouts,
 * none yet, several), parent or child and the child's name, connected mode
 * and its fallback, the MTU clamps with and without the port's MTU, the
 * plan line; the IPoIB address and GID forms it reads; the record of what
 * it created, written and read back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/guestapply.h"
#include "guest/guestplan.h"
#include "core/guid.h"

#define VM42_NIC1 0x02000000002a0001ULL

static void addr_forms(void **state)
{
	uint64_t g;
	bool cm;

	(void)state;
	assert_int_equal(ipoib_addr_parse("80:00:01:08:fe:80:00:00:00:00:00:00:"
					  "02:00:00:00:00:2a:00:01",
					  &g, &cm),
			 0);
	assert_true(g == VM42_NIC1);
	assert_true(cm);
	assert_int_equal(ipoib_addr_parse("00:00:01:08:FE:80:00:00:00:00:00:00:"
					  "02:03:00:00:00:2A:00:01",
					  &g, &cm),
			 0);
	assert_true(g == 0x02030000002a0001ULL);
	assert_false(cm);
	/* an Ethernet address, a short one, a long one, a bad digit */
	assert_int_equal(ipoib_addr_parse("02:00:c0:a8:00:2a", &g, &cm),
			 -EINVAL);
	assert_int_equal(ipoib_addr_parse("80:00:01:08:fe:80:00:00:00:00:00:"
					  "00:02:00:00:00:00:2a:00",
					  &g, &cm),
			 -EINVAL);
	assert_int_equal(ipoib_addr_parse("80:00:01:08:fe:80:00:00:00:00:00:"
					  "00:02:00:00:00:00:2a:00:01:ff",
					  &g, &cm),
			 -EINVAL);
	assert_int_equal(ipoib_addr_parse("80:00:01:08:fe:80:00:00:00:00:00:"
					  "00:02:00:00:00:00:2a:00:0g",
					  &g, &cm),
			 -EINVAL);
	assert_int_equal(
		gid_parse_guid("fe80:0000:0000:0000:0200:0000:002a:0001", &g),
		0);
	assert_true(g == VM42_NIC1);
	assert_int_equal(gid_parse_guid("fe80::0200:0000:002a:0001", &g),
			 -EINVAL);
	assert_string_equal(ibport_state_name(4), "ACTIVE");
	assert_string_equal(ibport_state_name(9), "?");
}

static void tenant_key(void **state)
{
	static const uint16_t cx5[] = { 0xffff, 0x8011, 0, 0 };
	static const uint16_t cx3[] = { 0x8011, 0x7fff };
	static const uint16_t none[] = { 0xffff, 0, 0x7fff };
	/* a service network's NIC: a limited member, on mlx5 and mlx4 */
	static const uint16_t svc5[] = { 0x7fff, 0x0104, 0 };
	static const uint16_t svc3[] = { 0x0104, 0x7fff };
	/* a full key wins over a limited one the operator added */
	static const uint16_t both[] = { 0x7fff, 0x0200, 0x8011 };
	static const uint16_t lim2[] = { 0x7fff, 0x0200, 0x0104 };
	static const uint16_t two[] = { 0xffff, 0x8011, 0x8012, 0x8011 };
	char why[128];
	struct pkey k, want = { 0x8012 };
	size_t i;

	(void)state;
	assert_int_equal(
		plan_tenant_pkey(cx5, 4, NULL, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x8011);
	assert_int_equal(i, 1);
	assert_int_equal(
		plan_tenant_pkey(cx3, 2, NULL, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x8011);
	assert_int_equal(i, 0);
	assert_int_equal(plan_tenant_pkey(none, 3, NULL, &k, &i, why,
					  sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "no tenant P_Key in the table");
	assert_int_equal(plan_tenant_pkey(two, 4, NULL, &k, &i, why,
					  sizeof(why)),
			 -EEXIST);
	assert_string_equal(why, "several tenant P_Keys in the table (0x8011 "
				 "0x8012 "
				 "0x8011)");
	assert_int_equal(
		plan_tenant_pkey(two, 4, &want, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x8012);
	assert_int_equal(i, 2);
	want.raw = 0x8013;
	assert_int_equal(plan_tenant_pkey(two, 4, &want, &k, &i, why,
					  sizeof(why)),
			 -ENOENT);
	assert_string_equal(why, "P_Key 0x8013 is not in the table");
	assert_int_equal(
		plan_tenant_pkey(svc5, 3, NULL, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x0104);
	assert_int_equal(i, 1);
	assert_int_equal(
		plan_tenant_pkey(svc3, 2, NULL, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x0104);
	assert_int_equal(i, 0);
	assert_int_equal(
		plan_tenant_pkey(both, 3, NULL, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x8011);
	assert_int_equal(plan_tenant_pkey(lim2, 3, NULL, &k, &i, why,
					  sizeof(why)),
			 -EEXIST);
	assert_string_equal(why, "several tenant P_Keys in the table (0x0200 "
				 "0x0104)");
	want.raw = 0x8104; /* ETH<n>_IB_PKEY as the network has it */
	assert_int_equal(
		plan_tenant_pkey(lim2, 3, &want, &k, &i, why, sizeof(why)), 0);
	assert_int_equal(k.raw, 0x0104);
	assert_int_equal(i, 2);
	want.raw = 0x8012;
	/* the same key twice is one key */
	assert_int_equal(plan_tenant_pkey(two + 3, 1, NULL, &k, &i, why,
					  sizeof(why)),
			 0);
	assert_int_equal(plan_tenant_pkey(NULL, 0, NULL, &k, &i, why,
					  sizeof(why)),
			 -ENOENT);
}

static void child_names(void **state)
{
	char n[IF_NAMESIZE];

	(void)state;
	ipoib_child_name("ib0", 0x8011, n);
	assert_string_equal(n, "ib0.8011");
	/* the kernel's "%.10s.%04x": a persistent name is cut */
	ipoib_child_name("ibp175s0f1v7", 0x8011, n);
	assert_string_equal(n, "ibp175s0f1.8011");
	ipoib_child_name("ib0", 0x0001, n);
	assert_string_equal(n, "ib0.0001");
}

static struct ipoib_dev dev(const char *name, uint64_t guid, bool cm)
{
	struct ipoib_dev d;

	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "%s", name);
	d.guid = guid;
	d.cm = cm;
	snprintf(d.ibdev, sizeof(d.ibdev), "mlx5_0");
	d.port = 1;
	d.has_mode = true;
	return d;
}

static void matching(void **state)
{
	struct ipoib_dev v[3];
	struct ipoib_devs d = { v, 3, 3 };

	(void)state;
	v[0] = dev("ib0", guid_for_nic(0, 42, 1), false);
	v[1] = dev("ib1", guid_for_nic(3, 42, 2), false); /* other cloud id */
	v[2] = dev("ib2", guid_for_nic(0, 43, 1), false); /* other VM */
	assert_int_equal(plan_match(&d, 42, 1), 0);
	assert_int_equal(plan_match(&d, 42, 2), 1);
	assert_int_equal(plan_match(&d, 42, 0), -1);
	assert_int_equal(plan_match(&d, 43, 1), 2);
	assert_int_equal(plan_match(&d, 42, 70000), -1);
	v[2] = dev("ib2", guid_for_nic(7, 42, 1), false);
	assert_int_equal(plan_match(&d, 42, 1), -2);
}

static void line_of(const struct nic_plan *p, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(plan_line(p, &sb), 0);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

static void plan_for(struct nic_plan *p, const char *ctx, const char *devname,
		     bool cm, uint16_t *tbl, size_t n, int mtu, int state)
{
	struct ib_port_facts f = { .state = state,
				   .active_mtu = mtu,
				   .pkeys = tbl,
				   .npkeys = n,
				   .guid = VM42_NIC1,
				   .source = "libibverbs" };
	struct ipoib_dev d = dev(devname, VM42_NIC1, cm);
	char err[256];
	struct context c;

	memset(p, 0, sizeof(*p));
	assert_int_equal(context_parse(ctx, strlen(ctx), &c), 0);
	p->nic = 1;
	assert_int_equal(nic_conf_parse(&c, 1, &p->conf, err, sizeof(err)), 0);
	p->what = p->conf.method == NIC_SKIP ? PLAN_SKIP : PLAN_CONFIGURE;
	plan_nic(p, &d, &f);
	context_free(&c);
}

static void plans(void **state)
{
	uint16_t cx5[] = { 0xffff, 0x8011 }, cx3[] = { 0x8011, 0x7fff };
	uint16_t nokey[] = { 0xffff };
	struct nic_plan p;

	(void)state;
	plan_for(&p,
		 "ETH1_IP='10.11.0.5'\nETH1_MASK='255.255.255.0'\n"
		 "ETH1_GATEWAY='10.11.0.1'\nETH1_MTU='9000'\n",
		 "ib0", false, cx5, 2, 2048, 4);
	assert_int_equal(p.what, PLAN_CONFIGURE);
	assert_true(p.child);
	assert_string_equal(p.link, "ib0.8011");
	assert_int_equal(p.mtu, 2044); /* port MTU 2048 - 4 */
	assert_int_equal(p.nnotes, 1);
	assert_string_equal(p.note[0], "ETH1_MTU 9000 clamped to 2044 "
				       "(datagram: port MTU 2048 - 4)");
	line_of(&p, "ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via "
		    "ib0.8011 mode datagram mtu 2044 ip 10.11.0.5/24 gw "
		    "10.11.0.1");

	/* ConnectX-3: the parent, connected possible, 4K port */
	plan_for(&p,
		 "ETH1_IP6='fd00::5'\nETH1_IB_MODE='connected'\n"
		 "ETH1_MTU='65520'\nETH1_ROUTES='10.9.0.0/16 via 10.11.0.1'\n",
		 "ib0", true, cx3, 2, 4096, 4);
	assert_false(p.child);
	assert_string_equal(p.link, "ib0");
	assert_int_equal(p.mode, IPOIB_CONNECTED);
	assert_int_equal(p.mtu, 65520);
	assert_int_equal(p.nnotes, 0);
	line_of(&p, "ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0 "
		    "mode connected mtu 65520 ip6 fd00::5/64 route "
		    "10.9.0.0/16 via 10.11.0.1");

	/* ConnectX-5 asked for connected: datagram, 4K port */
	plan_for(&p, "ETH1_IB_MODE='connected'\nETH1_MTU='65520'\n", "ib1",
		 false, cx5, 2, 4096, 2);
	assert_int_equal(p.mode, IPOIB_DATAGRAM);
	assert_int_equal(p.mtu, 4092);
	assert_int_equal(p.nnotes, 3);
	assert_string_equal(p.note[0], "mlx5_0 port 1 is INIT: the link comes "
				       "up when the "
				       "subnet manager activates it");
	assert_string_equal(p.note[1], "ib1 cannot do connected mode "
				       "(ConnectX-4 and later "
				       "run enhanced IPoIB, datagram only): "
				       "datagram");
	assert_string_equal(p.note[2], "ETH1_MTU 65520 clamped to 4092 "
				       "(datagram: port MTU 4096 - 4)");
	line_of(&p, "ETH1 ib1 guid 0x02000000002a0001 pkey 0x8011 via "
		    "ib1.8011 mode datagram mtu 4092");

	/* the port MTU unknown (sysfs): 4092 at most */
	plan_for(&p, "ETH1_MTU='4092'\n", "ib0", false, cx5, 2, 0, 4);
	assert_int_equal(p.mtu, 4092);
	assert_int_equal(p.nnotes, 0);
	plan_for(&p, "ETH1_MTU='2044'\n", "ib0", false, cx5, 2, 2048, 4);
	assert_int_equal(p.mtu, 2044);
	assert_int_equal(p.nnotes, 0);

	/* no key yet; several; dhcp; skip; IPv6 off */
	plan_for(&p, "ETH1_IP='10.0.0.1'\n", "ib0", false, nokey, 1, 0, 2);
	assert_int_equal(p.what, PLAN_WAIT);
	line_of(&p, "ETH1 ib0 guid 0x02000000002a0001 wait mlx5_0 port 1: no "
		    "tenant P_Key in the table yet");
	plan_for(&p, "ETH1_IB_PKEY='0x8012'\n", "ib0", false, cx5, 2, 0, 4);
	assert_int_equal(p.what, PLAN_WAIT);
	assert_string_equal(p.why, "mlx5_0 port 1: P_Key 0x8012 is not in "
				   "the table yet");
	{
		uint16_t two[] = { 0xffff, 0x8011, 0x8012 };

		plan_for(&p, "", "ib0", false, two, 3, 0, 4);
		assert_int_equal(p.what, PLAN_ERROR);
		line_of(&p, "ETH1 ib0 guid 0x02000000002a0001 error mlx5_0 "
			    "port 1: several tenant P_Keys in the table "
			    "(0x8011 0x8012): set ETH1_IB_PKEY");
		plan_for(&p, "ETH1_IB_PKEY='0x8012'\n", "ib0", false, two, 3, 0,
			 4);
		assert_int_equal(p.what, PLAN_CONFIGURE);
		assert_string_equal(p.link, "ib0.8012");
	}
	plan_for(&p, "ETH1_METHOD='dhcp'\n", "ib0", false, cx5, 2, 0, 4);
	assert_int_equal(p.what, PLAN_ERROR);
	assert_string_equal(p.why, "ETH1_METHOD dhcp: not supported on IPoIB "
				   "yet");
	plan_for(&p, "ETH1_METHOD='skip'\nETH1_MTU='x'\n", "ib0", false, cx5, 2,
		 0, 4);
	assert_int_equal(p.what, PLAN_SKIP);
	plan_for(&p, "ETH1_IP6_METHOD='disable'\nETH1_IP6='fd00::1'\n", "ib0",
		 false, cx3, 2, 0, 4);
	assert_true(p.ip6_off);
	line_of(&p, "ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0 "
		    "mode datagram mtu - ip6 off");
}

static void guid_mismatch(void **state)
{
	uint16_t cx5[] = { 0xffff, 0x8011 };
	struct ib_port_facts f = { .state = 4,
				   .pkeys = cx5,
				   .npkeys = 2,
				   .guid = 0x0002c90300a1b2c1ULL };
	struct ipoib_dev d = dev("ib0", VM42_NIC1, false);
	struct nic_plan p;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.nic = 1;
	p.what = PLAN_CONFIGURE;
	plan_nic(&p, &d, &f);
	assert_int_equal(p.what, PLAN_ERROR);
	assert_string_equal(p.why, "mlx5_0 port 1 has GUID 0x0002c90300a1b2c1, "
				   "ib0's address 0x02000000002a0001");
}

static void record(void **state)
{
	static const char *const lines[] = {
		"ETH1 child ib0.8011 ib0 0x8011",
		"ETH1 addr ib0.8011 10.11.0.5/24",
		"ETH1 addr ib0.8011 fd00:11::5/64",
		"ETH1 route ib0.8011 0.0.0.0/0 10.11.0.1 100",
		"ETH12 route ib1 fd00:12::/48 fd00:11::1 1024",
	};
	static const char *const bad[] = {
		"ETH1 addr ib0.8011 10.11.0.5",
		"ETH1 addr ib0 10.11.0.5/33",
		"ETH1 child ib0.8011 ib0",
		"ETH1 child a/b ib0 0x8011",
		"eth1 addr ib0 10.11.0.5/24",
		"ETH1 route ib0 0.0.0.0/0 x 0",
		"ETH1 addr ib0 10.11.0.5/24 extra",
		"ETH70000 addr ib0 1.2.3.4/8",
		"ETH1 addr ib0123456789abcdef 1.2.3.4/8",
	};
	struct strbuf sb = STRBUF_INIT;
	struct gobj o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(gobj_parse(lines[i], &o), 0);
		sb_reset(&sb);
		assert_int_equal(gobj_fmt(&o, &sb), 0);
		assert_string_equal(sb_str(&sb), lines[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(gobj_parse(bad[i], &o), -EINVAL);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(addr_forms),  cmocka_unit_test(tenant_key),
		cmocka_unit_test(child_names), cmocka_unit_test(matching),
		cmocka_unit_test(plans),       cmocka_unit_test(guid_mismatch),
		cmocka_unit_test(record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
