// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include "core/log.h"
#include "core/xml.h"

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

/* --- walking the tree ---------------------------------------------------- */

bool xml_is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns &&
	       xmlStrcmp(n->name, BAD_CAST name) == 0;
}

xmlNodePtr xml_child(const xmlNode *parent, const char *name, int *count)
{
	xmlNodePtr c, found = NULL;
	int n = 0;

	for (c = parent->children; c; c = c->next) {
		if (!xml_is_elem(c, name))
			continue;
		if (!found)
			found = c;
		n++;
	}
	if (count)
		*count = n;
	return found;
}

xmlNodePtr xml_only_child(const xmlNode *parent, const char *name, int *count)
{
	int n;
	xmlNodePtr found = xml_child(parent, name, &n);

	if (count)
		*count = n;
	return n == 1 ? found : NULL;
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

int xml_only_leaf(const xmlNode *parent, const char *name, char **out)
{
	int count;
	xmlNodePtr e = xml_only_child(parent, name, &count);

	*out = NULL;
	if (count == 0)
		return -ENOENT;
	if (!e)
		return -EINVAL;
	*out = xml_leaf_text(e);
	return *out ? 0 : -EINVAL;
}

struct san_str xml_raw_text(const xmlNode *e)
{
	xmlChar *raw = xmlNodeGetContent(e);
	struct san_str s = str_sanitize((const char *)raw);

	xmlFree(raw);
	return s;
}
