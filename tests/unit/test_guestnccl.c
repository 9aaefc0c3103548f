// SPDX-License-Identifier: Apache-2.0
/*
 * NCCL's files of a guest (guest/guestnccl.h) from facts built in memory,
 * a guest as one-ib deploys it (OpenNebula 7.0's layout, two guest NUMA
 * nodes):
 *
 *   node 0  pci0000:20 / 20:01.0 / switch 21:00.0 / 22:00.0 GPU 23:00.0
 *                                                 / 22:01.0 VF  24:00.0 (ETH1, mlx5_0, rail 5)
 *   node 1  pci0000:40 / 40:01.0 / switch 41:00.0 / 42:00.0 GPU 43:00.0
 *                                                 / 42:01.0 VF  44:00.0 (ETH2, mlx5_1, rail 3)
 *                                                 / 42:02.0 VF  45:00.0 (ETH3, mlx5_2, no rail)
 *   node 1  pci0000:60 / 60:01.0 / VF 61:00.0 (ETH4, mlx5_3, rail 0, no GPU)
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

#include "guest/guestnccl.h"

static void fn(struct nccl_fn *f, const char *path, const char *bdf,
	       uint32_t cls, int node, const char *speed, int width)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(pci_addr_parse(bdf, &f->addr), 0);
	assert_int_equal(pci_place_parse(path, &f->addr, &f->place), 0);
	f->place.numa_node = node;
	f->class_code = cls;
	snprintf(f->speed, sizeof(f->speed), "%s", speed);
	f->width = width;
}

#define SW0 "../../../devices/pci0000:20/0000:20:01.0/0000:21:00.0/"
#define SW1 "../../../devices/pci0000:40/0000:40:01.0/0000:41:00.0/"

static void guest(struct nccl_nic v[4])
{
	memset(v, 0, 4 * sizeof(*v));
	v[0].nic = 1;
	snprintf(v[0].ibdev, sizeof(v[0].ibdev), "mlx5_0");
	v[0].port = 1;
	v[0].rail = 5;
	fn(&v[0].vf, SW0 "0000:22:01.0/0000:24:00.0", "0000:24:00.0", 0x020700,
	   0, "16.0 GT/s PCIe", 16);
	v[0].has_gpu = true;
	fn(&v[0].gpu, SW0 "0000:22:00.0/0000:23:00.0", "0000:23:00.0", 0x030200,
	   0, "32.0 GT/s PCIe", 16);
	v[1].nic = 2;
	snprintf(v[1].ibdev, sizeof(v[1].ibdev), "mlx5_1");
	v[1].port = 1;
	v[1].rail = 3;
	fn(&v[1].vf, SW1 "0000:42:01.0/0000:44:00.0", "0000:44:00.0", 0x020700,
	   1, "16.0 GT/s PCIe", 16);
	v[1].has_gpu = true;
	fn(&v[1].gpu, SW1 "0000:42:00.0/0000:43:00.0", "0000:43:00.0", 0x030200,
	   1, "32.0 GT/s PCIe", 16);
	v[2] = v[1];
	v[2].nic = 3;
	snprintf(v[2].ibdev, sizeof(v[2].ibdev), "mlx5_2");
	v[2].rail = -1;
	fn(&v[2].vf, SW1 "0000:42:02.0/0000:45:00.0", "0000:45:00.0", 0x020700,
	   1, "", 0);
	v[3].nic = 4;
	snprintf(v[3].ibdev, sizeof(v[3].ibdev), "mlx5_3");
	v[3].port = 1;
	v[3].rail = 0;
	fn(&v[3].vf, "../../../devices/pci0000:60/0000:60:01.0/0000:61:00.0",
	   "0000:61:00.0", 0x020700, 1, "16.0 GT/s PCIe", 8);
}

static void topology(void **state)
{
	struct nccl_nic v[4];
	struct strbuf out = STRBUF_INIT;

	(void)state;
	guest(v);
	assert_int_equal(nccl_topology(v, 4, &out), 0);
	assert_string_equal(
		sb_str(&out),
		"<system version=\"1\">\n"
		"  <cpu numaid=\"0\">\n"
		"    <pci busid=\"0000:21:00.0\" class=\"0x060400\" "
		"link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		"      <pci busid=\"0000:23:00.0\" class=\"0x030200\" "
		"link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n"
		"      <pci busid=\"0000:24:00.0\" class=\"0x020700\" "
		"link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>\n"
		"    </pci>\n"
		"  </cpu>\n"
		"  <cpu numaid=\"1\">\n"
		"    <pci busid=\"0000:41:00.0\" class=\"0x060400\" "
		"link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
		"      <pci busid=\"0000:43:00.0\" class=\"0x030200\" "
		"link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n"
		"      <pci busid=\"0000:44:00.0\" class=\"0x020700\" "
		"link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>\n"
		"      <pci busid=\"0000:45:00.0\" class=\"0x020700\" "
		"link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"/>\n"
		"    </pci>\n"
		"    <pci busid=\"0000:61:00.0\" class=\"0x020700\" "
		"link_speed=\"16.0 GT/s PCIe\" link_width=\"8\"/>\n"
		"  </cpu>\n"
		"</system>\n");
	sb_release(&out);
	/* no NIC beside a GPU: no file */
	v[0].has_gpu = v[1].has_gpu = v[2].has_gpu = false;
	assert_int_equal(nccl_topology(v, 4, &out), -ENOENT);
	/* a GPU on the NIC's node but under no shared switch: not beside */
	guest(v);
	v[0].gpu.place.has_switch = false;
	v[1].has_gpu = v[2].has_gpu = false;
	assert_int_equal(nccl_topology(v, 4, &out), -ENOENT);
	sb_release(&out);
}

