// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/xml.h"
#include "fabric/poolelem.h"
#include "fabric/poolread.h"

/* --- reading ---------------------------------------------------------------- */

/*
 * A SAX2 push parser builds only the part of each pool element that the
 * functions above read, with libxml2's own SAX2 tree builder, so what they
 * see is exactly what a full parse would give them:
 *
 *   depth 1  <VM_POOL>, <HOST_POOL>, <VNET_POOL>   checked, kept (empty)
 *   depth 2  <VM>, <HOST>, <VNET>                   kept; read and freed at
 *                                                   its end tag
 *   below    a container (TEMPLATE, NIC,            kept, only some children
 *            HISTORY_RECORDS, HISTORY)
 *            a value (ID, MAC, IB_PKEY, IB_PF, HID)  kept whole: all it holds
 *            another child of a NIC                 kept bare: its name only,
 *                                                   for the NIC reader's
 *                                                   "given twice" rule
 *            anything else                          skipped with all it holds
 *
 * In OpenNebula's listings most of the bytes are what is skipped (a VM's
 * history, disks, permissions...): no node is made for them, the parser
 * only tokenizes them.
 */
enum keep { SKIP, CONTAINER, WHOLE, BARE };

/*
 * The element names the filter looks at, compared as the parser's own
 * dictionary pointers (every name it hands over is interned there): one
 * compare per name instead of a strcmp.
 */
enum name {
	N_ID,
	N_NAME,
	N_STATE,
	N_LCM_STATE,
	N_TEMPLATE,
	N_NIC,
	N_VN_MAD,
	N_NETWORK_ID,
	N_NIC_ID,
	N_MAC,
	N_IB_PKEY,
	N_CLUSTER_ID,
	N_IB_PF,
	N_CLUSTERS,
	N_IB_PORT,
	N_HISTORY_RECORDS,
	N_HISTORY,
	N_HID,
	N_USER_TEMPLATE,
	N_SCHED_REQUIREMENTS,
	N_VMS,
	N_IB_VFS_USABLE,
	N_IB_VFS_USED,
	N_IB_VFS_AVAIL,
	N_IB_SYNC_VMS,
	N_IB_SYNC_SUM,
	N_IP,
	N_CONTEXT,
	N_ONEIB_TOPOLOGY,
	N_PARENT_NETWORK_ID,
	N_IB_RAILS_AVAIL,
	N_IB_RAIL,
	N_IB_PCI,
	N_HOST_SHARE,
	N_PCI_DEVICES,
	N_PCI,
	N_IB_RAILS,
	N_IB_AFFINITY,
	N_COUNT
};

static const char *const name_text[N_COUNT] = {
	"ID",
	"NAME",
	"STATE",
	"LCM_STATE",
	"TEMPLATE",
	"NIC",
	"VN_MAD",
	"NETWORK_ID",
	"NIC_ID",
	"MAC",
	"IB_PKEY",
	"CLUSTER_ID",
	"IB_PF",
	"CLUSTERS",
	"IB_PORT",
	"HISTORY_RECORDS",
	"HISTORY",
	"HID",
	"USER_TEMPLATE",
	"SCHED_REQUIREMENTS",
	"VMS",
	"IB_VFS_USABLE",
	"IB_VFS_USED",
	"IB_VFS_AVAIL",
	"IB_SYNC_VMS",
	"IB_SYNC_SUM",
	"IP",
	"CONTEXT",
	"ONEIB_TOPOLOGY",
	"PARENT_NETWORK_ID",
	"IB_RAILS_AVAIL",
	"IB_RAIL",
	"IB_PCI",
	"HOST_SHARE",
	"PCI_DEVICES",
	"PCI",
	"IB_RAILS",
	"IB_AFFINITY",
};

/* a set of names: N_COUNT of them need 64 bits */
#define B(x) ((uint64_t)1 << (x))

/* What to do with element `name` (no namespace) at `level` under a pool
 * element (level 1), inside container `parent`. */
