/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every end port of the fabric should hold, from the desired
 * partitions, against what the subnet manager programmed (smp.h): for each
 * partition, the default one included, the entry its membership gives the
 * port (0x8000 | P_Key full, the P_Key alone limited, both for "both"
 * with opensm's allow_both_pkeys, else full): listed by GUID, or through
 * ALL, ALL_CAS (a CA's port), ALL_ROUTERS (a router's) or SELF (the SM's
 * port), as opensm reads each partition (partition_port: its entries in
 * order, the last one for the port winning; the default partition after
 * opensm's own ALL=limited, SELF=full). one-ib's own default partition is
 * ALL=limited, SELF=full. Example drift:
 *   port 0x02000000000a0000 holds 0x7fff 0x8101, should hold 0x7fff
 * Member GUIDs that are no port of the fabric (a VF not up yet, ConnectX-3
 * alias GUIDs, mlx5 virtual ports only a virtualization-capable SM knows)
 * are counted, not drift; the tenant ones are listed, for the SA to say
 * whether it knows them.
 *
 * Capacity (design decision 11: keys beyond a port's P_Key table are
 * dropped by opensm, which carries on): a port whose desired entries do
 * not fit its PartitionCap (NodeInfo), or the enforcement capacity of the
 * switch port it is cabled to (SwitchInfo PartitionEnforcementCap: opensm
 * turns enforcement off there), is reported, with the keys opensm dropped
 * (desired, not held, the table full):
 *   port 0x248a070300001001 needs 71 entries, its table holds 64: opensm dropped 0x8240 ...
 * Switch ports' own tables are not compared.
 *
 * Whatever the file says, a tenant VF port (02:CC:... GUIDs, design
 * decision 2) that holds the default partition's full key 0xffff is
 * reported: it reaches every member of the default partition, every other
 * tenant's VFs too (design decision 11). UFM makes every HCA port such a
 * member unless told otherwise, from a partitions.conf of its own.
 */
#ifndef ONEIB_PARTVERIFY_H
#define ONEIB_PARTVERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sapath.h"
#include "fabric/smp.h"
#include "root/partconf.h"

struct port_drift {
	const struct fabric_port *port;
	uint16_t *have, *want; /* sorted */
	size_t nhave, nwant;
};

struct port_capacity {
	const struct fabric_port *port;
	size_t need; /* entries its membership takes */
	uint16_t *dropped; /* needed, not held, while its table is full */
	size_t ndropped;
};

struct verify_result {
	struct port_drift *drift; /* in the fabric's port order */
	size_t ndrift;
	struct port_capacity *cap; /* ports whose membership does not fit */
	size_t ncap;
	size_t present, absent; /* member GUIDs that are ports, or not */
	uint64_t *unknown; /* the absent ones one-ib gave a tenant VF, sorted */
	size_t nunknown;
	/*
	 * Tenant VF ports (one-ib's 02:CC:... GUIDs) whose table holds 0xffff:
	 * full members of the default partition, which every port of the
	 * fabric that is a member at all reaches; whatever the file says (a
	 * subnet manager such as UFM puts every HCA port there as a full
	 * member by default), in the fabric's port order
	 */
	const struct fabric_port **default_full;
	size_t ndefault_full;
};

/*
 * allow_both: opensm's allow_both_pkeys (osmconf.h): a member "both" then
 * holds both entries; without it opensm makes it a full member only.
 * 0 or -ENOMEM.
 */
int partitions_verify(const struct partitions *m, const struct fabric *f,
		      bool allow_both, struct verify_result *res);
void verify_result_free(struct verify_result *res);

/*
 * Service levels as the SA answers them (design decision 11: opensm gives
 * every path SL 0 unless qos is TRUE): for each partition with an sl=, a
 * path record between two ports that hold its key, a full member first
 * (a port to itself when it is the only one), asked with the P_Key.
 */
struct sl_check {
	const struct partition *p;
	uint64_t src, dst; /* 0: no port of the fabric holds the key */
	int found; /* 1 the SA answered a record, 0 none, -errno no answer */
	uint8_t sl; /* found: the SL it answered */
	char why[128]; /* not found: the SA's status */
};

/*
 * The SA's view of the tenant GUIDs the walk did not find (res->unknown):
 * known is those it has a path to from the local port (mlx5 virtual ports
 * a virtualization-capable SM manages, registered ConnectX-3 alias
 * GUIDs); the rest it does not know.
 */
struct sa_result {
	struct sl_check *sl;
	size_t nsl;
	uint64_t *unknown; /* sorted */
	size_t nunknown;
};

/* 0, or -errno when the SA does not answer (err says why). */
int partitions_verify_sa(const struct partitions *m, const struct fabric *f,
			 const struct verify_result *res, struct sa_conn *sa,
			 struct sa_result *out, char *err, size_t errlen);
void sa_result_free(struct sa_result *out);

#endif
