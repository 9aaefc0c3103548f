/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the `ib` virtual network driver (remotes/vnm/ib) reads from oned:
 *
 * - the <VNET> vnet_create gets on stdin, its InfiniBand attributes taken
 *   out as one typed value:
 *
 *     <VNET><ID>7</ID><NAME><![CDATA[tenant-b]]></NAME>
 *       <VN_MAD><![CDATA[ib]]></VN_MAD>
 *       <TEMPLATE>
 *         <IB_PKEY><![CDATA[0x0102]]></IB_PKEY>
 *         <IB_MTU><![CDATA[4096]]></IB_MTU>
 *         <IB_MODE><![CDATA[connected]]></IB_MODE>
 *       </TEMPLATE>
 *     </VNET>
 *     -> refused: IB_PKEY '0x0102' is a limited-member key (write 0x8102);
 *        with IB_PKEY 0x8102:
 *        { .id = 7, .name = "tenant-b", .has_pkey = true,
 *          .pkey = { 0x8102 }, .mtu = 4096, .mode = IB_MODE_CONNECTED,
 *          .has_pf = false, .port = 0 }
 *
 * - the <VNET_POOL> of `onevnet list -x`, read by the one pool reader
 *   (poolread.h), reduced to the partitions the InfiniBand networks hold
 *   (VNET/VN_MAD "ib", TEMPLATE/IB_PKEY, whatever their state):
 *     [ { .id = 5, .name = "tenant-a", .pkey = { 0x8101 } }, ... ]
 *
 * - the reduced <VM> every host-side VNM action gets, for its <ID> only.
 *
 * Names and template values are chosen by users, so every document is read
 * with xml_read_untrusted() and every value quoted in an error goes through
 * str_sanitize(). Refusals are one line naming the network:
 *   VNET 7 (tenant-b): IB_PKEY '0x7fff' is the default partition, never a tenant's
 */
#ifndef ONEIB_ONEVNET_H
#define ONEIB_ONEVNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/ibattr.h"
#include "core/pci.h"
#include "core/pkey.h"
#include "fabric/cloudfacts.h"
#include "root/partconf.h"

struct ib_vnet {
	int id; /* ID */
	struct san_str name; /* NAME, for messages only */
	bool has_pkey; /* IB_PKEY given and not empty */
	struct pkey pkey; /* as written: 0x0102 stays 0x0102 */
	int mtu; /* IB_MTU 256..4096, 0 = not given */
	int rate; /* IB_RATE 2..24, 0 = not given */
	int sl; /* IB_SL 0..15, -1 = not given */
	enum ib_mode mode; /* IB_MODE */
	bool has_pf; /* IB_PF given */
	struct pci_addr pf; /* "0000:3b:00.0" */
	int port; /* IB_PORT 1..9, 0 = not given */
	char svc_part[IB_PARTITION_NAME_MAX + 1]; /* IB_SERVICE_PARTITION */
	bool reservation; /* PARENT_NETWORK_ID set: a reservation of parent */
	int parent;
};

/*
 * Accepts a document whose root is <VNET>. id_hint is the ID vnet_create was
 * called with (-1: none): it names the network until <ID> is read, and
 * <ID> must equal it. Checks, in TEMPLATE, every IB_* attribute (ibattr.h:
 * IB_PKEY, IB_MTU, IB_RATE, IB_SL, IB_MODE, IB_PF, IB_PORT) at most once
 * and by the rules the partitions renderer applies, so a network accepted
 * here is never left out there. An empty IB_PKEY is the same as none
 * (vnet_create assigns one); the other attributes may not be empty, since
 * deploy reads them from every NIC of the network.
 * Returns 0, or -EINVAL / -ENOMEM with one line in err.
 */
int onevnet_parse(const char *xml, size_t len, int id_hint, struct ib_vnet *vn,
		  char *err, size_t errlen);

/* "VNET 7 (tenant-b)", the prefix of every message about vn. */
void vnet_label(const struct ib_vnet *vn, char buf[VNET_LABEL_MAX]);

