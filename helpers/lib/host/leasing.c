// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/domview.h"
#include "core/guid.h"
#include "host/leasing.h"
#include "core/log.h"
#include "host/placement.h"
#include "host/pkeycmd.h"

#define ERRLEN 512

static bool programs(const struct leasing_cfg *cfg)
{
	return cfg->pkey_cmd && *cfg->pkey_cmd;
}

/*
 * Which domains' XML a scan must read. An OpenNebula domain one-N whose VM
 * N holds leases holds exactly the VFs leased to it: deploy put them in its
 * XML, and every other way a VF enters a domain of ours goes through the
 * ledger as well. Its VFs are taken already, so reading it would only cost
 * a round trip per VM on the host. Every other domain is read: foreign
 * ones, and one-N without a lease. (reconcile, the safety net, reads all.)
 */
struct vouch {
	const struct ledger *l;
	int vmid; /* always read this VM's domain; -1: none */
	bool keep; /* and keep its XML (virt_domain.xml) */
};

static enum virt_read need_xml(const char *name, int vmid, void *ctx)
{
	const struct vouch *v = ctx;

	(void)name;
	if (vmid >= 0 && vmid == v->vmid)
		return v->keep ? VIRT_READ_KEEP : VIRT_READ;
	return vmid < 0 || ledger_find_vm(v->l, vmid) < 0 ? VIRT_READ
							  : VIRT_SKIP;
}

/*
 * The rails of the host's ports by cfg's map: from the leaves the probe
 * kept (host/rails.h). A leaves file that cannot be read leaves the
 * ports without rails, logged: a deploy still gets VFs.
 */
static void host_rails(const struct leasing_cfg *cfg, struct hca_list *hcas)
{
	char why[ERRLEN];

	if (!cfg->rail_map || !cfg->rail_map->n)
		return;
	if (leaves_read(cfg->ledger_dir, hcas, why, sizeof(why)))
		log_msg("%s", why);
	rails_assign(hcas, cfg->rail_map);
}

int leasing_open(struct leasing *s, const struct leasing_cfg *cfg, char *err,
		 size_t errlen)
{
	struct vouch v = { .l = &s->l, .vmid = -1 };
	int r;

	memset(s, 0, sizeof(*s));
	lease_clock_now(&s->now);
	s->cfg = cfg;
	s->l.lock_fd = -1;
	r = hca_inventory(&s->hcas);
	if (r) {
		snprintf(err, errlen, "cannot read /sys: %s", strerror(-r));
		return r;
	}
	host_rails(cfg, &s->hcas);
	r = ledger_open(&s->l, cfg->ledger_dir, err, errlen);
	/* What libvirt says, shared with the deploys queued behind on the
	 * lock (domview.h). */
	if (!r)
		r = domview_get(cfg->ledger_dir, cfg->uri, &s->now.boot,
				need_xml, &v, &s->doms, err, errlen);
	if (r)
		leasing_close(s);
	return r;
}

void leasing_close(struct leasing *s)
{
	ledger_close(&s->l);
	hca_list_free(&s->hcas);
	virt_domains_free(&s->doms);
}

/* "VM 42 NIC 1: GUID 0x... is already leased to VM 7 NIC 0 on VF ..." */
static int guid_free(const struct ledger *l, int vmid, int nic_id,
		     uint64_t guid, char *err, size_t errlen)
{
	char gs[GUID_STRLEN], vs[PCI_ADDR_STRLEN];
	long g = ledger_find_guid(l, guid);

	if (g < 0 || (l->v[g].vmid == vmid && l->v[g].nic_id == nic_id))
		return 0;
	guid_fmt_hex(guid, gs);
	pci_addr_fmt(&l->v[g].vf, vs);
	snprintf(err, errlen,
		 "VM %d NIC %d: GUID %s is already leased to VM %d NIC %d on "
		 "VF %s",
		 vmid, nic_id, gs, l->v[g].vmid, l->v[g].nic_id, vs);
	return -EEXIST;
}

/* The host's VF at addr, or NULL. */
static struct vf *host_vf(struct hca_list *hcas, const struct pci_addr *a)
{
	size_t i, j;

	for (i = 0; i < hcas->n; i++)
		for (j = 0; j < hcas->v[i].nvfs; j++)
			if (!pci_addr_cmp(&hcas->v[i].vfs[j].addr, a))
				return &hcas->v[i].vfs[j];
	return NULL;
}

/*
 * placement_choose over an inventory whose VFs are probed as it goes: a
 * choice not probed yet is probed and the question asked again; a refusal
 * is final once every VF is probed (its counts are then exact).
 */
static int choose(struct leasing *s, const struct placement_request *rq,
		  struct placement *ch, char *err, size_t errlen)
{
	for (;;) {
		int r = placement_choose(&s->hcas, &s->l, &s->doms, rq, ch, err,
					 errlen);

		if (!r && ch->vf->unprobed) {
			hca_vf_probe(host_vf(&s->hcas, &ch->vf->addr));
			continue;
		}
		if (r == -EBUSY && hca_probe_all(&s->hcas))
			continue;
		return r;
	}
}

