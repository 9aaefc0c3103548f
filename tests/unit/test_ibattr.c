// SPDX-License-Identifier: Apache-2.0
/*
 * The one parser per IB_* attribute (ibattr.h) that vnet_create, deploy,
 * the partitions renderer and `oneib-pkey map` share: what each accepts,
 * each refusal word for word, and the XML gatherer every reader uses
 * (once each, a single value, only the attributes asked for).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/ibattr.h"
#include "core/onenic.h"
#include "core/xml.h"

static void accepted(enum ib_attr a, const char *v, struct ib_attrs *out)
{
	char err[256] = "";

	memset(out, 0, sizeof(*out));
	if (ibattr_parse(a, v, out, "VNET 7", err, sizeof(err)))
		fail_msg("%s '%s' refused: %s", ib_attr_name[a], v, err);
	assert_true(out->has & IBA_BIT(a));
}

static void refused(enum ib_attr a, const char *v, const char *want)
{
	struct ib_attrs out = { 0 }, before;
	char err[256] = "";

	memset(&out.pf, 0xaa, sizeof(out.pf));
	out.mtu = 77;
	memcpy(&before, &out, sizeof(out));
	assert_int_equal(ibattr_parse(a, v, &out, "VNET 7", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, want);
	/* nothing half-done */
	assert_memory_equal(&out, &before, sizeof(out));
}

static void pkey(void **state)
{
	struct ib_attrs o;

	(void)state;
	accepted(IBA_PKEY, "0x8101", &o);
	assert_int_equal(o.pkey.raw, 0x8101);
	accepted(IBA_PKEY, "0X8ABC", &o);
	assert_int_equal(o.pkey.raw, 0x8abc);
	accepted(IBA_PKEY, "33025", &o);
	assert_int_equal(o.pkey.raw, 0x8101);
	accepted(IBA_PKEY, "0x8001", &o);
	accepted(IBA_PKEY, "0xfffe", &o);
	assert_int_equal(o.pkey.raw, 0xfffe);

	refused(IBA_PKEY, "0x0101",
		"VNET 7: IB_PKEY '0x0101' is a limited-member key (write "
		"0x8101: a tenant network's VFs are full members)");
	refused(IBA_PKEY, "0x0001",
		"VNET 7: IB_PKEY '0x0001' is a limited-member key (write "
		"0x8001: a tenant network's VFs are full members)");
	refused(IBA_PKEY, "257",
		"VNET 7: IB_PKEY '257' is a limited-member key (write 0x8101: "
		"a tenant network's VFs are full members)");
	refused(IBA_PKEY, "0x7fff",
		"VNET 7: IB_PKEY '0x7fff' is the default partition, never a "
		"tenant's");
	refused(IBA_PKEY, "0xffff",
		"VNET 7: IB_PKEY '0xffff' is the default partition, never a "
		"tenant's");
	refused(IBA_PKEY, "0x8000",
		"VNET 7: IB_PKEY '0x8000' is partition 0, which is invalid");
	refused(IBA_PKEY, "0",
		"VNET 7: IB_PKEY '0' is partition 0, which is invalid");
	refused(IBA_PKEY, "0x18101",
		"VNET 7: IB_PKEY '0x18101' is not a P_Key: more than 16 bits");
	refused(IBA_PKEY, "",
		"VNET 7: IB_PKEY '' is not a P_Key (hex like 0x8101, or "
		"decimal)");
	refused(IBA_PKEY, "0x81 01",
		"VNET 7: IB_PKEY '0x81 01' is not a P_Key (hex like 0x8101, or "
		"decimal)");
	refused(IBA_PKEY, "0x81\n01",
		"VNET 7: IB_PKEY '0x81?01' is not a P_Key (hex like 0x8101, or "
		"decimal)");
	refused(IBA_PKEY, NULL,
		"VNET 7: IB_PKEY '' is not a P_Key (hex like 0x8101, or "
		"decimal)");
}

