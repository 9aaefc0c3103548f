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
};

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
 * downstream ports from the first on):
 *   <address type="pci" domain="0x0000" bus="0x24" slot="0x00" function="0x0"/>
 * No such layout, no cell on that node or no free port: no address, and
 * libvirt places the VF as before. A MAC matching no interface or several, a MAC or a VF given
 * twice in map: -EINVAL with one line in err, and nothing appended to out.
 * On success the document (changed: d holds the rewritten tree) is appended
 * to out, with an XML declaration only if the input had one.
 */
int domxml_rewrite(struct domxml *d, const struct domxml_vf *map, size_t n,
		   struct strbuf *out, char *err, size_t errlen);

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
