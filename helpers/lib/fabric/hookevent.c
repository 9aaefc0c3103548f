// SPDX-License-Identifier: Apache-2.0
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/xml.h"
#include "fabric/hookevent.h"

/* The VM IDs oned hands out: 0..999999999 (the hook took 1 to 9 digits) */
#define ID_DIGITS_MAX 9

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* RFC 4648 base64, blanks skipped, "=" ends it: malloc'd bytes, or NULL. */
static char *b64_decode(const char *s, size_t len, size_t *out_len)
{
	char *out = malloc(len / 4 * 3 + 4);
	unsigned acc = 0;
	size_t i, n = 0;
	int bits = 0, v;

	if (!out)
		return NULL;
	for (i = 0; i < len && s[i] != '='; i++) {
		if (strchr(" \t\r\n", s[i]))
			continue;
		v = b64_value(s[i]);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (char)(acc >> bits & 0xff);
		}
	}
	*out_len = n;
	return out;
}

/* "42" with at most ID_DIGITS_MAX digits: 42; anything else -1. */
static int id_of(const char *s)
{
	int id;

	if (!s || strlen(s) > ID_DIGITS_MAX || dec_parse_int(s, &id))
		return -1;
	return id;
}

static int leaf_id(const xmlNode *parent, const char *name)
{
	char *v = NULL;
	int id = -1;

	if (!xml_only_leaf(parent, name, &v))
		id = id_of(v);
	free(v);
	return id;
}

/* <VM><ID>42</ID>...: 42 */
static int state_vm(const xmlNode *root)
{
	return xml_is_elem(root, "VM") ? leaf_id(root, "ID") : -1;
}

/* The second PARAMETER of the call, position 2, type IN: its value. */
static int call_vm(const xmlNode *root)
{
	const xmlNode *ps, *p;
	char *v = NULL;
	int nth = 0, id = -1;

	if (!xml_is_elem(root, "CALL_INFO"))
		return -1;
	ps = xml_only_child(root, "PARAMETERS", NULL);
	for (p = ps ? ps->children : NULL; p; p = p->next) {
		if (p->type != XML_ELEMENT_NODE)
			continue;
		if (!xml_is_elem(p, "PARAMETER") || ++nth == 2)
			break;
	}
	if (!p || nth != 2 || leaf_id(p, "POSITION") != 2 ||
	    xml_only_leaf(p, "TYPE", &v) || strcmp(v, "IN"))
		goto out;
	id = leaf_id(p, "VALUE");
out:
	free(v);
	return id;
}

struct hook_event hook_event_read(const char *text, size_t len)
{
	struct hook_event ev = { HOOK_EVENT_ALL, -1 };
	size_t k = 0, blen;
	char *xml, err[128];
	xmlDocPtr doc;
	bool nic;

	while (k < len && strchr(" \t\r\n", text[k]))
		k++;
	text += k;
	len -= k;
	for (k = 0; k < len && !strchr(" \t\r\n", text[k]); k++)
		;
	if (k == 6 && !memcmp(text, "vm-new", 6)) {
		ev.kind = HOOK_EVENT_NEW;
		return ev;
	}
	if (k == 8 && !memcmp(text, "vm-state", 8))
		nic = false;
	else if (k == 6 && !memcmp(text, "vm-nic", 6))
		nic = true;
	else
		return ev;
	xml = b64_decode(text + k, len - k, &blen);
	doc = xml ? xml_read_untrusted(xml, blen, "the event", err, sizeof(err))
		  : NULL;
	if (doc) {
		const xmlNode *root = xmlDocGetRootElement(doc);
		int id = nic ? call_vm(root) : state_vm(root);

		if (id >= 0) {
			ev.kind = HOOK_EVENT_VM;
			ev.vm = id;
		}
		xmlFreeDoc(doc);
	}
	free(xml);
	return ev;
}
