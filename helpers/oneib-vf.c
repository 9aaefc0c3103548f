// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-vf: one SR-IOV InfiniBand VF per IB NIC of a VM, recorded in the
 * host's lease ledger, and the domain XML that hands those VFs to the VM.
 *
 *   oneib-vf deploy --vm 42 --vm-xml <dir>/vm.xml < deployment.0 > new.xml
 *       lease a VF for every NIC with VN_MAD "ib" (the same VF again when
 *       the NIC already holds one) and print the domain XML with those
 *       NICs turned into PCI hostdevs; nothing changes when it fails
 *   oneib-vf release --vm 42        the VM's leases, once no domain holds them
 *   oneib-vf list [--format=table|json]
 *   oneib-vf reconcile [--grace 600]
 *       bring the ledger in line with libvirt after crashes
 *
 * Common options: --ledger DIR (/var/lib/one/ib), --connect URI (libvirt,
 * default $LIBVIRT_URI as kvmrc sets it, else qemu:///system).
 *
 * A VF is chosen among ACTIVE InfiniBand ports (or the IB_PF/IB_PORT the
 * network pins), on the NUMA node of the VM's pinned vCPUs first, lowest
 * free VF index first; a VF any libvirt domain holds is never chosen.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/domxml.h"
#include "lib/guid.h"
#include "lib/hca.h"
#include "lib/json.h"
#include "lib/lease.h"
#include "lib/log.h"
#include "lib/onexml.h"
#include "lib/pkey.h"
#include "lib/strbuf.h"
#include "lib/sysfs.h"
#include "lib/vf.h"
#include "lib/virt.h"

#define ERRLEN 512
#define XML_MAX (16 << 20) /* a deployment file is a few kB */

struct ctx {
	const char *ledger;
	const char *uri;
	const char *vm_xml;
	const char *format;
	const char *pkey_cmd; /* "sudo -n /usr/sbin/oneib-pkey"; NULL: none */
	int vmid;
	unsigned cloud_id; /* byte 1 of every GUID (design decision 2) */
	long grace;
};

static void usage(FILE *f)
{
	fputs("usage: oneib-vf deploy --vm ID --vm-xml FILE < domain.xml\n"
	      "       oneib-vf release --vm ID\n"
	      "       oneib-vf list [--format=table|json]\n"
	      "       oneib-vf reconcile [--grace SECONDS]\n"
	      "options: --ledger DIR, --connect URI, --pkey-cmd COMMAND,\n"
	      "         --cloud-id N (0-255, the same on every host and the "
	      "partitions renderer)\n",
	      f);
}

/*
 * NUMA nodes of the host CPUs the vCPUs are pinned to: node1/cpulist
 * "8-15" intersecting the pinned set {8,9} -> bit 1.
 */
static uint64_t pinned_nodes(const uint64_t cpus[CPULIST_WORDS])
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	uint64_t mask = 0, node_cpus[CPULIST_WORDS];
	int node, i;

	for (node = 0; node < 64; node++) {
		if (path_fmt(path, sizeof(path),
			     "/sys/devices/system/node/node%d/cpulist", node) ||
		    sysfs_read_str(path, buf, sizeof(buf)))
			continue;
		if (cpulist_parse(buf, node_cpus, false))
			continue;
		for (i = 0; i < CPULIST_WORDS; i++)
			if (node_cpus[i] & cpus[i])
				mask |= (uint64_t)1 << node;
	}
	return mask;
}

struct choice {
	const struct hca *h;
	const struct ib_port *port;
	const struct vf *vf;
};

/* How full the ports a NIC may use are, for the refusal message. */
struct tally {
	const struct hca *pf; /* the last eligible PF */
	int npfs;
	int port; /* its last eligible port */
	int nports; /* eligible ports of that PF */
	int total; /* assignable VFs of eligible PFs, each counted once */
	int taken;
};

static bool vf_taken(const struct ledger *l, const struct virt_domains *doms,
		     const struct vf *vf)
{
	return ledger_find_vf(l, &vf->addr) >= 0 ||
	       virt_pci_user(doms, &vf->addr) != NULL;
}

