// SPDX-License-Identifier: Apache-2.0
/*
 * verify's report (fabric/verifyreport.h) on findings built in memory: a
 * fabric of a tenant VF port and the SM's port, the checks of
 * fabric/partverify.h run on it, files of the subnet managers in a
 * temporary directory. What the report says of each finding, its summary
 * line (the last), and its result: 1 exactly when something is not as
 * the file says.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fabric/verifyreport.h"

/* One-ib's default partition; tenant a (sl=3) with VM 1 NIC 0. */
static const char model_text[] = "Default=0x7fff, ipoib : ALL=limited, "
				 "SELF=full ;\n"
				 "vnet1_a=0x0101, ipoib, sl=3 : "
				 "0x0200000000010000=full ;\n";

#define VM1_NIC0 0x0200000000010000ULL
#define SM_PORT 0x0002c90300000001ULL

struct world {
	struct partitions m;
	struct fabric f;
	struct fabric_port p[2];
	struct verify_result res;
	struct sa_result sr;
	struct qos_result qr;
	struct osm_conf oc;
	struct sm_file sm[1];
	size_t nsm;
	char dir[64];
	char *text; /* the report */
	int r; /* its result */
};

static uint16_t vm_keys[] = { 0x7fff, 0x8101 }, sm_keys[] = { 0xffff };

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	char err[256] = "";

	assert_non_null(w);
	if (partconf_parse(model_text, strlen(model_text), PARTCONF_ANY, &w->m,
			   err, sizeof(err)))
		fail_msg("%s", err);
	w->p[0].port_guid = w->p[0].node_guid = SM_PORT;
	w->p[0].lid = 1;
	w->p[0].type = SMP_NODE_CA;
	strcpy(w->p[0].desc, "sm");
	w->p[0].pkeys = sm_keys;
	w->p[0].npkeys = 1;
	w->p[0].is_sm = true;
	w->p[0].sm.state = SMP_SM_MASTER;
	w->p[0].sm.priority = 10;
	w->p[1].port_guid = w->p[1].node_guid = VM1_NIC0;
	w->p[1].lid = 2;
	w->p[1].type = SMP_NODE_CA;
	strcpy(w->p[1].desc, "vm1");
	w->p[1].pkeys = vm_keys;
	w->p[1].npkeys = 2;
	w->f.p = w->p;
	w->f.n = 2;
	w->f.sm_lid = 1;
	w->f.local_guid = SM_PORT;
	w->f.gid_prefix = 0xfe80000000000000ULL;
	w->oc.found = true;
	w->oc.qos = true;
	w->oc.m_key = 0x1234;
	w->oc.m_key_protection = 1;
	w->oc.m_key_lease = 60;
	w->oc.virt_enabled = -1;
	strcpy(w->dir, "/tmp/test_verifyreport.XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->oc.policy_file, sizeof(w->oc.policy_file), "%s/none",
		 w->dir);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
	assert_int_equal(system(cmd), 0);
	verify_result_free(&w->res);
	partitions_free(&w->m);
	free(w->text);
	free(w);
	return 0;
}

/* partitions_verify on the world as it is, then the report. */
static void report(struct world *w)
{
	struct verify_findings v = {
		.m = &w->m,
		.f = &w->f,
		.res = &w->res,
		.sr = &w->sr,
		.qr = &w->qr,
		.oc = &w->oc,
		.osm_path = "/etc/opensm/opensm.conf",
		.sm = w->sm,
		.nsm = w->nsm,
	};
	size_t len = 0;
	FILE *out;

	assert_int_equal(partitions_verify(&w->m, &w->f, false, &w->res), 0);
	out = open_memstream(&w->text, &len);
	assert_non_null(out);
	w->r = verify_report(out, &v);
	assert_int_equal(fclose(out), 0);
}

static void has_line(const struct world *w, const char *line)
{
	const char *s = w->text;
	size_t n = strlen(line);

	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, line, n) && (s[n] == '\n' || !s[n]))
			return;
	fail_msg("no line \"%s\" in:\n%s", line, w->text);
}

