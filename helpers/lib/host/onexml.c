// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/xml.h"
#include "host/onexml.h"

/* --- the VM -------------------------------------------------------------- */

/* nth: 1-based position among TEMPLATE/NIC, for a NIC without a NIC_ID. */
static int parse_nic(const xmlNode *nic, int vm_id, size_t nth,
		     struct ib_nic *out, char *err, size_t errlen)
{
	struct one_nic x;
	const char *why;

	one_nic_read(nic, vm_id, nth, &x);
	why = x.why_id[0]     ? x.why_id
	      : x.why_mac[0]  ? x.why_mac
	      : x.why_attr[0] ? x.why_attr
			      : NULL;
	if (!why && !ibattr_has(&x.a, IBA_PKEY)) {
		err_set(err, errlen,
			"VM %d NIC %d: no IB_PKEY (the virtual network sets "
			"it, INHERIT_VNET_ATTR must carry it)",
			vm_id, x.nic_id);
		return -EINVAL;
	}
	if (!why && x.why_net[0])
		why = x.why_net;
	if (why) {
		err_set(err, errlen, "%s", why);
		return -EINVAL;
	}
	out->nic_id = x.nic_id;
	out->mac = x.mac;
	out->pkey = x.a.pkey;
	out->network_id = x.network_id;
	out->has_pf = ibattr_has(&x.a, IBA_PF);
	out->pf = x.a.pf;
	out->port = ibattr_has(&x.a, IBA_PORT) ? x.a.port : 0;
	out->attach = x.attach;
	out->rails = x.a.rails;
	out->affinity = x.a.affinity;
	return 0;
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
	int count;

	if (xml_is_elem(root, "VM"))
		return root;
	if (!xml_is_elem(root, "VMM_DRIVER_ACTION_DATA")) {
		err_set(err, errlen,
			"VM XML: root element <%s> is neither <VM> nor "
			"<VMM_DRIVER_ACTION_DATA>",
			str_sanitize((const char *)root->name).s);
		return NULL;
	}
	vm = xml_only_child(root, "VM", &count);
	if (!vm) {
		err_set(err, errlen,
			"VM XML: <VMM_DRIVER_ACTION_DATA> has %s <VM>",
			count ? "more than one" : "no");
		return NULL;
	}
	return vm;
}

static int parse_vm_id(const xmlNode *vm, int *id, char *err, size_t errlen)
{
	xmlNodePtr e;
	int count;
	char *v;

	e = xml_only_child(vm, "ID", &count);
	if (!e) {
		err_set(err, errlen, "VM XML: <VM> has %s <ID>",
			count ? "more than one" : "no");
		return -EINVAL;
	}
	v = xml_leaf_text(e);
	if (!v || dec_parse_int(v, id)) {
		err_set(err, errlen, "VM XML: <VM> ID '%s' is not a number",
			xml_raw_text(e).s);
		free(v);
		return -EINVAL;
	}
	free(v);
	return 0;
}

/* NUMA_NODE's CPUS ("0,1,2,3"), OR'ed into vm->cpus; one without CPUS
 * (a guest topology oned did not pin) adds nothing. */
static int parse_numa_node(const xmlNode *n, struct one_vm *vm, char *err,
			   size_t errlen)
{
	uint64_t one[CPULIST_WORDS];
	char *v = NULL;
	int r, i;

	r = xml_only_leaf(n, "CPUS", &v);
	if (r == -ENOENT || (!r && !*v)) {
		free(v);
		return 0;
	}
	if (r || cpulist_parse(v, one, false)) {
		err_set(err, errlen,
			"VM %d: NUMA_NODE CPUS '%s' is not a CPU list", vm->id,
			v ? str_sanitize(v).s : "(given twice)");
		free(v);
		return -EINVAL;
	}
	free(v);
	for (i = 0; i < CPULIST_WORDS; i++)
		vm->cpus[i] |= one[i];
	vm->pinned = true;
	return 0;
}

/* TEMPLATE/PCI's ADDRESS ("0000:17:00:0" as oned writes it, or the
 * kernel's "0000:17:00.0"), appended to vm->pci; a PCI without one (not
 * assigned yet) adds nothing. */
static int parse_pci(const xmlNode *n, struct one_vm *vm, size_t *cap,
		     char *err, size_t errlen)
{
	struct pci_addr a;
	char *v = NULL;
	int r;

	r = xml_only_leaf(n, "ADDRESS", &v);
	if (r == -ENOENT || (!r && !*v)) {
		free(v);
		return 0;
	}
	if (!r)
		r = pci_addr_parse_one(v, &a);
	if (r) {
		err_set(err, errlen,
			"VM %d: PCI ADDRESS '%s' is not a PCI address", vm->id,
			v ? str_sanitize(v).s : "(given twice)");
		free(v);
		return -EINVAL;
	}
	free(v);
	if (ALLOC_GROW(vm->pci, vm->npci + 1, *cap)) {
		err_set(err, errlen, "VM %d: out of memory", vm->id);
		return -ENOMEM;
	}
	vm->pci[vm->npci++] = a;
	return 0;
}

int onexml_parse_vm(const char *xml, size_t len, struct one_vm *vm, char *err,
		    size_t errlen)
{
	size_t pcicap = 0;
	struct one_vm res = { .id = -1 };
	xmlNodePtr vmn, tmpl, c;
	size_t count = 0, nth = 0;
	xmlDocPtr doc;
	int ntmpl, r = -EINVAL;

	memset(vm, 0, sizeof(*vm));
	doc = xml_read_untrusted(xml, len, "VM XML", err, errlen);
	if (!doc)
		return -EINVAL;
	vmn = find_vm(xmlDocGetRootElement(doc), err, errlen);
	if (!vmn || parse_vm_id(vmn, &res.id, err, errlen))
		goto out;
	tmpl = xml_child(vmn, "TEMPLATE", &ntmpl);
	if (ntmpl > 1) {
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
		if (xml_is_elem(c, "NUMA_NODE")) {
			r = parse_numa_node(c, &res, err, errlen);
			if (r)
				goto out;
			continue;
		}
		if (xml_is_elem(c, "PCI")) {
			r = parse_pci(c, &res, &pcicap, err, errlen);
			if (r)
				goto out;
			continue;
		}
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
		res.n++;
	}
	r = check_unique(&res, err, errlen);
out:
	xmlFreeDoc(doc);
	if (r) {
		free(res.nics);
		free(res.pci);
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
	free(vm->pci);
	vm->pci = NULL;
	vm->npci = 0;
}
