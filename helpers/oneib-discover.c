// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-discover: the host's InfiniBand HCAs, their ports and SR-IOV VFs.
 *
 *   oneib-discover                      table for a person
 *   oneib-discover --format=json        stable schema (README.md)
 *   oneib-discover --format=one         OpenNebula monitoring attributes
 *                  --format=one-system  ... only the static inventory
 *                  --format=one-monitor ... only the free-VF counters
 *                  --ledger DIR         lease ledger (/var/lib/one/ib), to
 *                                       show which VM holds each VF
 *                  --peer-cmd CMD       how to run oneib-peer ("sudo -n
 *                                       /usr/sbin/oneib-peer"), to show the
 *                                       leaf switch each port is cabled to
 *                  --rail-map MAP       rails by leaf switch (ONEIB_RAIL_MAP,
 *                                       host/rails.h), not by PCI address
 *
 * Odd sysfs data is reported on stderr and the rest is still listed, exit 0:
 * a monitoring probe must not fail its whole class over one bad file.
 *
 * A host whose VFs cannot get their GUIDs (an mlx5 port with VFs, without
 * MLNX_OFED and without the PF's IPoIB netdev: ib_ipoib not loaded) is not
 * ready: the table says why, one-system reports
 *   IB_NOT_READY="mlx5_1 port 1 (0000:af:00.0): no IPoIB netdev, ..."
 * ("" when ready) and one-monitor counts none of that port's VFs as free,
 * so the scheduler
 * does not send a VM there to fail its deploy. --guids=off: the host does
 * not program VFs (ONEIB_PKEY empty in kvm-ibrc), so nothing is missing.
 *
 * Each port's leaf switch is asked through --peer-cmd (oneib-peer, root:
 * only root may send SMPs) by every format but one-monitor. A port whose
 * leaf cannot be learnt (no command, a refusal, no answer, a cable to
 * another HCA) keeps its LEAF_* attributes empty and IB_NO_LEAF says why:
 * the probe never fails over it.
 *
 * Rails and PCIe facts (design decision 15): each InfiniBand port of a PF
 * with VFs has a rail (host/rails.h), each PF and each GPU or other
 * passthrough-able PCI device (host/pcitopo.h) its PCIe switch, root port
 * and NUMA node; one-system adds to each IB_PF
 *   RAIL="0", PCIE_SWITCH="0000:15:00.0", PCIE_ROOT_PORT="0000:14:01.0"
 * and reports
 *   IB_RAILS="8"   IB_NO_RAIL=""   (with a map: why a port has no rail)
 *   IB_PCI=[ ADDRESS="0000:18:00.0", CLASS="0302", VENDOR="10de",
 *            DEVICE="2330", DRIVER="vfio-pci", NUMA_NODE="0",
 *            PCIE_SWITCH="0000:15:00.0", PCIE_ROOT_PORT="0000:14:01.0",
 *            NEAR="switch", NEAR_RAILS="0,1" ]
 * and the counters free VFs per rail,
 *   IB_RAILS_FREE="8"
 *   IB_RAIL=[ RAIL="0", ADDRESS="0000:18:00.0", PORT="1", VFS_FREE="7",
 *             VFS_USABLE="8" ]
 * (VFS_USABLE: free or leased to the cloud's VMs, what the front-end
 * counts each rail's VMs against).
 * With --rail-map, the leaves learnt through --peer-cmd are kept in
 * <ledger>/leaves for oneib-vf (and read back by one-monitor, which asks
 * no peer).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "host/hca.h"
#include "core/json.h"
#include "host/lease.h"
#include "host/pcinames.h"
#include "host/peercmd.h"
#include "host/pcitopo.h"
#include "host/placement.h"
#include "host/rails.h"
#include "core/log.h"
#include "core/onetmpl.h"
#include "core/pkey.h"
#include "core/strbuf.h"

enum format { FMT_TABLE, FMT_JSON, FMT_ONE, FMT_ONE_SYSTEM, FMT_ONE_MONITOR };

static const struct {
	const char *name;
	enum format fmt;
} formats[] = {
	{ "table", FMT_TABLE },
	{ "json", FMT_JSON },
	{ "one", FMT_ONE },
	{ "one-system", FMT_ONE_SYSTEM },
	{ "one-monitor", FMT_ONE_MONITOR },
};

static void usage(FILE *f)
{
	fputs("usage: oneib-discover "
	      "[--format=table|json|one|one-system|one-monitor]\n"
	      "                      [--ledger DIR] [--guids=on|off] "
	      "[--peer-cmd CMD]\n"
	      "                      [--rail-map MAP]\n",
	      f);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* "0000:15:00.0", or "" when the function hangs off no PCIe switch. */
static const char *switch_of(const struct pci_place *pl,
			     char buf[PCI_ADDR_STRLEN])
{
	buf[0] = '\0';
	if (pl->has_switch)
		pci_addr_fmt(&pl->sw, buf);
	return buf;
}

/* "0000:14:01.0", or "" when it is on the host bridge's own bus. */
static const char *root_port_of(const struct pci_place *pl,
				char buf[PCI_ADDR_STRLEN])
{
	buf[0] = '\0';
	if (pl->known && pl->nchain)
		pci_addr_fmt(&pl->chain[0], buf);
	return buf;
}

/* "0,1": the rails of s, ascending. */
static void rails_str(const struct rail_set *s, struct strbuf *out)
{
	int r;

	for (r = 0; r <= RAIL_MAX; r++)
		if (rail_set_has(s, r))
			sb_addf(out, "%s%d", out->len ? "," : "", r);
}

/* What the devices are near: for each, its nearest rails. */
struct dev_near {
	enum pci_near level;
	struct rail_set rails;
};

static void print_vf_guids(const struct ib_port *pt, bool guids)
{
	const char *why = ib_port_not_ready(pt, guids);

	switch (pt->vf_guids) {
	case VF_GUIDS_NA:
		return;
	case VF_GUIDS_MLX4:
		puts("            VF GUIDs: mlx4 alias GUID table");
		return;
	case VF_GUIDS_OFED:
		puts("            VF GUIDs: MLNX_OFED sriov files");
		return;
	case VF_GUIDS_NETLINK:
		printf("            VF GUIDs: rtnetlink on %s\n", pt->ipoib);
		return;
	case VF_GUIDS_NONE:
		printf("            VF GUIDs: %s\n",
		       why ? why : "not programmed here (--guids=off)");
		if (why)
			puts("            NOT READY");
		return;
	}
}

/* "leaf 0x0002c90200000a00 port 2 "MF0;leaf1:MQM8700/U1"" or why not */
static void print_peer(const struct hca *h, const struct ib_port *pt)
{
	char why[sizeof(pt->peer_why) + 128];

	if (port_has_leaf(pt)) {
		char g[GUID_STRLEN];

		guid_fmt_hex(pt->peer.node_guid, g);
		printf("            leaf %s port %u \"%s\"\n", g, pt->peer.port,
		       pt->peer.desc);
	} else if (port_no_leaf(h, pt, why, sizeof(why))) {
		printf("            leaf - (%s)\n", why);
	}
}

/* "free VFs: 15 (NUMA node 0: 7, node 1: 8)"
 * "free VFs per rail: rail 0: 7, rail 1: 8" */
static void print_free(const struct placement_free *fr)
{
	const char *sep = "free VFs per rail:";
	int n;

	printf("\nfree VFs: %ld", fr->total);
	for (n = 0; n < PLACEMENT_MAX_NODES; n++)
		if (fr->nodes >> n & 1)
			printf("%s node %d: %ld",
			       fr->nodes & (((uint64_t)1 << n) - 1) ? ","
								    : " (NUMA",
			       n, fr->node[n]);
	puts(fr->nodes ? ")" : "");
	for (n = 0; n <= RAIL_MAX; n++) {
		if (!rail_set_has(&fr->rails, n))
			continue;
		printf("%s rail %d: %ld", sep, n, fr->rail[n]);
		sep = ",";
	}
	if (*sep == ',')
		putchar('\n');
}

static void print_devs(const struct pt_dev_list *d, const struct dev_near *nr)
{
	char addr[PCI_ADDR_STRLEN], sw[PCI_ADDR_STRLEN], rp[PCI_ADDR_STRLEN];
	size_t i;

	if (!d->n)
		return;
	printf("\nPCI devices (passthrough)\n    %-13s %-6s %-9s %-9s %-4s "
	       "%-13s %-13s %s\n",
	       "ADDRESS", "CLASS", "ID", "DRIVER", "NUMA", "ROOT PORT",
	       "SWITCH", "NEAR RAILS");
	for (i = 0; i < d->n; i++) {
		const struct pt_dev *x = &d->v[i];
		struct strbuf rails = STRBUF_INIT;
		char numa[16] = "-", id[16];

		pci_addr_fmt(&x->addr, addr);
		snprintf(id, sizeof(id), "%04x:%04x", x->vendor_id,
			 x->device_id);
		if (x->place.numa_node >= 0)
			snprintf(numa, sizeof(numa), "%d", x->place.numa_node);
		rails_str(&nr[i].rails, &rails);
		printf("    %-13s %04x   %-9s %-9s %-4s %-13s %-13s %s (%s)\n",
		       addr, x->class_code >> 8, id, or_dash(x->driver), numa,
		       or_dash(root_port_of(&x->place, rp)),
		       or_dash(switch_of(&x->place, sw)),
		       or_dash(sb_str(&rails)), pci_near_name(nr[i].level));
		sb_release(&rails);
	}
}

static void print_table(const struct hca_list *l, bool guids,
			const struct placement_free *fr,
			const struct pt_dev_list *devs,
			const struct dev_near *nr)
{
	char guid[GUID_STRLEN], addr[PCI_ADDR_STRLEN], pk[PKEY_STRLEN];
	char sw[PCI_ADDR_STRLEN], rp[PCI_ADDR_STRLEN];
	size_t i, j, k;
	int p;

	if (!l->n) {
		puts("no InfiniBand HCA found");
		return;
	}
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (h->has_pci)
			pci_addr_fmt(&h->addr, addr);
		printf("%sHCA %s  %s  %s %s\n", i ? "\n" : "",
		       h->has_pci ? addr : "(no PCI device)", h->ibdev,
		       h->vendor, h->device);
		guid_fmt_hex(h->node_guid, guid);
		printf("    driver %s  numa %d  fw %s  node_guid %s",
		       or_dash(h->driver), h->numa_node, or_dash(h->fw_ver),
		       guid);
		if (h->sriov_totalvfs >= 0)
			printf("  SR-IOV %d/%d VFs", h->sriov_numvfs,
			       h->sriov_totalvfs);
		putchar('\n');
		if (h->has_pci)
			printf("    root port %s  PCIe switch %s\n",
			       or_dash(root_port_of(&h->place, rp)),
			       or_dash(switch_of(&h->place, sw)));
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];
			char rail[16] = "-";

			guid_fmt_hex(pt->guid, guid);
			if (pt->rail >= 0)
				snprintf(rail, sizeof(rail), "%d", pt->rail);
			printf("    port %d  %s/%s  %u Gb/s  %s  lid %u  "
			       "sm_lid %u  guid %s  rail %s\n",
			       pt->num, or_dash(ib_state_name(pt->state)),
			       or_dash(ib_phys_state_name(pt->phys_state)),
			       pt->rate, pt->link_layer, pt->lid, pt->sm_lid,
			       guid, rail);
			printf("            pkeys");
			for (k = 0; k < pt->npkeys; k++) {
				pkey_fmt((struct pkey){ pt->pkeys[k] }, pk);
				printf(" %s", pk);
			}
			if (pt->pkey_cap)
				printf("  (%zu of %zu entries)", pt->npkeys,
				       pt->pkey_cap);
			putchar('\n');
			print_peer(h, pt);
			print_vf_guids(pt, guids);
		}
		if (!h->nvfs)
			continue;
		printf("    %-4s %-13s %-11s %-6s %-5s %-8s %s\n", "VF",
		       "ADDRESS", "DRIVER", "IOMMU", "NUMA", "IBDEV", "VM");
		for (j = 0; j < h->nvfs; j++) {
			const struct vf *vf = &h->vfs[j];
			char grp[16] = "-", numa[16] = "-", vm[16] = "-";

			pci_addr_fmt(&vf->addr, addr);
			if (vf->iommu_group >= 0)
				snprintf(grp, sizeof(grp), "%d",
					 vf->iommu_group);
			if (vf->numa_node >= 0)
				snprintf(numa, sizeof(numa), "%d",
					 vf->numa_node);
			if (vf->vmid >= 0)
				snprintf(vm, sizeof(vm), "%d", vf->vmid);
			printf("    %-4d %-13s %-11s %-6s %-5s %-8s %s\n",
			       vf->index, addr, or_dash(vf->driver), grp, numa,
			       or_dash(vf->ibdev), vm);
		}
	}
	print_devs(devs, nr);
	print_free(fr);
}

