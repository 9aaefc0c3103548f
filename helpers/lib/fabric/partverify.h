/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every end port of the fabric should hold, from the desired
 * partitions, against what the subnet manager programmed (smp.h): the
 * default partition (full on the SM's port, limited elsewhere) plus, as a
 * full member, every partition listing its GUID. Example drift:
 *   port 0x02000000000a0000 holds 0x7fff 0x8101, should hold 0x7fff
 * Member GUIDs that are no port of the fabric (a VF not up yet, ConnectX-3
 * alias GUIDs) are counted, not drift. Switch ports' enforcement tables
 * are not compared.
 */
#ifndef ONEIB_PARTVERIFY_H
#define ONEIB_PARTVERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "root/partconf.h"
#include "fabric/smp.h"

struct port_drift {
	const struct fabric_port *port;
	uint16_t *have, *want; /* sorted */
	size_t nhave, nwant;
};

struct verify_result {
	struct port_drift *drift; /* in the fabric's port order */
	size_t ndrift;
	size_t present, absent; /* member GUIDs that are ports, or not */
};

/* 0 or -ENOMEM. */
int partitions_verify(const struct partitions *m, const struct fabric *f,
		      struct verify_result *res);
void verify_result_free(struct verify_result *res);

#endif
