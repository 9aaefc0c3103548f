// SPDX-License-Identifier: Apache-2.0
/*
 * A host's rails (host/rails.h) on a host built in memory:
 *
 *   0000:03:00.0 ConnectX-3, 2 IB ports, VFs        rails 0 and 1
 *   0000:17:00.0 ConnectX-7, IB, no VFs (storage)   no rail
 *   0000:19:00.0 ConnectX-7, IB port DOWN, VFs      rail 2: keeps its number
 *   0000:3b:00.0 ConnectX-5, Ethernet, VFs          no rail
 *   0000:5e:00.0 ConnectX-7, IB, VFs                rail 3
 *   ibsim0, no PCI function                         no rail
 *
 * then by leaf, the map, the reasons, the leaves file, and the rails
 * nearest a GPU.
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

#include "host/rails.h"

static struct vf vfs[4];
static struct hca hv[6];
static struct hca_list hcas = { hv, 6 };
static char err[256];

static void port(struct ib_port *p, int num, int state, const char *ll)
{
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->state = state;
	p->phys_state = state == 4 ? 5 : 3;
	p->rail = -7; /* rails_assign must set every one */
	snprintf(p->link_layer, sizeof(p->link_layer), "%s", ll);
}

static void pf(struct hca *h, unsigned bus, int nvfs, const char *ll,
	       int nports)
{
	int p;

	memset(h, 0, sizeof(*h));
	h->has_pci = true;
	h->addr = (struct pci_addr){ 0, (uint8_t)bus, 0, 0 };
	h->numa_node = bus < 0x80 ? 0 : 1;
	h->vfs = vfs;
	h->nvfs = (size_t)nvfs;
	for (p = 0; p < nports; p++)
		port(&h->ports[p], p + 1, 4, ll);
	h->nports = nports;
}

static int setup(void **state)
{
	(void)state;
	pf(&hv[0], 0x03, 4, "InfiniBand", 2);
	pf(&hv[1], 0x17, 0, "InfiniBand", 1);
	pf(&hv[2], 0x19, 4, "InfiniBand", 1);
	hv[2].ports[0].state = 1;
	pf(&hv[3], 0x3b, 4, "Ethernet", 1);
	pf(&hv[4], 0x5e, 4, "InfiniBand", 1);
	memset(&hv[5], 0, sizeof(hv[5]));
	port(&hv[5].ports[0], 1, 4, "InfiniBand");
	hv[5].nports = 1;
	err[0] = '\0';
	return 0;
}

static void leaf(struct ib_port *p, uint64_t g)
{
	p->peer_known = true;
	p->peer.type = SMP_NODE_SWITCH;
	p->peer.node_guid = g;
}

static void by_address(void **state)
{
	(void)state;
	rails_assign(&hcas, NULL);
	assert_int_equal(hv[0].ports[0].rail, 0);
	assert_int_equal(hv[0].ports[1].rail, 1);
	assert_int_equal(hv[1].ports[0].rail, -1); /* no VFs */
	assert_int_equal(hv[2].ports[0].rail, 2); /* down, still counted */
	assert_int_equal(hv[3].ports[0].rail, -1); /* Ethernet */
	assert_int_equal(hv[4].ports[0].rail, 3);
	assert_int_equal(hv[5].ports[0].rail, -1); /* no PCI function */
	/* an empty map is no map */
	struct rail_map none = { 0 };

	hv[4].ports[0].rail = -7;
	rails_assign(&hcas, &none);
	assert_int_equal(hv[4].ports[0].rail, 3);
}

