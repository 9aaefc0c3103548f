// SPDX-License-Identifier: Apache-2.0
/*
 * Where a PCI function sits, from the device path the kernel links it by
 * (core/pciplace.h): the bridge chain, the root port, the switch inferred
 * from the tree, and how near two functions are.
 *
 *   HGX GPU   pci0000:14/0000:14:01.0/0000:15:00.0/0000:16:00.0/0000:17:00.0
 *   HGX PF    pci0000:14/0000:14:01.0/0000:15:00.0/0000:16:02.0/0000:19:00.0
 *   other sw  pci0000:38/0000:38:01.0/0000:39:00.0/0000:3a:00.0/0000:3b:00.0
 *   cx5 PF    pci0000:3a/0000:3a:00.0/0000:3b:00.0        (on a root port)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/pciplace.h"

static struct pci_addr a(const char *s)
{
	struct pci_addr x;

	assert_int_equal(pci_addr_parse(s, &x), 0);
	return x;
}

static void place(const char *target, const char *dev, struct pci_place *out)
{
	struct pci_addr d = a(dev);

	assert_int_equal(pci_place_parse(target, &d, out), 0);
	assert_true(out->known);
}

static void fmt_eq(const struct pci_addr *x, const char *want)
{
	char buf[PCI_ADDR_STRLEN];

	pci_addr_fmt(x, buf);
	assert_string_equal(buf, want);
}

#define GPU0                                                                   \
	"../../../devices/pci0000:14/0000:14:01.0/0000:15:00.0/0000:16:00.0/"  \
	"0000:17:00.0"
#define PF0                                                                    \
	"../../../devices/pci0000:14/0000:14:01.0/0000:15:00.0/0000:16:02.0/"  \
	"0000:19:00.0"
#define PF2                                                                    \
	"../../../devices/pci0000:38/0000:38:01.0/0000:39:00.0/0000:3a:00.0/"  \
	"0000:3b:00.0"

static void switch_from_the_tree(void **state)
{
	struct pci_place g;

	(void)state;
	place(GPU0, "0000:17:00.0", &g);
	assert_int_equal(g.domain, 0);
	assert_int_equal(g.root_bus, 0x14);
	assert_int_equal(g.nchain, 3);
	fmt_eq(&g.chain[0], "0000:14:01.0"); /* root port */
	assert_true(g.has_switch);
	fmt_eq(&g.sw, "0000:15:00.0"); /* the upstream port */
	assert_int_equal(g.numa_node, -1); /* the caller reads it */
}

static void no_switch(void **state)
{
	struct pci_place p;

	(void)state;
	/* straight on a root port (cx5's PFs) */
	place("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
	      "0000:3b:00.0", &p);
	assert_int_equal(p.nchain, 1);
	assert_false(p.has_switch);
	/* behind a PCIe-to-PCI bridge below the root port: no switch */
	place("../../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0/"
	      "0000:02:00.0",
	      "0000:02:00.0", &p);
	assert_int_equal(p.nchain, 2);
	assert_false(p.has_switch);
	/* on the host bridge's own bus (an integrated function) */
	place("../../../devices/pci0000:00/0000:00:1f.2", "0000:00:1f.2", &p);
	assert_int_equal(p.nchain, 0);
	assert_false(p.has_switch);
	/* an absolute path reads the same */
	place("/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
	      "0000:3b:00.0", &p);
	assert_int_equal(p.nchain, 1);
}

static void two_level_switch_names_the_nearest(void **state)
{
	struct pci_place p;

	(void)state;
	/* root port, top switch (up, down), second switch (up, down) */
	place("../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0/"
	      "0000:82:04.0/0000:84:00.0/0000:85:01.0/0000:87:00.0",
	      "0000:87:00.0", &p);
	assert_int_equal(p.nchain, 5);
	assert_true(p.has_switch);
	fmt_eq(&p.sw, "0000:84:00.0");
}

