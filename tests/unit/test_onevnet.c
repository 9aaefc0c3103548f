// SPDX-License-Identifier: Apache-2.0
/*
 * What the `ib` network driver reads: the <VNET> of vnet_create (every
 * attribute and every refusal, as the line a person reads on the network),
 * the <VNET_POOL> of `onevnet list -x` reduced to the partitions other
 * InfiniBand networks hold, the choice of the P_Key, and the <VM> ID of the
 * host-side actions. Documents are written the way oned does, values in
 * CDATA.
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

#include "fabric/onevnet.h"

#define VNET_HEAD                                                              \
	"<VNET><ID>7</ID><UID>3</UID><GID>101</GID>"                           \
	"<UNAME>alice</UNAME><GNAME>hpc</GNAME>"                               \
	"<NAME><![CDATA[tenant-b]]></NAME>"                                    \
	"<BRIDGE><![CDATA[]]></BRIDGE><BRIDGE_TYPE><![CDATA[none]]>"           \
	"</BRIDGE_TYPE><STATE>2</STATE>"                                       \
	"<VN_MAD><![CDATA[ib]]></VN_MAD>"
#define VNET_TAIL "<AR_POOL/></VNET>"

/* A <VNET> with TEMPLATE content t. */
static char *vnet(const char *t)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf),
		 VNET_HEAD "<TEMPLATE>%s<AR><TYPE><![CDATA[ETHER]]></TYPE>"
			   "<SIZE><![CDATA[16]]></SIZE></AR></"
			   "TEMPLATE>" VNET_TAIL,
		 t);
	return buf;
}

static int parse(const char *xml, struct ib_vnet *vn, char *err, size_t len)
{
	return onevnet_parse(xml, strlen(xml), 7, vn, err, len);
}

static void vnet_all_attributes(void **state)
{
	struct ib_vnet vn = { .id = -1 };
	char err[256] = "", pf[PCI_ADDR_STRLEN], label[VNET_LABEL_MAX];

	(void)state;
	assert_int_equal(parse(vnet("<IB_PKEY><![CDATA[0x8102]]></IB_PKEY>"
				    "<IB_MTU><![CDATA[4096]]></IB_MTU>"
				    "<IB_RATE><![CDATA[7]]></IB_RATE>"
				    "<IB_SL><![CDATA[1]]></IB_SL>"
				    "<IB_MODE><![CDATA[connected]]></IB_MODE>"
				    "<IB_PF><![CDATA[0000:3b:00.0]]></IB_PF>"
				    "<IB_PORT><![CDATA[2]]></IB_PORT>"
				    "<VN_MAD><![CDATA[ib]]></VN_MAD>"),
			       &vn, err, sizeof(err)),
			 0);
	assert_int_equal(vn.id, 7);
	assert_string_equal(vn.name.s, "tenant-b");
	assert_true(vn.has_pkey);
	assert_int_equal(vn.pkey.raw, 0x8102);
	assert_int_equal(vn.mtu, 4096);
	assert_int_equal(vn.rate, 7);
	assert_int_equal(vn.sl, 1);
	assert_int_equal(vn.mode, IB_MODE_CONNECTED);
	assert_true(vn.has_pf);
	pci_addr_fmt(&vn.pf, pf);
	assert_string_equal(pf, "0000:3b:00.0");
	assert_int_equal(vn.port, 2);
	vnet_label(&vn, label);
	assert_string_equal(label, "VNET 7 (tenant-b)");
}