/* "peer": { "type": "switch", "node_guid": ..., "port": 2, "desc": ... }
 * or null, and "peer_error", why it is not known (null when it is, or
 * for a port that is not InfiniBand). */
static void json_peer(struct json *w, const struct hca *h,
		      const struct ib_port *pt)
{
	char why[sizeof(pt->peer_why) + 128];

	if (pt->peer_known) {
		char g[GUID_STRLEN], t[SMP_TYPE_STRLEN];

		json_obj(w, "peer");
		json_str(w, "type", smp_node_type_str(pt->peer.type, t));
		guid_fmt_hex(pt->peer.node_guid, g);
		json_str(w, "node_guid", g);
		json_int(w, "port", pt->peer.port);
		json_str(w, "desc", pt->peer.desc);
		json_end(w);
	} else {
		json_null(w, "peer");
	}
	if (!pt->peer_known && port_no_leaf(h, pt, why, sizeof(why)))
		json_str(w, "peer_error", why);
	else
		json_null(w, "peer_error");
}

/* "pci_devices": each passthrough-able function, where it is, and the
 * rails nearest it. */
static void json_devs(struct json *w, const struct pt_dev_list *d,
		      const struct dev_near *nr)
{
	char addr[PCI_ADDR_STRLEN], buf[16];
	size_t i;
	int r;

	json_arr(w, "pci_devices");
	for (i = 0; i < d->n; i++) {
		const struct pt_dev *x = &d->v[i];

		json_obj(w, NULL);
		pci_addr_fmt(&x->addr, addr);
		json_str(w, "address", addr);
		snprintf(buf, sizeof(buf), "0x%06x", x->class_code);
		json_str(w, "class", buf);
		snprintf(buf, sizeof(buf), "%04x", x->vendor_id);
		json_str(w, "vendor_id", buf);
		snprintf(buf, sizeof(buf), "%04x", x->device_id);
		json_str(w, "device_id", buf);
		json_str_or_null(w, "driver", x->driver);
		json_int_or_null(w, "numa_node", x->place.numa_node);
		json_str_or_null(w, "pcie_root_port",
				 root_port_of(&x->place, addr));
		json_str_or_null(w, "pcie_switch", switch_of(&x->place, addr));
		json_str(w, "near", pci_near_name(nr[i].level));
		json_arr(w, "near_rails");
		for (r = 0; r <= RAIL_MAX; r++)
			if (rail_set_has(&nr[i].rails, r))
				json_int(w, NULL, r);
		json_end(w);
		json_end(w);
	}
	json_end(w);
}

