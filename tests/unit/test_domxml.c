// SPDX-License-Identifier: Apache-2.0
/*
 * The deployment file rewrite (IB NIC -> VF hostdev), the PCI devices and
 * CPUs a domain already uses, and hostile XML that must be refused quietly.
 * Data: tests/unit/data/deployment.0, an OpenNebula 6.10 KVM deployment file
 * for VM 42 with two IB NICs (0, 2) around an ordinary one (1).
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

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "host/domxml.h"
#include "core/guid.h"
#include "core/strbuf.h"

#define MAC_IB0 0x0200c0a80105ULL /* NIC 0, ib */
#define MAC_ETH 0x02000a00002aULL /* NIC 1, bridge */
#define MAC_IB2 0x0200c0a80207ULL /* NIC 2, ib */

/* --- helpers ------------------------------------------------------------- */

/* stderr to a temporary file around a call; how many bytes landed there. */
struct capture {
	int saved;
	FILE *tmp;
};

static void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->saved = dup(2);
	assert_true(c->saved >= 0);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	assert_true(dup2(fileno(c->tmp), 2) >= 0);
}

static long capture_end(struct capture *c)
{
	long n;

	fflush(stderr);
	assert_true(dup2(c->saved, 2) >= 0);
	close(c->saved);
	fseek(c->tmp, 0, SEEK_END);
	n = ftell(c->tmp);
	fclose(c->tmp);
	return n;
}

static xmlDocPtr reparse(const char *s)
{
	xmlDocPtr doc =
		xmlReadMemory(s, (int)strlen(s), NULL, NULL, XML_PARSE_NONET);

	assert_non_null(doc);
	return doc;
}

/* libxml2's serialization of one node, for byte-for-byte comparisons. */
static char *dump(xmlDocPtr doc, xmlNodePtr n)
{
	xmlBufferPtr b = xmlBufferCreate();
	char *s;

	assert_non_null(n);
	assert_true(xmlNodeDump(b, doc, n, 0, 0) >= 0);
	s = strdup((const char *)xmlBufferContent(b));
	xmlBufferFree(b);
	return s;
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
	xmlNodePtr c;

	for (c = parent ? parent->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)c->name, name) == 0)
			return c;
	return NULL;
}

static xmlNodePtr next_elem(xmlNodePtr n)
{
	for (n = n->next; n && n->type != XML_ELEMENT_NODE; n = n->next)
		;
	return n;
}

static xmlNodePtr prev_elem(xmlNodePtr n)
{
	for (n = n->prev; n && n->type != XML_ELEMENT_NODE; n = n->prev)
		;
	return n;
}

static void assert_attr(xmlNodePtr n, const char *name, const char *want)
{
	xmlChar *v;

	assert_non_null(n);
	v = xmlGetProp(n, BAD_CAST name);
	assert_non_null(v);
	assert_string_equal((const char *)v, want);
	xmlFree(v);
}

/* The <interface> with this MAC (as written in the file), or NULL. */
static xmlNodePtr iface_by_mac(xmlDocPtr doc, const char *mac)
{
	xmlNodePtr c, m, dev = child(xmlDocGetRootElement(doc), "devices");

	for (c = dev->children; c; c = c->next) {
		xmlChar *v;
		int eq;

		m = child(c, "mac");
		if (strcmp((const char *)c->name, "interface") || !m)
			continue;
		v = xmlGetProp(m, BAD_CAST "address");
		eq = v && strcmp((const char *)v, mac) == 0;
		xmlFree(v);
		if (eq)
			return c;
	}
	return NULL;
}

/* The n-th <hostdev> in <devices> (0-based). */
static xmlNodePtr hostdev(xmlDocPtr doc, int n)
{
	xmlNodePtr c, dev = child(xmlDocGetRootElement(doc), "devices");

	for (c = dev->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE &&
		    strcmp((const char *)c->name, "hostdev") == 0 && n-- == 0)
			return c;
	return NULL;
}

/* <hostdev><source><address domain= bus= slot= function=/></source> */
static void assert_vf(xmlNodePtr hd, const char *dom, const char *bus,
		      const char *slot, const char *func)
{
	xmlNodePtr a;

	assert_attr(hd, "mode", "subsystem");
	assert_attr(hd, "type", "pci");
	assert_attr(hd, "managed", "yes");
	a = child(child(hd, "source"), "address");
	assert_attr(a, "domain", dom);
	assert_attr(a, "bus", bus);
	assert_attr(a, "slot", slot);
	assert_attr(a, "function", func);
}

/*
 * The three readers on a document given as text, parsed for this call
 * only (deploy parses once and asks two of them: leasing_deploy).
 */
struct reader_args {
	enum { REWRITE, PCI_HOSTDEVS, PINNED_CPUS } op;
	const struct domxml_vf *map;
	size_t n;
	struct strbuf *out;
	struct pci_addr **pcis;
	size_t *npcis;
	uint64_t *bits;
	bool *pinned;
};

static int on_text(const char *xml, size_t len, const struct reader_args *a,
		   char *err, size_t errlen)
{
	struct domxml *d;
	int r = domxml_parse(xml, len, &d, err, errlen);

	if (!r && a->op == REWRITE)
		r = domxml_rewrite(d, a->map, a->n, a->out, err, errlen);
	else if (!r && a->op == PCI_HOSTDEVS)
		r = domxml_pci_hostdevs(d, a->pcis, a->npcis, err, errlen);
	else if (!r)
		r = domxml_pinned_cpus(d, a->bits, a->pinned, err, errlen);
	domxml_free(d);
	return r;
}

static int rewrite_str(const char *xml, size_t len, const struct domxml_vf *map,
		       size_t n, struct strbuf *out, char *err, size_t errlen)
{
	const struct reader_args a = {
		.op = REWRITE, .map = map, .n = n, .out = out
	};

	return on_text(xml, len, &a, err, errlen);
}

static int pci_hostdevs_str(const char *xml, size_t len, struct pci_addr **out,
			    size_t *n, char *err, size_t errlen)
{
	const struct reader_args a = { .op = PCI_HOSTDEVS,
				       .pcis = out,
				       .npcis = n };

	return on_text(xml, len, &a, err, errlen);
}

static int pinned_cpus_str(const char *xml, size_t len,
			   uint64_t bits[CPULIST_WORDS], bool *pinned,
			   char *err, size_t errlen)
{
	const struct reader_args a = { .op = PINNED_CPUS,
				       .bits = bits,
				       .pinned = pinned };

	return on_text(xml, len, &a, err, errlen);
}

static struct domxml_vf vf(uint64_t mac, const char *addr)
{
	struct domxml_vf v = { .mac = mac, .node = -1 };

	assert_int_equal(pci_addr_parse(addr, &v.vf), 0);
	return v;
}

static int rewrite(const char *xml, const struct domxml_vf *map, size_t n,
		   struct strbuf *out, char *err)
{
	return rewrite_str(xml, strlen(xml), map, n, out, err, 256);
}