static enum keep keep_child(const xmlChar *const *nm, int kind, int level,
			    const xmlChar *parent, const xmlChar *name)
{
	/* the values of each pool element, and of a VM's NIC */
	static const uint64_t values[POOL_KINDS] = {
		B(N_ID) | B(N_STATE) | B(N_LCM_STATE),
		B(N_ID) | B(N_NAME) | B(N_CLUSTER_ID) | B(N_STATE),
		B(N_ID) | B(N_NAME) | B(N_VN_MAD) | B(N_STATE) | B(N_CLUSTERS) |
			B(N_PARENT_NETWORK_ID),
	};
	static const uint64_t nic_values =
		B(N_VN_MAD) | B(N_NETWORK_ID) | B(N_NIC_ID) | B(N_MAC) |
		B(N_IB_PKEY) | B(N_IB_PF) | B(N_IB_PORT) | B(N_IP) |
		B(N_IB_RAILS) | B(N_IB_AFFINITY);
	uint64_t set;
	int i;

	static const uint64_t host_values =
		B(N_IB_PF) | B(N_IB_VFS_USABLE) | B(N_IB_VFS_USED) |
		B(N_IB_VFS_AVAIL) | B(N_IB_SYNC_VMS) | B(N_IB_SYNC_SUM) |
		B(N_IB_RAILS_AVAIL) | B(N_IB_RAIL) | B(N_IB_PCI);

	if (level == 2) {
		if (name == nm[N_TEMPLATE] ||
		    (kind == POOL_VM && (name == nm[N_HISTORY_RECORDS] ||
					 name == nm[N_USER_TEMPLATE])) ||
		    (kind == POOL_HOST &&
		     (name == nm[N_VMS] || name == nm[N_HOST_SHARE])))
			return CONTAINER;
		set = values[kind];
	} else if (level == 3 && parent == nm[N_USER_TEMPLATE]) {
		/* the requirement the VF counters' term goes into */
		return name == nm[N_SCHED_REQUIREMENTS] ? WHOLE : SKIP;
	} else if (level == 3 && parent == nm[N_HOST_SHARE]) {
		/* oned's own PCI devices, which it hands out (poolhost.c) */
		return name == nm[N_PCI_DEVICES] ? CONTAINER : SKIP;
	} else if (level == 4 && parent == nm[N_PCI_DEVICES]) {
		return name == nm[N_PCI] ? WHOLE : SKIP;
	} else if (level == 3 && parent == nm[N_VMS]) {
		return name == nm[N_ID] ? WHOLE : SKIP;
	} else if (level == 3 && parent == nm[N_HISTORY_RECORDS]) {
		/* a VM's host: HISTORY/HID (vm_host) */
		return name == nm[N_HISTORY] ? CONTAINER : SKIP;
	} else if (level == 4 && parent == nm[N_HISTORY]) {
		return name == nm[N_HID] ? WHOLE : SKIP;
	} else if (level == 4 && kind == POOL_VM && parent == nm[N_CONTEXT]) {
		/* the cluster's map one-ib wrote (vm_context) */
		return name == nm[N_ONEIB_TOPOLOGY] ? WHOLE : SKIP;
	} else if (level == 3 && parent == nm[N_TEMPLATE]) {
		if (kind == POOL_VM && name == nm[N_PCI])
			return WHOLE; /* the devices its NICs pair with */
		if (kind == POOL_VM)
			return name == nm[N_NIC] || name == nm[N_CONTEXT]
				       ? CONTAINER
				       : SKIP;
		if (kind == POOL_HOST) {
			for (i = 0; i < N_COUNT; i++)
				if ((host_values & B(i)) && name == nm[i])
					return WHOLE;
			return SKIP;
		}
		return ibattr_by_name((const char *)name) >= 0 ? WHOLE : SKIP;
	} else if (level == 4 && kind == POOL_VM && parent == nm[N_NIC]) {
		for (i = 0; i < N_COUNT; i++)
			if ((nic_values & B(i)) && name == nm[i])
				return WHOLE;
		return BARE; /* its name, for the "given twice" rule */
	} else {
		return SKIP;
	}
	for (i = 0; i < N_COUNT; i++)
		if ((set & B(i)) && name == nm[i])
			return WHOLE;
	return SKIP;
}

struct read_note {
	char msg[160];
	int line;
};

#define CONTAINER_DEPTH 5 /* root, VM, TEMPLATE, NIC, a value */

struct sax {
	xmlParserCtxtPtr ctxt;
	struct cloud_facts *f;
	int expect, kind; /* kind: -1 until the root is known */
	const char *what;
	char *err;
	size_t errlen;
	poolread_vm_fn each_vm; /* instead of the facts, or NULL */
	void *each_arg;
	int r; /* a refusal of the facts' reading, or -ENOMEM */
	int depth; /* open elements */
	int skip; /* depth of the skipped element we are in, or 0 */
	int whole; /* depth of the value kept whole we are in, or 0 */
	int bare; /* depth of the element kept bare we are in, or 0 */
	const xmlChar *names[CONTAINER_DEPTH + 1]; /* open containers' names */
	const xmlChar *nm[N_COUNT]; /* name_text in the parser's dictionary */
	struct read_note note;
	struct sax_in {
		int (*read)(void *ctx, char *buf, int len);
		void *ctx;
		bool failed;
	} in;
};

