// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include "core/guid.h"
#include "core/ibattr.h"
#include "core/log.h"
#include "host/onexml.h"

/* --- reading untrusted XML ------------------------------------------------ */

/* What the silent handlers saw: libxml2's first error, a DOCTYPE. */
struct parse_note {
	struct san_str msg;
	char where[24]; /* "line 3: ", empty when libxml2 knows no line */
	bool doctype;
};

static void note_error(struct parse_note *note, const xmlError *e)
{
	char raw[256];
	size_t n;

	if (!note || note->msg.s[0] || !e || e->level < XML_ERR_ERROR)
		return;
	/* "Opening and ending tag mismatch: devices line 5 and domain\n" */
	snprintf(raw, sizeof(raw), "%s", e->message ? e->message : "error");
	n = strlen(raw);
	while (n && (raw[n - 1] == '\n' || raw[n - 1] == ' '))
		raw[--n] = '\0';
	note->msg = str_sanitize(raw);
	if (e->line > 0)
		snprintf(note->where, sizeof(note->where),
			 "line %d: ", e->line);
}

/*
 * Every error of the call comes here, the parser's and those libxml2 raises
 * without a context (iconv's "input conversion failed", which XML_PARSE_NOERROR
 * alone would still print on stderr).
 */
static void quiet(void *data, xmlErrorPtr e)
{
	note_error(data, e);
}

/*
 * <!DOCTYPE ...> is where entities are declared ("billion laughs", external
 * files): nothing OpenNebula or libvirt writes has one, so the parse stops at
 * the DOCTYPE itself, before its internal subset is read.
 */
static void refuse_doctype(void *ctx, const xmlChar *name,
			   const xmlChar *external_id, const xmlChar *system_id)
{
	xmlParserCtxtPtr ctxt = ctx;

	(void)name;
	(void)external_id;
	(void)system_id;
	((struct parse_note *)ctxt->_private)->doctype = true;
	xmlStopParser(ctxt);
}

xmlDocPtr xml_read_untrusted(const char *xml, size_t len, const char *what,
			     char *err, size_t errlen)
{
	struct parse_note note = { .doctype = false };
	xmlStructuredErrorFunc old_fn;
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc = NULL;
	void *old_data;
	bool ok;

	if (!xml || len == 0) {
		err_set(err, errlen, "%s: empty document", what);
		return NULL;
	}
	if (len > INT_MAX) {
		err_set(err, errlen, "%s: %zu bytes is too large", what, len);
		return NULL;
	}
	xmlInitParser();
	/* Per call, restored below: libxml2 keeps this handler per thread. */
	old_fn = xmlStructuredError;
	old_data = xmlStructuredErrorContext;
	xmlSetStructuredErrorFunc(&note, quiet);

	ctxt = xmlCreateMemoryParserCtxt(xml, (int)len);
	if (!ctxt) {
		xmlSetStructuredErrorFunc(old_data, old_fn);
		err_set(err, errlen, "%s: out of memory", what);
		return NULL;
	}
	/* No XML_PARSE_NOENT: entities are never substituted. */
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR |
					XML_PARSE_NOWARNING);
	ctxt->_private = &note;
	ctxt->sax->internalSubset = refuse_doctype;
	ctxt->sax->externalSubset = refuse_doctype;

	xmlParseDocument(ctxt);
	doc = ctxt->myDoc;
	ctxt->myDoc = NULL;
	ok = ctxt->wellFormed && ctxt->nsWellFormed && !note.doctype &&
	     ctxt->errNo == XML_ERR_OK;
	xmlFreeParserCtxt(ctxt);
	xmlSetStructuredErrorFunc(old_data, old_fn);

	if (ok && doc && (doc->intSubset || doc->extSubset))
		note.doctype = true;
	if (note.doctype)
		err_set(err, errlen,
			"%s: DOCTYPE refused (no DTD or entity is accepted)",
			what);
	else if (!ok || !doc)
		err_set(err, errlen, "%s: not well-formed XML: %s%s", what,
			note.where, note.msg.s[0] ? note.msg.s : "parse error");
	else if (!xmlDocGetRootElement(doc))
		err_set(err, errlen, "%s: no root element", what);
	else
		return doc;
	xmlFreeDoc(doc);
	return NULL;
}

/* --- the VM -------------------------------------------------------------- */

bool xml_is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns &&
	       xmlStrcmp(n->name, BAD_CAST name) == 0;
}

xmlNodePtr xml_child(const xmlNode *parent, const char *name, int *count)
{
	xmlNodePtr c, found = NULL;

	*count = 0;
	for (c = parent->children; c; c = c->next) {
		if (!xml_is_elem(c, name))
			continue;
		if (!found)
			found = c;
		(*count)++;
	}
	return found;
}

