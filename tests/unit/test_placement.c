// SPDX-License-Identifier: Apache-2.0
/*
 * The VF placement policy on a host built in memory: NUMA preference (the
 * nodes of the pinned CPUs, CPUs from 64 on too, read from a sysfs of a
 * private mount namespace), IB_PF/IB_PORT pins, which PFs, ports and VFs
 * are eligible, what counts as taken (ledger, libvirt domains), and the
 * refusal lines with their tallies.
 *
 *   0000:3b:00.0 node 0, port 1 ACTIVE IB          VFs 3b:00.1 .. 3b:00.4
 *   0000:5e:00.0 node 1, ports 1 and 2 ACTIVE IB   VFs 5e:00.1 .. 5e:00.4
 *   0000:af:00.0 node 1, port 1 Ethernet           VFs af:00.1 .. af:00.2
 *   ibsim0, no PCI address, port 1 ACTIVE IB
 *
 * Rails by address: 3b port 1 rail 0, 5e ports 1 and 2 rails 1 and 2.
 * For GPU pairing (design decision 15), where the PFs and GPUs sit:
 *   3b:00.0  on root port 3a:00.0, node 0
 *   5e:00.0  under the switch 5b:00.0 (root port 5a:01.0), node 1
 *   GPU 5d:00.0 under that switch too, node 1         (gpu_a)
 *   GPU 23:00.0 under a switch of its own, node 0     (gpu_b)
 *   GPU 93:00.0 on node 3, where no PF is             (gpu_c)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sched.h>
#include <cmocka.h>

#include "core/cpulist.h"
#include "core/sysfs.h"
#include "host/placement.h"

#define NVF 4

static struct vf vfs_a[NVF], vfs_b[NVF], vfs_c[2];
static struct hca hv[4];
static struct hca_list hcas = { hv, 4 };
static struct ledger l = { .lock_fd = -1 };
static struct virt_domains doms;
static char err[256];
/* The host programs VFs (ONEIB_PKEY set) unless a test says otherwise. */
static bool guids = true;

static struct pci_addr addr(unsigned bus, unsigned fn)
{
	struct pci_addr a = { 0, (uint8_t)bus, 0, (uint8_t)fn };

	return a;
}

static void port(struct ib_port *p, int num, int state, const char *ll)
{
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->state = state;
	p->phys_state = 5;
	snprintf(p->link_layer, sizeof(p->link_layer), "%s", ll);
}

static void pf(struct hca *h, unsigned bus, int node, struct vf *v, size_t n)
{
	size_t j;

	memset(h, 0, sizeof(*h));
	h->has_pci = true;
	h->addr = addr(bus, 0);
	h->numa_node = node;
	h->vfs = v;
	h->nvfs = n;
	for (j = 0; j < n; j++) {
		memset(&v[j], 0, sizeof(v[j]));
		v[j].index = (int)j;
		v[j].addr = addr(bus, (unsigned)j + 1);
		v[j].numa_node = node;
		v[j].vmid = -1;
	}
}

