/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The QoS tables opensm programmed (design decision 13, verify): on every
 * end port that holds the key of a partition with an SL (a tenant VF on
 * ibsim and under a virtualization-capable SM's vports not, a ConnectX-3
 * host's PF port yes: verify sees what the directed-route walk sees), and
 * on the switch port it hangs off, the SLtoVLMapping table (the port's
 * own; the switch's for packets from the port the walk came in by to that
 * port) and the VL arbitration tables, read by Get SMPs (core/smp.h).
 * What they must say for the partition's SL to be its class:
 *   - its VL is a data VL of the port (not 15, which drops it; below the
 *     port's OperVLs);
 *   - that VL has a weight in the low or the high arbitration table
 *     (else nothing of it is ever sent);
 *   - two different planned SLs never share a VL on a port (SL 9 and SL
 *     1 on an 8-VL port: opensm folds SL n to VL n & 7): their networks'
 *     traffic would be one class there.
 * opensm programs these tables only with qos TRUE, per node type from
 * opensm.conf's qos_* settings (qos_ca_*, qos_sw0_*, qos_swe_*), the same
 * on every port of a type: what a partition gets is a VL's weight, shared
 * by whatever else has an SL on that VL.
 *
 *   qos_verify_read(...)    the SMPs: the tables of the ports that matter
 *   qos_verify_judge(...)   what they say, per partition and per SL pair
 */
#ifndef ONEIB_QOSVERIFY_H
#define ONEIB_QOSVERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/smp.h"
#include "fabric/smp.h"
#include "root/partconf.h"

/* One end port's tables, and those of the switch port toward it. */
struct port_tables {
	const struct fabric_port *port;
	uint8_t sl2vl[16];
	struct smp_vlarb arb;
	bool sw; /* the switch side was read (sw_in_port known) */
	uint8_t sw_sl2vl[16];
	struct smp_vlarb sw_arb;
};

/* What is wrong on one port for one partition's SL. */
enum qos_fault {
	QF_NONE,
	QF_DROPPED, /* SL -> VL 15 */
	QF_NO_SUCH_VL, /* VL beyond the port's OperVLs */
	QF_NO_WEIGHT, /* the VL has no weight, low or high */
};

struct qos_class {
	const struct partition *p; /* with p->sl >= 0 */
	size_t nports; /* end ports that hold its key */
	int vl; /* its SL's VL on all of them, both sides; -1 they differ */
	/* the VL's weights (the least over the ports, per side) */
	unsigned low, high, sw_low, sw_high;
	bool sw; /* some switch side read */
	size_t nfaults;
	/* the first fault: where and what */
	const struct fabric_port *fault_port;
	bool fault_sw; /* on the switch side */
	enum qos_fault fault;
	uint8_t fault_vl;
};

/* Two planned SLs that share a VL on some ports. */
struct qos_merge {
	uint8_t a, b, vl; /* a < b; the VL of the first port seen */
	size_t nports; /* port sides where they share one */
	const struct fabric_port *example;
	bool example_sw;
};

struct qos_result {
	struct qos_class *c; /* per partition with an SL, the model's order */
	size_t nc;
	struct qos_merge *m; /* by (a, b) */
	size_t nm;
	size_t nread; /* end ports whose tables were read */
	/* the fewest data VLs (OperVLs) of those ports and of their switch
	 * ports; 0 when none was read */
	int min_vls, min_sw_vls;
};

/*
 * The tables of every end port of f that holds the key of a partition of m
 * with an SL (and its switch port's), from port `port` of `ca` with M_Key
 * mkey: *out (npt of them). 0, or -errno with one line in err.
 */
int qos_verify_read(const char *ca, int port, int timeout_ms, uint64_t mkey,
		    const struct fabric *f, const struct partitions *m,
		    struct port_tables **out, size_t *npt, char *err,
		    size_t errlen);

/* What those tables say (pure). 0 or -ENOMEM. */
int qos_verify_judge(const struct partitions *m, const struct fabric *f,
		     const struct port_tables *pt, size_t npt,
		     struct qos_result *out);
void qos_result_free(struct qos_result *r);

/*
 * The installed QoS policy against the partitions: how many partitions
 * with an sl= it gives another SL (a rule with another, or none: its
 * default), the first in *first with the policy's SL in *sl.
 */
struct qos_policy;
size_t qos_policy_differs(const struct qos_policy *q,
			  const struct partitions *m,
			  const struct partition **first, int *sl);

/*
 * Two QoS policies compared for the SLs opensm would give from each (a
 * subnet manager's policy against the one verify reads, design decision
 * 17: a standby enforces its own at a failover): how many P_Keys (and
 * the default) get another SL, the first said in why, e.g. with labels
 * "verified" and "sm2's":
 *   P_Key 0x0101: SL 3 in the verified policy, SL 0 (its default) in sm2's
 */
size_t qos_policy_compare(const struct qos_policy *a,
			  const struct qos_policy *b, const char *la,
			  const char *lb, char *why, size_t whylen);

/* "dropped (VL 15)" ... for messages */
const char *qos_fault_text(enum qos_fault f);

#endif
