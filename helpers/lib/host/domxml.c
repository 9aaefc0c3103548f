// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlsave.h>

#include "core/grow.h"
#include "host/domxml.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/xml.h"

static bool attr_is(const xmlNode *e, const char *name, const char *value)
{
	xmlChar *v = xmlGetNoNsProp(e, BAD_CAST name);
	bool eq = v && xmlStrcmp(v, BAD_CAST value) == 0;

	xmlFree(v);
	return eq;
}

/*
 * The document and the name errors call it by: "domain one-42". Only a root
 * <domain> is accepted; anything else is not a deployment file.
 */
struct domxml {
	xmlDocPtr doc;
	xmlNodePtr root;
	struct san_str name;
};

int domxml_parse(const char *xml, size_t len, struct domxml **out, char *err,
		 size_t errlen)
{
	struct domxml *d;
	xmlNodePtr n;
	xmlChar *v;

	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		err_set(err, errlen, "domain XML: out of memory");
		return -ENOMEM;
	}
	d->doc = xml_read_untrusted(xml, len, "domain XML", err, errlen);
	if (!d->doc) {
		free(d);
		return -EINVAL;
	}
	d->root = xmlDocGetRootElement(d->doc);
	if (!xml_is_elem(d->root, "domain")) {
		err_set(err, errlen,
			"domain XML: root element <%s> is not <domain>",
			str_sanitize((const char *)d->root->name).s);
		domxml_free(d);
		return -EINVAL;
	}
	n = xml_child(d->root, "name", NULL);
	v = n ? xmlNodeGetContent(n) : NULL;
	d->name = str_sanitize(v && *v ? (const char *)v : "(unnamed)");
	xmlFree(v);
	*out = d;
	return 0;
}

void domxml_free(struct domxml *d)
{
	if (!d)
		return;
	xmlFreeDoc(d->doc);
	free(d);
}

/* --- rewrite -------------------------------------------------------------- */

/* <interface> whose <mac address='02:00:C0:a8:01:05'/> parses to mac. */
static bool iface_has_mac(const xmlNode *iface, uint64_t mac)
{
	xmlNodePtr c;

	for (c = iface->children; c; c = c->next) {
		xmlChar *v;
		uint64_t m;
		bool eq;

		if (!xml_is_elem(c, "mac"))
			continue;
		v = xmlGetNoNsProp(c, BAD_CAST "address");
		eq = v && mac_parse((const char *)v, &m) == 0 && m == mac;
		xmlFree(v);
		if (eq)
			return true;
	}
	return false;
}

/* Interfaces in every <devices> (libvirt reads ./devices/interface). */
static size_t find_ifaces(const xmlNode *root, uint64_t mac, xmlNodePtr *hit)
{
	xmlNodePtr d, c;
	size_t count = 0;

	for (d = root->children; d; d = d->next) {
		if (!xml_is_elem(d, "devices"))
			continue;
		for (c = d->children; c; c = c->next) {
			if (xml_is_elem(c, "interface") &&
			    iface_has_mac(c, mac)) {
				*hit = c;
				count++;
			}
		}
	}
	return count;
}

/*
 * The indentation after the last newline of a blank text node:
 * "\n\t\t" before <interface> -> "\t\t". False when the node is not blank
 * or holds no newline (a one-line document stays one line).
 */
static bool indent_of(const xmlNode *ws, char *buf, size_t len)
{
	const char *s, *nl;

	if (!ws || ws->type != XML_TEXT_NODE || !ws->content)
		return false;
	s = (const char *)ws->content;
	if (strspn(s, " \t\r\n") != strlen(s))
		return false;
	nl = strrchr(s, '\n');
	if (!nl || strlen(nl + 1) >= len)
		return false;
	memcpy(buf, nl + 1, strlen(nl + 1) + 1);
	return true;
}

#define INDENT_MAX 64

/* Builds the hostdev; oom is sticky so the calls read as the XML does. */
struct build {
	xmlDocPtr doc;
	bool pretty;
	bool oom;
	char outer[INDENT_MAX]; /* of <interface>: "\t\t" */
	char inner[INDENT_MAX]; /* of its children: "\t\t\t" */
	char deeper[2 * INDENT_MAX]; /* one step more: "\t\t\t\t" */
};

static xmlNodePtr add_elem(struct build *b, xmlNodePtr parent, const char *name)
{
	xmlNodePtr e = xmlNewDocNode(b->doc, NULL, BAD_CAST name, NULL);

	if (!e) {
		b->oom = true;
		return NULL;
	}
	if (parent)
		xmlAddChild(parent, e);
	return e;
}

static void add_attr(struct build *b, xmlNodePtr e, const char *name,
		     const char *value)
{
	if (e && !xmlNewProp(e, BAD_CAST name, BAD_CAST value))
		b->oom = true;
}

static void add_indent(struct build *b, xmlNodePtr parent, const char *indent)
{
	char text[2 * INDENT_MAX + 2];
	xmlNodePtr t;

	if (!b->pretty || !parent)
		return;
	snprintf(text, sizeof(text), "\n%s", indent);
	t = xmlNewDocText(b->doc, BAD_CAST text);
	if (!t)
		b->oom = true;
	else
		xmlAddChild(parent, t);
}

/* Indent the hostdev like its neighbours when the file is indented. */
static void build_layout(struct build *b, const xmlNode *iface)
{
	size_t lo, li;

	b->pretty = indent_of(iface->prev, b->outer, INDENT_MAX) &&
		    indent_of(iface->children, b->inner, INDENT_MAX);
	lo = strlen(b->outer);
	li = strlen(b->inner);
	if (b->pretty && (li <= lo || strncmp(b->outer, b->inner, lo) != 0))
		b->pretty = false;
	if (b->pretty)
		snprintf(b->deeper, sizeof(b->deeper), "%s%s", b->inner,
			 b->inner + lo);
}