/* --- rewrite ------------------------------------------------------------- */

/*
 * The whole output equals the untouched serialization of the input with the
 * <interface> of NIC 0 replaced by exactly this text, indented like the file.
 */
static void rewrite_one_exact(void **state)
{
	static const char want_hd[] = "<hostdev mode=\"subsystem\" "
				      "type=\"pci\" managed=\"yes\">\n"
				      "\t\t\t<source>\n"
				      "\t\t\t\t<address domain=\"0x0000\" "
				      "bus=\"0x3b\" "
				      "slot=\"0x00\" function=\"0x1\"/>\n"
				      "\t\t\t</source>\n"
				      "\t\t\t<boot order=\"2\"/>\n"
				      "\t\t</hostdev>";
	struct domxml_vf map[] = { vf(MAC_IB0, "0000:3b:00.1") };
	struct strbuf same = STRBUF_INIT, out = STRBUF_INIT, want = STRBUF_INIT;
	char err[256] = "", *iface, *at;
	xmlDocPtr in;
	size_t len;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	assert_int_equal(rewrite_str(xml, len, NULL, 0, &same, err, 256), 0);
	assert_int_equal(rewrite_str(xml, len, map, 1, &out, err, 256), 0);
	assert_string_equal(err, "");

	in = reparse(xml);
	iface = dump(in, iface_by_mac(in, "02:00:c0:a8:01:05"));
	at = strstr(sb_str(&same), iface);
	assert_non_null(at);
	sb_add(&want, sb_str(&same), (size_t)(at - sb_str(&same)));
	sb_adds(&want, want_hd);
	sb_adds(&want, at + strlen(iface));
	assert_string_equal(sb_str(&out), sb_str(&want));
	/* OpenNebula writes no XML declaration; none is added. */
	assert_memory_equal(sb_str(&out), "<domain ", 8);

	free(iface);
	xmlFreeDoc(in);
	sb_release(&same);
	sb_release(&out);
	sb_release(&want);
	free(xml);
}

/* Re-parsed: the hostdev sits where the interface was, the rest is intact. */
static void rewrite_one_structure(void **state)
{
	struct domxml_vf map[] = { vf(MAC_IB0, "0000:3b:00.1") };
	struct strbuf out = STRBUF_INIT;
	const char *keep[] = { "metadata", "features", "os", "cputune" };
	xmlDocPtr in, res;
	xmlNodePtr hd;
	char err[256] = "", *a, *b;
	size_t len, i;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	assert_int_equal(rewrite_str(xml, len, map, 1, &out, err, 256), 0);
	in = reparse(xml);
	res = reparse(sb_str(&out));

	assert_null(iface_by_mac(res, "02:00:c0:a8:01:05"));
	hd = hostdev(res, 0);
	assert_vf(hd, "0x0000", "0x3b", "0x00", "0x1");
	assert_null(hostdev(res, 1));
	assert_attr(child(hd, "boot"), "order", "2");
	assert_null(child(hd, "mac"));
	assert_null(child(hd, "target"));
	/* same position: after the CD-ROM, before NIC 1 */
	assert_attr(prev_elem(hd), "device", "cdrom");
	assert_ptr_equal(next_elem(hd), iface_by_mac(res, "02:00:0a:00:00:2a"));

	/* untouched nodes serialize identically before and after */
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		a = dump(in, child(xmlDocGetRootElement(in), keep[i]));
		b = dump(res, child(xmlDocGetRootElement(res), keep[i]));
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	a = dump(in, iface_by_mac(in, "02:00:0a:00:00:2a"));
	b = dump(res, iface_by_mac(res, "02:00:0a:00:00:2a"));
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = dump(in, iface_by_mac(in, "02:00:c0:a8:02:07"));
	b = dump(res, iface_by_mac(res, "02:00:c0:a8:02:07"));
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* the metadata keeps its namespace and CDATA */
	assert_non_null(strstr(sb_str(&out), "<one:vm "
					     "xmlns:one=\"http://"
					     "opennebula.org/"
					     "xmlns/libvirt/1.0\">"));
	assert_non_null(strstr(sb_str(&out), "<one:name><![CDATA[ib-worker-0]]>"
					     "</one:name>"));

	xmlFreeDoc(in);
	xmlFreeDoc(res);
	sb_release(&out);
	free(xml);
}

