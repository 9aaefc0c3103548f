// SPDX-License-Identifier: Apache-2.0
/* The <VM_POOL> reader (poolelem.h): each VM's facts and its NICs'. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/onenic.h"
#include "core/pci.h"
#include "core/xml.h"
#include "fabric/poolelem.h"

/* --- the <VM_POOL> --------------------------------------------------------- */

#define VM_STATE_ACTIVE 3
#define LCM_INIT 0

/* See the membership rule in partitions.h: a VM holding VFs or about to
 * (not POWEROFF nor SUSPENDED: kvm-ib releases their VFs). */
static bool vm_has_host(int state, int lcm)
{
	return state == VM_STATE_ACTIVE && lcm != LCM_INIT;
}

/*
 * Kept as a record: whether it is InfiniBand depends on its network. Read
 * by the one <NIC> reader deploy uses (core/onenic.h); a rule it breaks
 * leaves the NIC out, a bad MAC only where the MAC is used.
 */
static int vm_nic(const struct one_nic *x, int vm_id, struct cloud_facts *f)
{
	struct nic_fact *n;

	if (x->network_id < 0 && !x->ib)
		return 0; /* not on a network of the pool */
	n = cloud_facts_new_nic(f);
	if (!n)
		return -ENOMEM;
	n->vm = vm_id;
	n->ib = x->ib;
	n->net = x->network_id < 0 ? FACT_NONE : x->network_id;
	n->nic = x->nic_id < 0 ? FACT_NONE : x->nic_id;
	if (x->why_id[0])
		return pool_keep(f, &n->bad, "%s", x->why_id);
	if (x->why_net[0])
		return pool_keep(f, &n->bad, "%s", x->why_net);
	if (n->net == FACT_NONE)
		return pool_keep(f, &n->bad, "VM %d NIC %d: no NETWORK_ID",
				 vm_id, n->nic);
	n->has_mac = x->has_mac;
	n->mac = x->mac;
	if (x->why_mac[0] && pool_keep(f, &n->bad_mac, "%s", x->why_mac))
		return -ENOMEM;
	if (x->why_attr[0])
		return pool_keep(f, &n->bad, "%s", x->why_attr);
	/* Only the full listing (--extended) carries the inherited key. */
	n->has_pkey = ibattr_has(&x->a, IBA_PKEY);
	n->pkey = x->a.pkey;
	return 0;
}

/*
 * The host a VM is on: HID of its last history record, which is the one
 * `onevm list -x` prints (<HISTORY_RECORDS><HISTORY>...<HID>3</HID>);
 * FACT_NONE when there is none or it does not read as an ID.
 */
static int vm_host(const xmlNode *vm)
{
	const xmlNode *hr, *h, *last = NULL;
	int count, hid;

	hr = xml_only_child(vm, "HISTORY_RECORDS", &count);
	for (h = hr ? hr->children : NULL; h; h = h->next)
		if (xml_is_elem(h, "HISTORY"))
			last = h;
	if (!last || pool_leaf_uint(last, "HID", &hid))
		return FACT_NONE;
	return hid;
}

/*
 * The value of parent's only <name>, whole (a requirement cut short could
 * not be rewritten), kept in f: *idx its text index; left as it was when
 * there is none. 0 or -ENOMEM.
 */
static int keep_value(const xmlNode *parent, const char *name, int *idx,
		      struct cloud_facts *f)
{
	char *val = NULL;
	int r = 0;

	if (parent && !xml_only_leaf(parent, name, &val)) {
		r = cloud_facts_text(f, val);
		if (r >= 0) {
			*idx = r;
			r = 0;
		}
	}
	free(val);
	return r;
}

/*
 * The VM for the VF counters, whatever its state: its SCHED_REQUIREMENTS
 * (its InfiniBand NICs are counted as vm_element reads them).
 */
static struct vm_fact *vm_counted(const xmlNode *vm, int id, int state,
				  struct cloud_facts *f)
{
	struct vm_fact *v = cloud_facts_new_vm(f);
	int count;

	if (!v)
		return NULL;
	v->id = id;
	v->state = state;
	return keep_value(xml_only_child(vm, "USER_TEMPLATE", &count),
			  "SCHED_REQUIREMENTS", &v->req, f)
		       ? NULL
		       : v;
}

