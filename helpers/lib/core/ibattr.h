/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The InfiniBand attributes of a virtual network (VNET/TEMPLATE, and
 * inherited into each of its NICs): one parser per attribute and one
 * wording per refusal, used by everyone who reads them, vnet_create
 * (oneib-vnet), deploy (onexml.c), the partitions renderer and
 * `oneib-pkey map`:
 *
 *   IB_PKEY  "0x8101"        a tenant partition's key in full-member form,
 *                            0x8001..0xfffe except 0xffff ("33025" too)
 *   IB_MTU   "4096"          256, 512, 1024, 2048 or 4096 (bytes)
 *   IB_RATE  "7"             the IBTA rate code 2..24 opensm takes as
 *                            rate= (3 = 10 Gb/s, 7 = 40, 16 = 100, 17 = 200)
 *   IB_SL    "1"             service level 0..15
 *   IB_MODE  "connected"     datagram or connected (IPoIB in the guest)
 *   IB_PF    "0000:3b:00.0"  the PF the network's VFs come from
 *   IB_PORT  "1"             ... and its port, 1..9
 *   IB_MEMBERSHIP "limited"  full (the default: the VMs reach each other)
 *                            or limited: a service network, whose VMs'
 *                            NICs are limited members and reach only its
 *                            service endpoints, never each other
 *   IB_SERVICE_GUIDS "0x0002c903000a0001, 0x0002c903000b0001"
 *                            port GUIDs of the network's service endpoints
 *                            (storage servers...), full members; at most
 *                            16, never a GUID one-ib gives a tenant VF
 *   IB_SERVICE_PARTITION "storage"
 *                            a partition of the operator's static file
 *                            whose full members are the endpoints too
 *   IB_PLACEMENT "pack"      where the scheduler puts the network's VMs
 *                            (fabric/leafpack.h): pack (the default:
 *                            under the leaf switches it already uses,
 *                            then those with the most room), spread (the
 *                            leaves it uses least) or none (anywhere)
 *   IB_RAILS "spread"        a VM's NICs on the network get VFs on distinct
 *                            rails while rails have free VFs (spread, the
 *                            default), or as before rails (pack: the first
 *                            PF with a free VF; host/placement.h)
 *   IB_AFFINITY "preferred"  each NIC's VF beside the VM's GPU it is paired
 *                            with: preferred (the default: else the next
 *                            nearest, with a warning), required (else the
 *                            deploy is refused) or none (not paired)
 *
 * A limited-member key ("0x0101", "257") is refused, never quietly read as
 * full membership: the VFs of a tenant network must reach each other, and
 * deploy, the host mapping and the subnet manager must all mean one key.
 * Values are quoted in errors through str_sanitize(), e.g.
 *   VNET 7 (tenant-b): IB_SL '16' is not a service level 0..15
 *   VM 42 NIC 1: IB_PKEY '0x0101' is a limited-member key (write 0x8101)
 */
#ifndef ONEIB_IBATTR_H
#define ONEIB_IBATTR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/pci.h"
#include "core/pkey.h"

enum ib_attr {
	IBA_PKEY,
	IBA_MTU,
	IBA_RATE,
	IBA_SL,
	IBA_MODE,
	IBA_PF,
	IBA_PORT,
	IBA_MEMBERSHIP,
	IBA_SERVICE_GUIDS,
	IBA_SERVICE_PARTITION,
	IBA_PLACEMENT,
	IBA_RAILS,
	IBA_AFFINITY,
	IBA_COUNT,
};

#define IBA_BIT(a) (1u << (a))
#define IBA_ALL ((1u << IBA_COUNT) - 1)

/* "IB_PKEY", "IB_MTU", ... */
extern const char *const ib_attr_name[IBA_COUNT];

enum ib_mode {
	IB_MODE_UNSET,
	IB_MODE_DATAGRAM,
	IB_MODE_CONNECTED,
};

enum ib_placement {
	IB_PLACE_PACK, /* the default */
	IB_PLACE_SPREAD,
	IB_PLACE_NONE,
};

enum ib_rails {
	IB_RAILS_SPREAD, /* the default */
	IB_RAILS_PACK,
};

enum ib_affinity {
	IB_AFFINITY_PREFERRED, /* the default */
	IB_AFFINITY_REQUIRED,
	IB_AFFINITY_NONE,
};

/* Opensm's rate= and sl= ranges, which IB_RATE and IB_SL are. */
#define IB_RATE_MIN 2
#define IB_RATE_MAX 24
#define IB_SL_MAX 15
#define IB_SERVICE_GUIDS_MAX 16
#define IB_PARTITION_NAME_MAX 31 /* what opensm keeps of a name */

struct ib_attrs {
	unsigned has; /* IBA_BIT() of every attribute given */
	struct pkey pkey; /* 0x8101: full member, tenant partition */
	int mtu; /* bytes, 256..4096 */
	int rate; /* IBTA rate code 2..24 */
	int sl; /* 0..15 */
	enum ib_mode mode;
	struct pci_addr pf;
	int port; /* 1..9 */
	bool limited; /* IB_MEMBERSHIP limited */
	uint64_t svc[IB_SERVICE_GUIDS_MAX]; /* IB_SERVICE_GUIDS, as given */
	size_t nsvc;
	char svc_part[IB_PARTITION_NAME_MAX + 1]; /* IB_SERVICE_PARTITION */
	enum ib_placement placement;
	enum ib_rails rails;
	enum ib_affinity affinity;
};

static inline bool ibattr_has(const struct ib_attrs *a, enum ib_attr x)
{
	return (a->has & IBA_BIT(x)) != 0;
}

/*
 * One attribute's value into its field of out (and its bit into out->has).
 * 0, or -EINVAL with "<who>: <NAME> '<value>' <why>" in err; out is then
 * unchanged.
 */
int ibattr_parse(enum ib_attr a, const char *v, struct ib_attrs *out,
		 const char *who, char *err, size_t errlen);

/* The other two refusals every reader words the same way. */
void ibattr_err_twice(enum ib_attr a, const char *who, char *err,
		      size_t errlen);
void ibattr_err_not_value(enum ib_attr a, const char *who, const char *raw,
			  char *err, size_t errlen);

/* The attribute called name, or -1 ("IB_MTU" -> IBA_MTU). */
int ibattr_by_name(const char *name);

/* IB_MTU in bytes -> the IBTA/opensm enum: 256 -> 1 ... 4096 -> 5. */
int ibattr_mtu_enum(int bytes);

#endif