/* The interface's guest PCI slot, if it was given one. */
static xmlNodePtr guest_pci_address(const xmlNode *iface)
{
	xmlNodePtr c;

	for (c = iface->children; c; c = c->next)
		if (xml_is_elem(c, "address") && attr_is(c, "type", "pci"))
			return c;
	return NULL;
}

int domxml_hostdev(const struct pci_addr *vf, int guest_bus, struct strbuf *out)
{
	int r = sb_addf(out,
			"<hostdev mode=\"subsystem\" type=\"pci\" "
			"managed=\"yes\"><source><address domain=\"0x%04x\" "
			"bus=\"0x%02x\" slot=\"0x%02x\" function=\"0x%x\"/>"
			"</source>",
			vf->domain, vf->bus, vf->slot, vf->func);

	if (!r && guest_bus >= 0)
		r = sb_addf(out,
			    "<address type=\"pci\" domain=\"0x0000\" "
			    "bus=\"0x%02x\" slot=\"0x00\" function=\"0x0\"/>",
			    (unsigned)guest_bus);
	return r ? r : sb_adds(out, "</hostdev>");
}

/* <address type="pci" domain="0x0000" bus="0x24" slot="0x00" function="0x0"/>:
 * slot 0 of the port whose controller index is bus. */
static xmlNodePtr port_address(struct build *b, int bus)
{
	xmlNodePtr a = add_elem(b, NULL, "address");
	char v[12];

	add_attr(b, a, "type", "pci");
	add_attr(b, a, "domain", "0x0000");
	snprintf(v, sizeof(v), "0x%02x", (unsigned)bus);
	add_attr(b, a, "bus", v);
	add_attr(b, a, "slot", "0x00");
	add_attr(b, a, "function", "0x0");
	return a;
}

/* guest_bus: the port for a VF its interface gave no guest address, or -1 */
static int iface_to_hostdev(xmlDocPtr doc, xmlNodePtr iface,
			    const struct pci_addr *vf, int guest_bus)
{
	struct build b = { .doc = doc };
	xmlNodePtr hd, src, addr, keep[2];
	char v[8];
	size_t i;

	keep[0] = xml_child(iface, "boot", NULL);
	keep[1] = guest_pci_address(iface);
	build_layout(&b, iface);
	if (!keep[1] && guest_bus >= 0)
		keep[1] = port_address(&b, guest_bus);

	hd = add_elem(&b, NULL, "hostdev");
	add_attr(&b, hd, "mode", "subsystem");
	add_attr(&b, hd, "type", "pci");
	add_attr(&b, hd, "managed", "yes");
	add_indent(&b, hd, b.inner);
	src = add_elem(&b, hd, "source");
	add_indent(&b, src, b.deeper);
	addr = add_elem(&b, src, "address");
	snprintf(v, sizeof(v), "0x%04x", vf->domain);
	add_attr(&b, addr, "domain", v);
	snprintf(v, sizeof(v), "0x%02x", vf->bus);
	add_attr(&b, addr, "bus", v);
	snprintf(v, sizeof(v), "0x%02x", vf->slot);
	add_attr(&b, addr, "slot", v);
	snprintf(v, sizeof(v), "0x%x", vf->func);
	add_attr(&b, addr, "function", v);
	add_indent(&b, src, b.inner);
	for (i = 0; i < 2 && !b.oom; i++) {
		if (!keep[i])
			continue;
		add_indent(&b, hd, b.inner);
		xmlUnlinkNode(keep[i]);
		xmlAddChild(hd, keep[i]);
	}
	add_indent(&b, hd, b.outer);
	if (b.oom) {
		xmlFreeNode(hd);
		if (keep[1] && !keep[1]->parent)
			xmlFreeNode(keep[1]);
		return -ENOMEM;
	}
	xmlReplaceNode(iface, hd);
	xmlFreeNode(iface);
	return 0;
}

static void quiet(void *data, xmlErrorPtr e)
{
	(void)data;
	(void)e;
}

/*
 * Serialized as it came: an XML declaration only if the input had one
 * (doc->standalone is -1 without), in its declared encoding, else UTF-8 with
 * non-ASCII text and attributes left as they are rather than as &#x..; refs.
 */
static int doc_append(xmlDocPtr doc, struct strbuf *out)
{
	int opts = doc->standalone == -1 ? XML_SAVE_NO_DECL : 0;
	const char *enc = NULL;
	xmlStructuredErrorFunc old_fn = xmlStructuredError;
	void *old_data = xmlStructuredErrorContext;
	xmlSaveCtxtPtr save;
	xmlBufferPtr buf;
	int r = -ENOMEM;

	if (!doc->encoding) {
		doc->encoding = xmlStrdup(BAD_CAST "UTF-8");
		if (!doc->encoding)
			return -ENOMEM;
		enc = "UTF-8";
	}
	buf = xmlBufferCreate();
	if (!buf)
		return -ENOMEM;
	/* Quiet for this call only, like the parse; failure is -ENOMEM. */
	xmlSetStructuredErrorFunc(NULL, quiet);
	save = xmlSaveToBuffer(buf, enc, opts);
	if (save) {
		long w = xmlSaveDoc(save, doc);

		if (xmlSaveClose(save) >= 0 && w >= 0)
			r = 0;
	}
	xmlSetStructuredErrorFunc(old_data, old_fn);
	if (!r)
		r = sb_add(out, (const char *)xmlBufferContent(buf),
			   (size_t)xmlBufferLength(buf));
	xmlBufferFree(buf);
	return r;
}

/* --- guest NUMA nodes: OpenNebula 7.0's PCIe expander buses --------------- */

/* PCI controller indices (and so bus numbers) are 0..255. */
#define PCI_BUSES 256

static int addr_attr(const xmlNode *e, const char *name, unsigned long max,
		     unsigned long *out);