static int setup(void **state)
{
	(void)state;
	pf(&hv[0], 0x3b, 0, vfs_a, NVF);
	port(&hv[0].ports[0], 1, 4, "InfiniBand");
	hv[0].nports = 1;
	pf(&hv[1], 0x5e, 1, vfs_b, NVF);
	port(&hv[1].ports[0], 1, 4, "InfiniBand");
	port(&hv[1].ports[1], 2, 4, "InfiniBand");
	hv[1].nports = 2;
	pf(&hv[2], 0xaf, 1, vfs_c, 2);
	port(&hv[2].ports[0], 1, 4, "Ethernet");
	hv[2].nports = 1;
	memset(&hv[3], 0, sizeof(hv[3]));
	hv[3].numa_node = -1;
	port(&hv[3].ports[0], 1, 4, "InfiniBand");
	hv[3].nports = 1;
	l.n = 0;
	doms.v = NULL;
	doms.n = 0;
	err[0] = '\0';
	guids = true;
	rails_assign(&hcas, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ledger_close(&l);
	return 0;
}

static struct ib_nic nic(int id)
{
	struct ib_nic n = { .nic_id = id, .mac = 0x020000000001ull + id };

	n.pkey.raw = 0x8101;
	n.network_id = 10;
	return n;
}

static void lease_vf(unsigned bus, unsigned fn, int vmid)
{
	struct lease x = { 0 };

	x.vf = addr(bus, fn);
	x.pf = addr(bus, 0);
	x.port = 1;
	x.vmid = vmid;
	x.nic_id = 0;
	x.mac = 0x020000000100ull + (unsigned)vmid;
	x.guid = 0x0200000000000000ull | ((uint64_t)vmid << 16);
	x.pkey.raw = 0x8101;
	x.since = 1763784000;
	assert_int_equal(ledger_add(&l, &x), 0);
}

/* One domain named `name` holding the n addresses of `pcis`. */
static struct virt_domain dom1;
static void domain_holds(const char *name, struct pci_addr *pcis, size_t n)
{
	dom1.name = (char *)name;
	dom1.vmid = virt_vmid_of(name);
	dom1.active = true;
	dom1.pcis = pcis;
	dom1.npcis = n;
	doms.v = &dom1;
	doms.n = 1;
}

static int choose(const struct ib_nic *n, uint64_t nodes, struct placement *out)
{
	struct placement_request rq = {
		.vmid = 42, .nic = n, .numa_nodes = nodes, .guids = guids
	};

	err[0] = '\0';
	return placement_choose(&hcas, &l, &doms, &rq, out, err, sizeof(err));
}

static bool fits(const struct lease *x, const struct ib_nic *n)
{
	struct placement_request rq = { .vmid = 42, .nic = n, .guids = guids };

	return placement_lease_fits(&hcas, &doms, x, &rq);
}

static void assert_choice(const struct placement *p, unsigned bus, unsigned fn,
			  int portnum)
{
	assert_int_equal(p->pf->addr.bus, bus);
	assert_int_equal(p->vf->addr.bus, bus);
	assert_int_equal(p->vf->addr.func, fn);
	assert_int_equal(p->port->num, portnum);
}

static void first_free_vf_of_first_pf(void **state)
{
	struct ib_nic n = nic(0);
	struct placement p;

	(void)state;
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	lease_vf(0x3b, 1, 7);
	lease_vf(0x3b, 3, 8);
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
}

static void numa_preference_then_fallback(void **state)
{
	struct ib_nic n = nic(0);
	struct placement p;
	unsigned fn;

	(void)state;
	/* vCPUs on node 1: the node-1 PF first, although its address is
	 * higher, on its first eligible port. */
	assert_int_equal(choose(&n, 1u << 1, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	/* Node 1 full: node 0 rather than a refusal. */
	for (fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose(&n, 1u << 1, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	/* A node without an IB PF is no preference at all. */
	assert_int_equal(choose(&n, 1u << 5, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
}

/*
 * The NUMA preference from sysfs (placement_numa_nodes), in a mount
 * namespace of a child's own with a tmpfs over SYS_NODE: every CPU counts,
 * those numbered 64 and up (hosts with more than 64 CPUs) as much as the
 * first 64, and nodes may be sparse. 0 from the child: done; 77: no
 * namespace to be had here (skipped).
 */
static const char *const node_cpus[] = {
	"0-63", /* node 0 */
	"64-127", /* node 1 */
	"128-130,132-191", /* node 2 */
	"960-1023", /* node 3 */
	NULL, /* no node 4 */
	"200-201", /* node 5 */
};
static const struct {
	const char *pinned;
	uint64_t nodes;
} numa_cases[] = {
	{ "70", 1u << 1 },
	{ "64", 1u << 1 },
	{ "127", 1u << 1 },
	{ "63", 1u << 0 },
	{ "63-64", 1u << 0 | 1u << 1 },
	{ "130", 1u << 2 },
	{ "131", 0 },
	{ "1023", 1u << 3 },
	{ "200", 1u << 5 },
	{ "4,65,129", 7 },
};

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f)
		return -1;
	r = fputs(text, f) < 0;
	return fclose(f) || r ? -1 : 0;
}

/* As root a mount namespace; else a user namespace with one. */
static int private_mounts(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (!unshare(CLONE_NEWNS))
		return 0;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_text("/proc/self/setgroups", "deny") ||
	    write_text("/proc/self/uid_map", map))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	return write_text("/proc/self/gid_map", map);
}

static int numa_child(int out)
{
	char path[128];
	size_t i;

	if (private_mounts() ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("none", SYS_NODE, "tmpfs", 0, NULL))
		return 77;
	for (i = 0; i < sizeof(node_cpus) / sizeof(*node_cpus); i++) {
		if (!node_cpus[i])
			continue;
		snprintf(path, sizeof(path), SYS_NODE "/node%zu", i);
		if (mkdir(path, 0755))
			return 1;
		snprintf(path, sizeof(path), SYS_NODE "/node%zu/cpulist", i);
		if (write_text(path, node_cpus[i]))
			return 1;
	}
	for (i = 0; i < sizeof(numa_cases) / sizeof(*numa_cases); i++) {
		uint64_t cpus[CPULIST_WORDS], got;

		if (cpulist_parse(numa_cases[i].pinned, cpus, false))
			return 1;
		got = placement_numa_nodes(cpus);
		if (write(out, &got, sizeof(got)) != sizeof(got))
			return 1;
	}
	return 0;
}

static void numa_nodes_of_every_cpu(void **state)
{
	uint64_t got[sizeof(numa_cases) / sizeof(*numa_cases)];
	size_t i, n = 0;
	int fd[2], st;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fd[0]);
		_exit(numa_child(fd[1]));
	}
	close(fd[1]);
	while (n < sizeof(got) / sizeof(*got) &&
	       read(fd[0], &got[n], sizeof(got[n])) == sizeof(got[n]))
		n++;
	close(fd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip(); /* no mount namespace to be had */
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(n, sizeof(got) / sizeof(*got));
	for (i = 0; i < n; i++)
		if (got[i] != numa_cases[i].nodes)
			fail_msg("vCPUs on %s: nodes 0x%llx, want 0x%llx",
				 numa_cases[i].pinned,
				 (unsigned long long)got[i],
				 (unsigned long long)numa_cases[i].nodes);
}

static void pf_pin(void **state)
{
	struct ib_nic n = nic(1);
	struct placement p;

	(void)state;
	n.has_pf = true;
	n.pf = addr(0x5e, 0);
	assert_int_equal(choose(&n, 1u << 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	/* A pinned PF that is full is refused, never left for another. */
	for (unsigned fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no free VF on 0000:5e:00.0 for VM 42 (4 of 4 "
				 "leased)");
}

static void port_pin(void **state)
{
	struct ib_nic n = nic(1);
	struct placement p;

	(void)state;
	n.port = 2; /* only 0000:5e:00.0 has a port 2 */
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 2);
	/* Port 2 goes down: nothing else has a port 2. */
	hv[1].ports[1].state = 1;
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no ACTIVE InfiniBand port on this host for "
				 "VM 42 NIC 1");
}

static void pin_to_what_is_not_there(void **state)
{
	struct ib_nic n = nic(1);
	struct placement p;

	(void)state;
	n.has_pf = true;
	n.pf = addr(0xaf, 0); /* Ethernet */
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "VM 42 NIC 1: IB_PF 0000:af:00.0 is not an "
				 "ACTIVE InfiniBand port on this host");
	n.pf = addr(0x3b, 0);
	n.port = 2; /* 3b:00.0 has one port */
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "VM 42 NIC 1: IB_PF 0000:3b:00.0 port 2 is "
				 "not an ACTIVE InfiniBand port on this host");
}

static void eligibility(void **state)
{
	struct ib_nic n = nic(0);
	struct placement p;
	struct pci_addr held[] = { addr(0x3b, 2) };

	(void)state;
	/* A VF the host driver holds is never assignable; vfio-pci is. */
	snprintf(vfs_a[0].driver, sizeof(vfs_a[0].driver), "mlx5_core");
	snprintf(vfs_a[1].driver, sizeof(vfs_a[1].driver), "vfio-pci");
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	/* A domain holding it, whoever started it: never chosen. */
	domain_holds("legacy db", held, 1);
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 3, 1);
	/* A PF whose only port is not ACTIVE is skipped. */
	hv[0].ports[0].state = 2;
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	/* Only the Ethernet PF and the address-less device are left. */
	hv[1].ports[0].state = 2;
	hv[1].ports[1].state = 2;
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no ACTIVE InfiniBand port on this host for "
				 "VM 42 NIC 0");
}

