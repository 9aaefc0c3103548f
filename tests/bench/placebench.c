// SPDX-License-Identifier: Apache-2.0
/*
 * placebench: the placement decision's own cost (design decision 15), for
 * make bench (b21): a VM of 8 GPUs and 8 InfiniBand NICs on one network
 * placed on an HGX-class host built in memory (8 PFs of 127 VFs, two PFs
 * and two GPUs under each of 4 PCIe switches, 2 NUMA nodes), the ledger
 * holding the leases of `busy` other VMs (one VF each, spread over the
 * PFs) and, as leasing does, each NIC's lease added before the next NIC
 * is placed:
 *
 *   placebench 200 400
 *   -> runs=200 pfs=8 vfs=1016 leases=400 nics=8 rails=0,1,2,3,4,5,6,7
 *      beside=8 p50_ms=0.210 p99_ms=0.260
 *
 * The time is the 8 placement_choose calls and the 8 ledger_add between
 * them (wall, CLOCK_MONOTONIC), median and p99 over the runs; the check is
 * that every NIC got a distinct rail under its GPU's switch. Exit 1 when
 * not, 2 on wrong usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/placement.h"

#define NPF 8
#define NVF 127

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The kernel's device path of a function behind switch s, port k. */
static void place(int s, int k, int bus, struct pci_place *out)
{
	static const int base[4] = { 0x14, 0x38, 0x94, 0xb8 };
	char path[256];
	struct pci_addr a = { 0, (uint8_t)bus, 0, 0 };

	snprintf(path, sizeof(path),
		 "../../../devices/pci0000:%02x/0000:%02x:01.0/0000:%02x:00.0/"
		 "0000:%02x:%02x.0/0000:%02x:00.0",
		 base[s], base[s], base[s] + 1, base[s] + 2, k, bus);
	if (pci_place_parse(path, &a, out))
		abort();
	out->numa_node = s / 2;
}

static struct vf vfs[NPF][NVF];
static struct hca hv[NPF];
static struct placement_gpu gpus[NPF];

static void host(void)
{
	static const int base[4] = { 0x14, 0x38, 0x94, 0xb8 };
	int p, j;

	for (p = 0; p < NPF; p++) {
		int s = p / 2, bus = base[s] + 5 + p % 2;
		struct hca *h = &hv[p];

		memset(h, 0, sizeof(*h));
		h->has_pci = true;
		h->addr = (struct pci_addr){ 0, (uint8_t)bus, 0, 0 };
		h->numa_node = s / 2;
		place(s, 2 + p % 2, bus, &h->place);
		h->nports = 1;
		h->ports[0].num = 1;
		h->ports[0].state = 4;
		snprintf(h->ports[0].link_layer, sizeof(h->ports[0].link_layer),
			 "InfiniBand");
		h->vfs = vfs[p];
		h->nvfs = NVF;
		for (j = 0; j < NVF; j++) {
			struct vf *v = &vfs[p][j];

			memset(v, 0, sizeof(*v));
			v->index = j;
			v->addr = (struct pci_addr){ 0, (uint8_t)bus,
						     (uint8_t)((j + 1) >> 3),
						     (uint8_t)((j + 1) & 7) };
			snprintf(v->driver, sizeof(v->driver), "vfio-pci");
			v->numa_node = s / 2;
			v->vmid = -1;
		}
		gpus[p].addr =
			(struct pci_addr){ 0, (uint8_t)(base[s] + 3 + p % 2), 0,
					   0 };
		place(s, p % 2, base[s] + 3 + p % 2, &gpus[p].place);
	}
}

static int add(struct ledger *l, const struct hca *h, const struct vf *vf,
	       int vmid, int nic)
{
	struct lease x = { 0 };

	x.vf = vf->addr;
	x.pf = h->addr;
	x.port = 1;
	x.vmid = vmid;
	x.nic_id = nic;
	x.mac = 0x020000000000ull | (uint64_t)vmid << 8 | (uint64_t)nic;
	x.guid = 0x0200000000000000ull | (uint64_t)vmid << 16 | (uint64_t)nic;
	x.pkey.raw = 0x8101;
	x.since = 1763784000;
	return ledger_add(l, &x);
}

int main(int argc, char **argv)
{
	static const int sib[NPF] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct hca_list hcas = { hv, NPF };
	struct virt_domains doms = { 0 };
	struct ib_nic nics[NPF];
	long runs, busy, r, b;
	double *t, t0;
	char err[256], rails[64] = "";
	int beside = 0, k, ok = 1;

	if (argc != 3 || (runs = atol(argv[1])) < 1 ||
	    (busy = atol(argv[2])) < 0 || busy > NPF * (NVF - 1)) {
		fprintf(stderr, "usage: placebench RUNS BUSY_VMS\n");
		return 2;
	}
	host();
	rails_assign(&hcas, NULL);
	for (k = 0; k < NPF; k++) {
		memset(&nics[k], 0, sizeof(nics[k]));
		nics[k].nic_id = k;
		nics[k].mac = 0x0200c0a80000ull + (uint64_t)k;
		nics[k].pkey.raw = 0x8101;
		nics[k].network_id = 5;
	}
	t = calloc((size_t)runs, sizeof(*t));
	if (!t)
		return 1;
	for (r = 0; r < runs; r++) {
		struct ledger l = { .lock_fd = -1 };

		/* other VMs: the first VFs of every PF, round robin */
		for (b = 0; b < busy; b++)
			if (add(&l, &hv[b % NPF], &vfs[b % NPF][b / NPF],
				(int)(1000 + b), 0))
				return 1;
		t0 = now_ms();
		for (k = 0; k < NPF; k++) {
			struct placement_request rq = {
				.vmid = 42,
				.nic = &nics[k],
				.guids = true,
				.gpu = &gpus[rail_pair((size_t)k, NPF,
							    NPF)],
				.siblings = sib,
				.nsiblings = NPF,
			};
			struct placement p;

			if (placement_choose(&hcas, &l, &doms, &rq, &p, err,
					     sizeof(err)) ||
			    add(&l, p.pf, p.vf, 42, k)) {
				fprintf(stderr, "placebench: %s\n", err);
				return 1;
			}
			if (r == 0) {
				snprintf(rails + strlen(rails),
					 sizeof(rails) - strlen(rails), "%s%d",
					 k ? "," : "", p.port->rail);
				beside += p.near == PCI_NEAR_SWITCH;
				ok &= p.port->rail == k;
			}
		}
		t[r] = now_ms() - t0;
		ledger_close(&l);
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	printf("runs=%ld pfs=%d vfs=%d leases=%ld nics=%d rails=%s beside=%d "
	       "p50_ms=%.3f p99_ms=%.3f\n",
	       runs, NPF, NPF * NVF, busy, NPF, rails, beside, t[runs / 2],
	       t[runs * 99 / 100 < runs - 1 ? runs * 99 / 100 : runs - 1]);
	free(t);
	return ok && beside == NPF ? 0 : 1;
}
