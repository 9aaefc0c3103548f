/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OpenNebula's <NIC>, read by one reader for everyone who needs it: deploy
 * and the other host actions (host/onexml.c, from vm.xml or the action
 * data) and the partitions renderer (fabric/poolread.c, from `onevm list
 * -x`). Both feed design decision 2's GUID (VM ID, NIC ID), so both must
 * mean the same NIC by the same bytes:
 *
 *   <NIC>
 *     <IB_PKEY><![CDATA[0x8101]]></IB_PKEY>        inherited from the vnet
 *     <MAC><![CDATA[02:00:c0:a8:01:05]]></MAC>
 *     <NETWORK_ID><![CDATA[3]]></NETWORK_ID>
 *     <NIC_ID><![CDATA[0]]></NIC_ID>
 *     <VN_MAD><![CDATA[ib]]></VN_MAD>
 *   </NIC>
 *   -> { .nic_id = 0, .ib = true, .network_id = 3, .has_mac = true,
 *        .mac = 0x0200c0a80105, .a = { IB_PKEY 0x8101 } }
 *
 * The reader never decides what a broken NIC costs: it says which of its
 * rules the NIC breaks, one line each, and deploy refuses the VM while the
 * renderer leaves that NIC out of the partitions (design decision 7). The
 * rules are the stricter of what the two readers had: every element of a
 * NIC at most once (oned writes each once), NIC_ID a decimal number, MAC
 * six hex bytes, NETWORK_ID a decimal number when given, IB_PKEY, IB_PF,
 * IB_PORT, IB_RAILS and IB_AFFINITY by ibattr.h.
 *
 * Also here: the IB_* attributes of any element (a NIC, a VNET's
 * TEMPLATE), read the same way by every reader.
 */
#ifndef ONEIB_ONENIC_H
#define ONEIB_ONENIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "core/ibattr.h"

/*
 * The IB_* attributes (ibattr.h) among parent's child elements (a VNET's
 * TEMPLATE, a NIC) that want selects: each at most once, a single value,
 * parsed by ibattr_parse. With XML_IB_EMPTY_PKEY_ABSENT an empty IB_PKEY
 * counts as none (vnet_create: IB_PKEY="" asks for one). Returns 0, or
 * -EINVAL with one line in err, e.g.
 *   VNET 7 (tenant-b): IB_MTU given twice
 */
#define XML_IB_EMPTY_PKEY_ABSENT 1u
int xml_ib_attrs(const xmlNode *parent, unsigned want, unsigned flags,
		 struct ib_attrs *out, const char *who, char *err,
		 size_t errlen);

#define ONE_NIC_WHY_MAX 256

struct one_nic {
	int nic_id; /* NIC_ID; -1 when why_id says why there is none */
	bool ib; /* VN_MAD "ib" (`onevm list -x` writes no VN_MAD) */
	bool attach; /* ATTACH "YES": the NIC a hot-plug action is about */
	int network_id; /* NETWORK_ID; -1 when absent or malformed */
	bool has_mac;
	uint64_t mac; /* MAC, low 48 bits */
	bool has_ip; /* IP, an IPv4 address (not a rule: none is fine) */
	uint32_t ip; /* host byte order */
	struct ib_attrs a; /* IB_PKEY, IB_PF, IB_PORT, IB_RAILS, IB_AFFINITY
			    * as far as given */
	/*
	 * The rules the NIC breaks, "" for each it keeps, e.g.
	 *   why_id    VM 42 (NIC element 2): no NIC_ID
	 *             VM 42 NIC 1: MAC given twice
	 *   why_mac   VM 42 NIC 1: malformed MAC '02:00:c0:a8:01'
	 *   why_attr  VM 42 NIC 1: IB_PKEY '0x7fff' is the default partition, ...
	 *   why_net   VM 42 NIC 1: malformed NETWORK_ID 'three'
	 * With why_id set nothing but NETWORK_ID is read (its ID, or which of
	 * two values is meant, is not known).
	 */
	char why_id[ONE_NIC_WHY_MAX];
	char why_mac[ONE_NIC_WHY_MAX];
	char why_attr[ONE_NIC_WHY_MAX];
	char why_net[ONE_NIC_WHY_MAX];
};

/*
 * Reads nic, the nth (1-based) <NIC> of VM vm_id's TEMPLATE, into out.
 * Values a tenant chose are quoted through str_sanitize().
 */
void one_nic_read(const xmlNode *nic, int vm_id, size_t nth,
		  struct one_nic *out);

#endif