bool xml_has_leaf(const xmlNode *parent, const char *name, const char *value)
{
	const xmlNode *c;
	bool eq = false;

	for (c = parent->children; c && !eq; c = c->next) {
		char *v;

		if (!xml_is_elem(c, name))
			continue;
		v = xml_leaf_text(c);
		eq = v && strcmp(v, value) == 0;
		free(v);
	}
	return eq;
}

/* The only child element called name; *twice when there are more. */
static xmlNodePtr child_elem(const xmlNode *parent, const char *name,
			     bool *twice)
{
	int n;
	xmlNodePtr found = xml_child(parent, name, &n);

	*twice = n > 1;
	return found;
}

/*
 * The text of a leaf element, text and CDATA pieces joined:
 * <NIC_ID><![CDATA[1]]></NIC_ID> -> "1". NULL when it holds anything else
 * (elements, comments), which no value OpenNebula writes does.
 */
char *xml_leaf_text(const xmlNode *e)
{
	const xmlNode *c;
	xmlChar *v;
	char *s;

	for (c = e->children; c; c = c->next)
		if (c->type != XML_TEXT_NODE &&
		    c->type != XML_CDATA_SECTION_NODE)
			return NULL;
	/* most values: one text or CDATA piece, read as it is */
	c = e->children;
	if (c && !c->next)
		return strdup(c->content ? (const char *)c->content : "");
	v = xmlNodeGetContent(e);
	s = strdup(v ? (const char *)v : "");
	xmlFree(v);
	return s;
}

int xml_ib_attrs(const xmlNode *parent, unsigned want, unsigned flags,
		 struct ib_attrs *out, const char *who, char *err,
		 size_t errlen)
{
	const xmlNode *first[IBA_COUNT] = { NULL };
	int count[IBA_COUNT] = { 0 };
	const xmlNode *c;
	int a, r = 0;

	for (c = parent->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || c->ns)
			continue;
		a = ibattr_by_name((const char *)c->name);
		if (a < 0 || !(want & IBA_BIT(a)))
			continue;
		if (!count[a]++)
			first[a] = c;
	}
	for (a = 0; a < IBA_COUNT && !r; a++) {
		char *v;

		if (!count[a])
			continue;
		if (count[a] > 1) {
			ibattr_err_twice((enum ib_attr)a, who, err, errlen);
			return -EINVAL;
		}
		v = xml_leaf_text(first[a]);
		if (!v) {
			xmlChar *raw = xmlNodeGetContent(first[a]);

			ibattr_err_not_value((enum ib_attr)a, who,
					     (const char *)raw, err, errlen);
			xmlFree(raw);
			return -EINVAL;
		}
		if (!(a == IBA_PKEY && !v[0] &&
		      (flags & XML_IB_EMPTY_PKEY_ABSENT)))
			r = ibattr_parse((enum ib_attr)a, v, out, who, err,
					 errlen);
		free(v);
	}
	return r;
}

/* One NIC field as a string; -ENOENT when absent. Names NIC by nic_id. */
struct nic_ctx {
	const xmlNode *nic;
	int vm_id;
	int nic_id;
	char *err;
	size_t errlen;
};

static int nic_field(const struct nic_ctx *c, const char *name, char **out)
{
	xmlNodePtr e;
	xmlChar *raw;
	bool twice;

	*out = NULL;
	e = child_elem(c->nic, name, &twice);
	if (!e)
		return -ENOENT;
	*out = xml_leaf_text(e);
	if (*out)
		return 0;
	raw = xmlNodeGetContent(e);
	err_set(c->err, c->errlen, "VM %d NIC %d: malformed %s '%s'", c->vm_id,
		c->nic_id, name, str_sanitize((const char *)raw).s);
	xmlFree(raw);
	return -EINVAL;
}

/*
 * Every element of an IB NIC once: oned writes each once, so a second one
 * is never ours to choose between.
 */
static int nic_no_twice(const struct nic_ctx *c)
{
	xmlNodePtr a, b;

	for (a = c->nic->children; a; a = a->next) {
		if (a->type != XML_ELEMENT_NODE)
			continue;
		for (b = a->next; b; b = b->next) {
			if (b->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(a->name, b->name) != 0 || a->ns != b->ns)
				continue;
			err_set(c->err, c->errlen,
				"VM %d NIC %d: %s given twice", c->vm_id,
				c->nic_id,
				str_sanitize((const char *)a->name).s);
			return -EINVAL;
		}
	}
	return 0;
}