static void vnet_nothing_given(void **state)
{
	struct ib_vnet vn = { .id = -1 };
	char err[256] = "";

	(void)state;
	assert_int_equal(parse(vnet(""), &vn, err, sizeof(err)), 0);
	assert_false(vn.has_pkey);
	assert_int_equal(vn.mtu, 0);
	assert_int_equal(vn.rate, 0);
	assert_int_equal(vn.sl, -1);
	assert_int_equal(vn.mode, IB_MODE_UNSET);
	assert_false(vn.has_pf);
	assert_int_equal(vn.port, 0);

	/* IB_PKEY="" is "assign one", as no IB_PKEY is */
	assert_int_equal(parse(vnet("<IB_PKEY><![CDATA[]]></IB_PKEY>"), &vn,
			       err, sizeof(err)),
			 0);
	assert_false(vn.has_pkey);

	/* no TEMPLATE at all */
	assert_int_equal(parse(VNET_HEAD VNET_TAIL, &vn, err, sizeof(err)), 0);
	assert_false(vn.has_pkey);
}

static void vnet_pkey_forms(void **state)
{
	static const struct {
		const char *s;
		uint16_t raw;
	} ok[] = {
		{ "0x8101", 0x8101 }, { "0X8ABC", 0x8abc }, { "33025", 0x8101 },
		{ "0x8001", 0x8001 }, { "0xfffe", 0xfffe },
	};
	struct ib_vnet vn = { .id = -1 };
	char err[256] = "", t[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(t, sizeof(t), "<IB_PKEY><![CDATA[%s]]></IB_PKEY>",
			 ok[i].s);
		assert_int_equal(parse(vnet(t), &vn, err, sizeof(err)), 0);
		assert_true(vn.has_pkey);
		assert_int_equal(vn.pkey.raw, ok[i].raw);
	}
}