static bool port_eligible(const struct ib_nic *nic, const struct ib_port *pt)
{
	return (!nic->port || pt->num == nic->port) && ib_port_usable(pt);
}

static bool pf_eligible(const struct ib_nic *nic, const struct hca *h)
{
	int p;

	if (!h->has_pci || (nic->has_pf && pci_addr_cmp(&h->addr, &nic->pf)))
		return false;
	for (p = 0; p < h->nports; p++)
		if (port_eligible(nic, &h->ports[p]))
			return true;
	return false;
}

static void count(const struct hca_list *hcas, const struct ib_nic *nic,
		  const struct ledger *l, const struct virt_domains *doms,
		  struct tally *t)
{
	size_t i, j;
	int p;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];

		if (!pf_eligible(nic, h))
			continue;
		t->pf = h;
		t->npfs++;
		t->nports = 0;
		for (p = 0; p < h->nports; p++)
			if (port_eligible(nic, &h->ports[p])) {
				t->port = h->ports[p].num;
				t->nports++;
			}
		/* A ConnectX-3 VF serves both ports: count it once. */
		for (j = 0; j < h->nvfs; j++) {
			if (!vf_assignable(&h->vfs[j]))
				continue;
			t->total++;
			t->taken += vf_taken(l, doms, &h->vfs[j]);
		}
	}
}

/*
 * First free VF of an eligible PF, on its first eligible port, preferring
 * PFs on the NUMA nodes in `nodes` (0: no preference).
 */
static bool choose_vf(const struct hca_list *hcas, const struct ib_nic *nic,
		      const struct ledger *l, const struct virt_domains *doms,
		      uint64_t nodes, struct choice *out)
{
	size_t i, j;
	int pass, p;

	for (pass = nodes ? 0 : 1; pass < 2; pass++) {
		for (i = 0; i < hcas->n; i++) {
			const struct hca *h = &hcas->v[i];
			bool local = h->numa_node >= 0 && h->numa_node < 64 &&
				     (nodes >> h->numa_node & 1);

			if ((pass == 0 && !local) || !pf_eligible(nic, h))
				continue;
			for (p = 0; !port_eligible(nic, &h->ports[p]); p++)
				;
			for (j = 0; j < h->nvfs; j++) {
				const struct vf *vf = &h->vfs[j];

				if (!vf_assignable(vf) || vf_taken(l, doms, vf))
					continue;
				out->h = h;
				out->port = &h->ports[p];
				out->vf = vf;
				return true;
			}
		}
	}
	return false;
}

/* "no free VF on 0000:3b:00.0 port 1 for VM 42 (8 of 8 leased)" */
static void refusal(const struct ctx *c, const struct ib_nic *nic,
		    const struct tally *t, char *err, size_t errlen)
{
	char pf[PCI_ADDR_STRLEN], where[64];

	if (t->npfs == 0 && nic->has_pf) {
		pci_addr_fmt(&nic->pf, pf);
		if (nic->port)
			snprintf(where, sizeof(where), "%s port %d", pf,
				 nic->port);
		else
			snprintf(where, sizeof(where), "%s", pf);
		snprintf(err, errlen,
			 "VM %d NIC %d: IB_PF %s is not an ACTIVE InfiniBand "
			 "port on this host",
			 c->vmid, nic->nic_id, where);
		return;
	}
	if (t->npfs == 0) {
		snprintf(err, errlen,
			 "no ACTIVE InfiniBand port on this host for VM %d NIC "
			 "%d",
			 c->vmid, nic->nic_id);
		return;
	}
	pci_addr_fmt(&t->pf->addr, pf);
	if (t->npfs > 1)
		snprintf(where, sizeof(where), "%d PFs", t->npfs);
	else if (t->nports == 1)
		snprintf(where, sizeof(where), "%s port %d", pf, t->port);
	else
		snprintf(where, sizeof(where), "%s", pf);
	snprintf(err, errlen, "no free VF on %s for VM %d (%d of %d leased)",
		 where, c->vmid, t->taken, t->total);
}

/*
 * A NIC's existing lease is reused only while it still fits: same MAC and
 * P_Key, the VF still an assignable VF of an eligible PF port, and no domain
 * but the VM's own holding it (a VF a foreign domain took since is never
 * handed out twice).
 */