/* "rails": each railed port, its facts and its free VFs. */
static void json_rails(struct json *w, const struct hca_list *l,
		       const struct ledger *led, bool broken, bool guids)
{
	char addr[PCI_ADDR_STRLEN];
	size_t i;
	int p;

	json_arr(w, "rails");
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			if (pt->rail < 0)
				continue;
			json_obj(w, NULL);
			json_int(w, "rail", pt->rail);
			pci_addr_fmt(&h->addr, addr);
			json_str(w, "address", addr);
			json_int(w, "port", pt->num);
			json_str(w, "ibdev", h->ibdev);
			json_int_or_null(w, "numa_node", h->numa_node);
			json_str_or_null(w, "pcie_switch",
					 switch_of(&h->place, addr));
			json_bool(w, "ready", ib_port_ready(pt, guids));
			json_int(w, "vfs_free",
				 !broken && ib_port_ready(pt, guids)
					 ? placement_pf_free(h, led, guids)
					 : 0);
			json_end(w);
		}
	}
	json_end(w);
}

static void print_json(const struct hca_list *l,
		       const struct placement_free *fr,
		       const struct pt_dev_list *devs,
		       const struct dev_near *nr, const struct ledger *led,
		       bool broken, bool guids)
{
	char buf[GUID_STRLEN], addr[PCI_ADDR_STRLEN], pk[PKEY_STRLEN];
	struct json w;
	size_t i, j, k;
	int p;

	json_init(&w, stdout);
	json_obj(&w, NULL);
	json_int(&w, "version", 1);
	json_arr(&w, "hcas");
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		json_obj(&w, NULL);
		if (h->has_pci) {
			pci_addr_fmt(&h->addr, addr);
			json_str(&w, "address", addr);
			snprintf(buf, sizeof(buf), "%04x", h->vendor_id);
			json_str(&w, "vendor_id", buf);
			snprintf(buf, sizeof(buf), "%04x", h->device_id);
			json_str(&w, "device_id", buf);
		} else {
			json_null(&w, "address");
			json_null(&w, "vendor_id");
			json_null(&w, "device_id");
		}
		json_str_or_null(&w, "vendor", h->vendor);
		json_str_or_null(&w, "device", h->device);
		json_str_or_null(&w, "driver", h->driver);
		json_str(&w, "ibdev", h->ibdev);
		guid_fmt_hex(h->node_guid, buf);
		json_str(&w, "node_guid", buf);
		json_str_or_null(&w, "fw_ver", h->fw_ver);
		json_int_or_null(&w, "numa_node", h->numa_node);
		if (h->has_pci) {
			json_str_or_null(&w, "pcie_root_port",
					 root_port_of(&h->place, addr));
			json_str_or_null(&w, "pcie_switch",
					 switch_of(&h->place, addr));
		} else {
			json_null(&w, "pcie_root_port");
			json_null(&w, "pcie_switch");
		}
		json_int_or_null(&w, "sriov_totalvfs", h->sriov_totalvfs);
		json_int_or_null(&w, "sriov_numvfs", h->sriov_numvfs);
		json_arr(&w, "ports");
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			json_obj(&w, NULL);
			json_int(&w, "port", pt->num);
			json_str_or_null(&w, "state", ib_state_name(pt->state));
			json_str_or_null(&w, "phys_state",
					 ib_phys_state_name(pt->phys_state));
			json_int(&w, "rate", pt->rate);
			json_int(&w, "lid", pt->lid);
			json_int(&w, "sm_lid", pt->sm_lid);
			json_str(&w, "link_layer", pt->link_layer);
			guid_fmt_hex(pt->guid, buf);
			json_str(&w, "port_guid", buf);
			json_arr(&w, "pkeys");
			for (k = 0; k < pt->npkeys; k++) {
				pkey_fmt((struct pkey){ pt->pkeys[k] }, pk);
				json_str(&w, NULL, pk);
			}
			json_end(&w);
			json_int_or_null(&w, "pkey_cap",
					 pt->pkey_cap ? (long long)pt->pkey_cap
						      : -1);
			json_peer(&w, h, pt);
			json_int_or_null(&w, "rail", pt->rail);
			json_end(&w);
		}
		json_end(&w);
		json_arr(&w, "vfs");
		for (j = 0; j < h->nvfs; j++) {
			const struct vf *vf = &h->vfs[j];

			json_obj(&w, NULL);
			json_int(&w, "index", vf->index);
			pci_addr_fmt(&vf->addr, addr);
			json_str(&w, "address", addr);
			json_str_or_null(&w, "driver", vf->driver);
			json_int_or_null(&w, "iommu_group", vf->iommu_group);
			json_int_or_null(&w, "numa_node", vf->numa_node);
			json_str_or_null(&w, "ibdev", vf->ibdev);
			json_int_or_null(&w, "vm", vf->vmid);
			json_end(&w);
		}
		json_end(&w);
		json_end(&w);
	}
	json_end(&w);
	json_arr(&w, "numa");
	for (p = 0; p < PLACEMENT_MAX_NODES; p++) {
		if (!(fr->nodes >> p & 1))
			continue;
		json_obj(&w, NULL);
		json_int(&w, "node", p);
		json_int(&w, "vfs_free", fr->node[p]);
		json_end(&w);
	}
	json_end(&w);
	json_rails(&w, l, led, broken, guids);
	json_devs(&w, devs, nr);
	json_end(&w);
}