static void map_grammar(void **state)
{
	struct rail_map m;

	(void)state;
	assert_int_equal(rail_map_parse("", &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 0);
	assert_int_equal(rail_map_parse(" 0x0002c90200000a00=0,"
					"0x0002c90200000b00=1\t"
					"0x0002c90200001a00=0 ",
					&m, err, sizeof(err)),
			 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(rail_map_find(&m, 0x0002c90200000b00ull), 1);
	assert_int_equal(rail_map_find(&m, 0x0002c90200001a00ull), 0);
	assert_int_equal(rail_map_find(&m, 0x0002c90200000c00ull), -1);
	assert_int_equal(rail_map_find(NULL, 0x0002c90200000b00ull), -1);
	rail_map_free(&m);
	assert_int_equal(rail_map_parse("0x0002c90200000a00=255", &m, err,
					sizeof(err)),
			 0);
	assert_int_equal(m.v[0].rail, 255);
	rail_map_free(&m);

	static const char *const bad[] = {
		"0x0002c90200000a00=256",
		"0x0002c90200000a00=",
		"=1",
		"0x0002c90200000a00",
		"0x2c90200000a00=1",
		"0x0002c90200000a00=01",
		"0x0002c90200000a00=-1",
		"0x0000000000000000=1",
		"0x0002c90200000a0g=1",
		"0x0002c90200000a00=1x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];

		snprintf(want, sizeof(want),
			 "ONEIB_RAIL_MAP: '%s' is not a leaf GUID, '=' and a "
			 "rail 0-255",
			 bad[i]);
		assert_int_equal(rail_map_parse(bad[i], &m, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, want);
		assert_int_equal(m.n, 0);
		assert_null(m.v);
	}
	assert_int_equal(rail_map_parse("0x0002c90200000a00=1 "
					"0x0002c90200000a00=2",
					&m, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_RAIL_MAP: leaf 0x0002c90200000a00 "
				 "given twice");
}

static void by_leaf(void **state)
{
	struct rail_map m;
	char why[512];

	(void)state;
	assert_int_equal(rail_map_parse("0x0002c90200000a00=5 "
					"0x0002c90200000b00=6 "
					"0x0002c90200001a00=5",
					&m, err, sizeof(err)),
			 0);
	leaf(&hv[0].ports[0], 0x0002c90200000b00ull);
	leaf(&hv[0].ports[1], 0x0002c90200001a00ull);
	leaf(&hv[1].ports[0], 0x0002c90200000a00ull); /* no VFs */
	leaf(&hv[2].ports[0], 0x0002c90200000c00ull); /* not in the map */
	/* hv[4]: leaf not known */
	snprintf(hv[4].ports[0].peer_why, sizeof(hv[4].ports[0].peer_why),
		 "PF 0000:5e:00.0 port 1: no peer command configured "
		 "(ONEIB_PEER in kvm-ibrc)");
	rails_assign(&hcas, &m);
	assert_int_equal(hv[0].ports[0].rail, 6);
	assert_int_equal(hv[0].ports[1].rail, 5);
	assert_int_equal(hv[1].ports[0].rail, -1);
	assert_int_equal(hv[2].ports[0].rail, -1);
	assert_int_equal(hv[4].ports[0].rail, -1);
	assert_false(
		rails_why_none(&hv[0], &hv[0].ports[0], &m, why, sizeof(why)));
	assert_false(rails_why_none(&hv[1], &hv[1].ports[0], &m, why,
				    sizeof(why))); /* no rail's port */
	assert_true(
		rails_why_none(&hv[2], &hv[2].ports[0], &m, why, sizeof(why)));
	assert_string_equal(why, "PF 0000:19:00.0 port 1: leaf "
				 "0x0002c90200000c00 is not in ONEIB_RAIL_MAP");
	assert_true(
		rails_why_none(&hv[4], &hv[4].ports[0], &m, why, sizeof(why)));
	assert_string_equal(why, "PF 0000:5e:00.0 port 1: no peer command "
				 "configured (ONEIB_PEER in kvm-ibrc) (so no "
				 "rail)");
	/* without a map nothing is missing */
	rails_assign(&hcas, NULL);
	assert_false(rails_why_none(&hv[2], &hv[2].ports[0], NULL, why,
				    sizeof(why)));
	rail_map_free(&m);
}

static void leaves_file(void **state)
{
	char dir[] = "/tmp/test_rails.XXXXXX", path[64];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* no file: nothing known, no error */
	assert_int_equal(leaves_read(dir, &hcas, err, sizeof(err)), 0);
	assert_false(hv[0].ports[0].peer_known);
	leaf(&hv[0].ports[1], 0x0002c90200001a00ull);
	leaf(&hv[4].ports[0], 0x0002c90200000b00ull);
	assert_int_equal(leaves_write(dir, &hcas, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/leaves", dir);
	f = fopen(path, "a");
	assert_non_null(f);
	/* lines that do not parse, or name no port, are skipped */
	fputs("garbage\n0000:03:00.0 x 0x0002c90200000a00\n"
	      "0000:99:00.0 1 0x0002c90200000a00\n"
	      "0000:03:00.0 1 0x0000000000000000\n",
	      f);
	fclose(f);
	setup(NULL);
	/* a port whose peer is known keeps it */
	leaf(&hv[4].ports[0], 0x0002c90200000d00ull);
	assert_int_equal(leaves_read(dir, &hcas, err, sizeof(err)), 0);
	assert_false(hv[0].ports[0].peer_known);
	assert_true(hv[0].ports[1].peer_known);
	assert_int_equal(hv[0].ports[1].peer.type, SMP_NODE_SWITCH);
	assert_true(hv[0].ports[1].peer.node_guid == 0x0002c90200001a00ull);
	assert_true(hv[4].ports[0].peer.node_guid == 0x0002c90200000d00ull);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a directory that is not there: the write says which file */
	assert_int_equal(leaves_write("/nonexistent/x", &hcas, err,
				      sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x/leaves"));
}

/* GPU 0000:17:00.0 under the switch of 0000:19:00.0 (rail 2): near. */
static void nearest_rails(void **state)
{
	struct pci_addr g = { 0, 0x17, 0, 0 }, p19 = { 0, 0x19, 0, 0 };
	struct pci_addr p5e = { 0, 0x5e, 0, 0 };
	struct pci_place gpu;
	struct rail_set s;

	(void)state;
	rails_assign(&hcas, NULL);
	assert_int_equal(pci_place_parse("../../../devices/pci0000:14/"
					 "0000:14:01.0/0000:15:00.0/"
					 "0000:16:00.0/0000:17:00.0",
					 &g, &gpu),
			 0);
	assert_int_equal(pci_place_parse("../../../devices/pci0000:14/"
					 "0000:14:01.0/0000:15:00.0/"
					 "0000:16:02.0/0000:19:00.0",
					 &p19, &hv[2].place),
			 0);
	assert_int_equal(pci_place_parse("../../../devices/pci0000:5d/"
					 "0000:5d:01.0/0000:5e:00.0",
					 &p5e, &hv[4].place),
			 0);
	gpu.numa_node = hv[2].place.numa_node = hv[4].place.numa_node = 0;
	assert_int_equal(rails_near(&hcas, &gpu, &s), PCI_NEAR_SWITCH);
	assert_true(rail_set_has(&s, 2));
	assert_false(rail_set_has(&s, 3));
	assert_false(rail_set_has(&s, 0));
	/* the switch's PF gone: the rails on its NUMA node */
	memset(&hv[2].place, 0, sizeof(hv[2].place));
	hv[2].place.numa_node = 1;
	assert_int_equal(rails_near(&hcas, &gpu, &s), PCI_NEAR_NODE);
	assert_true(rail_set_has(&s, 3));
	assert_false(rail_set_has(&s, 2));
	/* nothing on its node: every rail, none near */
	gpu.numa_node = 2;
	assert_int_equal(rails_near(&hcas, &gpu, &s), PCI_NEAR_NONE);
	assert_true(rail_set_has(&s, 0) && rail_set_has(&s, 1) &&
		    rail_set_has(&s, 2) && rail_set_has(&s, 3));
	assert_false(rail_set_has(&s, 4));
}

static void hints(void **state)
{
	struct rail_hint *h, two[] = { { 5, 1 }, { 0, 3 } };
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	(void)state;
	assert_int_equal(rail_hints_parse("", &h, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_null(h);
	assert_int_equal(rail_hints_parse("0=3,1=5,12=0,65535=255", &h, &n, err,
					  sizeof(err)),
			 0);
	assert_int_equal(n, 4);
	assert_int_equal(rail_hint_find(h, n, 1), 5);
	assert_int_equal(rail_hint_find(h, n, 12), 0);
	assert_int_equal(rail_hint_find(h, n, 65535), 255);
	assert_int_equal(rail_hint_find(h, n, 2), -1);
	free(h);
	static const char *const bad[] = { "0=3,",    "0=3,0=4", "x=1",	 "0=",
					   "=1",      "0=256",	 "0=01", "1",
					   "0=3;1=4", "-1=2",	 ",0=1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[256];

		snprintf(want, sizeof(want),
			 "--rails: '%s' is not NIC=RAIL pairs, each NIC once "
			 "(0=3,1=5)",
			 bad[i]);
		assert_int_equal(rail_hints_parse(bad[i], &h, &n, err,
						  sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, want);
		assert_null(h);
	}
	/* formatted by NIC ID, read back the same */
	assert_int_equal(rail_hints_fmt(two, 2, &sb), 0);
	assert_string_equal(sb_str(&sb), "0=3,5=1");
	assert_int_equal(
		rail_hints_parse(sb_str(&sb), &h, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rail_hint_find(h, n, 5), 1);
	free(h);
	sb_release(&sb);
	/* rail_of_port: -2 for a port the host lacks */
	rails_assign(&hcas, NULL);
	assert_int_equal(rail_of_port(&hcas, &hv[0].addr, 2), 1);
	assert_int_equal(rail_of_port(&hcas, &hv[1].addr, 1), -1);
	assert_int_equal(rail_of_port(&hcas, &hv[1].addr, 2), -2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(by_address, setup),
		cmocka_unit_test_setup(map_grammar, setup),
		cmocka_unit_test_setup(by_leaf, setup),
		cmocka_unit_test_setup(leaves_file, setup),
		cmocka_unit_test_setup(nearest_rails, setup),
		cmocka_unit_test_setup(hints, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