/*
 * What the deployment's PCI controllers are, by index (-1 where there is
 * none), and which buses hold a device already (a port holds one):
 *   <controller type='pci' index='36' model='pcie-root-port'>
 *     <address type='pci' bus='34' slot='0' function='1'/>
 * is model[36] = ROOT_PORT, parent[36] = 34, used[34] = true.
 */
enum pci_ctl { NO_CTL, EXPANDER, ROOT_PORT, SWITCH_UP, SWITCH_DOWN };

/* Host NUMA nodes told apart: those of a 64-bit mask, as placement. */
#define HOST_NODES 64

/* Hostdevs a scan remembers the guest bus of, by host address. */
#define PORTS_HOSTDEVS 64
/* The aliases of domxml_pair's controllers begin so. */
#define OUR_ALIAS "ua-oneib-"

struct domxml_ports {
	int cell[HOST_NODES]; /* the guest node with memory on host node n */
	enum pci_ctl model[PCI_BUSES];
	int parent[PCI_BUSES];
	int node[PCI_BUSES]; /* an expander's guest NUMA node */
	bool used[PCI_BUSES];
	bool ours[PCI_BUSES]; /* domxml_pair's (alias ua-oneib-...) */
	uint32_t slots[PCI_BUSES]; /* bit s: slot s of the bus taken */
	xmlNodePtr ctl[PCI_BUSES]; /* the controller element */
	int max_index; /* highest index given, 0 */
	int nctl; /* <controller type='pci'>, with an index or not */
	int noindex; /* ... without one (6.10's root ports) */
	int noindex_bus[PCI_BUSES]; /* where each of those is, -1 unknown */
	bool pcie; /* a pcie-root, or a q35 machine */
	struct {
		struct pci_addr src;
		int bus;
	} hd[PORTS_HOSTDEVS];
	size_t nhd;
};

/* A number as libvirt reads one ("34", "0x22"), 0..255; -1 otherwise. */
static int bus_number(const xmlNode *e, const char *name)
{
	unsigned long v;

	if (!xmlHasNsProp(e, BAD_CAST name, NULL) ||
	    addr_attr(e, name, PCI_BUSES - 1, &v))
		return -1;
	return (int)v;
}

