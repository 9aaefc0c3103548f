/* SPDX-License-Identifier: Apache-2.0 */
/*
 * opensm's QoS policy file (qos_policy_file, by default
 * /etc/opensm/qos-policy.conf) as one-ib writes it: the one grammar between
 * the renderer (unprivileged, oneib-partitions render --qos-policy) and the
 * root installer on the subnet manager's host (oneib-partitions-install
 * --qos-policy), like partconf.h for partitions.conf. One-ib writes one
 * shape and the installer takes nothing else (qospolicy_canonical):
 *
 *   # oneib-partitions: generated from the cloud's state, do not edit
 *   # the SL of every partition that has one (sl=), by P_Key
 *   qos-ulps
 *   	default : 0
 *   	any, pkey 0x0101,0x0105-0x0106 : 1
 *   	any, pkey 0x0102 : 2
 *   end-qos-ulps
 *
 * Why this shape (opensm 3.3.23, measured: the research notes, section 2):
 *   - a policy's `default : N` gives SL N to every PathRecord query that
 *     matches no rule, overriding the partitions' sl=: so every partition
 *     with an sl= has a rule with the same SL, and `default` is the
 *     best-effort SL the partitions without one get anyway;
 *   - a pkey rule matches only queries that carry the P_Key (IPoIB's and
 *     rdma_cm's do): `any` covers IPoIB and every other ULP alike;
 *   - never `ipoib, pkey`: opensm checks those against the full members
 *     present in the fabric when it parses the file, and one partition
 *     with fewer than two (a network with one running VM, a VF not up
 *     yet) makes it drop the whole policy, every tenant's SLs with it;
 *   - any error makes opensm drop the whole policy silently, fall back to
 *     no policy and log ERR AC03/AC04/AC05 (a missing `default` is AC10):
 *     so nothing that is not exactly this shape is ever installed.
 * Rules are one per SL in SL order, each P_Key once, ascending, adjacent
 * keys as ranges, at most QOSPOLICY_RANGES_PER_LINE ranges a line (then
 * another rule of the same SL); P_Keys are the partitions' 15-bit keys
 * 0x0001..0x7fff, SLs 0..15; printable ASCII, tabs and newlines only.
 */
#ifndef ONEIB_QOSPOLICY_H
#define ONEIB_QOSPOLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "root/partconf.h"

#define QOSPOLICY_RANGES_PER_LINE 32

struct qos_rule {
	uint16_t pkey; /* 0x0001..0x7fff */
	uint8_t sl; /* 0..15 */
};

struct qos_policy {
	int default_sl; /* 0..15 */
	struct qos_rule *r; /* sorted by pkey, each pkey once */
	size_t n;
};

/*
 * The policy of partitions m: a rule for every partition (the default one
 * too) with an sl=, default_sl for the rest. 0 or -ENOMEM.
 */
int qospolicy_from_partitions(const struct partitions *m, int default_sl,
			      struct qos_policy *out);

/* The file text, appended to out. 0 or -ENOMEM. */
int qospolicy_render(const struct qos_policy *p, struct strbuf *out);

/*
 * Reads text of that shape. Anything else is -EINVAL with one line in err
 * naming the line, e.g.
 *   qos-policy.conf line 5: 'ipoib, pkey 0x0101 : 1': only "any, pkey" rules
 * On error *out is empty.
 */
int qospolicy_parse(const char *text, size_t len, struct qos_policy *out,
		    char *err, size_t errlen);

/*
 * What the root installer asks: is text exactly what qospolicy_render
 * writes for the policy it reads as? 0 with *out, or -EINVAL and err.
 */
int qospolicy_canonical(const char *text, size_t len, struct qos_policy *out,
			char *err, size_t errlen);

void qospolicy_free(struct qos_policy *p);

#endif