static int sax_read(void *arg, char *buf, int len)
{
	struct sax_in *in = arg;
	int n = in->read(in->ctx, buf, len);

	if (n < 0)
		in->failed = true;
	return n;
}

static void sax_stop(struct sax *s, int r)
{
	if (!s->r)
		s->r = r;
	xmlStopParser(s->ctxt);
}

static void sax_error(void *ctx, xmlErrorPtr e)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;
	char raw[160];

	if (!e || s->note.msg[0] || e->level < XML_ERR_ERROR)
		return;
	/* libxml2's messages end with a newline: cut it before sanitizing,
	 * which would make it a '?' */
	snprintf(raw, sizeof(raw), "%s", e->message ? e->message : "");
	raw[strcspn(raw, "\n")] = '\0';
	snprintf(s->note.msg, sizeof(s->note.msg), "%s",
		 str_sanitize(raw[0] ? raw : "parse error").s);
	s->note.line = e->line;
}

static int kind_of(const xmlChar *name)
{
	int k;

	for (k = 0; k < POOL_KINDS; k++)
		if (name && !strcmp((const char *)name, pool_root_name[k]))
			return k;
	return -1;
}

static const char *const child_name[POOL_KINDS] = { "VM", "HOST", "VNET" };

/*
 * Whitespace is judged ignorable or not (XML_PARSE_NOBLANKS: libxml2's
 * heuristic, which looks at the element the text is in) only inside a
 * value kept whole, the only place it is read; elsewhere the parser is
 * told it is all characters (ignorableWhitespace == characters), which
 * sax_chars drops at once, and the heuristic is not run for every
 * indentation of the listing.
 */
static void blanks_judged(struct sax *s, bool on)
{
	s->ctxt->sax->ignorableWhitespace = on ? xmlSAX2IgnorableWhitespace
					       : s->ctxt->sax->characters;
}

static void sax_start(void *ctx, const xmlChar *localname,
		      const xmlChar *prefix, const xmlChar *uri, int nb_ns,
		      const xmlChar **ns, int nb_attrs, int nb_defaulted,
		      const xmlChar **attrs)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;
	const char *name = (const char *)localname;
	int d = ++s->depth;
	enum keep k;

	if (s->skip)
		return;
	if (s->bare) {
		s->skip = d; /* what a bare element holds */
		return;
	}
	if (d == 1) {
		/* the root: by its qualified name, as the pool's */
		s->kind = prefix ? -1 : kind_of(localname);
		if (s->kind < 0 || (s->expect >= 0 && s->kind != s->expect)) {
			if (s->expect >= 0)
				err_set(s->err, s->errlen,
					"%s: expected a <%s> document", s->what,
					pool_root_name[s->expect]);
			else
				err_set(s->err, s->errlen,
					"%s: expected <VM_POOL>, <HOST_POOL> "
					"or <VNET_POOL>",
					s->what);
			s->kind = -1;
			sax_stop(s, -EINVAL);
			return;
		}
		s->f->docs[s->kind]++;
		k = CONTAINER;
	} else if (s->whole) {
		k = WHOLE;
	} else if (d == 2) {
		k = !prefix && !strcmp(name, child_name[s->kind]) ? CONTAINER
								  : SKIP;
	} else {
		/* the functions above match elements without a namespace */
		k = uri || d > CONTAINER_DEPTH
			    ? SKIP
			    : keep_child(s->nm, s->kind, d - 1, s->names[d - 1],
					 localname);
	}
	if (k == SKIP) {
		s->skip = d;
		return;
	}
	if (k == WHOLE && !s->whole) {
		s->whole = d;
		blanks_judged(s, true);
	}
	if (k == BARE)
		s->bare = d;
	if (k == CONTAINER)
		s->names[d] = localname; /* the parser's dictionary keeps it */
	xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_ns, ns, nb_attrs,
			      nb_defaulted, attrs);
}

/* A <VM> as kept, with its ID and STATE, to each_vm. */
static int vm_handed(struct sax *s, const xmlNode *vm)
{
	int id, state,
		r = pool_elem_id(vm, POOL_VM, ++s->f->nth[POOL_VM], &id, s->err,
				 s->errlen);

	if (r)
		return r;
	if (pool_leaf_uint(vm, "STATE", &state))
		state = -1;
	return s->each_vm(s->each_arg, id, state, vm, s->err, s->errlen);
}