static void unprobed_vfs(void **state)
{
	struct ib_nic n = nic(0);
	struct placement p;

	(void)state;
	/* hca_inventory's VFs: the driver not read yet. The first free one
	 * comes back for the caller to probe, a taken one never does. */
	vfs_a[0].unprobed = true;
	vfs_a[1].unprobed = true;
	lease_vf(0x3b, 1, 7);
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	assert_true(p.vf->unprobed);
	/* Probed: the host driver holds it, so the next one. */
	vfs_a[1].unprobed = false;
	snprintf(vfs_a[1].driver, sizeof(vfs_a[1].driver), "mlx5_core");
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 3, 1);
	/* Probed and absent (a dangling virtfnN): never. */
	vfs_a[2].absent = true;
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 4, 1);
}

static void tallies(void **state)
{
	struct ib_nic n = nic(0);
	struct placement p;
	struct pci_addr held[] = { addr(0x3b, 4), addr(0x5e, 4) };
	unsigned fn;

	(void)state;
	/* Host-bound VFs are not counted; ledger and domains are. */
	snprintf(vfs_a[0].driver, sizeof(vfs_a[0].driver), "mlx4_core");
	domain_holds("one-9", held, 2);
	for (fn = 2; fn <= 3; fn++)
		lease_vf(0x3b, fn, 10 + (int)fn);
	for (fn = 1; fn <= 3; fn++)
		lease_vf(0x5e, fn, 20 + (int)fn);
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no free VF on 2 PFs for VM 42 (7 of 7 "
				 "leased)");
	/* Pinned to the one-port PF: named with its port. */
	n.has_pf = true;
	n.pf = addr(0x3b, 0);
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no free VF on 0000:3b:00.0 port 1 for VM 42 "
				 "(3 of 3 leased)");
	/* The two-port PF with a port pin: that port; a ConnectX-3 VF serves
	 * both ports, so the tally is the PF's, counted once. */
	n.pf = addr(0x5e, 0);
	n.port = 2;
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, "no free VF on 0000:5e:00.0 port 2 for VM 42 "
				 "(4 of 4 leased)");
	/* One VF freed: no refusal. */
	l.n--;
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x5e, 3, 2);
}