static void mtu_rate_sl(void **state)
{
	static const char *const mtus[] = { "256", "512", "1024", "2048",
					    "4096" };
	struct ib_attrs o;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		accepted(IBA_MTU, mtus[i], &o);
		assert_int_equal(o.mtu, 256 << i);
		assert_int_equal(ibattr_mtu_enum(o.mtu), (int)i + 1);
	}
	assert_int_equal(ibattr_mtu_enum(1500), 0);
	refused(IBA_MTU, "9000",
		"VNET 7: IB_MTU '9000' is not 256, 512, 1024, 2048 or 4096");
	refused(IBA_MTU, "1500",
		"VNET 7: IB_MTU '1500' is not 256, 512, 1024, 2048 or 4096");
	refused(IBA_MTU, "04096",
		"VNET 7: IB_MTU '04096' is not 256, 512, 1024, 2048 or 4096");
	refused(IBA_MTU, "4096 ",
		"VNET 7: IB_MTU '4096 ' is not 256, 512, 1024, 2048 or 4096");

	accepted(IBA_RATE, "2", &o);
	assert_int_equal(o.rate, 2);
	accepted(IBA_RATE, "24", &o);
	assert_int_equal(o.rate, 24);
	refused(IBA_RATE, "100",
		"VNET 7: IB_RATE '100' is not a rate code 2..24 (IBTA: 3 = 10 "
		"Gb/s, 7 = 40, 16 = 100, 17 = 200)");
	refused(IBA_RATE, "1",
		"VNET 7: IB_RATE '1' is not a rate code 2..24 (IBTA: 3 = 10 "
		"Gb/s, 7 = 40, 16 = 100, 17 = 200)");
	refused(IBA_RATE, "0x7",
		"VNET 7: IB_RATE '0x7' is not a rate code 2..24 (IBTA: 3 = 10 "
		"Gb/s, 7 = 40, 16 = 100, 17 = 200)");

	accepted(IBA_SL, "0", &o);
	assert_int_equal(o.sl, 0);
	accepted(IBA_SL, "15", &o);
	assert_int_equal(o.sl, 15);
	refused(IBA_SL, "16",
		"VNET 7: IB_SL '16' is not a service level 0..15");
	refused(IBA_SL, "-1",
		"VNET 7: IB_SL '-1' is not a service level 0..15");
	refused(IBA_SL, "", "VNET 7: IB_SL '' is not a service level 0..15");
}

static void mode_pf_port(void **state)
{
	char pf[PCI_ADDR_STRLEN];
	struct ib_attrs o;

	(void)state;
	accepted(IBA_MODE, "datagram", &o);
	assert_int_equal(o.mode, IB_MODE_DATAGRAM);
	accepted(IBA_MODE, "connected", &o);
	assert_int_equal(o.mode, IB_MODE_CONNECTED);
	refused(IBA_MODE, "Connected",
		"VNET 7: IB_MODE 'Connected' is not datagram or connected");
	accepted(IBA_PF, "0000:3b:00.0", &o);
	pci_addr_fmt(&o.pf, pf);
	assert_string_equal(pf, "0000:3b:00.0");
	refused(IBA_PF, "3b:00.0",
		"VNET 7: IB_PF '3b:00.0' is not a PCI address like "
		"0000:3b:00.0");
	refused(IBA_PF, "0000:3b:00.0/../x",
		"VNET 7: IB_PF '0000:3b:00.0/../x' is not a PCI address like "
		"0000:3b:00.0");
	accepted(IBA_PORT, "1", &o);
	assert_int_equal(o.port, 1);
	accepted(IBA_PORT, "9", &o);
	refused(IBA_PORT, "0", "VNET 7: IB_PORT '0' is not a port number 1..9");
	refused(IBA_PORT, "10",
		"VNET 7: IB_PORT '10' is not a port number 1..9");
	assert_int_equal(ibattr_by_name("IB_SL"), IBA_SL);
	assert_int_equal(ibattr_by_name("IB_sl"), -1);
	assert_int_equal(ibattr_by_name(NULL), -1);
}

/* xml_ib_attrs over a <TEMPLATE> read the way the readers read it */
static int gather(const char *xml, unsigned want, unsigned flags,
		  struct ib_attrs *out, char *err)
{
	xmlDocPtr doc = xml_read_untrusted(xml, strlen(xml), "t", err, 256);
	int r;

	assert_non_null(doc);
	memset(out, 0, sizeof(*out));
	r = xml_ib_attrs(xmlDocGetRootElement(doc), want, flags, out,
			 "VNET 7 (b)", err, 256);
	xmlFreeDoc(doc);
	return r;
}