static const char *last_line(const struct world *w)
{
	size_t n = strlen(w->text);
	const char *s;

	assert_true(n > 1 && w->text[n - 1] == '\n');
	for (s = w->text + n - 1; s > w->text && s[-1] != '\n'; s--)
		;
	return s;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Every port as the file says, the SM master: result 0, the facts said. */
static void all_as_the_file_says(void **state)
{
	struct world *w = *state;

	report(w);
	assert_int_equal(w->r, 0);
	has_line(w, "subnet: 0xfe80000000000000 (GidPrefix of port "
		    "0x0002c90300000001, where the walk began), master SM at "
		    "lid 1");
	has_line(w, "sm: port 0x0002c90300000001 (lid 1, \"sm\"): MASTER, "
		    "priority 10");
	has_line(w, "opensm: /etc/opensm/opensm.conf: qos TRUE, m_key set, "
		    "m_key_protection_level 1, m_key_lease_period 60 s");
	assert_null(strstr(w->text, "drift:"));
	assert_null(strstr(w->text, "warning:"));
	assert_string_equal(last_line(w), "verify: 2 end ports, 0 switches, 1 "
					  "partitions; 1 "
					  "member ports in the fabric, 0 not; "
					  "0 ports "
					  "differ; 0 left out\n");
}

/* A port without its tenant's key: a drift line naming the VM's NIC, the
 * keys held and wanted; counted; result 1. */
static void drift_named(void **state)
{
	struct world *w = *state;
	static uint16_t only_default[] = { 0x7fff };

	w->p[1].pkeys = only_default;
	w->p[1].npkeys = 1;
	report(w);
	assert_int_equal(w->r, 1);
	has_line(w, "drift: port 0x0200000000010000 (VM 1 NIC 0; lid 2, "
		    "\"vm1\") holds 0x7fff, should hold 0x7fff 0x8101");
	assert_non_null(strstr(last_line(w), "; 1 ports differ; 0 left out"));
}

/* A standby's file without tenant a: it differs, naming the partition and
 * what a failover does; one that holds the same is said so. */
static void sm_files_compared(void **state)
{
	struct world *w = *state;
	char same[128], other[128];

	snprintf(same, sizeof(same), "%s/sm1.conf", w->dir);
	snprintf(other, sizeof(other), "%s/sm2.conf", w->dir);
	write_file(same, model_text);
	write_file(other, "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n");
	strcpy(w->sm[0].name, "sm1");
	w->sm[0].path = same;
	w->nsm = 1;
	report(w);
	assert_int_equal(w->r, 0);
	assert_non_null(strstr(w->text, "sm: sm1: "));
	assert_non_null(strstr(w->text, "sm1.conf: holds the partitions "
					"verified\n"));
	free(w->text);
	w->text = NULL;
	verify_result_free(&w->res);

	strcpy(w->sm[0].name, "sm2");
	w->sm[0].path = other;
	report(w);
	assert_int_equal(w->r, 1);
	assert_non_null(strstr(w->text, "sm2.conf: differs: vnet1_a (0x0101)"));
	assert_non_null(strstr(w->text, ": a failover to sm2 changes the "
					"partitions\n"));
	assert_non_null(strstr(last_line(w), "; 1 subnet manager's file "
					     "differs\n"));
}

/* No SM port, no M_Key, qos FALSE and the SA answering SL 0 for tenant
 * a's sl=3: a warning each, the SL not in force and why; result 1. */
static void sl_not_in_force(void **state)
{
	struct world *w = *state;
	struct sl_check c = { 0 };

	w->p[0].is_sm = false;
	w->oc.qos = false;
	w->oc.m_key = 0;
	c.p = &w->m.p[0];
	c.src = VM1_NIC0;
	c.dst = VM1_NIC0;
	c.found = 1;
	c.sl = 0;
	w->sr.sl = &c;
	w->sr.nsl = 1;
	report(w);
	assert_int_equal(w->r, 1);
	has_line(w, "warning: sm: no port of the fabric runs a subnet manager "
		    "(PortInfo IsSM)");
	has_line(w, "opensm: /etc/opensm/opensm.conf: qos FALSE, no M_Key");
	assert_non_null(strstr(w->text, "warning: opensm: m_key is not set: "));
	has_line(w, "sl: vnet1_a (0x0101) sl=3: the SA answers SL 0 "
		    "(0x0200000000010000 -> 0x0200000000010000): NOT in force: "
		    "qos is not TRUE in opensm's configuration, and opensm "
		    "then gives every path SL 0 (one-ib-qos(7))");
	assert_non_null(strstr(last_line(w), "; 1 SL not in force\n"));
	w->sr.sl = NULL;
	w->sr.nsl = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(all_as_the_file_says, setup,
						teardown),
		cmocka_unit_test_setup_teardown(drift_named, setup, teardown),
		cmocka_unit_test_setup_teardown(sm_files_compared, setup,
						teardown),
		cmocka_unit_test_setup_teardown(sl_not_in_force, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