/*
 * A NIC's lease that no longer fits (its VF unassignable, its port not
 * eligible, another MAC or P_Key): its VF may still carry the NIC's GUID,
 * programmed by an earlier deploy that died or failed, and oneib-pkey
 * refuses a GUID already on another VF of the host. So that VF is unmapped
 * before the NIC gets another; when that fails the lease stays and the
 * action fails, naming the VF. Not a VF gone from the host, nor one a
 * domain uses (its GUID is that domain's business).
 */
static int unmap_unfit(const struct leasing *s, const struct lease *x,
		       const struct vf *own, char *err, size_t errlen)
{
	char why[ERRLEN];

	if (!programs(s->cfg) || !own || own->absent ||
	    virt_pci_user(&s->doms, &x->vf))
		return 0;
	if (!pkeycmd_unmap(s->cfg->pkey_cmd, &x->vf, x->port, why, sizeof(why)))
		return 0;
	snprintf(err, errlen,
		 "VM %d NIC %d: its earlier VF no longer fits and cannot be "
		 "unmapped: %s",
		 x->vmid, x->nic_id, why);
	return -EBUSY;
}

/* NIC nic's place among vm's NICs: its siblings (NIC IDs of the others on
 * its network) into sib, the GPU it pairs with, its hint. */
static void nic_context(const struct leasing_vm *vm, const struct ib_nic *nic,
			int *sib, struct placement_request *rq)
{
	size_t i, k = 0, npair = 0, ns = 0;
	int g, hint;

	for (i = 0; i < vm->nall; i++) {
		const struct ib_nic *o = &vm->all[i];

		if (o->nic_id != nic->nic_id && o->network_id >= 0 &&
		    o->network_id == nic->network_id)
			sib[ns++] = o->nic_id;
		if (o->affinity == IB_AFFINITY_NONE)
			continue;
		if (o->nic_id == nic->nic_id)
			k = npair;
		npair++;
	}
	rq->siblings = sib;
	rq->nsiblings = ns;
	g = nic->affinity == IB_AFFINITY_NONE ? -1
					      : rail_pair(k, npair, vm->ngpus);
	rq->gpu = g >= 0 ? &vm->gpus[g] : NULL;
	hint = rail_hint_find(vm->hints, vm->nhints, nic->nic_id);
	rq->has_hint = hint >= 0;
	rq->hint_rail = hint;
}

int leasing_acquire(struct leasing *s, int vmid, const struct ib_nic *nics,
		    size_t n, uint64_t numa_nodes, const struct leasing_vm *vm,
		    struct domxml_vf *map, char *err, size_t errlen)
{
	const struct leasing_vm alone = { .all = nics, .nall = n };
	struct ledger *l = &s->l;
	int *sib;
	size_t i;
	int r = 0;

	if (!vm)
		vm = &alone;
	sib = calloc(vm->nall ? vm->nall : 1, sizeof(*sib));
	if (!sib) {
		snprintf(err, errlen, "VM %d: out of memory", vmid);
		return -ENOMEM;
	}
	for (i = 0; i < n && !r; i++) {
		const struct ib_nic *nic = &nics[i];
		struct placement_request rq = { .vmid = vmid,
						.nic = nic,
						.numa_nodes = numa_nodes,
						.guids = programs(s->cfg) };
		long k = ledger_find_nic(l, vmid, nic->nic_id);
		struct vf *own = k >= 0 ? host_vf(&s->hcas, &l->v[k].vf) : NULL;
		struct lease x = { 0 };
		struct placement ch;
		uint64_t guid;

		nic_context(vm, nic, sib, &rq);
		map[i].has_gpu = rq.gpu != NULL;
		if (rq.gpu)
			map[i].gpu = rq.gpu->addr;
		r = guid_for_nic_checked((int)s->cfg->cloud_id, vmid,
					 nic->nic_id, &guid, err, errlen);
		if (!r)
			r = guid_free(l, vmid, nic->nic_id, guid, err, errlen);
		if (r)
			break;
		if (own && own->unprobed)
			hca_vf_probe(own);
		if (k >= 0 &&
		    placement_lease_fits(&s->hcas, &s->doms, &l->v[k], &rq)) {
			/* Deploying twice is safe: the NIC keeps its VF, and
			 * the grace period starts again for this deploy. A
			 * lease from before the VM/NIC GUIDs gets the new
			 * GUID here, and leasing_commit maps it. */
			lease_stamp(&l->v[k], &s->now, &s->cfg->owner);
			l->v[k].guid = guid;
			/* a migration's reservation taken into use */
			l->v[k].reserved = false;
			map[i].mac = nic->mac;
			map[i].vf = l->v[k].vf;
			map[i].node = own ? own->numa_node : -1;
			continue;
		}
		if (k >= 0) {
			r = unmap_unfit(s, &l->v[k], own, err, errlen);
			if (r)
				break;
			ledger_remove(l, (size_t)k);
		}
		r = choose(s, &rq, &ch, err, errlen);
		if (r)
			break;
		if (ch.warning[0])
			log_msg("%s", ch.warning);
		x.vf = ch.vf->addr;
		x.pf = ch.pf->addr;
		x.port = ch.port->num;
		x.vmid = vmid;
		x.nic_id = nic->nic_id;
		x.mac = nic->mac;
		x.guid = guid;
		x.pkey = nic->pkey;
		lease_stamp(&x, &s->now, &s->cfg->owner);
		r = ledger_add(l, &x);
		if (r) {
			snprintf(err, errlen, "VM %d NIC %d: %s", vmid,
				 nic->nic_id, strerror(-r));
			break;
		}
		map[i].mac = nic->mac;
		map[i].vf = x.vf;
		map[i].node = ch.vf->numa_node;
	}
	free(sib);
	return r;
}