static int nic_mac(const struct nic_ctx *c, struct ib_nic *out)
{
	char *v;
	int r = nic_field(c, "MAC", &v);

	if (r == -ENOENT)
		err_set(c->err, c->errlen, "VM %d NIC %d: no MAC", c->vm_id,
			c->nic_id);
	if (r)
		return r == -ENOENT ? -EINVAL : r;
	r = mac_parse(v, &out->mac);
	if (r)
		err_set(c->err, c->errlen, "VM %d NIC %d: malformed MAC '%s'",
			c->vm_id, c->nic_id, str_sanitize(v).s);
	free(v);
	return r ? -EINVAL : 0;
}

static int nic_bad(const struct nic_ctx *c, const char *name, const char *v,
		   const char *hint)
{
	err_set(c->err, c->errlen, "VM %d NIC %d: malformed %s '%s'%s",
		c->vm_id, c->nic_id, name, str_sanitize(v).s, hint);
	return -EINVAL;
}

/*
 * IB_PKEY (required: the network's, inherited), IB_PF and IB_PORT (pins),
 * by the rules of ibattr.h; NETWORK_ID: absent is fine, malformed is not.
 */
static int nic_ib(const struct nic_ctx *c, struct ib_nic *out)
{
	struct ib_attrs a = { 0 };
	char who[48], *v;
	int r;

	snprintf(who, sizeof(who), "VM %d NIC %d", c->vm_id, c->nic_id);
	r = xml_ib_attrs(
		c->nic, IBA_BIT(IBA_PKEY) | IBA_BIT(IBA_PF) | IBA_BIT(IBA_PORT),
		0, &a, who, c->err, c->errlen);
	if (r)
		return r;
	if (!ibattr_has(&a, IBA_PKEY)) {
		err_set(c->err, c->errlen,
			"%s: no IB_PKEY (the virtual network sets it, "
			"INHERIT_VNET_ATTR must carry it)",
			who);
		return -EINVAL;
	}
	out->pkey = a.pkey;
	out->has_pf = ibattr_has(&a, IBA_PF);
	out->pf = a.pf;
	out->port = ibattr_has(&a, IBA_PORT) ? a.port : 0;

	out->network_id = -1;
	r = nic_field(c, "NETWORK_ID", &v);
	if (r == 0 && dec_parse_int(v, &out->network_id))
		r = nic_bad(c, "NETWORK_ID", v, "");
	free(v);
	return r == -ENOENT ? 0 : r;
}

/* nth: 1-based position among TEMPLATE/NIC, for a NIC without a NIC_ID. */
static int parse_nic(const xmlNode *nic, int vm_id, size_t nth,
		     struct ib_nic *out, char *err, size_t errlen)
{
	struct nic_ctx c = { nic, vm_id, -1, err, errlen };
	xmlNodePtr e;
	bool twice;
	char *v;
	int r;

	e = child_elem(nic, "NIC_ID", &twice);
	if (!e || twice) {
		err_set(err, errlen, "VM %d: IB NIC (NIC element %zu) %s",
			vm_id, nth, e ? "has NIC_ID twice" : "has no NIC_ID");
		return -EINVAL;
	}
	v = xml_leaf_text(e);
	if (!v || dec_parse_int(v, &c.nic_id)) {
		xmlChar *raw = xmlNodeGetContent(e);

		err_set(err, errlen,
			"VM %d: IB NIC (NIC element %zu) has malformed NIC_ID "
			"'%s'",
			vm_id, nth, str_sanitize((const char *)raw).s);
		xmlFree(raw);
		free(v);
		return -EINVAL;
	}
	free(v);
	out->nic_id = c.nic_id;
	r = nic_no_twice(&c);
	if (!r)
		r = nic_mac(&c, out);
	if (!r)
		r = nic_ib(&c, out);
	return r;
}

/* A NIC is ours when one of its VN_MAD says "ib" (two are refused later). */
static bool nic_is_ib(const xmlNode *nic)
{
	return xml_has_leaf(nic, "VN_MAD", "ib");
}