static void rewrite_two(void **state)
{
	struct domxml_vf map[] = { vf(MAC_IB2, "0000:3b:01.7"),
				   vf(MAC_IB0, "0000:3b:00.2") };
	struct strbuf out = STRBUF_INIT;
	struct pci_addr *used = NULL;
	char err[256] = "", *a, *b;
	xmlDocPtr in, res;
	xmlNodePtr eth;
	size_t len, n = 0;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	assert_int_equal(rewrite_str(xml, len, map, 2, &out, err, 256), 0);
	in = reparse(xml);
	res = reparse(sb_str(&out));
	assert_null(iface_by_mac(res, "02:00:c0:a8:01:05"));
	assert_null(iface_by_mac(res, "02:00:c0:a8:02:07"));
	/* document order: NIC 0's hostdev, NIC 1, NIC 2's hostdev */
	assert_vf(hostdev(res, 0), "0x0000", "0x3b", "0x00", "0x2");
	assert_attr(child(hostdev(res, 0), "boot"), "order", "2");
	assert_vf(hostdev(res, 1), "0x0000", "0x3b", "0x01", "0x7");
	assert_null(child(hostdev(res, 1), "boot"));
	eth = iface_by_mac(res, "02:00:0a:00:00:2a");
	assert_ptr_equal(next_elem(hostdev(res, 0)), eth);
	assert_ptr_equal(next_elem(eth), hostdev(res, 1));
	a = dump(in, iface_by_mac(in, "02:00:0a:00:00:2a"));
	b = dump(res, eth);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = dump(in, child(xmlDocGetRootElement(in), "metadata"));
	b = dump(res, child(xmlDocGetRootElement(res), "metadata"));
	assert_string_equal(a, b);
	free(a);
	free(b);

	/* and the listing reads back exactly the two VFs */
	assert_int_equal(pci_hostdevs_str(sb_str(&out), out.len, &used, &n, err,
					  256),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(pci_addr_cmp(&used[0], &map[1].vf), 0);
	assert_int_equal(pci_addr_cmp(&used[1], &map[0].vf), 0);

	free(used);
	xmlFreeDoc(in);
	xmlFreeDoc(res);
	sb_release(&out);
	free(xml);
}

/*
 * A hand-made file: XML declaration, comments, a processing instruction,
 * CDATA, an upper-case MAC, a guest PCI address, all on few lines.
 */
static const char odd_domain[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!-- written by hand -->\n"
	"<domain type='kvm'><name>one-7</name><title>w\xc3\xb6rker</title>"
	"<devices><!-- NICs follow --><interface type='bridge'>"
	"<mac address='02:00:C0:A8:01:05'/><source bridge='onebr3'/>"
	"<address type='pci' domain='0x0000' bus='0x00' slot='0x05' "
	"function='0x0'/><boot order='3'/><model type='virtio'/></interface>"
	"<?keep me?><emulator><![CDATA[/usr/bin/kvm & co]]></emulator>"
	"</devices></domain>\n";

static void rewrite_keeps_odd_nodes(void **state)
{
	struct domxml_vf map[] = { vf(MAC_IB0, "0001:af:10.3") };
	struct strbuf out = STRBUF_INIT;
	char err[256] = "";
	xmlNodePtr hd, c;
	xmlDocPtr res;

	(void)state;
	assert_int_equal(rewrite(odd_domain, map, 1, &out, err), 0);
	assert_memory_equal(sb_str(&out), "<?xml version=\"1.0\"", 19);
	assert_non_null(strstr(sb_str(&out), "<!-- written by hand -->"));
	assert_non_null(strstr(sb_str(&out), "<!-- NICs follow -->"));
	assert_non_null(strstr(sb_str(&out), "<?keep me?>"));
	assert_non_null(strstr(sb_str(&out), "<title>w\xc3\xb6rker</title>"));
	assert_non_null(strstr(sb_str(&out), "<emulator><![CDATA[/usr/bin/kvm "
					     "& co]]>"));
	/* a one-line file gets a one-line hostdev */
	assert_non_null(strstr(sb_str(&out), "<!-- NICs follow --><hostdev "
					     "mode=\"subsystem\" "
					     "type=\"pci\" "
					     "managed=\"yes\"><source><address "
					     "domain=\"0x0001\" bus=\"0xaf\" "
					     "slot=\"0x10\" "
					     "function=\"0x3\"/></source><boot "
					     "order=\"3\"/>"
					     "<address type=\"pci\" "
					     "domain=\"0x0000\" bus=\"0x00\" "
					     "slot=\"0x05\" "
					     "function=\"0x0\"/></"
					     "hostdev><?keep me?>"));

	res = reparse(sb_str(&out));
	hd = hostdev(res, 0);
	assert_vf(hd, "0x0001", "0xaf", "0x10", "0x3");
	/* source first, then what the interface had: boot, guest address */
	c = child(hd, "source");
	assert_attr(next_elem(c), "order", "3");
	assert_attr(next_elem(next_elem(c)), "slot", "0x05");
	assert_null(next_elem(next_elem(next_elem(c))));
	xmlFreeDoc(res);
	sb_release(&out);
}

/* No declaration, non-ASCII: stays UTF-8, never becomes &#xF6; refs. */
static void rewrite_keeps_utf8(void **state)
{
	static const char xml[] = "<domain type='kvm'><name>one-8</name>"
				  "<title>w\xc3\xb6rker</title>"
				  "<description "
				  "lang='\xc3\xa9'>\xe2\x82\xac</description>"
				  "<devices/></domain>";
	static const char want[] = "<domain type=\"kvm\"><name>one-8</name>"
				   "<title>w\xc3\xb6rker</title>"
				   "<description "
				   "lang=\"\xc3\xa9\">\xe2\x82\xac</"
				   "description>"
				   "<devices/></domain>\n";
	struct strbuf out = STRBUF_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(rewrite(xml, NULL, 0, &out, err), 0);
	assert_string_equal(sb_str(&out), want);
	sb_release(&out);
}

static void rewrite_errors_output_nothing(void **state)
{
	static const char dup_mac[] =
		"<domain type='kvm'><name>one-9</name><devices>"
		"<interface type='bridge'><mac address='02:00:c0:a8:01:05'/>"
		"</interface><interface type='bridge'>"
		"<mac address='02:00:C0:A8:01:05'/></interface>"
		"</devices></domain>";
	struct domxml_vf miss[] = { vf(0x0200c0a80199ULL, "0000:3b:00.1") };
	struct domxml_vf one[] = { vf(MAC_IB0, "0000:3b:00.1") };
	struct domxml_vf twice_mac[] = { vf(MAC_IB0, "0000:3b:00.1"),
					 vf(MAC_IB0, "0000:3b:00.2") };
	struct domxml_vf twice_vf[] = { vf(MAC_IB0, "0000:3b:00.1"),
					vf(MAC_IB2, "0000:3b:00.1") };
	struct domxml_vf half[] = { vf(MAC_IB0, "0000:3b:00.1"),
				    vf(0x0200c0a80199ULL, "0000:3b:00.2") };
	struct strbuf out = STRBUF_INIT;
	char err[256];
	size_t len;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	sb_adds(&out, "earlier output\n");

	assert_int_equal(rewrite_str(xml, len, miss, 1, &out, err, 256),
			 -EINVAL);
	assert_string_equal(err, "domain one-42: no <interface> with MAC "
				 "02:00:c0:a8:01:99");
	/* the first MAC matched, the second did not: still nothing */
	assert_int_equal(rewrite_str(xml, len, half, 2, &out, err, 256),
			 -EINVAL);
	assert_non_null(strstr(err, "02:00:c0:a8:01:99"));

	assert_int_equal(rewrite(dup_mac, one, 1, &out, err), -EINVAL);
	assert_string_equal(err, "domain one-9: 2 <interface> elements with "
				 "MAC 02:00:c0:a8:01:05");
	assert_int_equal(rewrite_str(xml, len, twice_mac, 2, &out, err, 256),
			 -EINVAL);
	assert_string_equal(err, "domain one-42: VF map lists MAC "
				 "02:00:c0:a8:01:05 twice");
	assert_int_equal(rewrite_str(xml, len, twice_vf, 2, &out, err, 256),
			 -EINVAL);
	assert_string_equal(err, "domain one-42: VF 0000:3b:00.1 given for "
				 "two MACs (02:00:c0:a8:02:07)");

	assert_string_equal(sb_str(&out), "earlier output\n");
	sb_release(&out);
	free(xml);
}

/* --- hostile input --------------------------------------------------------- */

static void refuse_quietly(const char *xml, const char *want_err)
{
	struct domxml_vf map[] = { vf(MAC_IB0, "0000:3b:00.1") };
	struct strbuf out = STRBUF_INIT;
	struct pci_addr *pa = NULL;
	uint64_t bits[CPULIST_WORDS];
	struct capture cap;
	char err[256] = "";
	bool pinned;
	size_t n = 0;

	capture_begin(&cap);
	assert_int_equal(rewrite(xml, map, 1, &out, err), -EINVAL);
	assert_int_equal(pci_hostdevs_str(xml, strlen(xml), &pa, &n, err,
					  sizeof(err)),
			 -EINVAL);
	assert_int_equal(pinned_cpus_str(xml, strlen(xml), bits, &pinned, err,
					 sizeof(err)),
			 -EINVAL);
	assert_int_equal(capture_end(&cap), 0);
	assert_int_equal(out.len, 0);
	assert_null(pa);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, want_err));
	assert_null(strchr(err, '\n'));
	sb_release(&out);
}