/* Each refusal: -EINVAL and exactly this line. */
static void refused(const char *tmpl, const char *want)
{
	struct ib_vnet vn = { .id = -1 };
	char err[256] = "";

	assert_int_equal(parse(vnet(tmpl), &vn, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
}

#define NOT_A_PKEY "' is not a P_Key (hex like 0x8101, or decimal)"

static void vnet_bad_pkey(void **state)
{
	(void)state;
	refused("<IB_PKEY>0x10000</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					      "'0x10000' is not a P_Key: more "
					      "than 16 bits");
	refused("<IB_PKEY>65536</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					    "'65536' is not a P_Key: more than "
					    "16 bits");
	refused("<IB_PKEY>-1</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					 "'-1" NOT_A_PKEY);
	refused("<IB_PKEY>abc</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					  "'abc" NOT_A_PKEY);
	refused("<IB_PKEY>0x</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					 "'0x" NOT_A_PKEY);
	refused("<IB_PKEY> 0x8101</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY ' "
					      "0x8101" NOT_A_PKEY);
	refused("<IB_PKEY>0x7fff</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					     "'0x7fff' is the default "
					     "partition, "
					     "never a tenant's");
	refused("<IB_PKEY>0xffff</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					     "'0xffff' is the default "
					     "partition, "
					     "never a tenant's");
	refused("<IB_PKEY>0</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY '0' is "
					"partition 0, which is "
					"invalid");
	refused("<IB_PKEY>0x8000</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					     "'0x8000' is partition 0, which "
					     "is "
					     "invalid");
	/* the limited form is refused, never read as full membership */
	refused("<IB_PKEY>0x0102</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY "
					     "'0x0102' is a limited-member key "
					     "(write 0x8102: a tenant "
					     "network's VFs are full members)");
	refused("<IB_PKEY>257</IB_PKEY>", "VNET 7 (tenant-b): IB_PKEY '257' is "
					  "a limited-member key "
					  "(write 0x8101: a tenant network's "
					  "VFs are full members)");
	refused("<IB_PKEY>0x8101</IB_PKEY><IB_PKEY>0x8102</IB_PKEY>", "VNET 7 "
								      "(tenant-"
								      "b): "
								      "IB_PKEY "
								      "given "
								      "twice");
	refused("<IB_PKEY><K>0x8101</K></IB_PKEY>", "VNET 7 (tenant-b): "
						    "IB_PKEY '0x8101' is not a "
						    "single value");
	/* a hostile value cannot start a second line */
	refused("<IB_PKEY><![CDATA[0x81\n01\"<x>]]></IB_PKEY>", "VNET 7 "
								"(tenant-b): "
								"IB_PKEY "
								"'0x81?01\"<"
								"x"
								">" NOT_A_PKEY);
}

#define MTUS "' is not 256, 512, 1024, 2048 or 4096"
#define RATES                                                                  \
	"' is not a rate code 2..24 (IBTA: 3 = 10 Gb/s, 7 = 40, 16 = 100, 17 " \
	"= 200)"

static void vnet_bad_options(void **state)
{
	(void)state;
	refused("<IB_MTU>9000</IB_MTU>", "VNET 7 (tenant-b): IB_MTU "
					 "'9000" MTUS);
	refused("<IB_MTU>04096</IB_MTU>", "VNET 7 (tenant-b): IB_MTU "
					  "'04096" MTUS);
	refused("<IB_MTU></IB_MTU>", "VNET 7 (tenant-b): IB_MTU '" MTUS);
	refused("<IB_MTU>2048</IB_MTU><IB_MTU>4096</IB_MTU>", "VNET 7 "
							      "(tenant-b): "
							      "IB_MTU given "
							      "twice");
	/* vnet_create checks IB_RATE and IB_SL as the renderer does */
	refused("<IB_RATE>100</IB_RATE>", "VNET 7 (tenant-b): IB_RATE "
					  "'100" RATES);
	refused("<IB_RATE>1</IB_RATE>", "VNET 7 (tenant-b): IB_RATE '1" RATES);
	refused("<IB_RATE></IB_RATE>", "VNET 7 (tenant-b): IB_RATE '" RATES);
	refused("<IB_SL>16</IB_SL>", "VNET 7 (tenant-b): IB_SL '16' is not a "
				     "service level 0..15");
	refused("<IB_SL>-1</IB_SL>", "VNET 7 (tenant-b): IB_SL '-1' is not a "
				     "service level 0..15");
	refused("<IB_SL>1</IB_SL><IB_SL>2</IB_SL>", "VNET 7 (tenant-b): IB_SL "
						    "given twice");
	refused("<IB_MODE>Connected</IB_MODE>", "VNET 7 (tenant-b): IB_MODE "
						"'Connected' is not datagram "
						"or "
						"connected");
	refused("<IB_MODE>ud</IB_MODE>", "VNET 7 (tenant-b): IB_MODE 'ud' is "
					 "not datagram or connected");
	refused("<IB_PF>3b:00.0</IB_PF>", "VNET 7 (tenant-b): IB_PF '3b:00.0' "
					  "is not a PCI address like "
					  "0000:3b:00.0");
	refused("<IB_PF>0000:3b:00.0/../x</IB_PF>", "VNET 7 (tenant-b): IB_PF "
						    "'0000:3b:00.0/../x' is "
						    "not a PCI "
						    "address like "
						    "0000:3b:00.0");
	refused("<IB_PORT>0</IB_PORT>", "VNET 7 (tenant-b): IB_PORT '0' is not "
					"a port number 1..9");
	refused("<IB_PORT>10</IB_PORT>", "VNET 7 (tenant-b): IB_PORT '10' is "
					 "not a port number 1..9");
	refused("<IB_PORT>1</IB_PORT><IB_PORT>2</IB_PORT>", "VNET 7 "
							    "(tenant-b): "
							    "IB_PORT given "
							    "twice");
	refused("<IB_MODE>datagram</IB_MODE><IB_MODE>connected</IB_MODE>",
		"VNET 7 (tenant-b): IB_MODE given twice");
}

static void vnet_bad_document(void **state)
{
	struct ib_vnet vn = { .id = -1 };
	char err[256] = "";
	const char *doctype = "<!DOCTYPE VNET [<!ENTITY k \"0x8101\">]>"
			      "<VNET><ID>7</ID><TEMPLATE><IB_PKEY>&k;"
			      "</IB_PKEY></TEMPLATE></VNET>";

	(void)state;
	assert_int_equal(onevnet_parse(doctype, strlen(doctype), 7, &vn, err,
				       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 XML: DOCTYPE refused (no DTD or "
				 "entity is accepted)");
	assert_int_equal(onevnet_parse("", 0, 7, &vn, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7 XML: empty document");
	assert_int_equal(parse("<VNET><ID>7</ID>", &vn, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "VNET 7 XML: not well-formed XML"));
	assert_int_equal(parse("<VM><ID>7</ID></VM>", &vn, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: root element <VM> is not <VNET>");
	assert_int_equal(parse("<VNET><NAME>x</NAME></VNET>", &vn, err,
			       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: <VNET> has no <ID>");
	assert_int_equal(parse("<VNET><ID>7</ID><ID>8</ID></VNET>", &vn, err,
			       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: <VNET> has more than one <ID>");
	assert_int_equal(parse("<VNET><ID>x7</ID></VNET>", &vn, err,
			       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: <VNET> has a malformed <ID>");
	assert_int_equal(parse("<VNET><ID>8</ID></VNET>", &vn, err,
			       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: the VNET XML describes VNET 8");
	assert_int_equal(parse("<VNET><ID>7</ID><TEMPLATE/><TEMPLATE/></VNET>",
			       &vn, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VNET 7: TEMPLATE given twice");
	/* no ID to expect: any */
	assert_int_equal(onevnet_parse("<VNET><ID>8</ID></VNET>", 23, -1, &vn,
				       err, sizeof(err)),
			 0);
	assert_int_equal(vn.id, 8);
}

/* --- the pool ------------------------------------------------------------- */

/*
 * A bridge network with an IB_PKEY, tenant-a and tenant-c holding 0x0101
 * and 0x0100 (written limited member), tenant-b itself (ID 7) already
 * holding 0x8104, a network with a key that does not parse, one without.
 */
static const char pool_xml[] =
	"<VNET_POOL>\n"
	"<VNET><ID>0</ID><NAME><![CDATA[public]]></NAME>"
	"<VN_MAD><![CDATA[bridge]]></VN_MAD>"
	"<TEMPLATE><IB_PKEY><![CDATA[0x8103]]></IB_PKEY></TEMPLATE></VNET>\n"
	"<VNET><ID>5</ID><NAME><![CDATA[tenant-a]]></NAME>"
	"<VN_MAD><![CDATA[ib]]></VN_MAD>"
	"<TEMPLATE><IB_PKEY><![CDATA[0x8101]]></IB_PKEY></TEMPLATE></VNET>\n"
	"<VNET><ID>6</ID><NAME><![CDATA[tenant-c]]></NAME>"
	"<VN_MAD><![CDATA[ib]]></VN_MAD>"
	"<TEMPLATE><IB_PKEY><![CDATA[0x0100]]></IB_PKEY></TEMPLATE></VNET>\n"
	"<VNET><ID>7</ID><NAME><![CDATA[tenant-b]]></NAME>"
	"<VN_MAD><![CDATA[ib]]></VN_MAD>"
	"<TEMPLATE><IB_PKEY><![CDATA[0x8104]]></IB_PKEY></TEMPLATE></VNET>\n"
	"<VNET><ID>8</ID><NAME><![CDATA[broken]]></NAME>"
	"<VN_MAD><![CDATA[ib]]></VN_MAD>"
	"<TEMPLATE><IB_PKEY><![CDATA[junk]]></IB_PKEY></TEMPLATE></VNET>\n"
	"<VNET><ID>9</ID><NAME><![CDATA[none]]></NAME>"
	"<VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE/></VNET>\n"
	"</VNET_POOL>\n";

static void pool_parse(void **state)
{
	struct vnet_pool p;
	char err[256] = "";

	(void)state;
	assert_int_equal(onevnet_pool_parse(pool_xml, strlen(pool_xml), &p, err,
					    sizeof(err)),
			 0);
	/* the bridge network and the unparsable key hold nothing */
	assert_int_equal(p.n, 3);
	assert_int_equal(p.v[0].id, 5);
	assert_string_equal(p.v[0].name.s, "tenant-a");
	assert_int_equal(p.v[0].pkey.raw, 0x8101);
	assert_int_equal(p.v[1].id, 6);
	assert_int_equal(p.v[1].pkey.raw, 0x0100);
	assert_int_equal(p.v[2].id, 7);
	assert_int_equal(p.v[2].pkey.raw, 0x8104);
	vnet_pool_free(&p);
	assert_null(p.v);
	vnet_pool_free(&p);

	assert_int_equal(onevnet_pool_parse("<VNET_POOL/>", 12, &p, err,
					    sizeof(err)),
			 0);
	assert_int_equal(p.n, 0);
	vnet_pool_free(&p);
}

static void pool_refused(const char *xml, const char *want)
{
	struct vnet_pool p;
	char err[256] = "";

	assert_int_equal(onevnet_pool_parse(xml, strlen(xml), &p, err,
					    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, want);
	assert_null(p.v);
	assert_int_equal(p.n, 0);
}

static void pool_bad(void **state)
{
	(void)state;
	pool_refused("<VNET><ID>1</ID></VNET>", "VNET pool: expected a "
						"<VNET_POOL> document");
	pool_refused("<VNET_POOL><VNET><ID>5</ID><VN_MAD>ib</VN_MAD></VNET>"
		     "<VNET><NAME>x</NAME></VNET></VNET_POOL>",
		     "VNET pool: VNET element 2 has no single <ID>");
	pool_refused("<VNET_POOL><VNET><ID>-1</ID></VNET></VNET_POOL>",
		     "VNET pool: VNET element 1 has a malformed <ID>");
	pool_refused("<!DOCTYPE x SYSTEM \"file:///etc/passwd\"><VNET_POOL/>",
		     "VNET pool: DOCTYPE refused (no DTD or entity is "
		     "accepted)");
}

/* --- choosing the key ----------------------------------------------------- */

static void range_parse(void **state)
{
	struct pkey_range r;

	(void)state;
	assert_int_equal(pkey_range_parse("0x0100-0x01ff", &r), 0);
	assert_int_equal(r.lo, 0x0100);
	assert_int_equal(r.hi, 0x01ff);
	assert_int_equal(pkey_range_parse("0x8100-0x81ff", &r), 0);
	assert_int_equal(r.lo, 0x0100);
	assert_int_equal(r.hi, 0x01ff);
	assert_int_equal(pkey_range_parse("256-256", &r), 0);
	assert_int_equal(r.lo, 0x0100);
	assert_int_equal(r.hi, 0x0100);
	assert_int_equal(pkey_range_parse("0x0001-0x7ffe", &r), 0);
	assert_int_equal(pkey_range_parse("0x0000-0x01ff", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100-0x7fff", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100-0xffff", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x01ff-0x0100", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100-", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("-0x0100", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100--0x0200", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("0x0100-0x0200-0x0300", &r), -EINVAL);
	assert_int_equal(pkey_range_parse("", &r), -EINVAL);
	assert_int_equal(pkey_range_parse(NULL, &r), -EINVAL);
}

struct fixture {
	struct vnet_pool pool;
	struct pkey_range range;
	struct partitions *stat; /* the operator's static file, or NULL */
};

static int setup_pool(void **state)
{
	static struct fixture f;
	char err[256] = "";

	if (onevnet_pool_parse(pool_xml, strlen(pool_xml), &f.pool, err,
			       sizeof(err)))
		return -1;
	f.range.lo = 0x0100;
	f.range.hi = 0x01ff;
	*state = &f;
	return 0;
}

static int teardown_pool(void **state)
{
	struct fixture *f = *state;

	vnet_pool_free(&f->pool);
	return 0;
}

/* The VNET tenant-b (ID 7) with IB_PKEY s, or none when s is NULL. */
static int assign(const struct fixture *f, const char *s, struct pkey *out,
		  char *err, size_t len)
{
	struct ib_vnet vn = { .id = 7 };

	snprintf(vn.name.s, sizeof(vn.name.s), "tenant-b");
	if (s) {
		assert_int_equal(pkey_parse(s, &vn.pkey), 0);
		vn.has_pkey = true;
	}
	return onevnet_assign_pkey(&vn, &f->pool, &f->range, f->stat, out, err,
				   len);
}

static void assign_given(void **state)
{
	struct fixture *f = *state;
	struct pkey k;
	char err[256] = "";

	/* always stored full member */
	assert_int_equal(assign(f, "0x0102", &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8102);
	assert_int_equal(assign(f, "0x8102", &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8102);
	/* outside the range is fine when asked for */
	assert_int_equal(assign(f, "0x1234", &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x9234);
	/* its own key in the pool (ID 7, 0x8104) is not a duplicate */
	assert_int_equal(assign(f, "0x0104", &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8104);
	/* a bridge network's IB_PKEY holds nothing */
	assert_int_equal(assign(f, "0x8103", &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8103);
}

static void assign_duplicate(void **state)
{
	struct fixture *f = *state;
	struct pkey k = { 0 };
	char err[256] = "";

	assert_int_equal(assign(f, "0x8101", &k, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "VNET 7 (tenant-b): IB_PKEY 0x8101 is "
				 "partition 0x0101, already used by VNET 5 "
				 "(tenant-a)");
	/* the other membership bit names the same partition */
	assert_int_equal(assign(f, "0x0101", &k, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "VNET 7 (tenant-b): IB_PKEY 0x0101 is "
				 "partition 0x0101, already used by VNET 5 "
				 "(tenant-a)");
	assert_int_equal(assign(f, "33024", &k, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "VNET 7 (tenant-b): IB_PKEY 0x8100 is "
				 "partition 0x0100, already used by VNET 6 "
				 "(tenant-c)");
	assert_int_equal(k.raw, 0);
}

static void assign_lowest_free(void **state)
{
	struct fixture *f = *state;
	struct pkey k;
	char err[256] = "";

	/* 0x0100 and 0x0101 are held, 0x0104 is its own */
	assert_int_equal(assign(f, NULL, &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8102);
	f->range.lo = 0x0104;
	assert_int_equal(assign(f, NULL, &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8104);
	f->range.lo = 0x7ffe;
	f->range.hi = 0x7ffe;
	assert_int_equal(assign(f, NULL, &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0xfffe);
	f->range.lo = 0x0100;
	f->range.hi = 0x01ff;
}

static void assign_exhausted(void **state)
{
	struct fixture *f = *state;
	struct pkey k = { 0 };
	char err[256] = "";

	f->range.lo = 0x0100;
	f->range.hi = 0x0101;
	assert_int_equal(assign(f, NULL, &k, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "VNET 7 (tenant-b): no free P_Key in "
				 "IB_PKEY_RANGE "
				 "0x0100-0x0101 (all 2 held by other "
				 "InfiniBand "
				 "networks or the static file); set IB_PKEY or "
				 "widen the range in etc/vnm/ib/ibrc");
	assert_int_equal(k.raw, 0);
	f->range.hi = 0x01ff;
}

/*
 * The operator's static file reserves its keys: refused when asked for,
 * skipped when assigning; a service network's IB_SERVICE_PARTITION must
 * be one of its partitions.
 */
static void static_file_reserves(void **state)
{
	static const char site[] = "storage=0x0102, ipoib : "
				   "0x0002c903000a0001=full ;\n"
				   "infra=0x0103 : ;\n";
	struct fixture *f = *state;
	struct partitions st;
	struct ib_vnet vn = { .id = 9 };
	struct pkey k = { 0 };
	char err[256] = "";

	assert_int_equal(partconf_parse(site, strlen(site), PARTCONF_STATIC,
					&st, err, sizeof(err)),
			 0);
	f->stat = &st;
	assert_int_equal(assign(f, "0x8102", &k, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "VNET 7 (tenant-b): IB_PKEY 0x8102 is "
				 "partition 0x0102, the static file's "
				 "(storage)");
	assert_int_equal(k.raw, 0);
	/* 0x0100, 0x0101 held by networks, 0x0102-3 by the operator;
	 * 0x0104 is tenant-b's own */
	assert_int_equal(assign(f, NULL, &k, err, sizeof(err)), 0);
	assert_int_equal(k.raw, 0x8104);

	snprintf(vn.name.s, sizeof(vn.name.s), "storage");
	assert_int_equal(onevnet_check_service(&vn, &st, err, sizeof(err)), 0);
	snprintf(vn.svc_part, sizeof(vn.svc_part), "storage");
	assert_int_equal(onevnet_check_service(&vn, &st, err, sizeof(err)), 0);
	snprintf(vn.svc_part, sizeof(vn.svc_part), "nas");
	assert_int_equal(onevnet_check_service(&vn, &st, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "VNET 9 (storage): IB_SERVICE_PARTITION 'nas' "
				 "is no partition of the static file");
	assert_int_equal(onevnet_check_service(&vn, NULL, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "VNET 9 (storage): IB_SERVICE_PARTITION 'nas' "
				 "is no partition of the static file (none: "
				 "ONEIB_PARTITIONS_STATIC in etc/vnm/ib/ibrc)");
	f->stat = NULL;
	partitions_free(&st);
}

/* --- the VM ID ------------------------------------------------------------ */

/*
 * A reservation (`onevnet reserve` of tenant-a: PARENT_NETWORK_ID 5,
 * tenant-a's template copied) keeps its parent's partition, which its
 * parent and the parent's other reservations do not hold against it; a
 * key of its own, or a parent that is no InfiniBand network, is refused.
 * Its parent and siblings hold the key against every other network.
 */
static void reservation_keeps_its_parents(void **state)
{
	static const char pool[] =
		"<VNET_POOL><VNET><ID>5</ID><NAME>tenant-a</NAME><VN_MAD>ib"
		"</VN_MAD><TEMPLATE><IB_PKEY>0x8101</IB_PKEY></TEMPLATE></VNET>"
		"<VNET><ID>12</ID><NAME>slice</NAME><PARENT_NETWORK_ID>5"
		"</PARENT_NETWORK_ID><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>"
		"0x8101</IB_PKEY></TEMPLATE></VNET>"
		"<VNET><ID>13</ID><NAME>mine</NAME><PARENT_NETWORK_ID>5"
		"</PARENT_NETWORK_ID><VN_MAD>ib</VN_MAD><TEMPLATE><IB_PKEY>"
		"0x8101</IB_PKEY></TEMPLATE></VNET></VNET_POOL>";
	static const char mine[] = "<VNET><ID>13</ID><NAME>mine</"
				   "NAME><PARENT_NETWORK_ID>5"
				   "</PARENT_NETWORK_ID><VN_MAD>ib</"
				   "VN_MAD><TEMPLATE><IB_PKEY>"
				   "0x8101</IB_PKEY></TEMPLATE></VNET>";
	struct pkey_range range = { 0x0100, 0x01ff };
	struct vnet_pool vp;
	struct ib_vnet vn;
	struct pkey k = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(onevnet_pool_parse(pool, strlen(pool), &vp, err,
					    sizeof(err)),
			 0);
	assert_int_equal(onevnet_parse(mine, strlen(mine), 13, &vn, err,
				       sizeof(err)),
			 0);
	assert_true(vn.reservation);
	assert_int_equal(vn.parent, 5);
	assert_int_equal(onevnet_assign_pkey(&vn, &vp, &range, NULL, &k, err,
					     sizeof(err)),
			 0);
	assert_int_equal(k.raw, 0x8101);
	/* none copied: the parent's */
	vn.has_pkey = false;
	assert_int_equal(onevnet_assign_pkey(&vn, &vp, &range, NULL, &k, err,
					     sizeof(err)),
			 0);
	assert_int_equal(k.raw, 0x8101);
	/* a key of its own */
	vn.has_pkey = true;
	vn.pkey.raw = 0x8110;
	assert_int_equal(onevnet_assign_pkey(&vn, &vp, &range, NULL, &k, err,
					     sizeof(err)),
			 -EEXIST);
	assert_string_equal(err, "VNET 13 (mine): a reservation of VNET 5 "
				 "(tenant-a) keeps its partition 0x0101, not "
				 "0x0110");
	/* a parent that is no InfiniBand network of the pool */
	vn.pkey.raw = 0x8101;
	vn.parent = 4;
	assert_int_equal(onevnet_assign_pkey(&vn, &vp, &range, NULL, &k, err,
					     sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "VNET 13 (mine): a reservation of VNET 4, no "
				 "InfiniBand network of the pool");
	/* every other network still finds the key taken */
	vn.reservation = false;
	vn.id = 14;
	assert_int_equal(onevnet_assign_pkey(&vn, &vp, &range, NULL, &k, err,
					     sizeof(err)),
			 -EEXIST);
	assert_non_null(strstr(err, "already used by VNET 5 (tenant-a)"));
	vnet_pool_free(&vp);
}

static void vm_id(void **state)
{
	static const char reduced[] =
		"<VM><ID>42</ID><DEPLOY_ID>f1c0</DEPLOY_ID><TEMPLATE><NIC>"
		"<NIC_ID><![CDATA[0]]></NIC_ID><VN_MAD><![CDATA[ib]]></VN_MAD>"
		"<IB_PKEY><![CDATA[junk]]></IB_PKEY></NIC></TEMPLATE>"
		"<HISTORY_RECORDS><HISTORY><HOSTNAME>node1</HOSTNAME>"
		"</HISTORY></HISTORY_RECORDS></VM>\n";
	char err[256] = "";
	int id = -1;

	(void)state;
	/* the NICs are not looked at: clean must work whatever they hold */
	assert_int_equal(onevnet_vm_id(reduced, strlen(reduced), &id, err,
				       sizeof(err)),
			 0);
	assert_int_equal(id, 42);
	assert_int_equal(onevnet_vm_id("<VM><ID><![CDATA[7]]></ID></VM>", 31,
				       &id, err, sizeof(err)),
			 0);
	assert_int_equal(id, 7);

	assert_int_equal(onevnet_vm_id("<VM/>", 5, &id, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VM XML: <VM> has no <ID>");
	assert_int_equal(onevnet_vm_id("<VM><ID>1</ID><ID>2</ID></VM>", 29, &id,
				       err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VM XML: <VM> has more than one <ID>");
	assert_int_equal(onevnet_vm_id("<VM><ID>4x\n2</ID></VM>", 23, &id, err,
				       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VM XML: <VM> ID '4x?2' is not a number");
	assert_int_equal(onevnet_vm_id("<VNET><ID>1</ID></VNET>", 23, &id, err,
				       sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VM XML: root element <VNET> is not <VM>");
	assert_int_equal(onevnet_vm_id("", 0, &id, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "VM XML: empty document");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vnet_all_attributes),
		cmocka_unit_test(vnet_nothing_given),
		cmocka_unit_test(vnet_pkey_forms),
		cmocka_unit_test(vnet_bad_pkey),
		cmocka_unit_test(vnet_bad_options),
		cmocka_unit_test(vnet_bad_document),
		cmocka_unit_test(pool_parse),
		cmocka_unit_test(pool_bad),
		cmocka_unit_test(range_parse),
		cmocka_unit_test_setup_teardown(assign_given, setup_pool,
						teardown_pool),
		cmocka_unit_test_setup_teardown(assign_duplicate, setup_pool,
						teardown_pool),
		cmocka_unit_test_setup_teardown(assign_lowest_free, setup_pool,
						teardown_pool),
		cmocka_unit_test_setup_teardown(assign_exhausted, setup_pool,
						teardown_pool),
		cmocka_unit_test_setup_teardown(static_file_reserves,
						setup_pool, teardown_pool),
		cmocka_unit_test(reservation_keeps_its_parents),
		cmocka_unit_test(vm_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