int leasing_gpus(int vmid, const struct pci_addr *a, size_t n,
		 struct placement_gpu **out, size_t *nout, char *err,
		 size_t errlen)
{
	struct placement_gpu *g;
	char bdf[PCI_ADDR_STRLEN];
	size_t i;

	*out = NULL;
	*nout = 0;
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g) {
		snprintf(err, errlen, "VM %d: out of memory", vmid);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct pt_dev d;

		if (pt_dev_read(&a[i], &d)) {
			pci_addr_fmt(&a[i], bdf);
			snprintf(err, errlen,
				 "VM %d: PCI device %s is not on this host",
				 vmid, bdf);
			free(g);
			return -ENODEV;
		}
		if (!pci_class_is_gpu(d.class_code))
			continue;
		g[*nout].addr = d.addr;
		g[*nout].place = d.place;
		(*nout)++;
	}
	*out = g;
	return 0;
}

/*
 * Best effort: the first n VFs of map go back to "no GUID, no partition";
 * kept[i] true for each that could not be unmapped (its lease must stay).
 */
static void unprogram(const struct leasing *s, const struct domxml_vf *map,
		      size_t n, bool *kept)
{
	const struct ledger *l = &s->l;
	char err[ERRLEN];
	size_t i;

	for (i = 0; i < n; i++) {
		long k = ledger_find_vf(l, &map[i].vf);

		if (k >= 0 && pkeycmd_unmap(s->cfg->pkey_cmd, &l->v[k].vf,
					    l->v[k].port, err, sizeof(err))) {
			log_msg("%s", err);
			kept[i] = true;
		}
	}
}

/*
 * GUID and P_Key on each VF of map through oneib-pkey (root, via sudo).
 * On a refusal *done says how many were programmed before it.
 */
static int program(const struct leasing *s, const struct domxml_vf *map,
		   size_t n, size_t *done, char *err, size_t errlen)
{
	const struct ledger *l = &s->l;
	size_t i;

	for (i = 0; i < n; i++) {
		long k = ledger_find_vf(l, &map[i].vf);
		int r;

		*done = i;
		if (k < 0)
			return -ENOENT;
		r = pkeycmd_map(s->cfg->pkey_cmd, &l->v[k].vf, l->v[k].port,
				l->v[k].guid, l->v[k].pkey, err, errlen);
		if (r)
			return r;
	}
	*done = n;
	return 0;
}

/*
 * The leases are written before the VFs are programmed (written ahead): an
 * action killed while it programs leaves leases naming every VF it may have
 * given a GUID, so its retry finds its NICs' VFs again and programs the
 * same ones, and without a retry reconcile unmaps them once their leases
 * expire (a deploy's or restore's; a running VM's hot-plugged NIC keeps
 * its lease while the VM's domain is on the host, and its VF goes with the
 * VM). Programmed first, a kill before the write left a VF carrying a
 * NIC's GUID with no lease: the retry chose another VF and oneib-pkey
 * refused the GUID as in use on this host, for good.
 *
 * A refusal unmaps the VFs programmed here and writes the ledger back as
 * it was read, keeping the lease of each VF that could not be unmapped (it
 * still carries the GUID); if that write fails too, the leases stay and
 * expire as a killed action's would.
 */
int leasing_commit(struct leasing *s, const struct domxml_vf *map, size_t n,
		   char *err, size_t errlen)
{
	struct ledger was = { .lock_fd = -1 };
	bool *kept = NULL;
	char why[ERRLEN];
	struct lease *v;
	size_t vn, vcap, done = 0, i;
	int r;

	if (!programs(s->cfg))
		return ledger_commit(&s->l, err, errlen);
	kept = calloc(n + 1, sizeof(*kept));
	r = kept ? ledger_read(&was, s->cfg->ledger_dir, err, errlen) : -ENOMEM;
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!r)
		r = ledger_commit(&s->l, err, errlen);
	if (r)
		goto out;
	r = program(s, map, n, &done, err, errlen);
	if (!r)
		goto out;
	unprogram(s, map, done, kept);
	v = s->l.v, vn = s->l.n, vcap = s->l.cap;
	s->l.v = was.v, s->l.n = was.n, s->l.cap = was.cap;
	was.v = v, was.n = vn, was.cap = vcap;
	for (i = 0; i < done; i++) {
		long k = ledger_find_vf(&was, &map[i].vf);

		if (kept[i] && k >= 0 &&
		    ledger_find_vf(&s->l, &map[i].vf) < 0 &&
		    ledger_add(&s->l, &was.v[k]))
			log_msg("VF lease kept in memory only: out of memory");
	}
	if (ledger_commit(&s->l, why, sizeof(why)))
		log_msg("%s", why);