static void refuse_malformed(void **state)
{
	(void)state;
	refuse_quietly("<domain type='kvm'><name>one-1</name><devices>"
		       "</domain>",
		       "domain XML: not well-formed XML: line 1: ");
	refuse_quietly("", "domain XML: empty document");
	refuse_quietly("just text", "not well-formed XML");
	refuse_quietly("<domain><x:y/></domain>", "not well-formed XML");
	refuse_quietly("<domain>&nbsp;</domain>", "not well-formed XML");
	/* iconv's complaint has no parser context: quiet all the same */
	refuse_quietly("<?xml version=\"1.0\" encoding=\"EUC-JP\"?>\n"
		       "<domain><name>\x8e\xff\xff</name></domain>",
		       "domain XML: not well-formed XML: input conversion "
		       "failed");
	refuse_quietly("<VM><ID>1</ID></VM>", "domain XML: root element <VM> "
					      "is not <domain>");
}

static void refuse_doctype(void **state)
{
	(void)state;
	/* billion laughs: refused at the DOCTYPE, nothing expanded */
	refuse_quietly("<?xml version=\"1.0\"?>\n"
		       "<!DOCTYPE domain [\n"
		       " <!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
		       " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
		       " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
		       "]>\n"
		       "<domain type='kvm'><name>&c;</name><devices>"
		       "<interface type='bridge'>"
		       "<mac address='02:00:c0:a8:01:05'/></interface>"
		       "</devices></domain>",
		       "domain XML: DOCTYPE refused");
	/* external entity: never read */
	refuse_quietly("<!DOCTYPE domain [<!ENTITY x SYSTEM "
		       "\"file:///etc/passwd\">]><domain><name>&x;</name>"
		       "</domain>",
		       "DOCTYPE refused");
	refuse_quietly("<!DOCTYPE domain SYSTEM \"http://example.com/d.dtd\">"
		       "<domain><name>one-1</name></domain>",
		       "DOCTYPE refused");
	refuse_quietly("<!DOCTYPE domain><domain/>", "DOCTYPE refused");
	/* the internal subset is never read: its garbage goes unnoticed */
	refuse_quietly("<!DOCTYPE domain [ <!ENTITY broken ]><domain/>",
		       "domain XML: DOCTYPE refused");
}

/* --- hostdev listing ------------------------------------------------------- */

static void pci_hostdevs(void **state)
{
	static const char xml[] =
		"<domain type='kvm'><name>one-5</name><devices>"
		"<hostdev mode='subsystem' type='pci' managed='yes'><source>"
		"<address domain='0x0000' bus='0x3b' slot='0x00' "
		"function='0x3'/></source></hostdev>"
		"<interface type='hostdev' managed='yes'>"
		"<mac address='52:54:00:6d:90:02'/><source>"
		"<address type='pci' domain='0' bus='59' slot='1' "
		"function='2'/></source></interface>"
		"<hostdev mode='subsystem' type='usb'><source>"
		"<vendor id='0x1234'/><product id='0xbeef'/></source></hostdev>"
		"<hostdev mode='subsystem' type='mdev' "
		"model='vfio-pci'><source>"
		"<address uuid='c2177883-f1bb-47f0-914d-32a22e3a8804'/>"
		"</source></hostdev>"
		"<interface type='bridge'><source bridge='br0'/>"
		"<address type='pci' domain='0x0000' bus='0x00' slot='0x03' "
		"function='0x0'/></interface>"
		"<hostdev type='pci'><source><address bus='0xaf' slot='0x1f' "
		"function='0x7'/></source><address type='pci' bus='0x00' "
		"slot='0x09'/></hostdev>"
		"</devices></domain>";
	struct pci_addr *pa = malloc(sizeof(*pa));
	char err[256] = "", buf[PCI_ADDR_STRLEN];
	size_t n = 1;

	(void)state;
	assert_non_null(pa);
	pci_addr_parse("0000:01:00.0", &pa[0]); /* the caller's, kept */
	assert_int_equal(pci_hostdevs_str(xml, strlen(xml), &pa, &n, err,
					  sizeof(err)),
			 0);
	assert_int_equal(n, 4);
	pci_addr_fmt(&pa[0], buf);
	assert_string_equal(buf, "0000:01:00.0");
	pci_addr_fmt(&pa[1], buf);
	assert_string_equal(buf, "0000:3b:00.3");
	pci_addr_fmt(&pa[2], buf);
	assert_string_equal(buf, "0000:3b:01.2");
	pci_addr_fmt(&pa[3], buf);
	assert_string_equal(buf, "0000:af:1f.7");
	free(pa);
}

static void pci_hostdevs_none_and_bad(void **state)
{
	static const char bad[] =
		"<domain><name>one-5</name><devices><hostdev mode='subsystem' "
		"type='pci'><source><address domain='0x0000' bus='0x1ff' "
		"slot='0x00' function='0x0'/></source></hostdev></devices>"
		"</domain>";
	static const char bad_fn[] =
		"<domain><name>one-5</name><devices><interface type='hostdev'>"
		"<source><address type='pci' bus='0x3b' slot='0' "
		"function=' 1'/></source></interface></devices></domain>";
	static const char no_src[] = "<domain><name>one-5</"
				     "name><devices><hostdev mode='subsystem' "
				     "type='pci'/></devices></domain>";
	struct pci_addr *pa = NULL;
	char err[256] = "";
	size_t len, n = 0;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	assert_int_equal(pci_hostdevs_str(xml, len, &pa, &n, err, 256), 0);
	assert_int_equal(n, 0);
	assert_null(pa);
	assert_int_equal(pci_hostdevs_str(bad, strlen(bad), &pa, &n, err, 256),
			 -EINVAL);
	assert_string_equal(err, "domain one-5: <hostdev> source address "
				 "bus='0x1ff' is not a PCI bus");
	assert_int_equal(pci_hostdevs_str(bad_fn, strlen(bad_fn), &pa, &n, err,
					  256),
			 -EINVAL);
	assert_non_null(strstr(err, "function=' 1'"));
	assert_int_equal(pci_hostdevs_str(no_src, strlen(no_src), &pa, &n, err,
					  256),
			 -EINVAL);
	assert_string_equal(err, "domain one-5: PCI <hostdev> without a "
				 "source address");
	assert_int_equal(n, 0);
	assert_null(pa);
	free(xml);
}

/* --- CPU lists ------------------------------------------------------------- */

static bool bit(const uint64_t *b, unsigned c)
{
	return b[c / 64] >> (c % 64) & 1;
}

static unsigned count(const uint64_t *b)
{
	unsigned c, n = 0;

	for (c = 0; c < CPULIST_MAX; c++)
		n += bit(b, c);
	return n;
}