static void odd_paths_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"../../../devices/0000:3b:00.0",
		"../../../devices/pci0000:3a", /* no device */
		"../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1",
		"../../../devices/pci0000:3A/0000:3a:00.0/0000:3b:00.0",
		"../../../devices/pci000:3a/0000:3a:00.0/0000:3b:00.0",
		/* the root port is not on the host bridge's bus */
		"../../../devices/pci0000:3a/0000:30:00.0/0000:3b:00.0",
		/* another domain inside the chain */
		"../../../devices/pci0000:3a/0000:3a:00.0/0001:3b:00.0",
		"../../../devices/pci0000:3a/0000:3a:00.0//0000:3b:00.0",
		"../../../devices/pci0000:3a/0000:3a:00.0/x/0000:3b:00.0",
		"../../../devicesxpci0000:3a/0000:3a:00.0/0000:3b:00.0",
		/* nine bridges: deeper than PCI_CHAIN_MAX */
		"../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/"
		"0000:3c:00.0/0000:3d:00.0/0000:3e:00.0/0000:3f:00.0/"
		"0000:40:00.0/0000:41:00.0/0000:42:00.0/0000:43:00.0",
	};
	struct pci_addr d = a("0000:3b:00.0");
	struct pci_place p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pci_addr dev = i == 11 ? a("0000:43:00.0") : d;

		assert_int_equal(pci_place_parse(bad[i], &dev, &p), -EINVAL);
		assert_false(p.known);
	}
}

static void nearness(void **state)
{
	struct pci_place g, p0, p2, rp, unk = { 0 };

	(void)state;
	place(GPU0, "0000:17:00.0", &g);
	place(PF0, "0000:19:00.0", &p0);
	place(PF2, "0000:3b:00.0", &p2);
	place("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
	      "0000:3b:00.0", &rp);
	g.numa_node = p0.numa_node = p2.numa_node = rp.numa_node = 0;
	unk.numa_node = -1;
	assert_int_equal(pci_near(&g, &p0), PCI_NEAR_SWITCH);
	assert_int_equal(pci_shared_bridges(&g, &p0), 2);
	assert_int_equal(pci_near(&g, &p2), PCI_NEAR_NODE);
	assert_int_equal(pci_shared_bridges(&g, &p2), 0);
	/* a function on a root port shares no switch with anything */
	assert_int_equal(pci_near(&rp, &rp), PCI_NEAR_NODE);
	p2.numa_node = 1;
	assert_int_equal(pci_near(&g, &p2), PCI_NEAR_NONE);
	/* unknown places and nodes are never near */
	assert_int_equal(pci_near(&g, &unk), PCI_NEAR_NONE);
	g.numa_node = -1;
	p2.numa_node = -1;
	assert_int_equal(pci_near(&g, &p2), PCI_NEAR_NONE);
	assert_string_equal(pci_near_name(PCI_NEAR_SWITCH), "switch");
	assert_string_equal(pci_near_name(PCI_NEAR_NODE), "numa");
	assert_string_equal(pci_near_name(PCI_NEAR_NONE), "none");
}

static void gpu_classes(void **state)
{
	(void)state;
	assert_true(pci_class_is_gpu(0x030200)); /* 3D controller */
	assert_true(pci_class_is_gpu(0x030000)); /* VGA */
	assert_true(pci_class_is_gpu(0x120000)); /* accelerator */
	assert_false(pci_class_is_gpu(0x020700)); /* InfiniBand */
	assert_false(pci_class_is_gpu(0x068000)); /* NVSwitch: a bridge */
	assert_false(pci_class_is_gpu(0x010802)); /* NVMe */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(switch_from_the_tree),
		cmocka_unit_test(no_switch),
		cmocka_unit_test(two_level_switch_names_the_nearest),
		cmocka_unit_test(odd_paths_refused),
		cmocka_unit_test(nearness),
		cmocka_unit_test(gpu_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