out:
	ledger_close(&was);
	free(kept);
	return r;
}

/* Each NIC's rail, for the guest (core/railhint.h: RAIL_OEM_PREFIX in its
 * SMBIOS OEM strings, what oneib-context orders NCCL's NICs by). */
static int tell_rails(const struct leasing *s, const struct one_vm *vm,
		      const struct domxml_vf *map, struct domxml *d, char *err,
		      size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	struct rail_hint *h;
	size_t i, n = 0;
	int r = 0;

	h = calloc(vm->n ? vm->n : 1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "VM %d: out of memory", vm->id);
		return -ENOMEM;
	}
	for (i = 0; i < vm->n; i++) {
		long k = ledger_find_vf(&s->l, &map[i].vf);
		int rail = k >= 0 ? rail_of_port(&s->hcas, &s->l.v[k].pf,
						 s->l.v[k].port)
				  : -1;

		if (rail >= 0) {
			h[n].nic_id = vm->nics[i].nic_id;
			h[n++].rail = rail;
		}
	}
	if (n)
		r = sb_adds(&sb, RAIL_OEM_PREFIX);
	if (n && !r)
		r = rail_hints_fmt(h, n, &sb);
	if (r)
		snprintf(err, errlen, "VM %d: out of memory", vm->id);
	else if (n)
		r = domxml_oem_string(d, RAIL_OEM_PREFIX, sb_str(&sb), err,
				      errlen);
	sb_release(&sb);
	free(h);
	return r;
}

/* domxml_pair for the VM's GPUs (with their host nodes) and map. */
static int pair_switches(struct domxml *d, const struct leasing_vm *ctx,
			 struct domxml_vf *map, size_t n, char *err,
			 size_t errlen)
{
	struct domxml_gpu *g;
	size_t i;
	int r;

	if (!ctx->ngpus)
		return 0;
	g = calloc(ctx->ngpus, sizeof(*g));
	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < ctx->ngpus; i++) {
		g[i].addr = ctx->gpus[i].addr;
		g[i].node = ctx->gpus[i].place.numa_node;
	}
	r = domxml_pair(d, g, ctx->ngpus, map, n, err, errlen);
	free(g);
	return r;
}

int leasing_deploy(const struct leasing_cfg *cfg, const struct one_vm *vm,
		   const char *dom, size_t domlen, struct strbuf *out,
		   char *err, size_t errlen)
{
	struct leasing s = { .l.lock_fd = -1 };
	struct domxml_vf *map = NULL;
	uint64_t cpus[CPULIST_WORDS], nodes = 0;
	struct leasing_vm ctx = { .all = vm->nics, .nall = vm->n };
	struct placement_gpu *gpus = NULL;
	struct pci_addr *pcis = NULL;
	size_t npcis = 0;
	struct domxml *d;
	bool pinned = false;
	int r;

	/* Parsed once: read for the pinning and the GPUs (OpenNebula's own
	 * PCI hostdevs, design decision 15), rewritten below. */
	r = domxml_parse(dom, domlen, &d, err, errlen);
	if (r)
		return r;
	r = domxml_pinned_cpus(d, cpus, &pinned, err, errlen);
	if (!r)
		r = domxml_pci_hostdevs(d, &pcis, &npcis, err, errlen);
	if (!r)
		r = leasing_gpus(vm->id, pcis, npcis, &gpus, &ctx.ngpus, err,
				 errlen);
	if (r)
		goto out;
	ctx.gpus = gpus;
	if (pinned)
		nodes = placement_numa_nodes(cpus);
	map = calloc(vm->n ? vm->n : 1, sizeof(*map));
	if (!map) {
		r = -ENOMEM;
		goto out;
	}
	r = leasing_open(&s, cfg, err, errlen);
	if (!r)
		r = leasing_acquire(&s, vm->id, vm->nics, vm->n, nodes, &ctx,
				    map, err, errlen);
	/* Rewrite before committing: a domain XML we cannot rewrite leaves
	 * the ledger as it was. The GPUs and their VFs first go under
	 * switches of their own (design decision 15). */
	if (!r)
		r = pair_switches(d, &ctx, map, vm->n, err, errlen);
	if (!r)
		r = tell_rails(&s, vm, map, d, err, errlen);
	if (!r)
		r = domxml_rewrite(d, map, vm->n, out, err, errlen);
	if (!r)
		r = leasing_commit(&s, map, vm->n, err, errlen);
	leasing_close(&s);
out:
	free(map);
	free(pcis);
	free(gpus);
	domxml_free(d);
	return r;
}