/* The pool element just ended: its facts, then it goes. */
static void sax_element_done(struct sax *s)
{
	xmlNodePtr root = s->ctxt->node, node = root ? root->last : NULL;
	int r;

	if (!node)
		return;
	if (s->kind == POOL_VM && s->each_vm)
		r = vm_handed(s, node);
	else if (s->kind == POOL_VM)
		r = pool_vm_element(node, s->f, s->err, s->errlen);
	else if (s->kind == POOL_HOST)
		r = pool_host_element(node, s->f, s->err, s->errlen);
	else
		r = pool_vnet_element(node, s->f, s->err, s->errlen);
	xmlUnlinkNode(node);
	xmlFreeNode(node);
	if (r)
		sax_stop(s, r);
}

static void sax_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		    const xmlChar *uri)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;
	int d = s->depth--;

	if (s->skip) {
		if (d == s->skip)
			s->skip = 0;
		return;
	}
	xmlSAX2EndElementNs(ctx, localname, prefix, uri);
	if (d == s->bare)
		s->bare = 0;
	if (d == s->whole) {
		s->whole = 0;
		blanks_judged(s, false);
	}
	if (d == 2 && !s->r)
		sax_element_done(s);
}

/* Text, CDATA, comments, entity references: only inside a value kept
 * whole, the only place any of them is read. */
static void sax_chars(void *ctx, const xmlChar *ch, int len)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	if (s->whole && !s->skip)
		xmlSAX2Characters(ctx, ch, len);
}

static void sax_cdata(void *ctx, const xmlChar *value, int len)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	if (s->whole && !s->skip)
		xmlSAX2CDataBlock(ctx, value, len);
}

static void sax_comment(void *ctx, const xmlChar *value)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	if (s->whole && !s->skip)
		xmlSAX2Comment(ctx, value);
}

static void sax_pi(void *ctx, const xmlChar *target, const xmlChar *data)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	if (s->whole && !s->skip)
		xmlSAX2ProcessingInstruction(ctx, target, data);
}

static void sax_reference(void *ctx, const xmlChar *name)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	if (s->whole && !s->skip)
		xmlSAX2Reference(ctx, name);
}

static void sax_doctype(void *ctx, const xmlChar *name, const xmlChar *eid,
			const xmlChar *sid)
{
	struct sax *s = ((xmlParserCtxtPtr)ctx)->_private;

	(void)name;
	(void)eid;
	(void)sid;
	err_set(s->err, s->errlen,
		"%s: DOCTYPE refused (no DTD or entity is accepted)", s->what);
	sax_stop(s, -EINVAL);
}

static void sax_handler(xmlSAXHandler *h)
{
	memset(h, 0, sizeof(*h));
	h->initialized = XML_SAX2_MAGIC;
	h->setDocumentLocator = xmlSAX2SetDocumentLocator;
	h->startDocument = xmlSAX2StartDocument;
	h->endDocument = xmlSAX2EndDocument;
	h->internalSubset = sax_doctype;
	h->startElementNs = sax_start;
	h->endElementNs = sax_end;
	h->characters = sax_chars;
	h->cdataBlock = sax_cdata;
	h->comment = sax_comment;
	h->processingInstruction = sax_pi;
	h->reference = sax_reference;
	h->serror = sax_error;
}

