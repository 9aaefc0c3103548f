/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OpenNebula VM XML: vm.xml beside the deployment file, or the <VM>
 * inside the <VMM_DRIVER_ACTION_DATA> every other action reads on stdin.
 * Only the InfiniBand NICs are taken out of it, each as one typed value:
 *
 *   <NIC>
 *     <IB_PKEY><![CDATA[0x8101]]></IB_PKEY>        inherited from the vnet
 *     <MAC><![CDATA[02:00:c0:a8:01:05]]></MAC>
 *     <NETWORK_ID><![CDATA[3]]></NETWORK_ID>
 *     <NIC_ID><![CDATA[0]]></NIC_ID>
 *     <VN_MAD><![CDATA[ib]]></VN_MAD>
 *   </NIC>
 *   -> { .nic_id = 0, .mac = 0x0200c0a80105, .pkey = { 0x8101 },
 *        .network_id = 3, .has_pf = false, .port = 0 }
 *
 * Each NIC is read by the one <NIC> reader (core/onenic.h), which the
 * partitions renderer shares. The document comes from oned but carries
 * strings a tenant chose (names, context values), so it is read through
 * the XML gate (core/xml.h), and every refusal is one line naming the VM
 * and the NIC.
 */
#ifndef ONEIB_ONEXML_H
#define ONEIB_ONEXML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpulist.h"
#include "core/ibattr.h"
#include "core/pci.h"
#include "core/pkey.h"

struct ib_nic {
	int nic_id; /* NIC_ID */
	uint64_t mac; /* MAC, low 48 bits */
	struct pkey pkey; /* IB_PKEY, a tenant partition */
	int network_id; /* NETWORK_ID, -1 if absent */
	bool has_pf; /* IB_PF given: pin the NIC to that PF */
	struct pci_addr pf; /* "0000:3b:00.0" */
	int port; /* IB_PORT: 0 = any port, else 1..9 */
	bool attach; /* ATTACH="YES": the NIC a hot-plug action is about */
	enum ib_rails rails; /* IB_RAILS, inherited from the vnet */
	enum ib_affinity affinity; /* IB_AFFINITY, likewise */
};

struct one_vm {
	int id;
	struct ib_nic *nics; /* in document order */
	size_t n;
	/* A NIC that is not InfiniBand carries ATTACH="YES". */
	bool attach_other;
	/* Host CPUs oned pinned the vCPUs to on the host the action runs on
	 * (the union of TEMPLATE/NUMA_NODE/CPUS, "4,5,6,7"); pinned false
	 * when no NUMA_NODE has CPUS. */
	bool pinned;
	uint64_t cpus[CPULIST_WORDS];
	/* The host addresses of its PCI passthrough devices (TEMPLATE/PCI/
	 * ADDRESS, oned's choice on the host it runs on), in PCI_ID order:
	 * the GPUs its NICs pair with (design decision 15). */
	struct pci_addr *pci;
	size_t npci;
};

/*
 * Accepts a document whose root is <VM>, or <VMM_DRIVER_ACTION_DATA> with
 * exactly one <VM> child. Takes every VM/TEMPLATE/NIC whose VN_MAD is "ib",
 * and the CPUS of every VM/TEMPLATE/NUMA_NODE: what oned pinned the vCPUs
 * to (its HostShareNUMA writes them, and the domain's <vcpupin> is made
 * from them: LibVirtDriverKVM.cc, vcpin), so that NIC hot-plug, restore and
 * a migration's destination prefer the NUMA node deploy prefers, and the
 * ADDRESS of every TEMPLATE/PCI (oned writes it when it assigns the
 * device), so that a hot-plugged NIC pairs with the VM's GPUs as deploy
 * pairs them. Other NICs, NIC_ALIAS, the rest of PCI, USER_TEMPLATE and
 * CONTEXT are never read, so a P_Key the VM owner writes there has no
 * effect. Returns 0, -EINVAL (or -ENOMEM) with one line in err, e.g.
 *   VM 42 NIC 1: IB_PKEY 0x7fff is the default partition
 *   VM 42: NUMA_NODE CPUS '4-x' is not a CPU list
 *   VM 42: PCI ADDRESS '0000:17:00' is not a PCI address
 * (oned writes ADDRESS as "0000:17:00:0"; the kernel's form is read too)
 * On error *vm is left empty ({ 0, NULL, 0 }, one_vm_free is harmless).
 */
int onexml_parse_vm(const char *xml, size_t len, struct one_vm *vm, char *err,
		    size_t errlen);
void one_vm_free(struct one_vm *vm);

/*
 * The InfiniBand NIC a NIC hot-plug action is about, given the MAC
 * OpenNebula passes it: OpenNebula marks that NIC ATTACH="YES" in the
 * action data, so when a NIC is marked, it is the one (and when the marked
 * NIC is not InfiniBand, none is); else the IB NIC with that MAC (two IB
 * NICs of one VM never share one). Its index in vm->nics, or -1.
 */
long onexml_nic_by_mac(const struct one_vm *vm, uint64_t mac);

#endif