static void lease_fits(void **state)
{
	struct ib_nic n = nic(0);
	struct pci_addr held[] = { addr(0x3b, 1) };
	struct lease x;

	(void)state;
	lease_vf(0x3b, 1, 42);
	x = l.v[0];
	x.mac = n.mac;
	assert_true(fits(&x, &n));
	/* Its own domain holds it: still fits (a second deploy). */
	domain_holds("one-42", held, 1);
	assert_true(fits(&x, &n));
	/* Another domain took it meanwhile. */
	domain_holds("one-43", held, 1);
	assert_false(fits(&x, &n));
	domain_holds("legacy db", held, 1);
	assert_false(fits(&x, &n));
	doms.n = 0;
	/* Another MAC or P_Key: the NIC changed. */
	x.mac++;
	assert_false(fits(&x, &n));
	x.mac--;
	x.pkey.raw = 0x8102;
	assert_false(fits(&x, &n));
	x.pkey.raw = 0x8101;
	/* A pin the lease does not meet. */
	n.has_pf = true;
	n.pf = addr(0x5e, 0);
	assert_false(fits(&x, &n));
	n.has_pf = false;
	/* Its port went down, or the host driver took the VF. */
	hv[0].ports[0].state = 2;
	assert_false(fits(&x, &n));
	hv[0].ports[0].state = 4;
	snprintf(vfs_a[0].driver, sizeof(vfs_a[0].driver), "mlx5_core");
	assert_false(fits(&x, &n));
	vfs_a[0].driver[0] = '\0';
	/* A VF this host does not have. */
	x.vf = addr(0x3b, 7);
	assert_false(fits(&x, &n));
}

/*
 * The port-ready rule (host/hca.h), as oneib-discover reports it: an mlx5
 * port whose VFs cannot get GUIDs (no MLNX_OFED, no IPoIB netdev) gives no
 * VF while the host programs VFs, so the monitor's 0 free VFs there is
 * what deploy does; a host that programs none (ONEIB_PKEY empty) needs no
 * netdev.
 */