static enum pci_ctl ctl_model(const xmlNode *c)
{
	static const struct {
		const char *name;
		enum pci_ctl m;
	} models[] = {
		{ "pcie-expander-bus", EXPANDER },
		{ "pcie-root-port", ROOT_PORT },
		{ "pcie-switch-upstream-port", SWITCH_UP },
		{ "pcie-switch-downstream-port", SWITCH_DOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++)
		if (attr_is(c, "model", models[i].name))
			return models[i].m;
	return NO_CTL;
}

/* <target><node>1</node></target> of an expander; -1 without. */
static int target_node(const xmlNode *c)
{
	const xmlNode *t = xml_only_child(c, "target", NULL);
	const xmlNode *n = t ? xml_only_child(t, "node", NULL) : NULL;
	char *v = n ? xml_leaf_text(n) : NULL;
	int node = -1;

	if (v && dec_parse_int(v, &node))
		node = -1;
	free(v);
	return node;
}

static const xmlNode *pci_source(const xmlNode *dev, bool need_type);
static bool is_pci_hostdev(const xmlNode *c);

/* A hostdev's host address, read as libvirt reads one; false if odd. */
static bool source_addr(const xmlNode *dev, struct pci_addr *out)
{
	const xmlNode *a = pci_source(dev, false);
	unsigned long v[4];

	if (!a || addr_attr(a, "domain", 0xffff, &v[0]) ||
	    addr_attr(a, "bus", 0xff, &v[1]) ||
	    addr_attr(a, "slot", 0x1f, &v[2]) ||
	    addr_attr(a, "function", 7, &v[3]))
		return false;
	out->domain = (uint16_t)v[0];
	out->bus = (uint8_t)v[1];
	out->slot = (uint8_t)v[2];
	out->func = (uint8_t)v[3];
	return true;
}

/* <alias name='ua-oneib-sw0-p1'/>: one of domxml_pair's controllers. */
static bool is_ours(const xmlNode *ctl)
{
	const xmlNode *al = xml_child(ctl, "alias", NULL);
	xmlChar *v = al ? xmlGetNoNsProp(al, BAD_CAST "name") : NULL;
	bool ours = v &&
		    !xmlStrncmp(v, BAD_CAST OUR_ALIAS, (int)strlen(OUR_ALIAS));

	xmlFree(v);
	return ours;
}

/* One device (or controller) of <devices>: the bus and slot its guest
 * address takes, what it is when it is a PCI controller, and where a PCI
 * hostdev is in the guest. */
static void scan_device(struct domxml_ports *p, xmlNode *dev)
{
	const xmlNode *a = guest_pci_address(dev);
	int bus = a ? bus_number(a, "bus") : -1, idx;

	if (bus >= 0) {
		int slot = bus_number(a, "slot");

		p->used[bus] = true;
		if (slot >= 0 && slot < 32)
			p->slots[bus] |= (uint32_t)1 << slot;
		else if (!xmlHasNsProp(a, BAD_CAST "slot", NULL))
			p->slots[bus] |= 1; /* absent is slot 0 */
	}
	if (is_pci_hostdev(dev) && bus >= 0 && p->nhd < PORTS_HOSTDEVS &&
	    source_addr(dev, &p->hd[p->nhd].src))
		p->hd[p->nhd++].bus = bus;
	if (!xml_is_elem(dev, "controller") || !attr_is(dev, "type", "pci"))
		return;
	p->nctl++;
	if (attr_is(dev, "model", "pcie-root"))
		p->pcie = true;
	idx = bus_number(dev, "index");
	if (idx < 0) {
		if (p->noindex < PCI_BUSES &&
		    !attr_is(dev, "model", "pcie-root"))
			p->noindex_bus[p->noindex++] = bus;
		return;
	}
	if (idx > p->max_index)
		p->max_index = idx;
	p->model[idx] = ctl_model(dev);
	p->parent[idx] = bus;
	p->node[idx] = p->model[idx] == EXPANDER ? target_node(dev) : -1;
	p->ours[idx] = is_ours(dev);
	p->ctl[idx] = dev;
}

/* <os><type machine='pc-q35-7.2'>: a PCIe machine. */
static bool machine_q35(const xmlNode *root)
{
	const xmlNode *os = xml_child(root, "os", NULL);
	const xmlNode *t = os ? xml_child(os, "type", NULL) : NULL;
	xmlChar *m = t ? xmlGetNoNsProp(t, BAD_CAST "machine") : NULL;
	bool q35 = m && strstr((const char *)m, "q35");

	xmlFree(m);
	return q35;
}

/* For each host node, the (first) guest NUMA cell whose memory numatune
 * puts there: <memnode cellid='0' mode='strict' nodeset='1'/>. */
static void guest_cells(const xmlNode *root, int cell[HOST_NODES])
{
	const xmlNode *nt = xml_only_child(root, "numatune", NULL), *m;
	uint64_t nodes[CPULIST_WORDS];
	int n, c;

	for (n = 0; n < HOST_NODES; n++)
		cell[n] = -1;
	for (m = nt ? nt->children : NULL; m; m = m->next) {
		xmlChar *set;

		if (!xml_is_elem(m, "memnode"))
			continue;
		set = xmlGetNoNsProp(m, BAD_CAST "nodeset");
		c = bus_number(m, "cellid");
		if (set && c >= 0 &&
		    !cpulist_parse((const char *)set, nodes, true))
			for (n = 0; n < HOST_NODES; n++)
				if (cell[n] < 0 && (nodes[0] >> n & 1))
					cell[n] = c;
		xmlFree(set);
	}
}

static void ports_scan(const struct domxml *d, struct domxml_ports *p)
{
	xmlNode *devs, *c;
	int i;

	memset(p, 0, sizeof(*p));
	guest_cells(d->root, p->cell);
	for (i = 0; i < PCI_BUSES; i++) {
		p->model[i] = NO_CTL;
		p->parent[i] = -1;
		p->node[i] = -1;
	}
	p->pcie = machine_q35(d->root);
	/* OpenNebula 7.0 writes its q35 controllers in a second <devices> */
	for (devs = d->root->children; devs; devs = devs->next)
		for (c = xml_is_elem(devs, "devices") ? devs->children : NULL;
		     c; c = c->next)
			if (c->type == XML_ELEMENT_NODE)
				scan_device(p, c);
}

/* A free port behind expander e, taken; -1 when none is free. */
static int take_port(struct domxml_ports *p, int e)
{
	int i, rp;

	for (i = 0; i < PCI_BUSES; i++)
		if (p->model[i] == ROOT_PORT && p->parent[i] == e &&
		    !p->used[i] && !p->ours[i]) {
			p->used[i] = true;
			return i;
		}
	for (i = PCI_BUSES - 1; i >= 0; i--) {
		int up = p->parent[i];

		if (p->model[i] != SWITCH_DOWN || p->used[i] || p->ours[i] ||
		    up < 0 || p->model[up] != SWITCH_UP)
			continue;
		rp = p->parent[up];
		if (rp >= 0 && p->model[rp] == ROOT_PORT &&
		    p->parent[rp] == e) {
			p->used[i] = true;
			return i;
		}
	}
	return -1;
}

int domxml_ports_take(struct domxml_ports *p, int node)
{
	int cell, e;

	if (node < 0 || node >= HOST_NODES)
		return -1;
	cell = p->cell[node];
	for (e = 0; cell >= 0 && e < PCI_BUSES; e++)
		if (p->model[e] == EXPANDER && p->node[e] == cell)
			return take_port(p, e);
	return -1;
}

int domxml_ports_beside(struct domxml_ports *p, const struct pci_addr *gpu)
{
	size_t k;
	int i, b = -1, up;

	for (k = 0; k < p->nhd && b < 0; k++)
		if (!pci_addr_cmp(&p->hd[k].src, gpu))
			b = p->hd[k].bus;
	if (b < 0 || p->model[b] != SWITCH_DOWN || !p->ours[b])
		return -1;
	up = p->parent[b];
	for (i = 0; up >= 0 && i < PCI_BUSES; i++)
		if (p->model[i] == SWITCH_DOWN && p->parent[i] == up &&
		    !p->used[i]) {
			p->used[i] = true;
			return i;
		}
	return -1;
}

int domxml_ports_new(const struct domxml *d, struct domxml_ports **out)
{
	*out = malloc(sizeof(**out));
	if (!*out)
		return -ENOMEM;
	ports_scan(d, *out);
	return 0;
}

void domxml_ports_free(struct domxml_ports *p)
{
	free(p);
}

/* --- GPUs and their VFs under switches of their own ------------------------ */

/* The first <devices>, where domxml_pair adds its controllers. */
static xmlNodePtr first_devices(const struct domxml *d)
{
	xmlNodePtr c;

	for (c = d->root->children; c; c = c->next)
		if (xml_is_elem(c, "devices"))
			return c;
	return NULL;
}

/* The PCI hostdev whose source is a, or NULL. */
static xmlNodePtr find_hostdev(const struct domxml *d, const struct pci_addr *a)
{
	struct pci_addr x;
	xmlNodePtr dv, c;

	for (dv = d->root->children; dv; dv = dv->next)
		for (c = xml_is_elem(dv, "devices") ? dv->children : NULL; c;
		     c = c->next)
			if (is_pci_hostdev(c) && source_addr(c, &x) &&
			    !pci_addr_cmp(&x, a))
				return c;
	return NULL;
}

/* Adds element children; oom is sticky, like struct build. */
struct adder {
	xmlDocPtr doc;
	xmlNodePtr devices;
	xmlNodePtr before; /* the trailing blank text of <devices>, or NULL */
	char indent[INDENT_MAX];
	bool pretty;
	bool oom;
};

static void adder_init(struct adder *a, xmlDocPtr doc, xmlNodePtr devices)
{
	xmlNodePtr c, last = NULL;

	memset(a, 0, sizeof(*a));
	a->doc = doc;
	a->devices = devices;
	for (c = devices->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			last = c;
	a->pretty = last && indent_of(last->prev, a->indent, INDENT_MAX);
	c = devices->last;
	if (c && c->type == XML_TEXT_NODE && c != last)
		a->before = c;
}

/* <address type="pci" domain="0x0000" bus="0x.." slot="0x.." function="0x0"/> */
static xmlNodePtr pci_address(struct adder *a, int bus, int slot)
{
	xmlNodePtr e = xmlNewDocNode(a->doc, NULL, BAD_CAST "address", NULL);
	char v[12];

	if (!e) {
		a->oom = true;
		return NULL;
	}
	snprintf(v, sizeof(v), "0x%02x", (unsigned)bus);
	if (!xmlNewProp(e, BAD_CAST "type", BAD_CAST "pci") ||
	    !xmlNewProp(e, BAD_CAST "domain", BAD_CAST "0x0000") ||
	    !xmlNewProp(e, BAD_CAST "bus", BAD_CAST v))
		a->oom = true;
	snprintf(v, sizeof(v), "0x%02x", (unsigned)slot);
	if (!xmlNewProp(e, BAD_CAST "slot", BAD_CAST v) ||
	    !xmlNewProp(e, BAD_CAST "function", BAD_CAST "0x0"))
		a->oom = true;
	return e;
}

/* <controller type="pci" index="I" model="M"><alias name="A"/><address
 * bus slot/></controller>, at the end of <devices>; bus -1: no address. */
static void add_controller(struct adder *a, int index, const char *model,
			   const char *alias, int bus, int slot)
{
	xmlNodePtr c = xmlNewDocNode(a->doc, NULL, BAD_CAST "controller", NULL);
	xmlNodePtr al, ad, t;
	char v[12];

	if (!c) {
		a->oom = true;
		return;
	}
	snprintf(v, sizeof(v), "%d", index);
	if (!xmlNewProp(c, BAD_CAST "type", BAD_CAST "pci") ||
	    !xmlNewProp(c, BAD_CAST "index", BAD_CAST v) ||
	    !xmlNewProp(c, BAD_CAST "model", BAD_CAST model))
		a->oom = true;
	al = xmlNewChild(c, NULL, BAD_CAST "alias", NULL);
	if (!al || !xmlNewProp(al, BAD_CAST "name", BAD_CAST alias))
		a->oom = true;
	if (bus >= 0) {
		ad = pci_address(a, bus, slot);
		if (ad)
			xmlAddChild(c, ad);
	}
	if (a->pretty) {
		char text[INDENT_MAX + 2];

		snprintf(text, sizeof(text), "\n%s", a->indent);
		t = xmlNewDocText(a->doc, BAD_CAST text);
		if (!t)
			a->oom = true;
		else if (a->before)
			xmlAddPrevSibling(a->before, t);
		else
			xmlAddChild(a->devices, t);
	}
	if (a->before)
		xmlAddPrevSibling(a->before, c);
	else
		xmlAddChild(a->devices, c);
}

/* The hostdev's guest address now bus:00.0 (its own replaced). */
static void move_hostdev(struct adder *a, xmlNodePtr hd, int bus)
{
	xmlNodePtr old = guest_pci_address(hd), ad = pci_address(a, bus, 0);

	if (!ad)
		return;
	if (old) {
		xmlReplaceNode(old, ad);
		xmlFreeNode(old);
	} else {
		xmlAddChild(hd, ad);
	}
}

/* The root bus controller i's buses are numbered under: the expander it
 * hangs from, else pcie-root (0). */
static int subtree_root(const struct domxml_ports *p, int i)
{
	int hops;

	for (hops = 0; hops < PCI_BUSES && i > 0 && i < PCI_BUSES; hops++) {
		if (p->model[i] == EXPANDER)
			return i;
		if (p->parent[i] < 0)
			break;
		i = p->parent[i];
	}
	return 0;
}

/* <target busNr='0x20'/> of an expander; -1 without. */
static int expander_busnr(const xmlNode *ctl, xmlNodePtr *target)
{
	unsigned long v;

	*target = xml_child(ctl, "target", NULL);
	if (!*target || !xmlHasNsProp(*target, BAD_CAST "busNr", NULL) ||
	    addr_attr(*target, "busNr", 254, &v))
		return -1;
	return (int)v;
}

/*
 * Every expander's busNr high enough for the buses of pcie-root's ports
 * and of the expanders below it (each bridge a bus of its own), in busNr
 * order, raised only where it must be.
 */
static int fit_bus_numbers(const struct domxml *d, struct domxml_ports *p,
			   char *err, size_t errlen)
{
	int need[PCI_BUSES] = { 0 }, order[PCI_BUSES], nx = 0, next, i, j;
	xmlNodePtr t;

	for (i = 1; i < PCI_BUSES; i++)
		if (p->model[i] != NO_CTL && p->model[i] != EXPANDER)
			need[subtree_root(p, i)]++;
	/* those without an index: where their address puts them, else on
	 * pcie-root (libvirt's choice for a root port) */
	for (i = 0; i < p->noindex; i++)
		need[p->noindex_bus[i] > 0 ? subtree_root(p, p->noindex_bus[i])
					   : 0]++;
	for (i = 1; i < PCI_BUSES; i++)
		if (p->model[i] == EXPANDER &&
		    expander_busnr(p->ctl[i], &t) >= 0)
			order[nx++] = i;
	for (i = 1; i < nx; i++) /* by busNr, as they number the buses */
		for (j = i;
		     j > 0 && expander_busnr(p->ctl[order[j - 1]], &t) >
				      expander_busnr(p->ctl[order[j]], &t);
		     j--) {
			int x = order[j];

			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	next = need[0] + 1;
	for (i = 0; i < nx; i++) {
		int e = order[i], nr = expander_busnr(p->ctl[e], &t);

		if (nr < next) {
			char v[12];

			nr = next;
			if (nr > 254)
				break;
			snprintf(v, sizeof(v), "0x%04x", (unsigned)nr);
			if (!xmlSetProp(t, BAD_CAST "busNr", BAD_CAST v))
				return -ENOMEM;
		}
		next = nr + 1 + need[e];
	}
	if (next > PCI_BUSES || i < nx) {
		err_set(err, errlen,
			"domain %s: more PCIe buses needed than QEMU's 256",
			d->name.s);
		return -EINVAL;
	}
	return 0;
}

int domxml_pair(struct domxml *d, const struct domxml_gpu *gpus, size_t ngpus,
		struct domxml_vf *map, size_t n, char *err, size_t errlen)
{
	struct domxml_ports *p;
	struct adder a;
	xmlNodePtr devs, hd;
	size_t g, i;
	int next, r = 0;

	if (!ngpus)
		return 0;
	p = malloc(sizeof(*p));
	if (!p) {
		err_set(err, errlen, "domain %s: out of memory", d->name.s);
		return -ENOMEM;
	}
	ports_scan(d, p);
	devs = first_devices(d);
	if (!p->pcie || !devs)
		goto out; /* no PCIe: no switch to put them under */
	/* libvirt numbers the controllers without an index from 1 up */
	next = (p->max_index > p->nctl ? p->max_index : p->nctl) + 1;
	adder_init(&a, d->doc, devs);
	for (g = 0; g < ngpus && !a.oom; g++) {
		int cell = gpus[g].node >= 0 && gpus[g].node < HOST_NODES
				   ? p->cell[gpus[g].node]
				   : -1;
		int parent = -1, slot = -1, rp, up, k, nports = 2;
		char alias[64];

		hd = find_hostdev(d, &gpus[g].addr);
		if (!hd)
			continue;
		for (i = 0; i < n; i++)
			nports += map[i].has_gpu &&
				  !pci_addr_cmp(&map[i].gpu, &gpus[g].addr);
		for (i = 0; cell >= 0 && i < PCI_BUSES; i++)
			if (p->model[i] == EXPANDER && p->node[i] == cell)
				parent = (int)i;
		for (k = 1; parent >= 0 && k < 32 && slot < 0; k++)
			if (!(p->slots[parent] >> k & 1))
				slot = k;
		if (parent >= 0 && slot < 0)
			parent = -1; /* the expander is full: pcie-root */
		if (next + 1 + nports >= PCI_BUSES) {
			err_set(err, errlen,
				"domain %s: no PCI controller index left for "
				"the switch of GPU %zu",
				d->name.s, g);
			r = -EINVAL;
			goto out;
		}
		rp = next++;
		up = next++;
		snprintf(alias, sizeof(alias), OUR_ALIAS "sw%zu-rp", g);
		add_controller(&a, rp, "pcie-root-port", alias, parent, slot);
		if (parent >= 0)
			p->slots[parent] |= (uint32_t)1 << slot;
		snprintf(alias, sizeof(alias), OUR_ALIAS "sw%zu", g);
		add_controller(&a, up, "pcie-switch-upstream-port", alias, rp,
			       0);
		p->model[rp] = ROOT_PORT;
		p->parent[rp] = parent >= 0 ? parent : 0;
		p->model[up] = SWITCH_UP;
		p->parent[up] = rp;
		for (k = 0; k < nports; k++) {
			int dsp = next++;

			snprintf(alias, sizeof(alias), OUR_ALIAS "sw%zu-p%d", g,
				 k);
			add_controller(&a, dsp, "pcie-switch-downstream-port",
				       alias, up, k);
			p->model[dsp] = SWITCH_DOWN;
			p->parent[dsp] = up;
			if (k == 0)
				move_hostdev(&a, hd, dsp);
		}
		/* the VFs paired with it on ports 1.., the last port free */
		for (i = 0, k = 1; i < n; i++)
			if (map[i].has_gpu &&
			    !pci_addr_cmp(&map[i].gpu, &gpus[g].addr)) {
				map[i].has_bus = true;
				map[i].bus = up + 1 + k++;
			}
	}
	if (a.oom) {
		err_set(err, errlen, "domain %s: out of memory", d->name.s);
		r = -ENOMEM;
		goto out;
	}
	r = fit_bus_numbers(d, p, err, errlen);
out:
	free(p);
	return r;
}

/* --- SMBIOS OEM strings ----------------------------------------------------- */

/* The first child of parent named name with attribute attr = value (attr
 * NULL: any), made at the end when there is none; NULL on ENOMEM. */
static xmlNodePtr child_or_new(xmlNodePtr parent, const char *name,
			       const char *attr, const char *value)
{
	xmlNodePtr c;

	for (c = parent->children; c; c = c->next)
		if (xml_is_elem(c, name) && (!attr || attr_is(c, attr, value)))
			return c;
	c = xmlNewChild(parent, NULL, BAD_CAST name, NULL);
	if (c && attr && !xmlNewProp(c, BAD_CAST attr, BAD_CAST value))
		return NULL;
	return c;
}

int domxml_oem_string(struct domxml *d, const char *prefix, const char *entry,
		      char *err, size_t errlen)
{
	xmlNodePtr os = xml_child(d->root, "os", NULL), sm, si, oem, e, next;
	xmlChar *mode;

	if (!os)
		os = xmlNewChild(d->root, NULL, BAD_CAST "os", NULL);
	if (!os)
		goto oom;
	sm = xml_child(os, "smbios", NULL);
	if (sm) {
		mode = xmlGetNoNsProp(sm, BAD_CAST "mode");
		next = mode && xmlStrcmp(mode, BAD_CAST "sysinfo") ? sm : NULL;
		xmlFree(mode);
		if (next)
			return 0; /* the operator's SMBIOS: left alone */
	} else if (!xmlNewProp(xmlNewChild(os, NULL, BAD_CAST "smbios", NULL),
			       BAD_CAST "mode", BAD_CAST "sysinfo")) {
		goto oom;
	}
	si = child_or_new(d->root, "sysinfo", "type", "smbios");
	oem = si ? child_or_new(si, "oemStrings", NULL, NULL) : NULL;
	if (!oem)
		goto oom;
	for (e = oem->children; e; e = next) {
		xmlChar *v = xmlNodeGetContent(e);

		next = e->next;
		if (xml_is_elem(e, "entry") && v &&
		    !xmlStrncmp(v, BAD_CAST prefix, (int)strlen(prefix))) {
			xmlUnlinkNode(e);
			xmlFreeNode(e);
		}
		xmlFree(v);
	}
	e = xmlNewChild(oem, NULL, BAD_CAST "entry", NULL);
	if (!e)
		goto oom;
	xmlNodeAddContent(e, BAD_CAST entry);
	return 0;
oom:
	err_set(err, errlen, "domain %s: out of memory", d->name.s);
	return -ENOMEM;
}

/* The map itself: one MAC per NIC, one NIC per VF. */
static int check_map(const struct domxml *d, const struct domxml_vf *map,
		     size_t n, char *err, size_t errlen)
{
	char m1[MAC_STRLEN], pa[PCI_ADDR_STRLEN];
	size_t i, j;

	for (i = 0; i < n; i++) {
		mac_fmt(map[i].mac, m1);
		for (j = 0; j < i; j++) {
			if (map[i].mac == map[j].mac) {
				err_set(err, errlen,
					"domain %s: VF map lists MAC %s twice",
					d->name.s, m1);
				return -EINVAL;
			}
			if (pci_addr_cmp(&map[i].vf, &map[j].vf) == 0) {
				pci_addr_fmt(&map[i].vf, pa);
				err_set(err, errlen,
					"domain %s: VF %s given for two MACs "
					"(%s)",
					d->name.s, pa, m1);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int domxml_rewrite(struct domxml *d, const struct domxml_vf *map, size_t n,
		   struct strbuf *out, char *err, size_t errlen)
{
	struct domxml_ports *ports = NULL;
	xmlNodePtr *hit = NULL;
	char mac[MAC_STRLEN];
	size_t i, count;
	int r;

	r = check_map(d, map, n, err, errlen);
	if (r)
		goto out;
	hit = calloc(n ? n : 1, sizeof(*hit));
	if (!hit) {
		err_set(err, errlen, "domain %s: out of memory", d->name.s);
		r = -ENOMEM;
		goto out;
	}
	/* All found before any is changed: an error leaves nothing half done. */
	for (i = 0; i < n; i++) {
		count = find_ifaces(d->root, map[i].mac, &hit[i]);
		if (count == 1)
			continue;
		mac_fmt(map[i].mac, mac);
		if (count == 0)
			err_set(err, errlen,
				"domain %s: no <interface> with MAC %s",
				d->name.s, mac);
		else
			err_set(err, errlen,
				"domain %s: %zu <interface> elements with MAC "
				"%s",
				d->name.s, count, mac);
		r = -EINVAL;
		goto out;
	}
	ports = malloc(sizeof(*ports));
	if (!ports) {
		r = -ENOMEM;
		err_set(err, errlen, "domain %s: out of memory", d->name.s);
		goto out;
	}
	ports_scan(d, ports);
	for (i = 0; i < n && !r; i++) {
		int bus = -1;

		if (map[i].has_bus)
			bus = map[i].bus;
		else if (!guest_pci_address(hit[i]))
			bus = domxml_ports_take(ports, map[i].node);
		/* domxml_pair's port wins over the interface's own */
		if (map[i].has_bus) {
			xmlNodePtr own = guest_pci_address(hit[i]);

			if (own) {
				xmlUnlinkNode(own);
				xmlFreeNode(own);
			}
		}
		r = iface_to_hostdev(d->doc, hit[i], &map[i].vf, bus);
	}
	if (!r)
		r = doc_append(d->doc, out);
	if (r)
		err_set(err, errlen, "domain %s: out of memory", d->name.s);
out:
	free(ports);
	free(hit);
	return r;
}

/* --- PCI devices in use --------------------------------------------------- */

/*
 * One address attribute the way libvirt reads it (base 0: "0x3b", "59");
 * absent is 0. -EINVAL for anything else or above max.
 */
static int addr_attr(const xmlNode *e, const char *name, unsigned long max,
		     unsigned long *out)
{
	xmlChar *v = xmlGetNoNsProp(e, BAD_CAST name);
	char *end = NULL;
	int r = -EINVAL;

	*out = 0;
	if (!v)
		return 0;
	/* strtoul alone would take " 59", "+59" and "-1" */
	if (*v >= '0' && *v <= '9') {
		errno = 0;
		*out = strtoul((const char *)v, &end, 0);
		if (!errno && !*end && *out <= max)
			r = 0;
	}
	xmlFree(v);
	return r;
}

static int read_addr(const struct domxml *d, const xmlNode *a, const char *what,
		     struct pci_addr *pa, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned long max;
	} f[] = { { "domain", 0xffff },
		  { "bus", 0xff },
		  { "slot", 0x1f },
		  { "function", 7 } };
	unsigned long v[4];
	size_t i;

	for (i = 0; i < 4; i++) {
		xmlChar *raw;

		if (addr_attr(a, f[i].name, f[i].max, &v[i]) == 0)
			continue;
		raw = xmlGetNoNsProp(a, BAD_CAST f[i].name);
		err_set(err, errlen,
			"domain %s: %s source address %s='%s' is not a PCI %s",
			d->name.s, what, f[i].name,
			str_sanitize((const char *)raw).s, f[i].name);
		xmlFree(raw);
		return -EINVAL;
	}
	pa->domain = (uint16_t)v[0];
	pa->bus = (uint8_t)v[1];
	pa->slot = (uint8_t)v[2];
	pa->func = (uint8_t)v[3];
	return 0;
}

/* The <address> under <source> that names a host PCI function, or NULL. */
static const xmlNode *pci_source(const xmlNode *dev, bool need_type)
{
	xmlNodePtr src = xml_child(dev, "source", NULL), a;

	if (!src)
		return NULL;
	for (a = src->children; a; a = a->next)
		if (xml_is_elem(a, "address") &&
		    (!need_type || attr_is(a, "type", "pci")))
			return a;
	return NULL;
}

struct pci_list {
	struct pci_addr *v;
	size_t n, alloc;
};

static int pci_list_add(struct pci_list *l, const struct pci_addr *a)
{
	if (ALLOC_GROW(l->v, l->n + 1, l->alloc))
		return -ENOMEM;
	l->v[l->n++] = *a;
	return 0;
}

/* libvirt's hostdev mode defaults to subsystem. */
static bool is_pci_hostdev(const xmlNode *c)
{
	xmlChar *mode;
	bool sub;

	if (!xml_is_elem(c, "hostdev") || !attr_is(c, "type", "pci"))
		return false;
	mode = xmlGetNoNsProp(c, BAD_CAST "mode");
	sub = !mode || xmlStrcmp(mode, BAD_CAST "subsystem") == 0;
	xmlFree(mode);
	return sub;
}

static int collect_pci(const struct domxml *d, struct pci_list *l, char *err,
		       size_t errlen)
{
	xmlNodePtr dv, c;
	struct pci_addr pa;
	int r;

	for (dv = d->root->children; dv; dv = dv->next) {
		if (!xml_is_elem(dv, "devices"))
			continue;
		for (c = dv->children; c; c = c->next) {
			const xmlNode *a;
			const char *what;

			if (is_pci_hostdev(c)) {
				what = "<hostdev>";
				a = pci_source(c, false);
				if (!a) {
					err_set(err, errlen,
						"domain %s: PCI <hostdev> "
						"without "
						"a source address",
						d->name.s);
					return -EINVAL;
				}
			} else if (xml_is_elem(c, "interface") &&
				   attr_is(c, "type", "hostdev")) {
				what = "<interface type='hostdev'>";
				a = pci_source(c, true);
				if (!a)
					continue; /* USB or mdev: not PCI */
			} else {
				continue;
			}
			r = read_addr(d, a, what, &pa, err, errlen);
			if (!r)
				r = pci_list_add(l, &pa);
			if (r == -ENOMEM)
				err_set(err, errlen, "domain %s: out of memory",
					d->name.s);
			if (r)
				return r;
		}
	}
	return 0;
}

int domxml_pci_hostdevs(const struct domxml *d, struct pci_addr **out,
			size_t *n, char *err, size_t errlen)
{
	struct pci_list l = { NULL, 0, 0 };
	int r;

	r = collect_pci(d, &l, err, errlen);
	if (!r && l.n) {
		size_t cap = *n; /* what *out holds: room for *n */

		if (ALLOC_GROW(*out, *n + l.n, cap)) {
			err_set(err, errlen, "domain %s: out of memory",
				d->name.s);
			r = -ENOMEM;
		} else {
			memcpy(*out + *n, l.v, l.n * sizeof(**out));
			*n += l.n;
		}
	}
	free(l.v);
	return r;
}

/* --- CPU pinning ---------------------------------------------------------- */

/* One cpuset attribute OR'ed into bits: "0-3,^2" -> {0, 1, 3}. */
static int add_cpuset(const struct domxml *d, const xmlNode *e,
		      const char *what, uint64_t bits[CPULIST_WORDS], char *err,
		      size_t errlen)
{
	uint64_t one[CPULIST_WORDS], any = 0;
	xmlChar *v = xmlGetNoNsProp(e, BAD_CAST "cpuset");
	const char *why = NULL;
	size_t i;
	int r;

	if (!v) {
		err_set(err, errlen, "domain %s: %s without cpuset", d->name.s,
			what);
		return -EINVAL;
	}
	r = cpulist_parse((const char *)v, one, true);
	for (i = 0; !r && i < CPULIST_WORDS; i++)
		any |= one[i];
	if (r == -ERANGE)
		why = "names a CPU above 1023";
	else if (r)
		why = "is not a CPU list";
	else if (!any)
		why = "selects no CPU";
	if (why)
		err_set(err, errlen, "domain %s: %s cpuset '%s' %s", d->name.s,
			what, str_sanitize((const char *)v).s, why);
	xmlFree(v);
	if (why)
		return -EINVAL;
	for (i = 0; i < CPULIST_WORDS; i++)
		bits[i] |= one[i];
	return 0;
}

/* <vcpu placement='auto'> or a bare <vcpu>: not pinned by this element. */
static bool has_cpuset(const xmlNode *e)
{
	return xmlHasNsProp(e, BAD_CAST "cpuset", NULL) != NULL;
}

int domxml_pinned_cpus(const struct domxml *d, uint64_t bits[CPULIST_WORDS],
		       bool *pinned, char *err, size_t errlen)
{
	uint64_t acc[CPULIST_WORDS] = { 0 };
	xmlNodePtr c, p;
	bool any = false;
	int r = 0;

	for (c = d->root->children; c && !r; c = c->next) {
		if (xml_is_elem(c, "vcpu") && has_cpuset(c)) {
			r = add_cpuset(d, c, "<vcpu>", acc, err, errlen);
			any = true;
		}
		if (!xml_is_elem(c, "cputune"))
			continue;
		for (p = c->children; p && !r; p = p->next) {
			if (!xml_is_elem(p, "vcpupin"))
				continue;
			r = add_cpuset(d, p, "<vcpupin>", acc, err, errlen);
			any = true;
		}
	}
	if (r)
		return r;
	memcpy(bits, acc, sizeof(acc));
	*pinned = any;
	return 0;
}