static bool lease_still_fits(const struct lease *x, const struct ib_nic *nic,
			     const struct hca_list *hcas,
			     const struct virt_domains *doms, int vmid)
{
	const struct virt_domain *d = virt_pci_user(doms, &x->vf);
	size_t i, j;
	int p;

	if (x->mac != nic->mac || x->pkey.raw != nic->pkey.raw ||
	    (d && d->vmid != vmid))
		return false;
	for (i = 0; i < hcas->n; i++) {
		const struct hca *h = &hcas->v[i];

		if (!pf_eligible(nic, h) || pci_addr_cmp(&h->addr, &x->pf))
			continue;
		for (p = 0; p < h->nports; p++)
			if (h->ports[p].num == x->port &&
			    port_eligible(nic, &h->ports[p]))
				break;
		if (p == h->nports)
			continue;
		for (j = 0; j < h->nvfs; j++)
			if (!pci_addr_cmp(&h->vfs[j].addr, &x->vf))
				return vf_assignable(&h->vfs[j]);
	}
	return false;
}

/* Best effort: the VFs go back to "no GUID, no partition". */
static void unprogram_vfs(const struct ctx *c, const struct ledger *l,
			  const struct domxml_vf *map, size_t n)
{
	char err[ERRLEN];
	size_t i;

	if (!c->pkey_cmd || !*c->pkey_cmd)
		return;
	for (i = 0; i < n; i++) {
		long k = ledger_find_vf(l, &map[i].vf);

		if (k >= 0 &&
		    vf_pkey_cmd(c->pkey_cmd, false, &l->v[k].vf, l->v[k].port,
				0, (struct pkey){ 0 }, err, sizeof(err)))
			log_msg("%s", err);
	}
}

/*
 * GUID and P_Key on each VF of the VM through oneib-pkey (root, via sudo),
 * before anything is committed: on a failure the VFs programmed so far are
 * unmapped again and the deploy fails, so a VM never runs in the wrong
 * partition and nothing is left half done.
 */
static int program_vfs(const struct ctx *c, const struct ledger *l,
		       const struct one_vm *vm, const struct domxml_vf *map,
		       char *err, size_t errlen)
{
	size_t i;

	if (!c->pkey_cmd || !*c->pkey_cmd)
		return 0;
	for (i = 0; i < vm->n; i++) {
		long k = ledger_find_vf(l, &map[i].vf);
		int r;

		if (k < 0)
			return -ENOENT;
		r = vf_pkey_cmd(c->pkey_cmd, true, &l->v[k].vf, l->v[k].port,
				l->v[k].guid, l->v[k].pkey, err, errlen);
		if (r) {
			unprogram_vfs(c, l, map, i);
			return r;
		}
	}
	return 0;
}

