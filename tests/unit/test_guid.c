// SPDX-License-Identifier: Apache-2.0
/* GUIDs in their three textual forms, and the MAC -> GUID rule. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/guid.h"

static void hex_forms(void **state)
{
	uint64_t g;

	(void)state;
	assert_int_equal(guid_parse_hex("0x0002c90300a1b2c1", &g), 0);
	assert_true(g == 0x0002c90300a1b2c1ULL);
	/* mlx4 admin_guids: %llx, no 0x, no padding */
	assert_int_equal(guid_parse_hex("2c90300a1b2c3", &g), 0);
	assert_true(g == 0x0002c90300a1b2c3ULL);
	assert_int_equal(guid_parse_hex("ffffffffffffffff", &g), 0);
	assert_true(g == UINT64_MAX);
	assert_int_equal(guid_parse_hex("0X0A", &g), 0);
	assert_true(g == 10);
}

static void hex_rejects(void **state)
{
	uint64_t g = 7;

	(void)state;
	assert_int_equal(guid_parse_hex("", &g), -EINVAL);
	assert_int_equal(guid_parse_hex("0x", &g), -EINVAL);
	assert_int_equal(guid_parse_hex("0x10000000000000000", &g), -EINVAL);
	assert_int_equal(guid_parse_hex("0x00g2", &g), -EINVAL);
	assert_int_equal(guid_parse_hex("0x12 ", &g), -EINVAL);
	assert_int_equal(guid_parse_hex("-1", &g), -EINVAL);
	assert_int_equal(guid_parse_hex(NULL, &g), -EINVAL);
	assert_true(g == 7);
}

static void sysfs_form(void **state)
{
	char buf[GUID_STRLEN];
	uint64_t g;

	(void)state;
	assert_int_equal(guid_parse_sysfs("0002:c903:00a1:b2c0", &g), 0);
	assert_true(g == 0x0002c90300a1b2c0ULL);
	guid_fmt_sysfs(g, buf);
	assert_string_equal(buf, "0002:c903:00a1:b2c0");
	assert_int_equal(guid_parse_sysfs("0002:c903:00a1:b2c", &g), -EINVAL);
	assert_int_equal(guid_parse_sysfs("0002:c903:00a1:b2c00", &g), -EINVAL);
	assert_int_equal(guid_parse_sysfs("0002-c903-00a1-b2c0", &g), -EINVAL);
	assert_int_equal(guid_parse_sysfs("02:00:c0:ff:fe:a8:01", &g), -EINVAL);
}

static void bytes_form(void **state)
{
	char buf[GUID_STRLEN];
	uint64_t g;

	(void)state;
	assert_int_equal(guid_parse_bytes("02:00:c0:ff:fe:a8:01:05", &g), 0);
	assert_true(g == 0x0200c0fffea80105ULL);
	guid_fmt_bytes(g, buf);
	assert_string_equal(buf, "02:00:c0:ff:fe:a8:01:05");
	guid_fmt_hex(g, buf);
	assert_string_equal(buf, "0x0200c0fffea80105");
	assert_int_equal(guid_parse_bytes("02:00:c0:ff:fe:a8:01:5", &g),
			 -EINVAL);
	assert_int_equal(guid_parse_bytes("02:00:c0:ff:fe:a8:01:05:", &g),
			 -EINVAL);
	assert_int_equal(guid_parse_bytes("02:00:c0:ff:fe:a8:01;05", &g),
			 -EINVAL);
}

static void any_form(void **state)
{
	uint64_t a, b, c;

	(void)state;
	assert_int_equal(guid_parse("0x0002c90300a1b2c1", &a), 0);
	assert_int_equal(guid_parse("0002:c903:00a1:b2c1", &b), 0);
	assert_int_equal(guid_parse("00:02:c9:03:00:a1:b2:c1", &c), 0);
	assert_true(a == b && b == c);
	assert_int_equal(guid_parse("00:02:c9:03", &a), -EINVAL);
}

static void mac_to_guid(void **state)
{
	char buf[GUID_STRLEN];
	uint64_t mac;

	(void)state;
	/* design.md decision 2 */
	assert_int_equal(mac_parse("02:00:c0:a8:01:05", &mac), 0);
	guid_fmt_bytes(guid_from_mac(mac), buf);
	assert_string_equal(buf, "02:00:c0:ff:fe:a8:01:05");
	assert_int_equal(mac_parse("02:00:C0:A8:01:FF", &mac), 0);
	guid_fmt_hex(guid_from_mac(mac), buf);
	assert_string_equal(buf, "0x0200c0fffea801ff");
	mac_fmt(mac, buf);
	assert_string_equal(buf, "02:00:c0:a8:01:ff");
	assert_int_equal(mac_parse("02:00:c0:a8:01", &mac), -EINVAL);
	assert_int_equal(mac_parse("02:00:c0:a8:01:05\n", &mac), -EINVAL);
	assert_int_equal(mac_parse("0200c0a80105", &mac), -EINVAL);
}