/*
 * Who holds each VF, from the ledger oneib-vf keeps, into led (the caller
 * closes it). Read without the lock: the file is always whole (it is
 * replaced by rename). A ledger we cannot read is worth a warning, not a
 * failed probe; but every deploy fails on it, so nothing on this host is
 * free until it is repaired: err says why (one line), led stays empty and
 * the monitoring formats report 0 free VFs and IB_ERROR.
 */
static void apply_leases(struct hca_list *l, const char *dir,
			 struct ledger *led, char *err, size_t errlen)
{
	size_t i, j, k;

	if (ledger_read(led, dir, err, errlen)) {
		log_msg("%s", err);
		return;
	}
	for (k = 0; k < led->n; k++)
		for (i = 0; i < l->n; i++)
			for (j = 0; j < l->v[i].nvfs; j++) {
				struct vf *vf = &l->v[i].vfs[j];

				if (pci_addr_cmp(&vf->addr, &led->v[k].vf))
					continue;
				vf->vmid = led->v[k].vmid;
			}
}

static bool hca_has_usable_port(const struct hca *h)
{
	int p;

	for (p = 0; p < h->nports; p++)
		if (ib_port_usable(&h->ports[p]))
			return true;
	return false;
}

/* What the reasons of print_reasons depend on. */
struct why_ctx {
	bool guids;
	const struct rail_map *map;
};