static int doc_read(struct cloud_facts *f, int expect,
		    int (*read)(void *ctx, char *buf, int len), void *ctx,
		    const char *what, poolread_vm_fn each_vm, void *each_arg,
		    char *err, size_t errlen)
{
	struct sax s = { .f = f,
			 .expect = expect,
			 .kind = -1,
			 .what = what,
			 .each_vm = each_vm,
			 .each_arg = each_arg,
			 .err = err,
			 .errlen = errlen };
	xmlSAXHandler h;
	int n, r;

	xmlInitParser();
	err[0] = '\0';
	sax_handler(&h);
	/* Pulled through read, as xmllint --sax reads a file (the push
	 * parser re-checks its buffer at every token). No user data: the
	 * SAX2 builder's callbacks get the parser's context. */
	s.in.read = read;
	s.in.ctx = ctx;
	s.ctxt = xmlCreateIOParserCtxt(&h, NULL, sax_read, NULL, &s.in,
				       XML_CHAR_ENCODING_NONE);
	if (!s.ctxt) {
		err_set(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	s.ctxt->_private = &s;
	for (n = 0; n < N_COUNT; n++) {
		s.nm[n] =
			xmlDictLookup(s.ctxt->dict, BAD_CAST name_text[n], -1);
		if (!s.nm[n])
			s.r = -ENOMEM;
	}
	/* No XML_PARSE_NOENT: entities are never substituted; no DTD loads.
	 * NODICT: the kept values' texts (70,000 VM IDs...) are not interned
	 * in the dictionary every element name is looked up in. */
	xmlCtxtUseOptions(s.ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR |
					  XML_PARSE_NOBLANKS |
					  XML_PARSE_NOWARNING |
					  XML_PARSE_NODICT);
	blanks_judged(&s, false); /* after the options, which set it */
	if (!s.r)
		xmlParseDocument(s.ctxt);
	r = s.r;
	/* well-formedness, as the tree reader judged it (a namespace error
	 * alone is not fatal); the input failing is (the reader says why) */
	if (!r && (!s.ctxt->wellFormed || s.in.failed))
		r = -EINVAL;
	if (r == -ENOMEM)
		err_set(err, errlen, "%s: out of memory", what);
	else if ((r || s.kind < 0) && !err[0] && s.note.line)
		err_set(err, errlen, "%s: not well-formed XML: line %d: %s",
			what, s.note.line,
			s.note.msg[0] ? s.note.msg : "parse error");
	else if ((r || s.kind < 0) && !err[0])
		err_set(err, errlen, "%s: not well-formed XML: %s", what,
			s.note.msg[0] ? s.note.msg : "no root element");
	if (s.kind < 0 && !r)
		r = -EINVAL;
	if (s.ctxt->myDoc)
		xmlFreeDoc(s.ctxt->myDoc);
	xmlFreeParserCtxt(s.ctxt);
	return r;
}

int poolread_doc(struct cloud_facts *f, int expect,
		 int (*read)(void *ctx, char *buf, int len), void *ctx,
		 const char *what, char *err, size_t errlen)
{
	return doc_read(f, expect, read, ctx, what, NULL, NULL, err, errlen);
}

struct mem_in {
	const char *p;
	size_t len, at;
};

static int mem_read(void *ctx, char *buf, int len)
{
	struct mem_in *in = ctx;
	size_t n = in->len - in->at;

	if (n > (size_t)len)
		n = (size_t)len;
	memcpy(buf, in->p + in->at, n);
	in->at += n;
	return (int)n;
}

int poolread_mem(struct cloud_facts *f, int expect, const char *xml, size_t len,
		 const char *what, char *err, size_t errlen)
{
	struct mem_in in = { xml, len, 0 };

	if (!xml || !len) {
		err_set(err, errlen, "%s: empty document", what);
		return -EINVAL;
	}
	return poolread_doc(f, expect, mem_read, &in, what, err, errlen);
}

static int files_read(struct cloud_facts *f, int expect, int n,
		      char *const *paths, poolread_vm_fn each_vm,
		      void *each_arg, char *err, size_t errlen)
{
	struct pool_stream *s = malloc(sizeof(*s));
	bool stdin_read = false;
	int i, r = s ? 0 : -ENOMEM;

	err[0] = '\0';
	for (i = 0; i < (n ? n : 1) && !r; i++) {
		const char *a = n ? paths[i] : "-";
		enum pool_kind kind;
		FILE *in = stdin;

		if (!strcmp(a, "-")) {
			if (stdin_read) {
				err_set(err, errlen, "- given twice");
				r = -EINVAL;
				break;
			}
			stdin_read = true;
			pool_stream_init(s, stdin, "standard input");
		} else {
			in = fopen(a, "re");
			if (!in) {
				r = -errno;
				err_set(err, errlen, "%.200s: %s", a,
					strerror(-r));
				break;
			}
			pool_stream_init(s, in, a);
		}
		while (!r &&
		       (r = pool_stream_next(s, &kind, err, errlen)) == 1) {
			r = doc_read(f, expect, pool_stream_read, s, s->origin,
				     each_vm, each_arg, err, errlen);
			if (r && s->err[0]) /* the input, not the XML */
				err_set(err, errlen, "%s", s->err);
		}
		if (in != stdin)
			fclose(in);
	}
	if (r == -ENOMEM && !err[0])
		err_set(err, errlen, "out of memory");
	free(s);
	return r;
}

int poolread_files(struct cloud_facts *f, int expect, int n, char *const *paths,
		   char *err, size_t errlen)
{
	return files_read(f, expect, n, paths, NULL, NULL, err, errlen);
}

int poolread_vms(const char *path, poolread_vm_fn each, void *arg, char *err,
		 size_t errlen)
{
	struct cloud_facts f = { 0 };
	char *const paths[] = { (char *)path };
	int r = files_read(&f, POOL_VM, 1, paths, each, arg, err, errlen);

	cloud_facts_free(&f);
	return r;
}