static int cmd_deploy(const struct ctx *c)
{
	struct strbuf dom = STRBUF_INIT, vmx = STRBUF_INIT, out = STRBUF_INIT;
	struct virt_domains doms = { 0 };
	struct hca_list hcas = { 0 };
	struct one_vm vm = { 0 };
	struct ledger l = { .lock_fd = -1 };
	struct domxml_vf *map = NULL;
	char err[ERRLEN] = "";
	uint64_t cpus[CPULIST_WORDS], nodes = 0;
	bool pinned = false;
	size_t i;
	int r;

	if (c->vmid < 0 || !c->vm_xml) {
		log_msg("deploy needs --vm ID and --vm-xml FILE");
		return 2;
	}
	r = sb_read(&dom, stdin, XML_MAX);
	if (r) {
		log_msg("VM %d: cannot read the domain XML on stdin: %s",
			c->vmid, strerror(-r));
		goto out;
	}
	r = sb_read_file(&vmx, c->vm_xml, XML_MAX);
	if (r) {
		log_msg("VM %d: cannot read %s: %s", c->vmid, c->vm_xml,
			strerror(-r));
		goto out;
	}
	r = onexml_parse_vm(vmx.buf ? vmx.buf : "", vmx.len, &vm, err,
			    sizeof(err));
	if (r)
		goto fail;
	if (vm.id != c->vmid) {
		snprintf(err, sizeof(err), "%s describes VM %d, not VM %d",
			 c->vm_xml, vm.id, c->vmid);
		r = -EINVAL;
		goto fail;
	}
	if (vm.n == 0) {
		/* No InfiniBand NIC: the stock deploy gets its XML as is. */
		fwrite(sb_str(&dom), 1, dom.len, stdout);
		goto out;
	}
	r = domxml_pinned_cpus(sb_str(&dom), dom.len, cpus, &pinned, err,
			       sizeof(err));
	if (r)
		goto fail;
	if (pinned)
		nodes = pinned_nodes(cpus);
	map = calloc(vm.n, sizeof(*map));
	if (!map) {
		r = -ENOMEM;
		goto fail;
	}
	/* The hardware does not change with leases: read it before taking
	 * the lock, so concurrent deploys wait only for the ledger and
	 * libvirt. */
	r = hca_discover(&hcas, false);
	if (r) {
		snprintf(err, sizeof(err), "cannot read /sys: %s",
			 strerror(-r));
		goto fail;
	}
	r = ledger_open(&l, c->ledger, err, sizeof(err));
	if (r)
		goto fail;
	r = virt_scan(c->uri, &doms, err, sizeof(err));
	if (r)
		goto fail;
	for (i = 0; i < vm.n; i++) {
		const struct ib_nic *nic = &vm.nics[i];
		long k = ledger_find_nic(&l, c->vmid, nic->nic_id);
		struct lease x = { 0 };
		struct choice ch;
		struct tally t;
		uint64_t guid;
		long g;

		r = guid_for_nic_checked((int)c->cloud_id, c->vmid,
					 nic->nic_id, &guid, err, sizeof(err));
		if (r)
			goto fail;
		g = ledger_find_guid(&l, guid);
		if (g >= 0 && (l.v[g].vmid != c->vmid ||
			       l.v[g].nic_id != nic->nic_id)) {
			/* Unique by construction; only a cloud id set
			 * differently on two front-ends gets here. */
			char gs[GUID_STRLEN], vs[PCI_ADDR_STRLEN];

			guid_fmt_hex(guid, gs);
			pci_addr_fmt(&l.v[g].vf, vs);
			snprintf(err, sizeof(err),
				 "VM %d NIC %d: GUID %s is already leased to "
				 "VM %d NIC %d on VF %s",
				 c->vmid, nic->nic_id, gs, l.v[g].vmid,
				 l.v[g].nic_id, vs);
			r = -EEXIST;
			goto fail;
		}
		if (k >= 0 &&
		    lease_still_fits(&l.v[k], nic, &hcas, &doms, c->vmid)) {
			/* Deploying twice is safe: the NIC keeps its VF, and
			 * the grace period starts again for this deploy. A
			 * lease from before the VM/NIC GUIDs gets the new
			 * GUID here, and program_vfs maps it. */
			l.v[k].since = (int64_t)time(NULL);
			l.v[k].guid = guid;
			map[i].mac = nic->mac;
			map[i].vf = l.v[k].vf;
			continue;
		}
		if (k >= 0)
			ledger_remove(&l, (size_t)k);
		if (!choose_vf(&hcas, nic, &l, &doms, nodes, &ch)) {
			count(&hcas, nic, &l, &doms, &t);
			refusal(c, nic, &t, err, sizeof(err));
			r = -EBUSY;
			goto fail;
		}
		x.vf = ch.vf->addr;
		x.pf = ch.h->addr;
		x.port = ch.port->num;
		x.vmid = c->vmid;
		x.nic_id = nic->nic_id;
		x.mac = nic->mac;
		x.guid = guid;
		x.pkey = nic->pkey;
		x.since = (int64_t)time(NULL);
		r = ledger_add(&l, &x);
		if (r) {
			snprintf(err, sizeof(err), "VM %d NIC %d: %s", c->vmid,
				 nic->nic_id, strerror(-r));
			goto fail;
		}
		map[i].mac = nic->mac;
		map[i].vf = x.vf;
	}
	/* Rewrite before committing: a domain XML we cannot rewrite leaves
	 * the ledger as it was. */
	r = domxml_rewrite(sb_str(&dom), dom.len, map, vm.n, &out, err,
			   sizeof(err));
	if (r)
		goto fail;
	r = program_vfs(c, &l, &vm, map, err, sizeof(err));
	if (r)
		goto fail;
	r = ledger_commit(&l, err, sizeof(err));
	if (r) {
		unprogram_vfs(c, &l, map, vm.n);
		goto fail;
	}
	if (fwrite(sb_str(&out), 1, out.len, stdout) != out.len ||
	    fflush(stdout)) {
		/* The caller releases on failure; the lease is committed. */
		snprintf(err, sizeof(err), "VM %d: cannot write the domain XML",
			 c->vmid);
		r = -EIO;
		goto fail;
	}
	goto out;
fail:
	log_msg("%s", err[0] ? err : strerror(-r));
out:
	ledger_close(&l);
	hca_list_free(&hcas);
	virt_domains_free(&doms);
	one_vm_free(&vm);
	free(map);
	sb_release(&dom);
	sb_release(&vmx);
	sb_release(&out);
	return r ? 1 : 0;
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

static int cmd_release(const struct ctx *c)
{
	struct virt_domains doms = { 0 };
	struct ledger l = { .lock_fd = -1 };
	char err[ERRLEN] = "", addr[PCI_ADDR_STRLEN];
	int released = 0, kept = 0, failed = 0, adopted = 0;
	size_t i;
	int r;

	if (c->vmid < 0) {
		log_msg("release needs --vm ID");
		return 2;
	}
	r = ledger_open(&l, c->ledger, err, sizeof(err));
	if (!r)
		r = virt_scan(c->uri, &doms, err, sizeof(err));
	if (r)
		goto out;
	for (i = l.n; i-- > 0;) {
		const struct virt_domain *d;

		if (l.v[i].vmid != c->vmid)
			continue;
		d = virt_pci_user(&doms, &l.v[i].vf);
		if (d && d->vmid != c->vmid) {
			/* Another domain took it: libvirt is the truth. */
			adopt(&l.v[i], d->name);
			adopted++;
			continue;
		}
		if (d) {
			/* Never free what a domain still holds. */
			pci_addr_fmt(&l.v[i].vf, addr);
			log_msg("VM %d: keeping VF %s, domain %s still holds "
				"it",
				c->vmid, addr, d->name);
			kept++;
			continue;
		}
		/* Unmapped while still leased: no other VM can have it yet. */
		if (c->pkey_cmd && *c->pkey_cmd &&
		    vf_pkey_cmd(c->pkey_cmd, false, &l.v[i].vf, l.v[i].port, 0,
				(struct pkey){ 0 }, err, sizeof(err))) {
			kept++;
			failed = -EIO;
			continue;
		}
		ledger_remove(&l, i);
		released++;
	}
	if (released || adopted)
		r = ledger_commit(&l, err, sizeof(err));
	if (!r && failed) {
		r = failed; /* err holds oneib-pkey's line; the VF stays leased */
	} else if (!r) {
		if (released || kept)
			printf("VM %d: released %d VF(s)%s\n", c->vmid,
			       released, kept ? ", kept the ones in use" : "");
		else
			printf("VM %d: no VF leased, nothing to release\n",
			       c->vmid);
	}
out:
	if (r)
		log_msg("VM %d: %s", c->vmid, err[0] ? err : strerror(-r));
	ledger_close(&l);
	virt_domains_free(&doms);
	return r ? 1 : 0;
}

static bool is_host_ib_vf(const struct hca_list *hcas, const struct pci_addr *a,
			  const struct hca **pf)
{
	size_t i, j;

	for (i = 0; i < hcas->n; i++)
		for (j = 0; j < hcas->v[i].nvfs; j++)
			if (!pci_addr_cmp(&hcas->v[i].vfs[j].addr, a)) {
				*pf = &hcas->v[i];
				return true;
			}
	return false;
}

static int cmd_reconcile(const struct ctx *c)
{
	struct virt_domains doms = { 0 };
	struct hca_list hcas = { 0 };
	struct ledger l = { .lock_fd = -1 };
	char err[ERRLEN] = "", addr[PCI_ADDR_STRLEN];
	int released = 0, adopted = 0, kept = 0;
	int64_t now = (int64_t)time(NULL);
	size_t i, j;
	int r;

	r = ledger_open(&l, c->ledger, err, sizeof(err));
	if (!r)
		r = virt_scan(c->uri, &doms, err, sizeof(err));
	if (r)
		goto out;
	r = hca_discover(&hcas, false);
	if (r) {
		snprintf(err, sizeof(err), "cannot read /sys: %s",
			 strerror(-r));
		goto out;
	}
	for (i = l.n; i-- > 0;) {
		struct lease *x = &l.v[i];
		const struct virt_domain *d = virt_pci_user(&doms, &x->vf);

		pci_addr_fmt(&x->vf, addr);
		if (d && x->vmid >= 0 && d->vmid == x->vmid) {
			kept++;
		} else if (d && (x->vmid >= 0 || strcmp(d->name, x->domain))) {
			printf("VF %s: held by domain %s, recorded as "
			       "adopted\n",
			       addr, d->name);
			adopt(x, d->name);
			adopted++;
		} else if (d) {
			kept++;
		} else if (x->vmid >= 0 && now - x->since < c->grace) {
			/* A deploy may be between lease and virsh create. */
			kept++;
		} else if (x->vmid >= 0 && c->pkey_cmd && *c->pkey_cmd &&
			   vf_pkey_cmd(c->pkey_cmd, false, &x->vf, x->port, 0,
				       (struct pkey){ 0 }, err, sizeof(err))) {
			/* Keep it leased until it can be unmapped. */
			log_msg("VF %s: %s", addr, err);
			kept++;
		} else {
			if (x->vmid >= 0)
				printf("VF %s: VM %d has no domain holding it, "
				       "released\n",
				       addr, x->vmid);
			else
				printf("VF %s: domain %s no longer holds it, "
				       "released\n",
				       addr, x->domain);
			ledger_remove(&l, i);
			released++;
		}
	}
	for (i = 0; i < doms.n; i++) {
		for (j = 0; j < doms.v[i].npcis; j++) {
			struct lease x = { 0 };
			const struct hca *pf;

			if (!is_host_ib_vf(&hcas, &doms.v[i].pcis[j], &pf) ||
			    ledger_find_vf(&l, &doms.v[i].pcis[j]) >= 0)
				continue;
			x.vf = doms.v[i].pcis[j];
			x.pf = pf->addr;
			x.port = pf->nports ? pf->ports[0].num : 1;
			x.vmid = -1;
			x.nic_id = -1;
			x.since = now;
			snprintf(x.domain, sizeof(x.domain), "%s",
				 doms.v[i].name);
			r = ledger_add(&l, &x);
			if (r)
				goto out;
			pci_addr_fmt(&x.vf, addr);
			printf("VF %s: held by domain %s without a lease, "
			       "adopted\n",
			       addr, x.domain);
			adopted++;
		}
	}
	if (released || adopted)
		r = ledger_commit(&l, err, sizeof(err));
	if (!r)
		printf("reconcile: %d kept, %d released, %d adopted\n", kept,
		       released, adopted);
out:
	if (r)
		log_msg("reconcile: %s", err[0] ? err : strerror(-r));
	ledger_close(&l);
	hca_list_free(&hcas);
	virt_domains_free(&doms);
	return r ? 1 : 0;
}

static int cmd_list(const struct ctx *c)
{
	char err[ERRLEN] = "", vf[PCI_ADDR_STRLEN], pf[PCI_ADDR_STRLEN];
	char mac[MAC_STRLEN], guid[GUID_STRLEN], pk[PKEY_STRLEN];
	char of[GUID_DESC_LEN];
	struct ledger l = { .lock_fd = -1 };
	bool json = c->format && !strcmp(c->format, "json");
	struct json w;
	size_t i;
	int r;

	if (c->format && !json && strcmp(c->format, "table")) {
		log_msg("unknown format '%s' (table, json)", c->format);
		return 2;
	}
	r = ledger_read(&l, c->ledger, err, sizeof(err));
	if (r) {
		log_msg("%s", err);
		return 1;
	}
	if (json) {
		json_init(&w, stdout);
		json_obj(&w, NULL);
		json_int(&w, "version", 1);
		json_arr(&w, "leases");
	} else {
		printf("%-13s %-13s %-4s %-6s %-4s %-17s %-18s %-16s %-6s %s\n",
		       "VF", "PF", "PORT", "VM", "NIC", "MAC", "GUID", "GUID OF",
		       "PKEY", "SINCE/DOMAIN");
	}
	for (i = 0; i < l.n; i++) {
		const struct lease *x = &l.v[i];
		bool adopted = x->vmid < 0;

		pci_addr_fmt(&x->vf, vf);
		pci_addr_fmt(&x->pf, pf);
		mac_fmt(x->mac, mac);
		guid_fmt_hex(x->guid, guid);
		guid_describe(x->guid, of);
		pkey_fmt(x->pkey, pk);
		if (json) {
			json_obj(&w, NULL);
			json_str(&w, "vf", vf);
			json_str(&w, "pf", pf);
			json_int(&w, "port", x->port);
			json_int_or_null(&w, "vm", x->vmid);
			json_int_or_null(&w, "nic", x->nic_id);
			json_str_or_null(&w, "mac", adopted ? NULL : mac);
			json_str_or_null(&w, "guid", adopted ? NULL : guid);
			json_str_or_null(&w, "guid_of", adopted ? NULL : of);
			json_str_or_null(&w, "pkey", adopted ? NULL : pk);
			json_int(&w, "since", x->since);
			json_str_or_null(&w, "domain", x->domain);
			json_end(&w);
		} else if (adopted) {
			printf("%-13s %-13s %-4d %-6s %-4s %-17s %-18s %-16s "
			       "%-6s %s\n",
			       vf, pf, x->port, "-", "-", "-", "-", "-", "-",
			       x->domain);
		} else {
			time_t t = (time_t)x->since;
			struct tm tm;
			char when[32] = "?";

			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when),
					 "%Y-%m-%dT%H:%M:%SZ", &tm);
			printf("%-13s %-13s %-4d %-6d %-4d %-17s %-18s %-16s "
			       "%-6s %s\n",
			       vf, pf, x->port, x->vmid, x->nic_id, mac, guid,
			       of, pk, when);
		}
	}
	if (json) {
		json_end(&w);
		json_end(&w);
	}
	ledger_close(&l);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vm", required_argument, NULL, 'v' },
		{ "vm-xml", required_argument, NULL, 'x' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "connect", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "grace", required_argument, NULL, 'g' },
		{ "pkey-cmd", required_argument, NULL, 'k' },
		{ "cloud-id", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *uri = getenv("LIBVIRT_URI");
	struct ctx c = {
		.ledger = "/var/lib/one/ib",
		.uri = uri && *uri ? uri : "qemu:///system",
		.vmid = -1,
		.grace = 600,
	};
	const char *cmd;
	char *end;
	long v;
	int o;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'v':
		case 'g':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > INT_MAX) {
				log_msg("--%s: '%s' is not a non-negative "
					"number",
					o == 'v' ? "vm" : "grace", optarg);
				return 2;
			}
			if (o == 'v')
				c.vmid = (int)v;
			else
				c.grace = v;
			break;
		case 'x':
			c.vm_xml = optarg;
			break;
		case 'l':
			c.ledger = optarg;
			break;
		case 'c':
			c.uri = optarg;
			break;
		case 'f':
			c.format = optarg;
			break;
		case 'k':
			c.pkey_cmd = optarg;
			break;
		case 'C':
			if (cloud_id_parse(optarg, &c.cloud_id)) {
				log_msg("--cloud-id: '%s' is not a number "
					"0-255",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		log_msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (!strcmp(cmd, "deploy"))
		return cmd_deploy(&c);
	if (!strcmp(cmd, "release"))
		return cmd_release(&c);
	if (!strcmp(cmd, "reconcile"))
		return cmd_reconcile(&c);
	if (!strcmp(cmd, "list"))
		return cmd_list(&c);
	log_msg("unknown command '%s' (deploy, release, list, reconcile)", cmd);
	return 2;
}