/* Why a port's VFs cannot get GUIDs, for IB_NOT_READY. */
static bool not_ready(const struct hca *h, const struct ib_port *pt,
		      const struct why_ctx *c, char *buf, size_t len)
{
	const char *why = ib_port_not_ready(pt, c->guids);
	char addr[PCI_ADDR_STRLEN];

	if (!why)
		return false;
	pci_addr_fmt(&h->addr, addr);
	snprintf(buf, len, "%s port %d (%s): %s", h->ibdev, pt->num, addr, why);
	return true;
}

/* Why a port has no leaf switch, for IB_NO_LEAF. */
static bool no_leaf(const struct hca *h, const struct ib_port *pt,
		    const struct why_ctx *c, char *buf, size_t len)
{
	(void)c;
	return port_no_leaf(h, pt, buf, len);
}

/*
 * KEY="<reason>; <reason>" for every port of a PF that has one; "" when
 * none has: a repaired host must clear what it reported before.
 */
static void print_reasons(const char *key, const struct hca_list *l,
			  const struct why_ctx *c,
			  bool (*why)(const struct hca *,
				      const struct ib_port *,
				      const struct why_ctx *, char *, size_t))
{
	struct strbuf sb = STRBUF_INIT;
	char buf[512];
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		for (p = 0; h->has_pci && p < h->nports; p++)
			if (why(h, &h->ports[p], c, buf, sizeof(buf)))
				sb_addf(&sb, "%s%s", sb.len ? "; " : "", buf);
	}
	tmpl_attr(stdout, key, sb_str(&sb));
	sb_release(&sb);
}

/* IB_LEAVES=",0x...a00,0x...b00,": the leaf switches of the ports VMs
 * get VFs on (ready ports), each once, in port order; "" when none. */
static void print_leaves(const struct hca_list *l, bool guids)
{
	struct strbuf sb = STRBUF_INIT;
	char g[GUID_STRLEN + 2];
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		for (p = 0; h->has_pci && p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			if (!port_has_leaf(pt) || !ib_port_ready(pt, guids))
				continue;
			g[0] = ',';
			guid_fmt_hex(pt->peer.node_guid, g + 1);
			if (!strstr(sb_str(&sb), g))
				sb_adds(&sb, g);
		}
	}
	if (sb.len)
		sb_adds(&sb, ",");
	tmpl_attr(stdout, "IB_LEAVES", sb_str(&sb));
	sb_release(&sb);
}