/* Two IB NICs of one VM must differ in NIC_ID and MAC (the GUID's source). */
static int check_unique(const struct one_vm *vm, char *err, size_t errlen)
{
	char mac[MAC_STRLEN];
	size_t i, j;

	for (i = 0; i < vm->n; i++) {
		for (j = 0; j < i; j++) {
			const struct ib_nic *a = &vm->nics[j],
					    *b = &vm->nics[i];

			if (a->nic_id == b->nic_id) {
				err_set(err, errlen,
					"VM %d NIC %d: NIC_ID used by two IB "
					"NICs",
					vm->id, b->nic_id);
				return -EINVAL;
			}
			if (a->mac == b->mac) {
				mac_fmt(b->mac, mac);
				err_set(err, errlen,
					"VM %d NIC %d: MAC %s also used by NIC "
					"%d",
					vm->id, b->nic_id, mac, a->nic_id);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* <VM> itself, or the one <VM> inside <VMM_DRIVER_ACTION_DATA>. */
static xmlNodePtr find_vm(xmlNodePtr root, char *err, size_t errlen)
{
	xmlNodePtr vm;
	bool twice;

	if (xml_is_elem(root, "VM"))
		return root;
	if (!xml_is_elem(root, "VMM_DRIVER_ACTION_DATA")) {
		err_set(err, errlen,
			"VM XML: root element <%s> is neither <VM> nor "
			"<VMM_DRIVER_ACTION_DATA>",
			str_sanitize((const char *)root->name).s);
		return NULL;
	}
	vm = child_elem(root, "VM", &twice);
	if (!vm || twice) {
		err_set(err, errlen,
			"VM XML: <VMM_DRIVER_ACTION_DATA> has %s <VM>",
			vm ? "more than one" : "no");
		return NULL;
	}
	return vm;
}

static int parse_vm_id(const xmlNode *vm, int *id, char *err, size_t errlen)
{
	xmlNodePtr e;
	bool twice;
	char *v;

	e = child_elem(vm, "ID", &twice);
	if (!e || twice) {
		err_set(err, errlen, "VM XML: <VM> has %s <ID>",
			e ? "more than one" : "no");
		return -EINVAL;
	}
	v = xml_leaf_text(e);
	if (!v || dec_parse_int(v, id)) {
		xmlChar *raw = xmlNodeGetContent(e);

		err_set(err, errlen, "VM XML: <VM> ID '%s' is not a number",
			str_sanitize((const char *)raw).s);
		xmlFree(raw);
		free(v);
		return -EINVAL;
	}
	free(v);
	return 0;
}

int onexml_parse_vm(const char *xml, size_t len, struct one_vm *vm, char *err,
		    size_t errlen)
{
	struct one_vm res = { .id = -1 };
	xmlNodePtr vmn, tmpl, c;
	size_t count = 0, nth = 0;
	xmlDocPtr doc;
	bool twice;
	int r = -EINVAL;

	memset(vm, 0, sizeof(*vm));
	doc = xml_read_untrusted(xml, len, "VM XML", err, errlen);
	if (!doc)
		return -EINVAL;
	vmn = find_vm(xmlDocGetRootElement(doc), err, errlen);
	if (!vmn || parse_vm_id(vmn, &res.id, err, errlen))
		goto out;
	tmpl = child_elem(vmn, "TEMPLATE", &twice);
	if (twice) {
		err_set(err, errlen, "VM %d: TEMPLATE given twice", res.id);
		goto out;
	}
	for (c = tmpl ? tmpl->children : NULL; c; c = c->next)
		count += xml_is_elem(c, "NIC") && nic_is_ib(c);
	if (count) {
		res.nics = calloc(count, sizeof(*res.nics));
		if (!res.nics) {
			err_set(err, errlen, "VM %d: out of memory", res.id);
			r = -ENOMEM;
			goto out;
		}
	}
	for (c = tmpl ? tmpl->children : NULL; c; c = c->next) {
		if (!xml_is_elem(c, "NIC"))
			continue;
		nth++;
		if (!nic_is_ib(c)) {
			res.attach_other |= xml_has_leaf(c, "ATTACH", "YES");
			continue;
		}
		r = parse_nic(c, res.id, nth, &res.nics[res.n], err, errlen);
		if (r)
			goto out;
		res.nics[res.n].attach = xml_has_leaf(c, "ATTACH", "YES");
		res.n++;
	}
	r = check_unique(&res, err, errlen);
out:
	xmlFreeDoc(doc);
	if (r) {
		free(res.nics);
		return r;
	}
	*vm = res;
	return 0;
}

long onexml_nic_by_mac(const struct one_vm *vm, uint64_t mac)
{
	size_t i;

	if (vm->attach_other)
		return -1;
	for (i = 0; i < vm->n; i++)
		if (vm->nics[i].attach)
			return vm->nics[i].mac == mac ? (long)i : -1;
	for (i = 0; i < vm->n; i++)
		if (vm->nics[i].mac == mac)
			return (long)i;
	return -1;
}

void one_vm_free(struct one_vm *vm)
{
	if (!vm)
		return;
	free(vm->nics);
	vm->nics = NULL;
	vm->n = 0;
}