/* A lease becomes an adopted one: the domain `name` holds the VF. */
static void adopt(struct lease *x, const char *name)
{
	x->vmid = -1;
	x->nic_id = -1;
	x->mac = 0;
	x->guid = 0;
	x->pkey.raw = 0;
	snprintf(x->domain, sizeof(x->domain), "%s", name);
}

/* "0000:3b:00.2 <hostdev ...>\n"; guest_bus as domxml_hostdev */
static int hostdev_line(const struct pci_addr *vf, int guest_bus,
			struct strbuf *out)
{
	char addr[PCI_ADDR_STRLEN];
	int r;

	pci_addr_fmt(vf, addr);
	r = sb_addf(out, "%s ", addr);
	if (!r)
		r = domxml_hostdev(vf, guest_bus, out);
	if (!r)
		r = sb_adds(out, "\n");
	return r;
}

int leasing_lease(const struct leasing_cfg *cfg, const struct one_vm *vm,
		  int nic_id, bool reserve, const struct rail_hint *hints,
		  size_t nhints, struct strbuf *out, char *err, size_t errlen)
{
	struct leasing_vm ctx = {
		.all = vm->nics, .nall = vm->n, .hints = hints, .nhints = nhints
	};
	struct placement_gpu *gpus = NULL;
	struct leasing s = { .l.lock_fd = -1 };
	const struct ib_nic *sel = vm->nics;
	struct domxml_vf *map = NULL;
	struct lease *had = NULL; /* each NIC's ordinary lease; vmid -1: none */
	size_t n = vm->n, i;
	int r;

	if (nic_id != LEASING_ALL_NICS) {
		for (i = 0; i < vm->n && vm->nics[i].nic_id != nic_id; i++)
			;
		if (i == vm->n) {
			snprintf(err, errlen,
				 "VM %d NIC %d: not an InfiniBand NIC", vm->id,
				 nic_id);
			return -ENOENT;
		}
		sel = &vm->nics[i];
		n = 1;
	}
	if (n == 0)
		return 0;
	r = leasing_gpus(vm->id, vm->pci, vm->npci, &gpus, &ctx.ngpus, err,
			 errlen);
	if (r)
		return r;
	ctx.gpus = gpus;
	map = calloc(n, sizeof(*map));
	had = calloc(n, sizeof(*had));
	if (!map || !had) {
		r = -ENOMEM;
		snprintf(err, errlen, "VM %d: out of memory", vm->id);
		goto out;
	}
	r = leasing_open(&s, cfg, err, errlen);
	if (r)
		goto out;
	for (i = 0; i < n; i++) {
		long k = ledger_find_nic(&s.l, vm->id, sel[i].nic_id);

		had[i].vmid = -1;
		if (k >= 0 && !s.l.v[k].reserved)
			had[i] = s.l.v[k];
	}
	/* The NUMA node of the pinned vCPUs first, by deploy's rule. */
	r = leasing_acquire(&s, vm->id, sel, n,
			    vm->pinned ? placement_numa_nodes(vm->cpus) : 0,
			    &ctx, map, err, errlen);
	if (r)
		goto out;
	for (i = 0; i < n; i++) {
		long k = ledger_find_nic(&s.l, vm->id, sel[i].nic_id);

		if (k < 0)
			continue;
		s.l.v[k].reserved = reserve && had[i].vmid < 0;
		/* A lease's time is when the NIC got its VF: one that keeps
		 * the VF it held (attached again after a failed detach) keeps
		 * its time. */
		if (had[i].vmid >= 0 && !pci_addr_cmp(&had[i].vf, &s.l.v[k].vf))
			s.l.v[k].since = had[i].since;
	}
	r = reserve ? ledger_commit(&s.l, err, errlen)
		    : leasing_commit(&s, map, n, err, errlen);
	for (i = 0; !r && i < n; i++)
		r = hostdev_line(&map[i].vf, -1, out);
out:
	leasing_close(&s);
	free(map);
	free(had);
	free(gpus);
	return r;
}

int leasing_rails(const struct leasing_cfg *cfg, int vmid, struct strbuf *out,
		  char *err, size_t errlen)
{
	struct ledger l = { .lock_fd = -1 };
	struct hca_list hcas = { 0 };
	struct rail_hint *h = NULL;
	size_t i, n = 0;
	int r;

	r = ledger_read(&l, cfg->ledger_dir, err, errlen);
	if (r)
		return r;
	r = hca_inventory(&hcas);
	if (r) {
		snprintf(err, errlen, "cannot read /sys: %s", strerror(-r));
		goto out;
	}
	host_rails(cfg, &hcas);
	h = calloc(l.n ? l.n : 1, sizeof(*h));
	if (!h) {
		r = -ENOMEM;
		snprintf(err, errlen, "VM %d: out of memory", vmid);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		int rail;

		if (l.v[i].vmid != vmid || vmid < 0)
			continue;
		rail = rail_of_port(&hcas, &l.v[i].pf, l.v[i].port);
		if (rail < 0 || rail_hint_find(h, n, l.v[i].nic_id) >= 0)
			continue;
		h[n].nic_id = l.v[i].nic_id;
		h[n++].rail = rail;
	}
	r = rail_hints_fmt(h, n, out);
	if (r)
		snprintf(err, errlen, "VM %d: out of memory", vmid);
out:
	free(h);
	hca_list_free(&hcas);
	ledger_close(&l);
	return r;
}