static void cpulist_good(void **state)
{
	uint64_t b[CPULIST_WORDS];

	(void)state;
	assert_int_equal(cpulist_parse("0-3,8,10-11", b, false), 0);
	assert_int_equal(count(b), 7);
	assert_true(bit(b, 0) && bit(b, 3) && bit(b, 8) && bit(b, 11));
	assert_false(bit(b, 4) || bit(b, 9) || bit(b, 12));
	assert_int_equal(cpulist_parse("0-3,^2", b, true), 0);
	assert_int_equal(count(b), 3);
	assert_false(bit(b, 2));
	/* libvirt reads left to right: a later item may set it again */
	assert_int_equal(cpulist_parse("0-7,^3,^5,5", b, true), 0);
	assert_int_equal(count(b), 7);
	assert_false(bit(b, 3));
	assert_int_equal(cpulist_parse(" 1 , 64-65 ", b, false), 0);
	assert_int_equal(count(b), 3);
	assert_true(bit(b, 64) && bit(b, 65));
	assert_int_equal(cpulist_parse("1023", b, false), 0);
	assert_true(bit(b, 1023));
	assert_int_equal(cpulist_parse("0-1023", b, false), 0);
	assert_int_equal(count(b), 1024);
	/* a node without CPUs has an empty cpulist */
	assert_int_equal(cpulist_parse("", b, false), 0);
	assert_int_equal(count(b), 0);
}

static void cpulist_garbage(void **state)
{
	static const char *const bad[] = {
		"a",   "1-",	"-1",	    "3-1", "1,,2", "1,",  "0x1", "^",
		"1 2", "1-2-3", "0-3,^2-3", "1;2", ",1",   "1\n", "+1",
	};
	uint64_t b[CPULIST_WORDS];
	size_t i;

	(void)state;
	memset(b, 0xa5, sizeof(b));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cpulist_parse(bad[i], b, true), -EINVAL);
	assert_int_equal(cpulist_parse("0-3,^2", b, false), -EINVAL);
	assert_int_equal(cpulist_parse("1024", b, false), -ERANGE);
	assert_int_equal(cpulist_parse("0-99999999999999999999", b, false),
			 -ERANGE);
	assert_int_equal(cpulist_parse(NULL, b, false), -EINVAL);
	assert_int_equal(b[0], 0xa5a5a5a5a5a5a5a5ULL); /* untouched */
}

static int pinned_of(const char *xml, uint64_t *b, bool *pinned, char *err)
{
	return pinned_cpus_str(xml, strlen(xml), b, pinned, err, 256);
}

static void pinned_cpus(void **state)
{
	static const char both[] = "<domain><name>one-3</name>"
				   "<vcpu placement='static' "
				   "cpuset='0-3,^2'>2</vcpu>"
				   "<cputune><shares>2048</shares>"
				   "<vcpupin vcpu='0' cpuset='8'/><vcpupin "
				   "vcpu='1' cpuset='9-10'/>"
				   "<emulatorpin "
				   "cpuset='30'/></cputune></domain>";
	static const char only_pin[] = "<domain><name>one-3</name><vcpu>2</"
				       "vcpu><cputune>"
				       "<vcpupin vcpu='0' "
				       "cpuset='100'/></cputune></domain>";
	static const char automatic[] = "<domain><name>one-3</name><vcpu "
					"placement='auto'>2</vcpu>"
					"</domain>";
	static const char garbage[] = "<domain><name>one-3</name><cputune>"
				      "<vcpupin vcpu='0' "
				      "cpuset='1-x'/></cputune></domain>";
	static const char empty[] = "<domain><name>one-3</name><vcpu "
				    "cpuset='3,^3'>1</vcpu>"
				    "</domain>";
	static const char huge[] = "<domain><name>one-3</name>"
				   "<vcpu cpuset='4096'>1</vcpu></domain>";
	uint64_t b[CPULIST_WORDS];
	char err[256] = "";
	bool pinned = true;
	size_t len;
	char *xml = unit_read_data("deployment.0", &len);

	(void)state;
	assert_int_equal(pinned_cpus_str(xml, len, b, &pinned, err, 256), 0);
	assert_false(pinned);
	assert_int_equal(count(b), 0);
	assert_int_equal(pinned_of(automatic, b, &pinned, err), 0);
	assert_false(pinned);

	assert_int_equal(pinned_of(both, b, &pinned, err), 0);
	assert_true(pinned);
	assert_int_equal(count(b), 6);
	assert_true(bit(b, 0) && bit(b, 1) && bit(b, 3));
	assert_true(bit(b, 8) && bit(b, 9) && bit(b, 10));
	assert_false(bit(b, 2) || bit(b, 30));

	assert_int_equal(pinned_of(only_pin, b, &pinned, err), 0);
	assert_true(pinned);
	assert_int_equal(count(b), 1);
	assert_true(bit(b, 100));

	assert_int_equal(pinned_of(garbage, b, &pinned, err), -EINVAL);
	assert_string_equal(err, "domain one-3: <vcpupin> cpuset '1-x' is not "
				 "a CPU list");
	assert_int_equal(pinned_of(empty, b, &pinned, err), -EINVAL);
	assert_string_equal(err, "domain one-3: <vcpu> cpuset '3,^3' selects "
				 "no CPU");
	assert_int_equal(pinned_of(huge, b, &pinned, err), -EINVAL);
	assert_string_equal(err, "domain one-3: <vcpu> cpuset '4096' names a "
				 "CPU above 1023");
	free(xml);
}

/* The hot-plug device: one line, a plain managed PCI hostdev. */
static void hostdev_device(void **state)
{
	struct pci_addr vf;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_int_equal(pci_addr_parse("000a:3b:1f.7", &vf), 0);
	assert_int_equal(domxml_hostdev(&vf, -1, &out), 0);
	assert_string_equal(sb_str(&out), "<hostdev mode=\"subsystem\" "
					  "type=\"pci\" "
					  "managed=\"yes\"><source><address "
					  "domain=\"0x000a\" bus=\"0x3b\" "
					  "slot=\"0x1f\" "
					  "function=\"0x7\"/></source></"
					  "hostdev>");
	sb_reset(&out);
	/* with the guest slot it is to take (a port on a guest NUMA node) */
	assert_int_equal(domxml_hostdev(&vf, 0x24, &out), 0);
	assert_string_equal(sb_str(&out), "<hostdev mode=\"subsystem\" "
					  "type=\"pci\" "
					  "managed=\"yes\"><source><address "
					  "domain=\"0x000a\" "
					  "bus=\"0x3b\" slot=\"0x1f\" "
					  "function=\"0x7\"/>"
					  "</source><address type=\"pci\" "
					  "domain=\"0x0000\" "
					  "bus=\"0x24\" slot=\"0x00\" "
					  "function=\"0x0\"/>"
					  "</hostdev>");
	sb_release(&out);
}

