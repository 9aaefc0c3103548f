/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `oneib-partitions verify` found, said as its report: one line per
 * finding, each naming the port, partition, SL or subnet manager and what
 * to do, then one summary line (its words are what operators and tests
 * read: keep them):
 *
 *   refused: <what the render left out>
 *   drift: port 0x02000000000a0000 (VM 10 NIC 0; lid 6, "vm10") holds 0x7fff, should hold 0x7fff 0x8101
 *   capacity: port ... needs 5 P_Key entries, its table holds 4
 *   default: port ... is a full member of the default partition (0xffff): ...
 *   subnet: 0xfe80000000000000 (GidPrefix of port ..., where the walk began), master SM at lid 1
 *   sm: port 0x0002c90300000001 (lid 1, "sm"): MASTER, priority 10
 *   sm: sm2: /copies/sm2.conf: holds the partitions verified | differs: ...
 *   opensm: /etc/opensm/opensm.conf: qos TRUE, m_key set, ...
 *   qos-policy: ... | sl: ... | tables: ... | vls: ... | warning: ...
 *   verify: 12 end ports, 3 switches, 4 partitions; 8 member ports in the fabric, 0 not; 1 ports differ; 0 left out[; ...]
 *
 * The facts come from the walk and the checks (fabric/smp.h,
 * fabric/partverify.h, fabric/qosverify.h, fabric/osmconf.h); the report
 * reads only the files it compares (each SM's partitions.conf and QoS
 * policy, opensm's QoS policy file).
 */
#ifndef ONEIB_VERIFYREPORT_H
#define ONEIB_VERIFYREPORT_H

#include <stddef.h>
#include <stdio.h>

#include "fabric/osmconf.h"
#include "fabric/partverify.h"
#include "fabric/qosverify.h"
#include "fabric/smp.h"
#include "root/partconf.h"

/* A subnet manager's file given with --sm NAME=FILE or --sm-qos NAME=FILE. */
struct sm_file {
	char name[64];
	const char *path;
};

/* What verify found (every pointer set; an empty result has n = 0). */
struct verify_findings {
	const struct partitions *m; /* the partitions verified */
	const struct fabric *f; /* the walk */
	const struct verify_result *res; /* P_Key tables, capacity */
	const struct sa_result *sr; /* the SA's paths: SLs, unknown GUIDs */
	const struct qos_result *qr; /* the QoS tables */
	const struct osm_conf *oc; /* opensm.conf as read */
	const char *osm_path; /* where from */
	const struct sm_file *sm; /* --sm */
	size_t nsm;
	const struct sm_file *sm_qos; /* --sm-qos */
	size_t nsm_qos;
};

/* The report on out; 1 when anything is not as the file says (verify's
 * exit status), else 0. */
int verify_report(FILE *out, const struct verify_findings *v);

#endif