static bool holds(const struct virt_domain *d, const struct pci_addr *a)
{
	size_t i;

	for (i = 0; d && i < d->npcis; i++)
		if (!pci_addr_cmp(&d->pcis[i], a))
			return true;
	return false;
}

static const struct hca *pf_of_vf(const struct hca_list *hcas,
				  const struct pci_addr *a);

/* LEASING_HELD for the whole VM: every IB VF of this host its domain
 * holds, leased or not (the host's HCAs read only when the ledger does not
 * know a VF). */
static int held_vfs(const struct ledger *l, const struct virt_domain *d,
		    int vmid, struct strbuf *out, char *err, size_t errlen)
{
	struct hca_list hcas = { 0 };
	bool read = false;
	size_t i;
	int r = 0;

	for (i = 0; !r && i < d->npcis; i++) {
		const struct pci_addr *a = &d->pcis[i];
		long k = ledger_find_vf(l, a);

		if (k >= 0 && l->v[k].vmid >= 0 && l->v[k].vmid != vmid)
			continue; /* another VM's lease: not ours to touch */
		if (k < 0 && !read) {
			r = hca_discover(&hcas, 0);
			if (r) {
				snprintf(err, errlen, "cannot read /sys: %s",
					 strerror(-r));
				break;
			}
			read = true;
		}
		if (k < 0 && !pf_of_vf(&hcas, a))
			continue; /* not InfiniBand */
		r = hostdev_line(a, -1, out);
	}
	hca_list_free(&hcas);
	return r;
}

/*
 * Where VFs hot-attached to domain d go in the guest: its free PCIe ports
 * by guest NUMA node (domxml_ports), and the host's VFs with their NUMA
 * nodes. Best effort: without them every VF is left to libvirt.
 */
static void guest_ports(const struct virt_domain *d,
			struct domxml_ports **ports, struct hca_list *hcas)
{
	struct domxml *dx;
	char err[ERRLEN];

	if (domxml_parse(d->xml, strlen(d->xml), &dx, err, sizeof(err)))
		return;
	if (!domxml_ports_new(dx, ports) && hca_inventory(hcas)) {
		domxml_ports_free(*ports);
		*ports = NULL;
	}
	domxml_free(dx);
}

/* The guest bus for VF a: beside the GPU at gpu (NULL: none) if its
 * switch has a free port, else on its host node's guest NUMA node; -1:
 * none. */
static int guest_port(struct domxml_ports *ports, struct hca_list *hcas,
		      const struct pci_addr *a, const struct pci_addr *gpu)
{
	const struct vf *vf = ports ? host_vf(hcas, a) : NULL;
	int b = ports && gpu ? domxml_ports_beside(ports, gpu) : -1;

	if (b >= 0)
		return b;
	return vf ? domxml_ports_take(ports, vf->numa_node) : -1;
}

/* The GPU the NIC nic_id of vm pairs with, into *g; false: none. */
static bool paired_gpu(const struct one_vm *vm,
		       const struct placement_gpu *gpus, size_t ngpus,
		       int nic_id, struct pci_addr *g)
{
	const struct leasing_vm ctx = { .all = vm ? vm->nics : NULL,
					.nall = vm ? vm->n : 0,
					.gpus = gpus,
					.ngpus = ngpus };
	struct placement_request rq = { 0 };
	int sib[64];
	size_t i;

	for (i = 0; vm && i < vm->n && vm->n <= 64; i++)
		if (vm->nics[i].nic_id == nic_id) {
			nic_context(&ctx, &vm->nics[i], sib, &rq);
			if (rq.gpu)
				*g = rq.gpu->addr;
			return rq.gpu != NULL;
		}
	return false;
}

int leasing_hostdevs(const struct leasing_cfg *cfg, int vmid, int nic_id,
		     enum leasing_which which, const struct one_vm *vm,
		     struct strbuf *out, char *err, size_t errlen)
{
	struct placement_gpu *gpus = NULL;
	size_t ngpus = 0;
	struct domxml_ports *ports = NULL;
	struct hca_list hcas = { 0 };
	struct virt_domains doms = { 0 };
	struct ledger l = { .lock_fd = -1 };
	const struct virt_domain *d;
	size_t i;
	int r;