/* The ports a running domain still has, for VFs hot-attached one by one:
 * the same choice as deploy's, each port taken once. */
static void numa_ports_hotplug(void **state)
{
	struct domxml_ports *p;
	struct domxml *d;
	char err[256];
	size_t len;
	char *xml = unit_read_data("deployment-q35-numa.xml", &len);

	(void)state;
	assert_int_equal(domxml_parse(xml, len, &d, err, sizeof(err)), 0);
	assert_int_equal(domxml_ports_new(d, &p), 0);
	domxml_free(d); /* the ports outlive the document they were read from */
	free(xml);
	assert_int_equal(domxml_ports_take(p, 0), 36);
	assert_int_equal(domxml_ports_take(p, 1), 23);
	assert_int_equal(domxml_ports_take(p, 1), 24);
	assert_int_equal(domxml_ports_take(p, 1), 33);
	assert_int_equal(domxml_ports_take(p, 2), -1);
	assert_int_equal(domxml_ports_take(p, -1), -1);
	domxml_ports_free(p);
}

/*
 * Deploy's order on one parsed document (leasing_deploy): the pinning is
 * read, then the same tree is rewritten; the pinning is still what the
 * rewritten file says, and a failed rewrite leaves the tree readable.
 */
static void one_parse_pinning_then_rewrite(void **state)
{
	static const char xml[] = "<domain><name>one-4</name><vcpu "
				  "cpuset='8-9'>2</vcpu>"
				  "<devices><interface type='bridge'>"
				  "<mac "
				  "address='02:00:c0:a8:01:05'/></interface></"
				  "devices>"
				  "</domain>";
	struct domxml_vf map[] = { vf(MAC_IB0, "0000:3b:00.1") };
	struct domxml_vf miss[] = { vf(MAC_IB0 + 1, "0000:3b:00.1") };
	struct strbuf out = STRBUF_INIT;
	uint64_t b[CPULIST_WORDS];
	struct domxml *d;
	char err[256] = "";
	bool pinned = false;

	(void)state;
	assert_int_equal(domxml_parse(xml, strlen(xml), &d, err, sizeof(err)),
			 0);
	assert_int_equal(domxml_pinned_cpus(d, b, &pinned, err, sizeof(err)),
			 0);
	assert_true(pinned);
	assert_true(b[0] == 0x300);
	assert_int_equal(domxml_rewrite(d, miss, 1, &out, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(out.len, 0);
	assert_int_equal(domxml_rewrite(d, map, 1, &out, err, sizeof(err)), 0);
	assert_non_null(strstr(sb_str(&out), "<hostdev mode=\"subsystem\""));
	assert_null(strstr(sb_str(&out), "<interface"));
	assert_int_equal(domxml_pinned_cpus(d, b, &pinned, err, sizeof(err)),
			 0);
	assert_true(pinned && b[0] == 0x300);
	domxml_free(d);
	sb_release(&out);
}

/* --- guest NUMA nodes (OpenNebula 7.0 q35 layout) --------------------------- */

static struct domxml_vf vf_on(uint64_t mac, const char *addr, int node)
{
	struct domxml_vf v = vf(mac, addr);

	v.node = node;
	return v;
}

/* The guest address bus of the hostdev of VF "bus=\"0xaf\" slot=\"0x00\"
 * function=\"0x1\"" in out, "" when its hostdev has none. */
static void guest_bus(const char *out, const char *src, char *bus, size_t len)
{
	const char *at = strstr(out, src), *end, *a;

	bus[0] = '\0';
	assert_non_null(at);
	end = strstr(at, "</hostdev>");
	assert_non_null(end);
	a = strstr(at, "<address type=\"pci\"");
	if (!a || a > end)
		a = strstr(at, "<address type='pci'");
	if (!a || a > end)
		return;
	a = strstr(a, "bus=");
	assert_non_null(a);
	snprintf(bus, len, "%.*s", (int)strcspn(a + 5, "\"'"), a + 5);
}

/*
 * tests/unit/data/deployment-q35-numa.xml is a VM as OpenNebula 7.0 writes
 * it for q35 with two guest NUMA nodes: one pcie-expander-bus per guest node
 * (index 20 node 0, index 34 node 1) with four root ports (the first holds
 * an 8-port switch; node 0's second the pcie-to-pci bridge), guest node 0's
 * memory on host node 1 and guest node 1's on host node 0, an OpenNebula
 * PCI device on downstream port 26. Each VF goes on the guest node of its
 * host node: root ports first, then downstream ports from the last; an
 * interface's own guest address is kept; no node, no address.
 */
static void numa_expander_ports(void **state)
{
	struct domxml_vf map[] = {
		vf_on(0x0200c0a80105ULL, "0000:af:00.1", 1),
		vf_on(0x0200c0a80106ULL, "0000:af:00.2", 1),
		vf_on(0x0200c0a80107ULL, "0000:af:00.3", 1),
		vf_on(0x0200c0a80108ULL, "0000:3b:00.1", 0),
		vf_on(0x0200c0a80109ULL, "0000:3b:00.2", 0),
	};
	struct strbuf out = STRBUF_INIT;
	char err[256] = "", bus[16];
	size_t len;
	char *xml = unit_read_data("deployment-q35-numa.xml", &len);

	(void)state;
	assert_int_equal(rewrite_str(xml, len, map, 5, &out, err, sizeof(err)),
			 0);
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x1\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x17"); /* node 1 -> cell 0: root port 23 */
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x2\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x18"); /* root port 24 */
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x3\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x21"); /* downstream port 33, the last */
	guest_bus(sb_str(&out), "bus=\"0x3b\" slot=\"0x00\" function=\"0x1\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x24"); /* node 0 -> cell 1: root port 36 */
	guest_bus(sb_str(&out), "bus=\"0x3b\" slot=\"0x00\" function=\"0x2\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x01"); /* the interface's own, kept */
	sb_release(&out);

	/* a node no guest cell is on, and no node at all: left to libvirt */
	map[0].node = 2;
	map[1].node = -1;
	assert_int_equal(rewrite_str(xml, len, map, 2, &out, err, sizeof(err)),
			 0);
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x1\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "");
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x2\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "");
	sb_release(&out);
	free(xml);
}

/* Node 0's ports all taken: the fifth VF of node 1 and the fourth of node
 * 0 ... are left to libvirt once their expander's ports are full. A layout
 * without expanders (6.10's flat q35, or pc) gets no address either. */
