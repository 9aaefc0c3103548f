// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/xml.h"

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
			ibattr_err_not_value((enum ib_attr)a, who,
					     xml_raw_text(first[a]).s, err,
					     errlen);
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

/* "VM 42 (NIC element 2): no NIC_ID", or -1 and nothing said. */
static int nic_id(const xmlNode *nic, int vm_id, size_t nth,
		  struct one_nic *out)
{
	int count, id;
	xmlNodePtr e = xml_only_child(nic, "NIC_ID", &count);
	char *v;

	if (!e) {
		err_set(out->why_id, sizeof(out->why_id),
			"VM %d (NIC element %zu): %s", vm_id, nth,
			count ? "NIC_ID given twice" : "no NIC_ID");
		return -1;
	}
	v = xml_leaf_text(e);
	if (!v || dec_parse_int(v, &id)) {
		err_set(out->why_id, sizeof(out->why_id),
			"VM %d (NIC element %zu): malformed NIC_ID '%s'", vm_id,
			nth, xml_raw_text(e).s);
		free(v);
		return -1;
	}
	free(v);
	return id;
}

/*
 * Every element of a NIC once: oned writes each once, so a second one is
 * never ours to choose between.
 */
static bool no_twice(const xmlNode *nic, const char *who, struct one_nic *out)
{
	const xmlNode *a, *b;

	for (a = nic->children; a; a = a->next) {
		if (a->type != XML_ELEMENT_NODE)
			continue;
		for (b = a->next; b; b = b->next) {
			if (b->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(a->name, b->name) != 0 || a->ns != b->ns)
				continue;
			err_set(out->why_id, sizeof(out->why_id),
				"%s: %s given twice", who,
				str_sanitize((const char *)a->name).s);
			return false;
		}
	}
	return true;
}

static void nic_mac(const xmlNode *nic, const char *who, struct one_nic *out)
{
	char *v;
	int r = xml_only_leaf(nic, "MAC", &v);

	if (!r && !mac_parse(v, &out->mac))
		out->has_mac = true;
	else if (r == -ENOENT)
		err_set(out->why_mac, sizeof(out->why_mac), "%s: no MAC", who);
	else
		err_set(out->why_mac, sizeof(out->why_mac),
			"%s: malformed MAC '%s'", who,
			v ? str_sanitize(v).s
			  : xml_raw_text(xml_child(nic, "MAC", NULL)).s);
	free(v);
}

/* Read even without a NIC_ID: the renderer names the network such a NIC
 * is left out of. Given twice: no_twice says so. */
static void nic_net(const xmlNode *nic, const char *who, struct one_nic *out)
{
	char *v;
	int count, r = xml_only_leaf(nic, "NETWORK_ID", &v);

	xml_child(nic, "NETWORK_ID", &count);
	if (r == -ENOENT || count > 1)
		return;
	if (r || dec_parse_int(v, &out->network_id)) {
		out->network_id = -1;
		err_set(out->why_net, sizeof(out->why_net),
			"%s: malformed NETWORK_ID '%s'", who,
			v ? str_sanitize(v).s
			  : xml_raw_text(xml_child(nic, "NETWORK_ID", NULL)).s);
	}
	free(v);
}

/* IP: an IPv4 address, or none (a NIC of an IPv6 or Ethernet range). */
static void nic_ip(const xmlNode *nic, struct one_nic *out)
{
	struct in_addr a;
	char *v;

	if (!xml_only_leaf(nic, "IP", &v) && inet_pton(AF_INET, v, &a) == 1) {
		out->has_ip = true;
		out->ip = ntohl(a.s_addr);
	}
	free(v);
}

void one_nic_read(const xmlNode *nic, int vm_id, size_t nth,
		  struct one_nic *out)
{
	char who[64];

	memset(out, 0, sizeof(*out));
	out->network_id = -1;
	out->ib = xml_has_leaf(nic, "VN_MAD", "ib");
	out->attach = xml_has_leaf(nic, "ATTACH", "YES");
	out->nic_id = nic_id(nic, vm_id, nth, out);
	if (out->nic_id < 0)
		snprintf(who, sizeof(who), "VM %d (NIC element %zu)", vm_id,
			 nth);
	else
		snprintf(who, sizeof(who), "VM %d NIC %d", vm_id, out->nic_id);
	nic_net(nic, who, out);
	if (out->nic_id < 0 || !no_twice(nic, who, out))
		return;
	nic_mac(nic, who, out);
	nic_ip(nic, out);
	xml_ib_attrs(nic,
		     IBA_BIT(IBA_PKEY) | IBA_BIT(IBA_PF) | IBA_BIT(IBA_PORT) |
			     IBA_BIT(IBA_RAILS) | IBA_BIT(IBA_AFFINITY),
		     0, &out->a, who, out->why_attr, sizeof(out->why_attr));
}