/* PKEY_CAP, PKEY_USED, the leaf (empty when unknown: IB_NO_LEAF says
 * why) and PEER_TYPE of an InfiniBand port, in its IB_PF vector. */
static void vec_port_facts(struct tmpl_vec *v, const struct ib_port *pt)
{
	char g[GUID_STRLEN] = "", t[SMP_TYPE_STRLEN];
	bool leaf = port_has_leaf(pt);

	if (strcmp(pt->link_layer, "InfiniBand"))
		return;
	if (pt->pkey_cap) {
		tmpl_vec_add_long(v, "PKEY_CAP", (long long)pt->pkey_cap);
		tmpl_vec_add_long(v, "PKEY_USED", (long long)pt->npkeys);
	}
	if (leaf)
		guid_fmt_hex(pt->peer.node_guid, g);
	tmpl_vec_add(v, "LEAF_GUID", g);
	if (leaf)
		tmpl_vec_add_long(v, "LEAF_PORT", pt->peer.port);
	else
		tmpl_vec_add(v, "LEAF_PORT", "");
	tmpl_vec_add(v, "LEAF_DESC", leaf ? pt->peer.desc : "");
	tmpl_vec_add(v, "PEER_TYPE",
		     pt->peer_known ? smp_node_type_str(pt->peer.type, t) : "");
}

/* Why a port has no rail, for IB_NO_RAIL. */
static bool no_rail(const struct hca *h, const struct ib_port *pt,
		    const struct why_ctx *c, char *buf, size_t len)
{
	return rails_why_none(h, pt, c->map, buf, len);
}

/* IB_PCI=[ ... ] per passthrough-able device: where, and its nearest
 * rails. */
static void print_one_devs(const struct pt_dev_list *d,
			   const struct dev_near *nr)
{
	char addr[PCI_ADDR_STRLEN], buf[16];
	struct tmpl_vec v;
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct pt_dev *x = &d->v[i];
		struct strbuf rails = STRBUF_INIT;

		tmpl_vec_begin(&v, stdout, "IB_PCI");
		pci_addr_fmt(&x->addr, addr);
		tmpl_vec_add(&v, "ADDRESS", addr);
		/* pci.rb's CLASS: class and subclass, 4 hex digits */
		snprintf(buf, sizeof(buf), "%04x", x->class_code >> 8);
		tmpl_vec_add(&v, "CLASS", buf);
		snprintf(buf, sizeof(buf), "%04x", x->vendor_id);
		tmpl_vec_add(&v, "VENDOR", buf);
		snprintf(buf, sizeof(buf), "%04x", x->device_id);
		tmpl_vec_add(&v, "DEVICE", buf);
		tmpl_vec_add(&v, "DRIVER", x->driver);
		if (x->place.numa_node >= 0)
			tmpl_vec_add_long(&v, "NUMA_NODE", x->place.numa_node);
		else
			tmpl_vec_add(&v, "NUMA_NODE", "");
		tmpl_vec_add(&v, "PCIE_SWITCH", switch_of(&x->place, addr));
		tmpl_vec_add(&v, "PCIE_ROOT_PORT",
			     root_port_of(&x->place, addr));
		tmpl_vec_add(&v, "NEAR", pci_near_name(nr[i].level));
		rails_str(&nr[i].rails, &rails);
		tmpl_vec_add(&v, "NEAR_RAILS", sb_str(&rails));
		tmpl_vec_end(&v);
		sb_release(&rails);
	}
}