static void numa_ports_full_or_flat(void **state)
{
	struct domxml_vf map[11];
	struct strbuf out = STRBUF_INIT;
	char err[256] = "", bus[16], src[64], xmlbuf[8192], *at;
	size_t len, i;
	char *xml = unit_read_data("deployment-q35-numa.xml", &len), *flat;

	(void)state;
	/* 11 interfaces on host node 1: cell 0 has root ports 23, 24 and
	 * downstream ports 27..33 free (26 is taken): 9 */
	at = xmlbuf;
	for (i = 0; i < 11; i++) {
		map[i] = vf_on(0x0200c0a80200ULL + i, "0000:af:00.1", 1);
		map[i].vf.func = (uint8_t)(i % 8);
		map[i].vf.slot = (uint8_t)(1 + i / 8);
		at += snprintf(at, sizeof(xmlbuf) - (size_t)(at - xmlbuf),
			       "<interface type='bridge'><mac address="
			       "'02:00:c0:a8:02:%02zx'/></interface>",
			       i);
	}
	flat = malloc(len + sizeof(xmlbuf));
	assert_non_null(flat);
	at = strstr(xml, "<hostdev");
	assert_non_null(at);
	snprintf(flat, len + sizeof(xmlbuf), "%.*s%s%s", (int)(at - xml), xml,
		 xmlbuf, at);
	assert_int_equal(rewrite_str(flat, strlen(flat), map, 11, &out, err,
				     sizeof(err)),
			 0);
	for (i = 0; i < 11; i++) {
		static const char *const want[] = { "0x17", "0x18", "0x21",
						    "0x20", "0x1f", "0x1e",
						    "0x1d", "0x1c", "0x1b",
						    "",	    "" };

		snprintf(src, sizeof(src),
			 "bus=\"0xaf\" slot=\"0x%02x\" function=\"0x%zx\"",
			 (unsigned)(1 + i / 8), i % 8);
		guest_bus(sb_str(&out), src, bus, sizeof(bus));
		assert_string_equal(bus, want[i]);
	}
	sb_release(&out);
	free(flat);
	free(xml);

	/* the same VM as 6.10 writes it: no expander, no address */
	xml = unit_read_data("deployment.0", &len);
	map[0] = vf_on(0x0200c0a80105ULL, "0000:af:00.1", 0);
	assert_int_equal(rewrite_str(xml, len, map, 1, &out, err, sizeof(err)),
			 0);
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x1\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "");
	sb_release(&out);
	free(xml);
}

/*
 * GPUs and their VFs under switches of their own (design decision 15), on
 * 7.0's layout: the OpenNebula PCI device 0000:81:00.0 (host node 1, guest
 * cell 0: expander 20) gets root port 48 at slot 1 of expander 20 (slot 0
 * has OpenNebula's four root ports), upstream port 49, downstream ports
 * 50 (the GPU), 51 (its VF) and 52 (free); an unpaired VF goes by the NUMA
 * rule, never on 52; a hot-plugged VF beside the GPU takes 52.
 */
static void pair_under_switches(void **state)
{
	struct domxml_vf map[] = {
		vf_on(0x0200c0a80105ULL, "0000:af:00.1", 1),
		vf_on(0x0200c0a80106ULL, "0000:af:00.2", 1),
	};
	struct domxml_gpu gpu = { .node = 1 };
	struct strbuf out = STRBUF_INIT;
	struct domxml_ports *p;
	struct domxml *d;
	char err[256] = "", bus[16];
	size_t len;
	char *xml = unit_read_data("deployment-q35-numa.xml", &len);

	(void)state;
	assert_int_equal(pci_addr_parse("0000:81:00.0", &gpu.addr), 0);
	map[0].has_gpu = true;
	map[0].gpu = gpu.addr;
	assert_int_equal(domxml_parse(xml, len, &d, err, sizeof(err)), 0);
	assert_int_equal(domxml_pair(d, &gpu, 1, map, 2, err, sizeof(err)), 0);
	assert_true(map[0].has_bus);
	assert_int_equal(map[0].bus, 51);
	assert_false(map[1].has_bus);
	assert_int_equal(domxml_rewrite(d, map, 2, &out, err, sizeof(err)), 0);
	assert_non_null(strstr(sb_str(&out), "<controller type=\"pci\" "
					     "index=\"48\" "
					     "model=\"pcie-root-port\"><alias "
					     "name=\"ua-oneib-sw0-rp\"/"
					     "><address type=\"pci\" "
					     "domain=\"0x0000\" bus=\"0x14\" "
					     "slot=\"0x01\" "
					     "function=\"0x0\"/></"
					     "controller>"));
	assert_non_null(strstr(sb_str(&out), "index=\"49\" "
					     "model=\"pcie-switch-upstream-"
					     "port\""
					     "><alias "
					     "name=\"ua-oneib-sw0\"/><address "
					     "type=\"pci\" domain=\"0x0000\" "
					     "bus=\"0x30\""));
	assert_non_null(strstr(sb_str(&out), "index=\"52\" "
					     "model=\"pcie-switch-downstream-"
					     "port\"><alias "
					     "name=\"ua-oneib-sw0-p2\"/"
					     "><address "
					     "type=\"pci\" domain=\"0x0000\" "
					     "bus=\"0x31\" "
					     "slot=\"0x02\""));
	guest_bus(sb_str(&out), "bus=\"0x81\" slot=\"0x00\" function=\"0x0\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x32"); /* the GPU, moved from 26 */
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x1\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x33"); /* beside it */
	guest_bus(sb_str(&out), "bus=\"0xaf\" slot=\"0x00\" function=\"0x2\"",
		  bus, sizeof(bus));
	assert_string_equal(bus, "0x17"); /* the NUMA rule: root port 23 */
	/* the expanders' bus numbers still fit: unchanged */
	assert_non_null(strstr(sb_str(&out), "busNr=\"0x0020\""));
	assert_non_null(strstr(sb_str(&out), "busNr=\"0x0040\""));
	domxml_free(d);

	/* the running domain: a VF hot-plugged beside the GPU gets 52 */
	assert_int_equal(
		domxml_parse(sb_str(&out), out.len, &d, err, sizeof(err)), 0);
	assert_int_equal(domxml_ports_new(d, &p), 0);
	assert_int_equal(domxml_ports_beside(p, &gpu.addr), 52);
	assert_int_equal(domxml_ports_beside(p, &gpu.addr), -1);
	/* beside a device not under one of ours: none */
	assert_int_equal(domxml_ports_beside(p, &map[1].vf), -1);
	/* the NUMA rule never takes our ports: 24, then OpenNebula's */
	assert_int_equal(domxml_ports_take(p, 1), 24);
	assert_int_equal(domxml_ports_take(p, 1), 33);
	domxml_ports_free(p);
	domxml_free(d);
	sb_release(&out);
	free(xml);
}

/* Eight GPUs on guest cell 0: its expander's 32 bus numbers no longer
 * hold its ports, so the next expander's busNr is raised; a machine
 * without PCIe (6.10's pc) gets no switch at all. */