static void not_ready_port_refused(void **state)
{
	static const char not_ready[] = "VM 42 NIC 1: mlx5_0 port 1 "
					"(0000:3b:00.0) is not ready: no "
					"IPoIB netdev, so VF GUIDs cannot be "
					"set: load ib_ipoib "
					"(modprobe ib_ipoib; /etc/modules) or "
					"install MLNX_OFED";
	struct ib_nic n = nic(1);
	struct placement p;
	struct lease x;

	(void)state;
	snprintf(hv[0].ibdev, sizeof(hv[0].ibdev), "mlx5_0");
	hv[0].ports[0].vf_guids = VF_GUIDS_NONE;
	/* unpinned: the ready PF */
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	/* pinned to the PF that is not ready: refused, saying why */
	n.has_pf = true;
	n.pf = addr(0x3b, 0);
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, not_ready);
	/* a lease there no longer fits either */
	lease_vf(0x3b, 1, 42);
	x = l.v[0];
	x.mac = n.mac;
	x.pkey = n.pkey;
	assert_false(fits(&x, &n));
	/* no VF programmed on this host: the port is ready */
	guids = false;
	assert_true(fits(&x, &n));
	assert_int_equal(choose(&n, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	/* every port not ready: the unpinned NIC is refused too */
	guids = true;
	n.has_pf = false;
	hv[1].ports[0].vf_guids = VF_GUIDS_NONE;
	hv[1].ports[1].vf_guids = VF_GUIDS_NONE;
	assert_int_equal(choose(&n, 0, &p), -EBUSY);
	assert_string_equal(err, not_ready);
}

/* --- rails and GPUs (design decision 15) ---------------------------------- */

static struct placement_gpu gpu_a, gpu_b, gpu_c;

static void place(const char *target, unsigned bus, int node,
		  struct pci_place *out)
{
	struct pci_addr a = addr(bus, 0);

	assert_int_equal(pci_place_parse(target, &a, out), 0);
	out->numa_node = node;
}

static int setup_gpus(void **state)
{
	setup(state);
	place("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0x3b, 0,
	      &hv[0].place);
	place("../../../devices/pci0000:5a/0000:5a:01.0/0000:5b:00.0/"
	      "0000:5c:01.0/0000:5e:00.0",
	      0x5e, 1, &hv[1].place);
	gpu_a.addr = addr(0x5d, 0);
	place("../../../devices/pci0000:5a/0000:5a:01.0/0000:5b:00.0/"
	      "0000:5c:00.0/0000:5d:00.0",
	      0x5d, 1, &gpu_a.place);
	gpu_b.addr = addr(0x23, 0);
	place("../../../devices/pci0000:20/0000:20:01.0/0000:21:00.0/"
	      "0000:22:00.0/0000:23:00.0",
	      0x23, 0, &gpu_b.place);
	gpu_c.addr = addr(0x93, 0);
	place("../../../devices/pci0000:90/0000:90:01.0/0000:93:00.0", 0x93, 3,
	      &gpu_c.place);
	return 0;
}

/* A lease of VM vmid's NIC nic_id on VF bus:00.fn, port. */
static void lease_nic(unsigned bus, unsigned fn, int port, int vmid, int nic_id)
{
	lease_vf(bus, fn, vmid);
	l.v[l.n - 1].port = port;
	l.v[l.n - 1].nic_id = nic_id;
	l.v[l.n - 1].mac += (uint64_t)nic_id << 8;
	l.v[l.n - 1].guid += (uint64_t)nic_id;
}

static const int sibs[] = { 0, 1, 2, 3 };

/* The VF for NIC n of VM 42 with the given context. */
static int choose_ctx(const struct ib_nic *n, const struct placement_gpu *g,
		      int hint, uint64_t nodes, struct placement *out)
{
	struct placement_request rq = { .vmid = 42,
					.nic = n,
					.numa_nodes = nodes,
					.guids = guids,
					.gpu = g,
					.siblings = sibs,
					.nsiblings = 4,
					.has_hint = hint >= 0,
					.hint_rail = hint };

	err[0] = '\0';
	return placement_choose(&hcas, &l, &doms, &rq, out, err, sizeof(err));
}

static void spread_over_rails(void **state)
{
	struct ib_nic n0 = nic(0), n1 = nic(1), n2 = nic(2), n3 = nic(3);
	struct placement p;

	(void)state;
	assert_int_equal(hv[0].ports[0].rail, 0);
	assert_int_equal(hv[1].ports[0].rail, 1);
	assert_int_equal(hv[1].ports[1].rail, 2);
	assert_int_equal(choose_ctx(&n0, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	lease_nic(0x3b, 1, 1, 42, 0);
	/* NIC 1 on the same network: the next rail, though rail 0 has room */
	assert_int_equal(choose_ctx(&n1, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	lease_nic(0x5e, 1, 1, 42, 1);
	assert_int_equal(choose_ctx(&n2, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 2, 2);
	lease_nic(0x5e, 2, 2, 42, 2);
	/* every rail taken once: rail order again, from rail 0 */
	assert_int_equal(choose_ctx(&n3, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	/* pack: the first PF with a free VF, as before rails */
	n3.rails = IB_RAILS_PACK;
	l.n = 1;
	assert_int_equal(choose_ctx(&n3, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	/* a NIC of another network has no siblings here */
	n3.rails = IB_RAILS_SPREAD;
	assert_int_equal(choose(&n3, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
	/* another VM's leases are not siblings */
	l.v[0].vmid = 7;
	assert_int_equal(choose_ctx(&n1, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
}

static void spread_while_rails_have_room(void **state)
{
	struct ib_nic n1 = nic(1);
	struct placement p;
	unsigned fn;

	(void)state;
	lease_nic(0x3b, 1, 1, 42, 0);
	/* rails 1 and 2 (the two ports of 5e) full with other VMs */
	for (fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose_ctx(&n1, NULL, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 2, 1);
}

static void keeps_its_rail(void **state)
{
	struct ib_nic n0 = nic(0);
	struct placement p;

	(void)state;
	assert_int_equal(choose_ctx(&n0, NULL, 2, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 2);
	/* the hint outranks spreading: a sibling already on rail 2 */
	lease_nic(0x5e, 1, 2, 42, 1);
	assert_int_equal(choose_ctx(&n0, NULL, 2, 0, &p), 0);
	assert_choice(&p, 0x5e, 2, 2);
	/* a rail this host lacks: as if no hint */
	l.n = 0;
	assert_int_equal(choose_ctx(&n0, NULL, 9, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	/* the hinted rail full: the others, by the rule */
	for (unsigned fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose_ctx(&n0, NULL, 2, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
}

static void beside_its_gpu(void **state)
{
	struct ib_nic n0 = nic(0);
	struct placement p;

	(void)state;
	/* under the GPU's switch, before the lower rail and address */
	assert_int_equal(choose_ctx(&n0, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	assert_int_equal(p.near, PCI_NEAR_SWITCH);
	assert_string_equal(p.warning, "");
	/* and before the NUMA node of the pinned vCPUs */
	assert_int_equal(choose_ctx(&n0, &gpu_a, -1, 1u << 0, &p), 0);
	assert_choice(&p, 0x5e, 1, 1);
	/* a GPU whose switch has no PF: its NUMA node's */
	assert_int_equal(choose_ctx(&n0, &gpu_b, -1, 1u << 1, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	assert_int_equal(p.near, PCI_NEAR_NODE);
	/* nothing near: the rule without it */
	assert_int_equal(choose_ctx(&n0, &gpu_c, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	assert_int_equal(p.near, PCI_NEAR_NONE);
	assert_string_equal(p.warning, "");
	/* IB_AFFINITY none: not paired */
	n0.affinity = IB_AFFINITY_NONE;
	assert_int_equal(choose_ctx(&n0, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	assert_int_equal(p.near, PCI_NEAR_NONE);
}

static void preferred_falls_back(void **state)
{
	struct ib_nic n1 = nic(1);
	struct placement p;
	unsigned fn;

	(void)state;
	for (fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose_ctx(&n1, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	assert_string_equal(p.warning, "VM 42 NIC 1: rail 0 (0000:3b:00.0 port "
				       "1) is not "
				       "beside GPU 0000:5d:00.0: no free VF "
				       "under its "
				       "PCIe switch 0000:5b:00.0 (IB_AFFINITY "
				       "preferred)");
}

static void required_refuses(void **state)
{
	struct ib_nic n1 = nic(1);
	struct placement p;
	unsigned fn;

	(void)state;
	n1.affinity = IB_AFFINITY_REQUIRED;
	for (fn = 1; fn <= NVF; fn++)
		lease_vf(0x5e, fn, 100 + (int)fn);
	assert_int_equal(choose_ctx(&n1, &gpu_a, -1, 0, &p), -EBUSY);
	assert_string_equal(err, "VM 42 NIC 1: no free VF beside GPU "
				 "0000:5d:00.0 (IB_AFFINITY required, under "
				 "its PCIe switch 0000:5b:00.0: rail 1 4 of 4 "
				 "leased, rail 2 4 of 4 leased)");
	/* one freed: that one */
	l.n--;
	assert_int_equal(choose_ctx(&n1, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 4, 1);
	/* by NUMA node: GPU B's node has rail 0 only */
	for (fn = 1; fn <= NVF; fn++)
		lease_vf(0x3b, fn, 200 + (int)fn);
	assert_int_equal(choose_ctx(&n1, &gpu_b, -1, 0, &p), -EBUSY);
	assert_string_equal(err, "VM 42 NIC 1: no free VF beside GPU "
				 "0000:23:00.0 (IB_AFFINITY required, on its "
				 "NUMA node 0: rail 0 4 of 4 leased)");
	/* nothing is near GPU C: required asks nothing more */
	assert_int_equal(choose_ctx(&n1, &gpu_c, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 4, 1);
}

/* The VM's own NICs on the rails under its GPU's switch make a farther
 * port beside it: required is not refused for the VM's shape. */
static void beside_counts_siblings(void **state)
{
	struct ib_nic n2 = nic(2);
	struct placement p;

	(void)state;
	n2.affinity = IB_AFFINITY_REQUIRED;
	lease_nic(0x5e, 1, 1, 42, 0);
	lease_nic(0x5e, 2, 2, 42, 1);
	assert_int_equal(choose_ctx(&n2, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x3b, 1, 1);
	assert_string_equal(p.warning, "");
	/* pack: no siblings count, the switch's rails are beside */
	n2.rails = IB_RAILS_PACK;
	assert_int_equal(choose_ctx(&n2, &gpu_a, -1, 0, &p), 0);
	assert_choice(&p, 0x5e, 3, 1);
}

static void pairing(void **state)
{
	(void)state;
	/* as many: NIC k with GPU k */
	for (int k = 0; k < 8; k++)
		assert_int_equal(rail_pair((size_t)k, 8, 8), k);
	/* 8 NICs on 2 GPUs: 0-3 with GPU 0, 4-7 with GPU 1 */
	assert_int_equal(rail_pair(3, 8, 2), 0);
	assert_int_equal(rail_pair(4, 8, 2), 1);
	/* 2 NICs on 8 GPUs: GPUs 0 and 4 */
	assert_int_equal(rail_pair(0, 2, 8), 0);
	assert_int_equal(rail_pair(1, 2, 8), 4);
	assert_int_equal(rail_pair(0, 2, 0), -1);
	assert_int_equal(rail_pair(2, 2, 8), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(first_free_vf_of_first_pf,
						setup, teardown),
		cmocka_unit_test_setup_teardown(numa_preference_then_fallback,
						setup, teardown),
		cmocka_unit_test(numa_nodes_of_every_cpu),
		cmocka_unit_test_setup_teardown(pf_pin, setup, teardown),
		cmocka_unit_test_setup_teardown(port_pin, setup, teardown),
		cmocka_unit_test_setup_teardown(pin_to_what_is_not_there, setup,
						teardown),
		cmocka_unit_test_setup_teardown(eligibility, setup, teardown),
		cmocka_unit_test_setup_teardown(unprobed_vfs, setup, teardown),
		cmocka_unit_test_setup_teardown(tallies, setup, teardown),
		cmocka_unit_test_setup_teardown(lease_fits, setup, teardown),
		cmocka_unit_test_setup_teardown(not_ready_port_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(spread_over_rails, setup_gpus,
						teardown),
		cmocka_unit_test_setup_teardown(spread_while_rails_have_room,
						setup_gpus, teardown),
		cmocka_unit_test_setup_teardown(keeps_its_rail, setup_gpus,
						teardown),
		cmocka_unit_test_setup_teardown(beside_its_gpu, setup_gpus,
						teardown),
		cmocka_unit_test_setup_teardown(preferred_falls_back,
						setup_gpus, teardown),
		cmocka_unit_test_setup_teardown(required_refuses, setup_gpus,
						teardown),
		cmocka_unit_test_setup_teardown(beside_counts_siblings,
						setup_gpus, teardown),
		cmocka_unit_test(pairing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