/* Service networks (design decision 11): membership and endpoints. */
static void service_attributes(void **state)
{
	struct ib_attrs o;

	(void)state;
	accepted(IBA_MEMBERSHIP, "limited", &o);
	assert_true(o.limited);
	accepted(IBA_MEMBERSHIP, "full", &o);
	assert_false(o.limited);
	refused(IBA_MEMBERSHIP, "Limited",
		"VNET 7: IB_MEMBERSHIP 'Limited' is not full or limited");

	accepted(IBA_SERVICE_GUIDS,
		 "0x0002c903000a0001, 0x0002c903000b0001 0002:c903:000c:0001",
		 &o);
	assert_int_equal(o.nsvc, 3);
	assert_true(o.svc[0] == 0x0002c903000a0001ULL);
	assert_true(o.svc[2] == 0x0002c903000c0001ULL);
	refused(IBA_SERVICE_GUIDS, "",
		"VNET 7: IB_SERVICE_GUIDS '' lists no port GUID");
	refused(IBA_SERVICE_GUIDS, " , ",
		"VNET 7: IB_SERVICE_GUIDS ' , ' lists no port GUID");
	refused(IBA_SERVICE_GUIDS, "0x0002c903000a0001,storage1",
		"VNET 7: IB_SERVICE_GUIDS '0x0002c903000a0001,storage1' has "
		"'storage1', which is not a port GUID");
	refused(IBA_SERVICE_GUIDS, "0x0000000000000000",
		"VNET 7: IB_SERVICE_GUIDS '0x0000000000000000' has "
		"'0x0000000000000000', which is not a port GUID");
	refused(IBA_SERVICE_GUIDS, "0x0002c903000a0001 0x02000000000a0001",
		"VNET 7: IB_SERVICE_GUIDS '0x0002c903000a0001 "
		"0x02000000000a0001' has 0x02000000000a0001 (VM 10 NIC 1), a "
		"tenant VF's GUID: never a service endpoint");
	refused(IBA_SERVICE_GUIDS, "0x0002c903000a0001,0x0002c903000a0001",
		"VNET 7: IB_SERVICE_GUIDS '0x0002c903000a0001,"
		"0x0002c903000a0001' has 0x0002c903000a0001 twice");
	refused(IBA_SERVICE_GUIDS,
		"0x1,0x2,0x3,0x4,0x5,0x6,0x7,0x8,0x9,0xa,0xb,0xc,0xd,0xe,0xf,"
		"0x10,0x11",
		"VNET 7: IB_SERVICE_GUIDS '0x1,0x2,0x3,0x4,0x5,0x6,0x7,0x8,0x9,"
		"0xa,0xb,0xc,0xd,0xe,0xf,0x10...' lists more than 16 GUIDs "
		"(name a partition of the static file with "
		"IB_SERVICE_PARTITION instead)");

	accepted(IBA_SERVICE_PARTITION, "lustre-1_a", &o);
	assert_string_equal(o.svc_part, "lustre-1_a");
	accepted(IBA_SERVICE_PARTITION, "abcdefghijklmnopqrstuvwxyz01234", &o);
	refused(IBA_SERVICE_PARTITION, "abcdefghijklmnopqrstuvwxyz012345",
		"VNET 7: IB_SERVICE_PARTITION "
		"'abcdefghijklmnopqrstuvwxyz012345' "
		"is not a partition name (1 to 31 letters, digits, '-' or "
		"'_', no digit first)");
	refused(IBA_SERVICE_PARTITION, "9lives",
		"VNET 7: IB_SERVICE_PARTITION '9lives' is not a partition name "
		"(1 to 31 letters, digits, '-' or '_', no digit first)");
	refused(IBA_SERVICE_PARTITION, "a b",
		"VNET 7: IB_SERVICE_PARTITION 'a b' is not a partition name "
		"(1 to 31 letters, digits, '-' or '_', no digit first)");
}

/* Leaf packing (design decision 12): how a network's VMs are placed. */
static void placement_attribute(void **state)
{
	struct ib_attrs o;
	char err[256] = "";

	(void)state;
	accepted(IBA_PLACEMENT, "spread", &o);
	assert_int_equal(o.placement, IB_PLACE_SPREAD);
	accepted(IBA_PLACEMENT, "none", &o);
	assert_int_equal(o.placement, IB_PLACE_NONE);
	assert_int_equal(ibattr_parse(IBA_PLACEMENT, "pack", &o, "VNET 7", err,
				      sizeof(err)),
			 0);
	assert_int_equal(o.placement, IB_PLACE_PACK);
	refused(IBA_PLACEMENT, "Pack",
		"VNET 7: IB_PLACEMENT 'Pack' is not pack, spread or none");
	refused(IBA_PLACEMENT, "",
		"VNET 7: IB_PLACEMENT '' is not pack, spread or none");
	assert_int_equal(ibattr_by_name("IB_PLACEMENT"), IBA_PLACEMENT);
}