static void pair_bus_numbers_and_pc(void **state)
{
	struct domxml_gpu gpus[8];
	struct domxml_vf map[1] = { vf_on(0x0200c0a80105ULL, "0000:af:00.1",
					  1) };
	struct strbuf out = STRBUF_INIT, doc = STRBUF_INIT;
	struct domxml *d;
	char err[256] = "", *at;
	size_t len, i;
	char *xml = unit_read_data("deployment-q35-numa.xml", &len);

	(void)state;
	/* seven more OpenNebula PCI devices like 0000:81:00.0 */
	at = strstr(xml, "\t\t<hostdev");
	assert_non_null(at);
	sb_add(&doc, xml, (size_t)(at - xml));
	for (i = 0; i < 8; i++) {
		gpus[i].node = 1;
		gpus[i].addr =
			(struct pci_addr){ 0, (uint8_t)(0x81 + i), 0, 0 };
		if (i)
			sb_addf(&doc,
				"<hostdev mode='subsystem' type='pci' "
				"managed='yes'><source><address "
				"domain='0x0000' bus='0x%02zx' slot='0x00' "
				"function='0x0'/></source></hostdev>\n",
				0x81 + i);
	}
	sb_adds(&doc, at);
	assert_int_equal(
		domxml_parse(sb_str(&doc), doc.len, &d, err, sizeof(err)), 0);
	assert_int_equal(domxml_pair(d, gpus, 8, map, 0, err, sizeof(err)), 0);
	assert_int_equal(domxml_rewrite(d, map, 0, &out, err, sizeof(err)), 0);
	/* cell 0: 14 bridges of OpenNebula's + 8 x (1 + 1 + 2) = 46, so the
	 * next expander from 0x20 + 1 + 46 = 0x4f */
	assert_non_null(strstr(sb_str(&out), "busNr=\"0x0020\""));
	assert_non_null(strstr(sb_str(&out), "busNr=\"0x004f\""));
	assert_null(strstr(sb_str(&out), "busNr=\"0x0040\""));
	domxml_free(d);
	sb_release(&out);
	sb_release(&doc);
	free(xml);

	/* pc: nothing changes */
	xml = unit_read_data("deployment.0", &len);
	assert_int_equal(domxml_parse(xml, len, &d, err, sizeof(err)), 0);
	gpus[0].addr = (struct pci_addr){ 0, 0x81, 0, 0 };
	map[0].has_gpu = true;
	map[0].gpu = gpus[0].addr;
	assert_int_equal(domxml_pair(d, gpus, 1, map, 1, err, sizeof(err)), 0);
	assert_false(map[0].has_bus);
	domxml_free(d);
	free(xml);
}

/* The NICs' rails for the guest: an SMBIOS OEM string, replaced when
 * given again, never forced over the operator's own SMBIOS mode. */
static void oem_strings(void **state)
{
	const char *plain = "<domain type='kvm'><name>one-5</name><os><type "
			    "arch='x86_64'>hvm</type></os><devices/></domain>";
	const char *host = "<domain type='kvm'><name>one-6</name><os><type "
			   "arch='x86_64'>hvm</type><smbios mode='host'/>"
			   "</os><devices/></domain>";
	const char *own = "<domain type='kvm'><name>one-7</name><os><smbios "
			  "mode='sysinfo'/></os><sysinfo type='smbios'><system>"
			  "<entry name='product'>x</entry></system><oemStrings>"
			  "<entry>site 1</entry></oemStrings></sysinfo>"
			  "<devices/></domain>";
	struct strbuf out = STRBUF_INIT;
	struct domxml *d;
	char err[256] = "";

	(void)state;
	assert_int_equal(
		domxml_parse(plain, strlen(plain), &d, err, sizeof(err)), 0);
	assert_int_equal(domxml_oem_string(d, "one-ib rails ",
					   "one-ib rails 0=1", err,
					   sizeof(err)),
			 0);
	assert_int_equal(domxml_oem_string(d, "one-ib rails ",
					   "one-ib rails 0=3,1=5", err,
					   sizeof(err)),
			 0);
	assert_int_equal(domxml_rewrite(d, NULL, 0, &out, err, sizeof(err)), 0);
	assert_string_equal(sb_str(&out), "<domain "
					  "type=\"kvm\"><name>one-5</"
					  "name><os><type "
					  "arch=\"x86_64\">hvm</type><smbios "
					  "mode=\"sysinfo\"/></os><devices/"
					  "><sysinfo "
					  "type=\"smbios\"><oemStrings><entry>"
					  "one-ib rails "
					  "0=3,1=5</entry></oemStrings></"
					  "sysinfo></domain>\n");
	domxml_free(d);
	sb_reset(&out);
	/* the operator's host SMBIOS: nothing added */
	assert_int_equal(domxml_parse(host, strlen(host), &d, err, sizeof(err)),
			 0);
	assert_int_equal(domxml_oem_string(d, "one-ib rails ",
					   "one-ib rails 0=1", err,
					   sizeof(err)),
			 0);
	assert_int_equal(domxml_rewrite(d, NULL, 0, &out, err, sizeof(err)), 0);
	assert_null(strstr(sb_str(&out), "oemStrings"));
	domxml_free(d);
	sb_reset(&out);
	/* a sysinfo of its own: ours joins its OEM strings, theirs kept */
	assert_int_equal(domxml_parse(own, strlen(own), &d, err, sizeof(err)),
			 0);
	assert_int_equal(domxml_oem_string(d, "one-ib rails ",
					   "one-ib rails 0=1", err,
					   sizeof(err)),
			 0);
	assert_int_equal(domxml_rewrite(d, NULL, 0, &out, err, sizeof(err)), 0);
	assert_non_null(strstr(sb_str(&out), "<oemStrings><entry>site "
					     "1</entry><entry>one-ib "
					     "rails 0=1</entry></oemStrings>"));
	assert_non_null(strstr(sb_str(&out), "<entry name=\"product\">x"));
	domxml_free(d);
	sb_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rewrite_one_exact),
		cmocka_unit_test(rewrite_one_structure),
		cmocka_unit_test(rewrite_two),
		cmocka_unit_test(rewrite_keeps_odd_nodes),
		cmocka_unit_test(rewrite_keeps_utf8),
		cmocka_unit_test(rewrite_errors_output_nothing),
		cmocka_unit_test(refuse_malformed),
		cmocka_unit_test(refuse_doctype),
		cmocka_unit_test(pci_hostdevs),
		cmocka_unit_test(hostdev_device),
		cmocka_unit_test(pci_hostdevs_none_and_bad),
		cmocka_unit_test(cpulist_good),
		cmocka_unit_test(cpulist_garbage),
		cmocka_unit_test(pinned_cpus),
		cmocka_unit_test(one_parse_pinning_then_rewrite),
		cmocka_unit_test(numa_expander_ports),
		cmocka_unit_test(numa_ports_full_or_flat),
		cmocka_unit_test(pair_under_switches),
		cmocka_unit_test(pair_bus_numbers_and_pc),
		cmocka_unit_test(oem_strings),
		cmocka_unit_test(numa_ports_hotplug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