	r = ledger_read(&l, cfg->ledger_dir, err, errlen);
	if (!r) {
		/* The VM's own domain (with its XML for where to attach), and
		 * any the ledger does not vouch for. */
		struct vouch v = { .l = &l,
				   .vmid = vmid,
				   .keep = which == LEASING_NOT_HELD };

		r = virt_scan(cfg->uri, need_xml, &v, &doms, err, errlen);
	}
	if (r)
		goto out;
	d = virt_find_vm(&doms, vmid);
	if (which == LEASING_NOT_HELD && d && d->xml) {
		guest_ports(d, &ports, &hcas);
		/* where the VM's GPUs are: best effort, as the ports */
		if (vm && leasing_gpus(vmid, vm->pci, vm->npci, &gpus, &ngpus,
				       err, errlen)) {
			err[0] = '\0';
			ngpus = 0;
		}
	}
	if (which == LEASING_HELD && nic_id == LEASING_ALL_NICS) {
		if (d)
			r = held_vfs(&l, d, vmid, out, err, errlen);
		goto out;
	}
	for (i = 0; !r && i < l.n; i++) {
		const struct lease *x = &l.v[i];
		bool in = holds(d, &x->vf);

		if (x->vmid != vmid || x->reserved ||
		    (nic_id != LEASING_ALL_NICS && x->nic_id != nic_id))
			continue;
		if ((which == LEASING_HELD && !in) ||
		    (which == LEASING_NOT_HELD && in))
			continue;
		{
			struct pci_addr g;
			bool has = paired_gpu(vm, gpus, ngpus, x->nic_id, &g);

			r = hostdev_line(&x->vf,
					 guest_port(ports, &hcas, &x->vf,
						    has ? &g : NULL),
					 out);
		}
	}
	if (r == -ENOMEM)
		snprintf(err, errlen, "VM %d: out of memory", vmid);
out:
	domxml_ports_free(ports);
	free(gpus);
	hca_list_free(&hcas);
	ledger_close(&l);
	virt_domains_free(&doms);
	return r;
}

int leasing_release(const struct leasing_cfg *cfg, int vmid, bool domain_gone,
		    struct leasing_counts *c, char *err, size_t errlen)
{
	return leasing_release_nic(cfg, vmid, LEASING_ALL_NICS, domain_gone, c,
				   err, errlen);
}

int leasing_release_nic(const struct leasing_cfg *cfg, int vmid, int nic_id,
			bool domain_gone, struct leasing_counts *c, char *err,
			size_t errlen)
{
	struct virt_domains doms = { 0 };
	struct ledger l = { .lock_fd = -1 };
	struct vouch v = { .l = &l, .vmid = vmid };
	char addr[PCI_ADDR_STRLEN];
	int failed = 0;
	size_t i;
	int r;

	memset(c, 0, sizeof(*c));
	r = ledger_open(&l, cfg->ledger_dir, err, errlen);
	if (!r && !domain_gone && ledger_find_vm(&l, vmid) >= 0)
		r = virt_scan(cfg->uri, need_xml, &v, &doms, err, errlen);
	if (r)
		goto out;
	for (i = l.n; i-- > 0;) {
		const struct virt_domain *d;

		if (l.v[i].vmid != vmid ||
		    (nic_id != LEASING_ALL_NICS && l.v[i].nic_id != nic_id))
			continue;
		d = virt_pci_user(&doms, &l.v[i].vf);
		if (d && d->vmid != vmid) {
			/* Another domain took it: libvirt is the truth. */
			adopt(&l.v[i], d->name);
			c->adopted++;
			continue;
		}
		if (d) {
			/* Never free what a domain still holds. */
			pci_addr_fmt(&l.v[i].vf, addr);
			log_msg("VM %d: keeping VF %s, domain %s still holds "
				"it",
				vmid, addr, d->name);
			c->kept++;
			continue;
		}
		/* Unmapped while still leased: no other VM can have it yet.
		 * A reservation was never programmed. */
		if (programs(cfg) && !l.v[i].reserved &&
		    pkeycmd_unmap(cfg->pkey_cmd, &l.v[i].vf, l.v[i].port, err,
				  errlen)) {
			c->kept++;
			failed = -EIO;
			continue;
		}
		ledger_remove(&l, i);
		c->released++;
	}
	if (c->released || c->adopted)
		r = ledger_commit(&l, err, errlen);
	if (!r)
		r = failed; /* err holds oneib-pkey's line; the VF stays leased */
out:
	ledger_close(&l);
	virt_domains_free(&doms);
	return r;
}

static const struct hca *pf_of_vf(const struct hca_list *hcas,
				  const struct pci_addr *a)
{
	size_t i, j;

	for (i = 0; i < hcas->n; i++)
		for (j = 0; j < hcas->v[i].nvfs; j++)
			if (!pci_addr_cmp(&hcas->v[i].vfs[j].addr, a))
				return &hcas->v[i];
	return NULL;
}

/*
 * Why a lease no domain holds stays (leasing.h, leasing_reconcile); NULL:
 * it goes. An undated old line is dated now (c->dated) and stays.
 */