/* Whether it has a CONTEXT, and the map one-ib last wrote there. */
static int vm_context(const xmlNode *t, struct vm_fact *v,
		      struct cloud_facts *f)
{
	int count;
	const xmlNode *ctx = xml_only_child(t, "CONTEXT", &count);

	v->context = ctx != NULL;
	return keep_value(ctx, "ONEIB_TOPOLOGY", &v->topo, f);
}

/* A hex value of a PCI request ("0302", "10de"), -1 when unset or not
 * one (oned refuses such a request itself). */
static int pci_hex(const xmlNode *pci, const char *name)
{
	char *v = NULL, *end;
	long n = -1;

	if (!xml_only_leaf(pci, name, &v) && *v) {
		n = strtol(v, &end, 16);
		if (*end || n < 0 || n > 0xffff)
			n = -1;
	}
	free(v);
	return (int)n;
}

/*
 * A PCI=[...] of the VM (cloudfacts.h): what it asks for and the device
 * oned gave it. An ADDRESS that is no address is as none: the VM's NICs
 * then pair with nothing known, which only the counters' estimate reads.
 */
static int vm_pci(const xmlNode *pci, struct cloud_facts *f)
{
	struct vm_pci p = { .vendor = pci_hex(pci, "VENDOR"),
			    .device = pci_hex(pci, "DEVICE"),
			    .cls = pci_hex(pci, "CLASS") };
	char *v = NULL;

	if (!xml_only_leaf(pci, "ADDRESS", &v))
		p.has_addr = !pci_addr_parse_one(v, &p.addr);
	free(v);
	v = NULL;
	if (p.vendor < 0 && p.device < 0 && p.cls < 0 &&
	    !xml_only_leaf(pci, "SHORT_ADDRESS", &v))
		p.has_short = !pci_addr_parse_short(v, &p.short_addr);
	free(v);
	return cloud_facts_add_vmpci(f, &p);
}

/*
 * Each <NIC> is read once (the one <NIC> reader): counted for the VF
 * counters in any state, a NIC fact only while the VM has a host.
 */
int pool_vm_element(const xmlNode *vm, struct cloud_facts *f, char *err,
		    size_t errlen)
{
	size_t nth = ++f->nth[POOL_VM], k = 0, first, vi;
	const xmlNode *t, *c;
	int id, state, lcm = 0, count, r, host;
	bool placed;

	r = pool_elem_id(vm, POOL_VM, nth, &id, err, errlen);
	if (r)
		return r;
	if (pool_leaf_uint(vm, "STATE", &state) ||
	    (state == VM_STATE_ACTIVE &&
	     pool_leaf_uint(vm, "LCM_STATE", &lcm))) {
		err_set(err, errlen, "VM %d: no STATE or LCM_STATE", id);
		return -EINVAL;
	}
	if (!vm_counted(vm, id, state, f))
		return -ENOMEM;
	vi = f->nvms - 1;
	t = xml_only_child(vm, "TEMPLATE", &count);
	r = t ? vm_context(t, &f->vms[vi], f) : 0;
	if (r)
		return r;
	placed = vm_has_host(state, lcm);
	first = f->nnics;
	for (c = t ? t->children : NULL; c; c = c->next) {
		struct one_nic x;

		if (xml_is_elem(c, "PCI") && vm_pci(c, f))
			return -ENOMEM;
		if (!xml_is_elem(c, "NIC"))
			continue;
		one_nic_read(c, id, ++k, &x);
		f->vms[vi].ib_nics += x.ib;
		if (x.ib && x.network_id >= 0 && f->vms[vi].net == FACT_NONE) {
			f->vms[vi].net = x.network_id;
			f->vms[vi].has_ip = x.has_ip;
			f->vms[vi].ip = x.ip;
		}
		if (x.ib && x.network_id >= 0) {
			struct vm_ibnet *b;

			if (cloud_facts_add_ibnet(f, x.network_id, x.has_ip,
						  x.ip))
				return -ENOMEM;
			b = cloud_facts_last_ibnet(f);
			b->nic = x.nic_id;
			b->rails = x.a.rails;
			b->affinity = x.a.affinity;
		}
		r = placed ? vm_nic(&x, id, f) : 0;
		if (r)
			return r;
	}
	if (!placed)
		return 0;
	host = vm_host(vm);
	for (; first < f->nnics; first++)
		f->nics[first].host = host;
	return 0;
}