static void environment(void **state)
{
	struct nccl_nic v[4];
	struct strbuf out = STRBUF_INIT;

	(void)state;
	guest(v);
	assert_int_equal(
		nccl_environment(v, 4, "/run/oneib-context/t.xml", &out), 0);
	/* rails 0, 3, 5, then the NIC without one */
	assert_string_equal(sb_str(&out), "# the InfiniBand NICs in rail "
					  "order, each beside "
					  "its GPU (one-ib)\n"
					  "NCCL_TOPO_FILE=/run/oneib-context/"
					  "t.xml\n"
					  "NCCL_IB_HCA==mlx5_3:1,mlx5_1:1,mlx5_"
					  "0:1,mlx5_2:1\n"
					  "UCX_NET_DEVICES=mlx5_3:1,mlx5_1:1,"
					  "mlx5_0:1,mlx5_2:"
					  "1\n");
	sb_release(&out);
	/* one NIC beside a GPU, no file: the NIC alone */
	guest(v);
	assert_int_equal(nccl_environment(v, 1, NULL, &out), 0);
	assert_null(strstr(sb_str(&out), "NCCL_TOPO_FILE"));
	assert_non_null(strstr(sb_str(&out), "NCCL_IB_HCA==mlx5_0:1\n"));
	sb_release(&out);
	/* one NIC beside no GPU: nothing to tell */
	assert_int_equal(nccl_environment(&v[3], 1, NULL, &out), 0);
	assert_string_equal(sb_str(&out), "");
	assert_int_equal(nccl_environment(v, 0, NULL, &out), 0);
	assert_string_equal(sb_str(&out), "");
}

static void oem_strings(void **state)
{
	/* type 11, length 5, handle 0x0b00, 3 strings */
	static const unsigned char raw[] = "\x0b\x05\x00\x0b\x03"
					   "OpenNebula\0"
					   "one-ib rails 1=5,2=3\0"
					   "other\0";
	static const unsigned char bad[] = "\x0b\x05\x00\x0b\x01"
					   "one-ib rails 1=x\0";
	static const unsigned char type1[] = "\x01\x05\x00\x0b\x01"
					     "one-ib rails 1=5\0";
	struct rail_hint *h = NULL;
	size_t n = 0;

	(void)state;
	assert_true(nccl_oem_parse(raw, sizeof(raw), &h, &n));
	assert_int_equal(n, 2);
	assert_int_equal(rail_hint_find(h, n, 1), 5);
	assert_int_equal(rail_hint_find(h, n, 2), 3);
	free(h);
	h = NULL;
	assert_false(nccl_oem_parse(bad, sizeof(bad), &h, &n));
	assert_false(nccl_oem_parse(type1, sizeof(type1), &h, &n));
	assert_false(nccl_oem_parse(raw, 4, &h, &n));
	/* a string cut off without its NUL is not read past the end */
	assert_false(nccl_oem_parse(raw, 20, &h, &n));
	assert_null(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(topology),
		cmocka_unit_test(environment),
		cmocka_unit_test(oem_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