static const char *still_used(const struct leasing_cfg *cfg, struct lease *x,
			      const struct virt_domains *doms,
			      const struct lease_clock *now,
			      struct leasing_counts *c)
{
	const struct virt_domain *vm =
		x->vmid >= 0 ? virt_find_vm(doms, x->vmid) : NULL;

	if (x->vmid < 0)
		return NULL;
	if (x->reserved && vm && vm->paused)
		return "its migration is coming in";
	if (!x->reserved && vm && vm->active)
		return "its VM's domain is here";
	switch (lease_hold(x, now, cfg->grace)) {
	case LEASE_OWNED:
		return "the action that took it runs";
	case LEASE_FRESH:
		return "within the grace period";
	case LEASE_UNDATED:
		lease_stamp(x, now, NULL);
		c->dated++;
		return "dated now";
	case LEASE_EXPIRED:
		break;
	}
	return NULL;
}

/* Leases the domains hold, or a live action may still use, or that cannot
 * be unmapped yet stay; the others go. */
static void reconcile_leases(const struct leasing_cfg *cfg, struct ledger *l,
			     const struct virt_domains *doms,
			     const struct lease_clock *now,
			     struct strbuf *report, struct leasing_counts *c)
{
	char addr[PCI_ADDR_STRLEN], err[ERRLEN];
	size_t i;

	for (i = l->n; i-- > 0;) {
		struct lease *x = &l->v[i];
		const struct virt_domain *d = virt_pci_user(doms, &x->vf);

		pci_addr_fmt(&x->vf, addr);
		if (d && x->vmid >= 0 && d->vmid == x->vmid) {
			c->kept++;
		} else if (d && (x->vmid >= 0 || strcmp(d->name, x->domain))) {
			sb_addf(report,
				"VF %s: held by domain %s, recorded as "
				"adopted\n",
				addr, d->name);
			adopt(x, d->name);
			c->adopted++;
		} else if (d || still_used(cfg, x, doms, now, c)) {
			c->kept++;
		} else if (x->reserved) {
			sb_addf(report,
				"VF %s: reserved for VM %d, which did not "
				"come, released\n",
				addr, x->vmid);
			ledger_remove(l, i);
			c->released++;
		} else if (x->vmid >= 0 && programs(cfg) &&
			   pkeycmd_unmap(cfg->pkey_cmd, &x->vf, x->port, err,
					 sizeof(err))) {
			/* Keep it leased until it can be unmapped. */
			log_msg("VF %s: %s", addr, err);
			c->kept++;
		} else {
			if (x->vmid >= 0)
				sb_addf(report,
					"VF %s: VM %d has no domain holding "
					"it, released\n",
					addr, x->vmid);
			else
				sb_addf(report,
					"VF %s: domain %s no longer holds it, "
					"released\n",
					addr, x->domain);
			ledger_remove(l, i);
			c->released++;
		}
	}
}

int leasing_reconcile(const struct leasing_cfg *cfg,
		      const struct lease_clock *now, struct strbuf *report,
		      struct leasing_counts *c, char *err, size_t errlen)
{
	struct virt_domains doms = { 0 };
	struct hca_list hcas = { 0 };
	struct ledger l = { .lock_fd = -1 };
	char addr[PCI_ADDR_STRLEN];
	size_t i, j;
	int r;

	memset(c, 0, sizeof(*c));
	r = ledger_open(&l, cfg->ledger_dir, err, errlen);
	if (!r)
		r = virt_scan(cfg->uri, NULL, NULL, &doms, err, errlen);
	if (r)
		goto out;
	r = hca_inventory(&hcas);
	if (r) {
		snprintf(err, errlen, "cannot read /sys: %s", strerror(-r));
		goto out;
	}
	reconcile_leases(cfg, &l, &doms, now, report, c);
	/* VFs of this host's PFs that domains hold without a lease. */
	for (i = 0; i < doms.n; i++) {
		for (j = 0; j < doms.v[i].npcis; j++) {
			const struct pci_addr *a = &doms.v[i].pcis[j];
			const struct hca *pf = pf_of_vf(&hcas, a);
			struct lease x = { 0 };

			if (!pf || ledger_find_vf(&l, a) >= 0)
				continue;
			x.vf = *a;
			x.pf = pf->addr;
			x.port = pf->nports ? pf->ports[0].num : 1;
			x.vmid = -1;
			x.nic_id = -1;
			lease_stamp(&x, now, NULL);
			snprintf(x.domain, sizeof(x.domain), "%s",
				 doms.v[i].name);
			r = ledger_add(&l, &x);
			if (r) {
				snprintf(err, errlen, "%s", strerror(-r));
				goto out;
			}
			pci_addr_fmt(&x.vf, addr);
			sb_addf(report,
				"VF %s: held by domain %s without a lease, "
				"adopted\n",
				addr, x.domain);
			c->adopted++;
		}
	}
	if (c->released || c->adopted || c->dated)
		r = ledger_commit(&l, err, errlen);
out:
	ledger_close(&l);
	hca_list_free(&hcas);
	virt_domains_free(&doms);
	return r;
}