/* Rails and GPUs (design decision 15): how a network's NICs take rails and
 * how strictly each stays beside its GPU; the defaults are the zero value. */
static void rails_and_affinity(void **state)
{
	struct ib_attrs o = { 0 };

	(void)state;
	assert_int_equal(o.rails, IB_RAILS_SPREAD);
	assert_int_equal(o.affinity, IB_AFFINITY_PREFERRED);
	accepted(IBA_RAILS, "pack", &o);
	assert_int_equal(o.rails, IB_RAILS_PACK);
	accepted(IBA_RAILS, "spread", &o);
	assert_int_equal(o.rails, IB_RAILS_SPREAD);
	accepted(IBA_AFFINITY, "required", &o);
	assert_int_equal(o.affinity, IB_AFFINITY_REQUIRED);
	accepted(IBA_AFFINITY, "none", &o);
	assert_int_equal(o.affinity, IB_AFFINITY_NONE);
	accepted(IBA_AFFINITY, "preferred", &o);
	assert_int_equal(o.affinity, IB_AFFINITY_PREFERRED);
	refused(IBA_RAILS, "Spread",
		"VNET 7: IB_RAILS 'Spread' is not spread or pack");
	refused(IBA_RAILS, "", "VNET 7: IB_RAILS '' is not spread or pack");
	refused(IBA_AFFINITY, "strict",
		"VNET 7: IB_AFFINITY 'strict' is not preferred, required or "
		"none");
	assert_int_equal(ibattr_by_name("IB_RAILS"), IBA_RAILS);
	assert_int_equal(ibattr_by_name("IB_AFFINITY"), IBA_AFFINITY);
}

static void from_xml(void **state)
{
	struct ib_attrs a;
	char err[256] = "";

	(void)state;
	assert_int_equal(gather("<T><IB_PKEY><![CDATA[0x8101]]></IB_PKEY>"
				"<IB_SL>3</IB_SL><IB_MTU>9000</IB_MTU>"
				"<x:IB_SL xmlns:x='u'>99</x:IB_SL></T>",
				IBA_BIT(IBA_PKEY) | IBA_BIT(IBA_SL), 0, &a,
				err),
			 0);
	/* IB_MTU not asked for; the namespaced IB_SL is not ours */
	assert_int_equal(a.has, IBA_BIT(IBA_PKEY) | IBA_BIT(IBA_SL));
	assert_int_equal(a.pkey.raw, 0x8101);
	assert_int_equal(a.sl, 3);

	assert_int_equal(gather("<T><IB_SL>3</IB_SL><IB_SL>3</IB_SL></T>",
				IBA_ALL, 0, &a, err),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 (b): IB_SL given twice");
	assert_int_equal(gather("<T><IB_RATE>7<b/></IB_RATE></T>", IBA_ALL, 0,
				&a, err),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 (b): IB_RATE '7' is not a single "
				 "value");
	/* the first refusal in attribute order */
	assert_int_equal(gather("<T><IB_SL>16</IB_SL><IB_PKEY>1</IB_PKEY></T>",
				IBA_ALL, 0, &a, err),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 (b): IB_PKEY '1' is a limited-member "
				 "key (write 0x8001: a tenant network's VFs "
				 "are full members)");
	/* IB_PKEY="" is none only where asked (vnet_create) */
	assert_int_equal(gather("<T><IB_PKEY></IB_PKEY></T>", IBA_ALL,
				XML_IB_EMPTY_PKEY_ABSENT, &a, err),
			 0);
	assert_int_equal(a.has, 0);
	assert_int_equal(gather("<T><IB_PKEY></IB_PKEY></T>", IBA_ALL, 0, &a,
				err),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 (b): IB_PKEY '' is not a P_Key (hex "
				 "like 0x8101, or decimal)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pkey),
		cmocka_unit_test(mtu_rate_sl),
		cmocka_unit_test(mode_pf_port),
		cmocka_unit_test(service_attributes),
		cmocka_unit_test(placement_attribute),
		cmocka_unit_test(rails_and_affinity),
		cmocka_unit_test(from_xml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