/* One partition an InfiniBand network of the pool holds. */
struct vnet_use {
	int id;
	struct san_str name;
	struct pkey pkey; /* as stored, e.g. 0x8101 */
	bool reservation; /* PARENT_NETWORK_ID set: a reservation of parent */
	int parent;
};

struct vnet_pool {
	struct vnet_use *v; /* in document order */
	size_t n;
};

/* The claims of facts read from a VNET pool (0 or -ENOMEM). */
int onevnet_pool_from_facts(const struct cloud_facts *f,
			    struct vnet_pool *pool);

/*
 * Accepts a document whose root is <VNET_POOL> (no VNET at all is fine).
 * Every <VNET> must have a numeric <ID>; only those whose VN_MAD is "ib"
 * are kept, one entry per TEMPLATE/IB_PKEY that parses as a P_Key. A value
 * that does not parse names no partition (deploy refuses such a NIC), so
 * it holds none. Returns 0, -EINVAL or -ENOMEM with one line in err,
 *   VNET pool: VNET element 3 has no single <ID>
 * On error *pool is empty.
 */
int onevnet_pool_parse(const char *xml, size_t len, struct vnet_pool *pool,
		       char *err, size_t errlen);
void vnet_pool_free(struct vnet_pool *pool);

/* Partitions vnet_create may hand out, bit 15 clear: 0x0100..0x01ff. */
struct pkey_range {
	uint16_t lo, hi;
};

/*
 * "LO-HI", each end a P_Key as pkey_parse() reads it ("0x0100-0x01ff",
 * "256-511"); the membership bit is masked, both ends must be tenant
 * partitions and LO <= HI. -EINVAL otherwise.
 */
int pkey_range_parse(const char *s, struct pkey_range *out);

/*
 * The P_Key the network is stored with: its own IB_PKEY, or with none the
 * lowest partition of range that no other InfiniBand network holds and
 * the operator's static file (stat, may be NULL) does not reserve.
 * Partitions are compared on the low 15 bits (0x0101 and 0x8101 are one
 * partition); the pool entry with vn's own ID is not "another" network.
 * The result is always the full-member form, 0x8000 | partition: the
 * network's NICs are made limited members by IB_MEMBERSHIP, never by the
 * key. A reservation (`onevnet reserve`: PARENT_NETWORK_ID set) is a slice
 * of its parent, in its parent's partition: it keeps the parent's key (the
 * copy oned made of its template, or the parent's when missing), which its
 * parent and the parent's other reservations do not hold against it.
 * Returns 0, -EEXIST (taken) or -ENOSPC (range exhausted), err filled:
 *   VNET 7 (b): IB_PKEY 0x0101 is partition 0x0101, already used by VNET 5 (a)
 *   VNET 7 (b): IB_PKEY 0x8200 is partition 0x0200, the static file's (storage)
 *   VNET 12 (mine): a reservation of VNET 9 (storage) keeps its partition 0x0109, not 0x0110
 *   VNET 12 (mine): a reservation of VNET 9, no InfiniBand network of the pool
 */
int onevnet_assign_pkey(const struct ib_vnet *vn, const struct vnet_pool *pool,
			const struct pkey_range *range,
			const struct partitions *stat, struct pkey *out,
			char *err, size_t errlen);

/*
 * A service network's IB_SERVICE_PARTITION names a partition of the
 * static file (stat NULL: there is none). 0, or -ENOENT with err:
 *   VNET 9 (storage): IB_SERVICE_PARTITION 'nas' is no partition of the static file
 */
int onevnet_check_service(const struct ib_vnet *vn,
			  const struct partitions *stat, char *err,
			  size_t errlen);

/*
 * The <ID> of the <VM> a VNM action gets on stdin (the reduced VM of
 * pre/post/clean, or the full one of update_nic). Nothing else of the
 * document is looked at. Returns 0 or -EINVAL with err filled.
 */
int onevnet_vm_id(const char *xml, size_t len, int *id, char *err,
		  size_t errlen);

#endif
