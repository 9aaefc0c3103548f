/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The libvirt domain XML (OpenNebula's deployment file), read and changed
 * through libxml2's tree, never as text. deploy turns each IB NIC, found by
 * its MAC, into the VF it leased:
 *
 *   <interface type='bridge'>
 *     <source bridge='onebr3'/>
 *     <mac address='02:00:c0:a8:01:05'/>
 *     <target dev='one-42-0'/>
 *     <boot order='2'/>
 *     <model type='virtio'/>
 *   </interface>
 * ->
 *   <hostdev mode="subsystem" type="pci" managed="yes">
 *     <source>
 *       <address domain="0x0000" bus="0x3b" slot="0x00" function="0x1"/>
 *     </source>
 *     <boot order="2"/>
 *   </hostdev>
 *
 * indented like the interface was (a one-line file gets a one-line hostdev).
 * Every node it does not own (metadata, comments, other devices, CDATA) is
 * serialized back as libxml2 read it; libxml2 writes every attribute in
 * double quotes and namespace declarations first, which libvirt reads alike.
 */
#ifndef ONEIB_DOMXML_H
#define ONEIB_DOMXML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpulist.h"
#include "core/pci.h"
#include "core/strbuf.h"

/*
 * A deployment file, parsed once (the XML gate, core/xml.h) and then read
 * and changed as often as the caller needs: deploy takes the vCPU pinning
 * from it and rewrites it. Only a root <domain> is a deployment file:
 *   domain XML: root element <VM> is not <domain>
 * 0 with *out (free with domxml_free), or -EINVAL / -ENOMEM with err.
 */
struct domxml;
int domxml_parse(const char *xml, size_t len, struct domxml **out, char *err,
		 size_t errlen);
void domxml_free(struct domxml *d);

struct domxml_vf {
	uint64_t mac; /* the NIC's OpenNebula MAC, low 48 bits */
	struct pci_addr vf; /* the VF that replaces it */
	int node; /* its host NUMA node, -1 unknown */
	/* the host address of the PCI hostdev (GPU) it pairs with */
	bool has_gpu;
	struct pci_addr gpu;
	/* the guest port domxml_pair chose for it (a downstream port of its
	 * GPU's switch), before the NUMA rule below */
	bool has_bus;
	int bus;
};

/* A GPU of the deployment: its hostdev's host address, its host node. */
struct domxml_gpu {
	struct pci_addr addr;
	int node; /* -1 unknown */
};

/*
 * The guest sees each GPU and its VFs as siblings (design decision 15):
 * every GPU of gpus gets an emulated PCIe switch of its own, its hostdev
 * moved onto the switch's first downstream port, the VFs of map paired
 * with it (has_gpu, gpu) onto the next ones (map[i].has_bus, bus), and one
 * more downstream port left free, for a VF hot-plugged beside it later
 * (switch ports cannot be hot-plugged):
 *
 *   <controller type="pci" index="48" model="pcie-root-port">
 *     <alias name="ua-oneib-sw0-rp"/>
 *     <address type="pci" domain="0x0000" bus="0x14" slot="0x01" function="0x0"/></controller>
 *   <controller type="pci" index="49" model="pcie-switch-upstream-port">
 *     <alias name="ua-oneib-sw0"/> <address ... bus="0x30" slot="0x00" .../></controller>
 *   <controller type="pci" index="50" model="pcie-switch-downstream-port">
 *     <alias name="ua-oneib-sw0-p0"/> <address ... bus="0x31" slot="0x00" .../></controller>
 *   ... p1 (the VF), p2 (free)
 *
 * The root port goes on the PCIe expander bus of the guest NUMA node whose
 * memory is on the GPU's host node (OpenNebula 7.0's layout, as VFs go
 * below), at its first free slot, else on pcie-root (libvirt chooses the
 * slot). New controllers take indices above every existing one (and above
 * as many as the domain has PCI controllers, some of them without an
 * index: libvirt numbers those from 1). An expander whose bus numbers
 * (<target busNr>, up to the next expander's) no longer hold its ports is
 * given a higher busNr, the later ones moved up with it, within the 256
 * buses of QEMU's one PCI domain:
 *   domain one-42: 260 PCIe buses needed, QEMU has 256
 * A machine without PCIe (pc, i440fx): nothing changes. 0, -EINVAL with one
 * line in err (nothing changed), -ENOMEM.
 */
int domxml_pair(struct domxml *d, const struct domxml_gpu *gpus, size_t ngpus,
		struct domxml_vf *map, size_t n, char *err, size_t errlen);

/*
 * Replaces each <devices><interface> whose <mac address> equals map[i].mac
 * (compared as parsed MACs, so case does not matter) by a managed PCI
 * <hostdev> at the same place. The interface's <boot order> and its guest
 * <address type='pci'> move into the hostdev, after <source>; the rest of the
 * interface goes. A VF whose interface had no guest address is put on its
 * host node's guest NUMA node where the domain has one PCIe expander bus
 * per guest NUMA node (OpenNebula 7.0's q35 layout for a VM with a NUMA
 * topology, LibVirtDriverKVM.cc, Q35_NUMA_PCIE): the guest node is the
 * <numatune><memnode cellid> whose nodeset holds map[i].node, its expander
 * the pcie-expander-bus whose <target><node> is that cell, and the VF gets
 * the first free pcie-root-port on that expander, else the last free
 * pcie-switch-downstream-port behind it (OpenNebula's own PCI devices take
 * downstream ports from the first on; never one of domxml_pair's
 * switches, whose free ports are kept for VFs beside their GPUs):
 *   <address type="pci" domain="0x0000" bus="0x24" slot="0x00" function="0x0"/>
 * No such layout, no cell on that node or no free port: no address, and
 * libvirt places the VF as before. A VF domxml_pair placed (has_bus) goes
 * on that port. A MAC matching no interface or several, a MAC or a VF given
 * twice in map: -EINVAL with one line in err, and nothing appended to out.
 * On success the document (changed: d holds the rewritten tree) is appended
 * to out, with an XML declaration only if the input had one.
 */
int domxml_rewrite(struct domxml *d, const struct domxml_vf *map, size_t n,
		   struct strbuf *out, char *err, size_t errlen);

/*
 * An SMBIOS OEM string for the guest (design decision 15: the NICs' rails,
 * core/railhint.h, which oneib-context reads from the guest's DMI tables),
 * replacing one that begins with prefix:
 *   <os>... <smbios mode="sysinfo"/></os>
 *   <sysinfo type="smbios"><oemStrings><entry>one-ib rails 0=3,1=5</entry>
 *   </oemStrings></sysinfo>
 * A <sysinfo type='smbios'> or <oemStrings> already there takes it. An
 * <os><smbios> of another mode (host, emulate) is the operator's choice:
 * nothing is added. 0, or -ENOMEM with err.
 */
int domxml_oem_string(struct domxml *d, const char *prefix, const char *entry,
		      char *err, size_t errlen);

/*
 * The device XML that hot-attaches or hot-detaches VF vf (virsh
 * attach-device / detach-device), one line, appended to out:
 *   <hostdev mode="subsystem" type="pci" managed="yes"><source><address
 *   domain="0x0000" bus="0x3b" slot="0x00" function="0x1"/></source></hostdev>
 * with, for guest_bus >= 0, the guest address <address type="pci"
 * domain="0x0000" bus="0x24" slot="0x00" function="0x0"/> after <source>.
 * A plain PCI hostdev, never <interface type='hostdev'>: libvirt would set
 * an Ethernet MAC on the VF, which InfiniBand VFs refuse.
 */
int domxml_hostdev(const struct pci_addr *vf, int guest_bus,
		   struct strbuf *out);

/*
 * The free PCIe ports of a domain by guest NUMA node, as domxml_rewrite
 * chooses them (OpenNebula 7.0's expander buses, see above), for VFs
 * hot-attached to a running domain: domxml_ports_take gives the guest bus
 * for a VF of host node `node` and marks it taken, or -1 (no such layout,
 * no guest node there, no free port, node -1: leave it to libvirt).
 */
struct domxml_ports;
int domxml_ports_new(const struct domxml *d, struct domxml_ports **out);
int domxml_ports_take(struct domxml_ports *p, int node);
void domxml_ports_free(struct domxml_ports *p);
/*
 * For a VF hot-plugged to a running domain beside the GPU at host address
 * gpu: a free downstream port of the switch domxml_pair gave it, taken;
 * -1 when there is none.
 */
int domxml_ports_beside(struct domxml_ports *p, const struct pci_addr *gpu);

/*
 * PCI functions the domain already owns: source addresses of
 * <hostdev mode='subsystem' type='pci'> and of <interface type='hostdev'>
 * (<source><address type='pci' .../>), appended to *out (realloc'd, *n
 * grows). Libvirt's forms are accepted: "0x3b" or "59", absent = 0. On error
 * *out and *n are unchanged.
 */
int domxml_pci_hostdevs(const struct domxml *d, struct pci_addr **out,
			size_t *n, char *err, size_t errlen);

/*
 * Host CPUs the vCPUs may run on: the union of <vcpu cpuset='0-3,^2'> and
 * every <cputune><vcpupin cpuset='...'>. *pinned is false (and bits empty)
 * when neither is present, i.e. the vCPUs float over the whole host.
 */
int domxml_pinned_cpus(const struct domxml *d, uint64_t bits[CPULIST_WORDS],
		       bool *pinned, char *err, size_t errlen);

#endif