static void nic_guid(void **state)
{
	char buf[128], hex[GUID_STRLEN];
	uint64_t g = 0;
	unsigned cloud;
	uint32_t vmid;
	uint16_t nic;

	(void)state;
	/* design.md decision 2: VM 42 NIC 1 in cloud 0 */
	guid_fmt_hex(guid_for_nic(0, 42, 1), hex);
	assert_string_equal(hex, "0x02000000002a0001");
	guid_fmt_bytes(guid_for_nic(3, 0xdeadbeef, 0xfffe), hex);
	assert_string_equal(hex, "02:03:de:ad:be:ef:ff:fe");
	assert_true(
		guid_decode_nic(0x02030000002a0001ULL, &cloud, &vmid, &nic));
	assert_int_equal(cloud, 3);
	assert_int_equal(vmid, 42);
	assert_int_equal(nic, 1);
	assert_false(guid_decode_nic(0x0002c90300a1b2c1ULL, NULL, NULL, NULL));
	/* the guest does not know the cloud id */
	assert_true(guid_is_nic(0x02070000002a0001ULL, 42, 1));
	assert_false(guid_is_nic(0x02070000002a0001ULL, 42, 2));
	assert_false(guid_is_nic(0x02070000002b0001ULL, 42, 1));
	assert_false(guid_is_nic(0x03000000002a0001ULL, 42, 1));
	/* two NICs, two VMs, two clouds: never the same GUID */
	assert_true(guid_for_nic(0, 1, 0) != guid_for_nic(0, 0, 1));
	assert_true(guid_for_nic(0, 1, 0) != guid_for_nic(1, 1, 0));

	assert_int_equal(guid_for_nic_checked(0, 42, 1, &g, buf, sizeof(buf)),
			 0);
	assert_true(g == 0x02000000002a0001ULL);
	assert_int_equal(guid_for_nic_checked(256, 42, 1, &g, buf, sizeof(buf)),
			 -ERANGE);
	assert_int_equal(guid_for_nic_checked(0, 42, 65536, &g, buf,
					      sizeof(buf)),
			 -ERANGE);
	assert_string_equal(buf, "VM 42 NIC 65536: NIC_ID does not fit the "
				 "GUID's "
				 "16 bits");
	assert_int_equal(guid_for_nic_checked(0, -1, 0, &g, buf, sizeof(buf)),
			 -ERANGE);
	assert_int_equal(guid_for_nic_checked(0, 4294967296LL, 0, &g, buf,
					      sizeof(buf)),
			 -ERANGE);
}

static void describe(void **state)
{
	char buf[GUID_DESC_LEN];

	(void)state;
	guid_describe(0x02000000002a0001ULL, buf);
	assert_string_equal(buf, "VM 42 NIC 1");
	guid_describe(0x02030000002a0001ULL, buf);
	assert_string_equal(buf, "cloud 3 VM 42 NIC 1");
	guid_describe(0x0200c0fffea80105ULL, buf);
	assert_string_equal(buf, "MAC 02:00:c0:a8:01:05 (old GUID)");
	guid_describe(0x0002c90300a1b2c1ULL, buf);
	assert_string_equal(buf, "-");
}

/* What oneib-pkey may program on a VF (guid_assignable). */
static void assignable(void **state)
{
	(void)state;
	/* NIC GUIDs, any cloud, any VM/NIC */
	assert_true(guid_assignable(0x02000000002a0001ULL));
	assert_true(guid_assignable(0x02ff0000002a0001ULL));
	assert_true(guid_assignable(guid_for_nic(0, 0, 0)));
	assert_true(guid_assignable(guid_for_nic(255, UINT32_MAX, 65535)));
	/* a lease written before the upgrade: MAC-derived, local MAC */
	assert_true(guid_assignable(guid_from_mac(0x0200c0a80105ULL)));
	assert_true(guid_assignable(guid_from_mac(0x0a1b2c3d4e5fULL)));
	/* ... but not from a vendor's (universal) or a multicast MAC */
	assert_false(guid_assignable(guid_from_mac(0x0c42a1001000ULL)));
	assert_false(guid_assignable(guid_from_mac(0x0300c0a80105ULL)));
	/* local, but neither form: some other administrator's GUID */
	assert_false(guid_assignable(0x0a00000000000001ULL));
	assert_false(guid_assignable(0x0600c0a1fffd0105ULL));
	/* vendors' port and node GUIDs, zero, all ones */
	assert_false(guid_assignable(0x0002c90300a1b2c1ULL));
	assert_false(guid_assignable(0x0c42a10300001001ULL));
	assert_false(guid_assignable(0xb83fd20300a10001ULL));
	assert_false(guid_assignable(0));
	assert_false(guid_assignable(UINT64_MAX));
	/* 0x03: the group bit */
	assert_false(guid_assignable(0x03000000002a0001ULL));
}

static void cloud_ids(void **state)
{
	unsigned c = 9;

	(void)state;
	assert_int_equal(cloud_id_parse("0", &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(cloud_id_parse("255", &c), 0);
	assert_int_equal(c, 255);
	assert_int_equal(cloud_id_parse("256", &c), -EINVAL);
	assert_int_equal(cloud_id_parse("-1", &c), -EINVAL);
	assert_int_equal(cloud_id_parse("0x1", &c), -EINVAL);
	assert_int_equal(cloud_id_parse("", &c), -EINVAL);
	assert_int_equal(c, 255);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hex_forms),  cmocka_unit_test(hex_rejects),
		cmocka_unit_test(sysfs_form), cmocka_unit_test(bytes_form),
		cmocka_unit_test(any_form),   cmocka_unit_test(mac_to_guid),
		cmocka_unit_test(nic_guid),   cmocka_unit_test(describe),
		cmocka_unit_test(cloud_ids),  cmocka_unit_test(assignable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
