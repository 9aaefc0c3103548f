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
 */
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
	      "                      [--ledger DIR] [--guids=on|off]\n",
	      f);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

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

static void print_table(const struct hca_list *l, bool guids)
{
	char guid[GUID_STRLEN], addr[PCI_ADDR_STRLEN], pk[PKEY_STRLEN];
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
		for (p = 0; p < h->nports; p++) {
			const struct ib_port *pt = &h->ports[p];

			guid_fmt_hex(pt->guid, guid);
			printf("    port %d  %s/%s  %u Gb/s  %s  lid %u  "
			       "sm_lid %u  guid %s\n",
			       pt->num, or_dash(ib_state_name(pt->state)),
			       or_dash(ib_phys_state_name(pt->phys_state)),
			       pt->rate, pt->link_layer, pt->lid, pt->sm_lid,
			       guid);
			printf("            pkeys");
			for (k = 0; k < pt->npkeys; k++) {
				pkey_fmt((struct pkey){ pt->pkeys[k] }, pk);
				printf(" %s", pk);
			}
			putchar('\n');
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
}

static void print_json(const struct hca_list *l)
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
	json_end(&w);
}

static bool vf_free(const struct vf *vf)
{
	return vf_assignable(vf) && !vf->leased;
}

/*
 * Who holds each VF, from the ledger oneib-vf keeps. Read without the lock:
 * the file is always whole (it is replaced by rename). A ledger we cannot
 * read is worth a warning, not a failed probe; but every deploy fails on
 * it, so nothing on this host is free until it is repaired: err says why
 * (one line), and the monitoring formats report 0 free VFs and IB_ERROR.
 */
static void apply_leases(struct hca_list *l, const char *dir, char *err,
			 size_t errlen)
{
	struct ledger led = { .lock_fd = -1 };
	size_t i, j, k;

	if (ledger_read(&led, dir, err, errlen)) {
		log_msg("%s", err);
		return;
	}
	for (k = 0; k < led.n; k++)
		for (i = 0; i < l->n; i++)
			for (j = 0; j < l->v[i].nvfs; j++) {
				struct vf *vf = &l->v[i].vfs[j];

				if (pci_addr_cmp(&vf->addr, &led.v[k].vf))
					continue;
				vf->leased = true;
				vf->vmid = led.v[k].vmid;
			}
	ledger_close(&led);
}

static bool hca_has_usable_port(const struct hca *h)
{
	int p;

	for (p = 0; p < h->nports; p++)
		if (ib_port_usable(&h->ports[p]))
			return true;
	return false;
}

/* IB_NOT_READY: every port whose VFs cannot get GUIDs, with the reason. */
static void print_not_ready(const struct hca_list *l, bool guids)
{
	char addr[PCI_ADDR_STRLEN];
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci)
			continue;
		pci_addr_fmt(&h->addr, addr);
		for (p = 0; p < h->nports; p++) {
			const char *why =
				ib_port_not_ready(&h->ports[p], guids);

			if (why)
				sb_addf(&sb, "%s%s port %d (%s): %s",
					sb.len ? "; " : "", h->ibdev,
					h->ports[p].num, addr, why);
		}
	}
	/* "" when ready: a repaired host must clear what it reported before */
	tmpl_attr(stdout, "IB_NOT_READY", sb_str(&sb));
	sb_release(&sb);
}

static void print_one_system(const struct hca_list *l, bool guids)
{
	char addr[PCI_ADDR_STRLEN], guid[GUID_STRLEN];
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
	print_not_ready(l, guids);
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
			tmpl_vec_end(&v);
		}
	}
}

static bool hca_has_ready_port(const struct hca *h, bool guids)
{
	int p;

	for (p = 0; p < h->nports; p++)
		if (ib_port_ready(&h->ports[p], guids))
			return true;
	return false;
}

/*
 * The free-VF counters; with a ledger error (one line, "" when none) all
 * are 0. IB_ERROR is always printed, empty when all is well: OpenNebula
 * keeps an attribute a probe stops reporting, so a repaired host must
 * clear it.
 */
static void print_one_monitor(const struct hca_list *l, const char *ledger_err,
			      bool guids)
{
	char addr[PCI_ADDR_STRLEN];
	long long total = 0, n;
	bool broken = ledger_err[0] != '\0';
	struct tmpl_vec v;
	size_t i, j;
	int p;

	for (i = 0; i < l->n && !broken; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci || !hca_has_ready_port(h, guids))
			continue;
		for (j = 0; j < h->nvfs; j++)
			total += vf_free(&h->vfs[j]);
	}
	tmpl_attr_long(stdout, "IB_VFS_FREE", total);
	tmpl_attr(stdout, "IB_ERROR", ledger_err);
	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci)
			continue;
		pci_addr_fmt(&h->addr, addr);
		for (p = 0; p < h->nports; p++) {
			n = 0;
			if (!broken && ib_port_ready(&h->ports[p], guids))
				for (j = 0; j < h->nvfs; j++)
					n += vf_free(&h->vfs[j]);
			tmpl_vec_begin(&v, stdout, "IB_PF_FREE");
			tmpl_vec_add(&v, "ADDRESS", addr);
			tmpl_vec_add_long(&v, "PORT", h->ports[p].num);
			tmpl_vec_add_long(&v, "IB_VFS_FREE", n);
			tmpl_vec_end(&v);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "guids", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum format fmt = FMT_TABLE;
	const char *ledger = "/var/lib/one/ib";
	char ledger_err[512] = "";
	bool guids = true;
	struct hca_list l;
	size_t i;
	int c, r;

	while ((c = getopt_long(argc, argv, "f:l:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			ledger = optarg;
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
		r = hca_discover(&l);
		if (!r && (fmt == FMT_TABLE || fmt == FMT_JSON))
			hca_read_names(&l);
	}
	if (r < 0) {
		log_msg("cannot read /sys: %s", strerror(-r));
		return 1;
	}
	if (l.n)
		apply_leases(&l, ledger, ledger_err, sizeof(ledger_err));
	switch (fmt) {
	case FMT_TABLE:
		print_table(&l, guids);
		break;
	case FMT_JSON:
		print_json(&l);
		break;
	case FMT_ONE:
		print_one_system(&l, guids);
		print_one_monitor(&l, ledger_err, guids);
		break;
	case FMT_ONE_SYSTEM:
		print_one_system(&l, guids);
		break;
	case FMT_ONE_MONITOR:
		print_one_monitor(&l, ledger_err, guids);
		break;
	}
	hca_list_free(&l);
	if (fflush(stdout) || ferror(stdout)) {
		log_msg("cannot write the output");
		return 1;
	}
	return 0;
}
