/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XML gate: every document one-ib reads that a tenant can influence
 * (OpenNebula's VM XML and pool listings, libvirt's domain XML) enters the
 * tree API through xml_read_untrusted(), and is walked with the helpers
 * below, so that "the only <ID> of a <VM>" or "the text of a <NIC_ID>"
 * means the same in every reader:
 *
 *   <NIC><NIC_ID><![CDATA[1]]></NIC_ID><MAC>02:00:c0:a8:01:05</MAC></NIC>
 *   xml_only_child(nic, "NIC_ID", &n)   -> <NIC_ID>, n = 1
 *   xml_leaf_text(<NIC_ID>)             -> "1"
 *   xml_only_leaf(nic, "MAC", &v)       -> 0, v = "02:00:c0:a8:01:05"
 *
 * Only elements without a namespace count: libvirt's and OpenNebula's own
 * elements carry none; <one:vm> and friends are not ours.
 */
#ifndef ONEIB_XML_H
#define ONEIB_XML_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "core/log.h"

/*
 * Parses with libxml2's tree API, refusing a DOCTYPE (internal or external
 * subset, hence any entity declaration), entity references, namespace
 * errors and anything not well-formed. Nothing is fetched and libxml2
 * prints nothing: its first error becomes one line,
 *   <what>: not well-formed XML: line 3: Opening and ending tag mismatch: ...
 * Returns the document (free with xmlFreeDoc) or NULL with err filled.
 */
xmlDocPtr xml_read_untrusted(const char *xml, size_t len, const char *what,
			     char *err, size_t errlen);

/* An element of that name without a namespace. */
bool xml_is_elem(const xmlNode *n, const char *name);

/* The first child element called name; *count (unless NULL) how many. */
xmlNodePtr xml_child(const xmlNode *parent, const char *name, int *count);

/*
 * The only child element called name: NULL when there is none or more
 * than one, *count (unless NULL) saying which (0, or 2 and more).
 */
xmlNodePtr xml_only_child(const xmlNode *parent, const char *name, int *count);

/*
 * The text of a leaf element, text and CDATA pieces joined:
 * <NIC_ID><![CDATA[1]]></NIC_ID> -> "1" (malloc'd). NULL when it holds
 * anything else (elements, comments), which no value OpenNebula writes does,
 * or on ENOMEM.
 */
char *xml_leaf_text(const xmlNode *e);

/*
 * The text of the only child called name (malloc'd into *out): -ENOENT
 * when absent, -EINVAL when given twice or not a leaf; *out is NULL then.
 */
int xml_only_leaf(const xmlNode *parent, const char *name, char **out);

/* Does some child element called name hold exactly the text value?
 * (<NIC><VN_MAD>ib</VN_MAD>...: xml_has_leaf(nic, "VN_MAD", "ib")) */
bool xml_has_leaf(const xmlNode *parent, const char *name, const char *value);

/* What an element holds, for an error line: all its text, sanitized. */
struct san_str xml_raw_text(const xmlNode *e);

#endif