static void print_one_system(const struct hca_list *l, bool guids,
			     const struct rail_map *map,
			     const struct pt_dev_list *devs,
			     const struct dev_near *nr)
{
	const struct why_ctx c = { guids, map };
	char addr[PCI_ADDR_STRLEN], guid[GUID_STRLEN], pl[PCI_ADDR_STRLEN];
	long long nrails = 0;
	bool sriov = false;
	struct tmpl_vec v;
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (h->has_pci && h->sriov_numvfs > 0 && h->nvfs &&
		    hca_has_usable_port(h))
			sriov = true;
	}
	tmpl_attr(stdout, "IB_SRIOV", sriov ? "YES" : "NO");
	print_reasons("IB_NOT_READY", l, &c, not_ready);
	print_leaves(l, guids);
	print_reasons("IB_NO_LEAF", l, &c, no_leaf);
	for (i = 0; i < l->n; i++)
		for (p = 0; p < l->v[i].nports; p++)
			nrails += l->v[i].ports[p].rail >= 0;
	tmpl_attr_long(stdout, "IB_RAILS", nrails);
	print_reasons("IB_NO_RAIL", l, &c, no_rail);
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci)
			continue;
		pci_addr_fmt(&h->addr, addr);
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			guid_fmt_hex(pt->guid, guid);
			tmpl_vec_begin(&v, stdout, "IB_PF");
			tmpl_vec_add(&v, "ADDRESS", addr);
			tmpl_vec_add(&v, "IBDEV", h->ibdev);
			tmpl_vec_add_long(&v, "PORT", pt->num);
			tmpl_vec_add(&v, "PORT_GUID", guid);
			/* which subnet the port is on (design decision 17) */
			if (pt->gid_prefix && !strcmp(pt->link_layer, "InfiniBa"
								      "nd")) {
				char pfx[GUID_STRLEN];

				guid_fmt_hex(pt->gid_prefix, pfx);
				tmpl_vec_add(&v, "SUBNET_PREFIX", pfx);
			}
			tmpl_vec_add(&v, "STATE",
				     or_dash(ib_state_name(pt->state)));
			tmpl_vec_add_long(&v, "RATE", pt->rate);
			tmpl_vec_add(&v, "LINK_LAYER", pt->link_layer);
			if (h->numa_node >= 0)
				tmpl_vec_add_long(&v, "NUMA_NODE",
						  h->numa_node);
			tmpl_vec_add_long(
				&v, "VFS_TOTAL",
				h->sriov_totalvfs > 0 ? h->sriov_totalvfs : 0);
			tmpl_vec_add_long(&v, "VFS_ENABLED",
					  (long long)h->nvfs);
			tmpl_vec_add(&v, "DRIVER", or_dash(h->driver));
			vec_port_facts(&v, pt);
			if (pt->rail >= 0)
				tmpl_vec_add_long(&v, "RAIL", pt->rail);
			else
				tmpl_vec_add(&v, "RAIL", "");
			tmpl_vec_add(&v, "PCIE_SWITCH",
				     switch_of(&h->place, pl));
			tmpl_vec_add(&v, "PCIE_ROOT_PORT",
				     root_port_of(&h->place, pl));
			tmpl_vec_end(&v);
		}
	}
	print_one_devs(devs, nr);
}

/*
 * The free-VF counters (host/placement.h's count, the rule deploy leases
 * by); with a ledger error (one line, "" when none) all are 0. IB_ERROR
 * is always printed, empty when all is well: OpenNebula keeps an
 * attribute a probe stops reporting, so a repaired host must clear it.
 */
static void print_one_monitor(const struct hca_list *l,
			      const struct ledger *led, const char *ledger_err,
			      bool guids, const struct placement_free *fr)
{
	char addr[PCI_ADDR_STRLEN];
	bool broken = ledger_err[0] != '\0';
	struct tmpl_vec v;
	long long n;
	size_t i;
	int p;

	tmpl_attr_long(stdout, "IB_VFS_FREE", fr->total);
	tmpl_attr_long(stdout, "IB_VFS_USABLE", broken ? 0 : fr->usable);
	tmpl_attr(stdout, "IB_ERROR", ledger_err);
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci)
			continue;
		pci_addr_fmt(&h->addr, addr);
		for (p = 0; p < h->nports; p++) {
			n = 0;
			if (!broken && ib_port_ready(&h->ports[p], guids))
				n = placement_pf_free(h, led, guids);
			tmpl_vec_begin(&v, stdout, "IB_PF_FREE");
			tmpl_vec_add(&v, "ADDRESS", addr);
			tmpl_vec_add_long(&v, "PORT", h->ports[p].num);
			tmpl_vec_add_long(&v, "IB_VFS_FREE", n);
			tmpl_vec_end(&v);
		}
	}
	for (p = 0; p < PLACEMENT_MAX_NODES; p++) {
		if (!(fr->nodes >> p & 1))
			continue;
		tmpl_vec_begin(&v, stdout, "IB_NUMA");
		tmpl_vec_add_long(&v, "NODE", p);
		tmpl_vec_add_long(&v, "VFS_FREE", fr->node[p]);
		tmpl_vec_end(&v);
	}
	tmpl_attr_long(stdout, "IB_RAILS_FREE", broken ? 0 : fr->rails_free);
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		pci_addr_fmt(&h->addr, addr);
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];
			long long u = 0;

			if (pt->rail < 0)
				continue;
			n = 0;
			if (!broken && ib_port_ready(pt, guids)) {
				n = placement_pf_free(h, led, guids);
				u = placement_pf_usable(h, led, guids);
			}
			tmpl_vec_begin(&v, stdout, "IB_RAIL");
			tmpl_vec_add_long(&v, "RAIL", pt->rail);
			tmpl_vec_add(&v, "ADDRESS", addr);
			tmpl_vec_add_long(&v, "PORT", pt->num);
			tmpl_vec_add_long(&v, "VFS_FREE", n);
			tmpl_vec_add_long(&v, "VFS_USABLE", u);
			tmpl_vec_end(&v);
		}
	}
}

/* The host's passthrough-able PCI devices and, for each, the rails nearest
 * it. */
static int scan_devs(const struct hca_list *l, struct pt_dev_list *devs,
		     struct dev_near **nr)
{
	size_t i;
	int r;

	r = hca_pci_devs(l, devs);
	if (r)
		return r;
	*nr = calloc(devs->n ? devs->n : 1, sizeof(**nr));
	if (!*nr)
		return -ENOMEM;
	for (i = 0; i < devs->n; i++)
		(*nr)[i].level =
			rails_near(l, &devs->v[i].place, &(*nr)[i].rails);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "guids", required_argument, NULL, 'g' },
		{ "peer-cmd", required_argument, NULL, 'p' },
		{ "rail-map", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum format fmt = FMT_TABLE;
	const char *ledger = "/var/lib/one/ib", *peer_cmd = NULL;
	struct ledger led = { .lock_fd = -1 };
	struct rail_map map = { 0 };
	struct pt_dev_list devs = { 0 };
	struct dev_near *nr = NULL;
	char ledger_err[512] = "", err[512];
	struct placement_free fr;
	bool guids = true;
	struct hca_list l;
	size_t i;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:l:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			ledger = optarg;
			break;
		case 'p':
			peer_cmd = optarg;
			break;
		case 'r':
			rail_map_free(&map);
			if (rail_map_parse(optarg, &map, err, sizeof(err))) {
				log_msg("--rail-map: %s", err);
				return 2;
			}
			break;
		case 'g':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				log_msg("--guids '%s': on or off", optarg);
				return 2;
			}
			guids = !strcmp(optarg, "on");
			break;
		case 'f':
			for (i = 0; i < sizeof(formats) / sizeof(formats[0]);
			     i++)
				if (!strcmp(optarg, formats[i].name))
					break;
			if (i == sizeof(formats) / sizeof(formats[0])) {
				log_msg("unknown format '%s' (table, json, "
					"one, one-system, one-monitor)",
					optarg);
				return 2;
			}
			fmt = formats[i].fmt;
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
	/* The monitor probe runs every cycle and needs only free VFs: the
	 * inventory with every VF's driver, not names, P_Keys and GIDs. */
	if (fmt == FMT_ONE_MONITOR) {
		r = hca_inventory(&l);
		if (!r)
			hca_probe_all(&l);
	} else {
		/* Each VF's IOMMU group and NUMA node: the table and JSON
		 * show them, the probe's formats do not. */
		bool shown = fmt == FMT_TABLE || fmt == FMT_JSON;

		r = hca_discover(&l, shown ? 0 : HCA_VF_DRIVER_ONLY);
		if (!r && shown)
			hca_read_names(&l);
	}
	if (r < 0) {
		log_msg("cannot read /sys: %s", strerror(-r));
		return 1;
	}
	if (l.n)
		apply_leases(&l, ledger, &led, ledger_err, sizeof(ledger_err));
	if (fmt != FMT_ONE_MONITOR)
		peercmd_read_all(peer_cmd, &l);
	/* Rails by leaf: the leaves learnt now kept for oneib-vf, or those
	 * the last probe learnt read back (one-monitor asks no peer). */
	if (map.n && fmt == FMT_ONE_MONITOR &&
	    leaves_read(ledger, &l, err, sizeof(err)))
		log_msg("%s", err);
	if (map.n && fmt != FMT_ONE_MONITOR && l.n &&
	    leaves_write(ledger, &l, err, sizeof(err)))
		log_msg("%s", err);
	rails_assign(&l, &map);
	placement_count_free(&l, &led, guids, &fr);
	if (ledger_err[0]) { /* every deploy fails on it: nothing is free */
		fr.total = 0;
		memset(fr.node, 0, sizeof(fr.node));
		memset(fr.rail, 0, sizeof(fr.rail));
		fr.rails_free = 0;
	}
	if (fmt != FMT_ONE_MONITOR) {
		r = scan_devs(&l, &devs, &nr);
		if (r) {
			log_msg("cannot read the PCI devices: %s",
				strerror(-r));
			ledger_close(&led);
			hca_list_free(&l);
			rail_map_free(&map);
			return 1;
		}
	}
	switch (fmt) {
	case FMT_TABLE:
		print_table(&l, guids, &fr, &devs, nr);
		break;
	case FMT_JSON:
		print_json(&l, &fr, &devs, nr, &led, ledger_err[0] != '\0',
			   guids);
		break;
	case FMT_ONE:
		print_one_system(&l, guids, &map, &devs, nr);
		print_one_monitor(&l, &led, ledger_err, guids, &fr);
		break;
	case FMT_ONE_SYSTEM:
		print_one_system(&l, guids, &map, &devs, nr);
		break;
	case FMT_ONE_MONITOR:
		print_one_monitor(&l, &led, ledger_err, guids, &fr);
		break;
	}
	ledger_close(&led);
	hca_list_free(&l);
	pt_dev_list_free(&devs);
	free(nr);
	rail_map_free(&map);
	if (fflush(stdout) || ferror(stdout)) {
		log_msg("cannot write the output");
		return 1;
	}
	return 0;
}
