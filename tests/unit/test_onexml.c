// SPDX-License-Identifier: Apache-2.0
/*
 * The OpenNebula VM XML: IB NICs out of vm.xml and out of the
 * <VMM_DRIVER_ACTION_DATA> wrapper, and every refusal, each as the exact
 * line a person reads in the VM log. Data: tests/unit/data/vm.xml, VM 42 as
 * `onevm show -x` prints it (values in CDATA), NICs 0 and 2 on ib networks,
 * NIC 1 on a bridge network.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "core/log.h"
#include "host/onexml.h"

static void check_vm42(const struct one_vm *vm)
{
	char buf[PCI_ADDR_STRLEN];

	assert_int_equal(vm->id, 42);
	assert_int_equal(vm->n, 2);
	assert_int_equal(vm->nics[0].nic_id, 0);
	assert_int_equal(vm->nics[0].mac, 0x0200c0a80105ULL);
	assert_int_equal(vm->nics[0].pkey.raw, 0x8101);
	assert_int_equal(vm->nics[0].network_id, 3);
	assert_false(vm->nics[0].has_pf);
	assert_int_equal(vm->nics[0].port, 0);
	assert_int_equal(vm->nics[1].nic_id, 2);
	assert_int_equal(vm->nics[1].mac, 0x0200c0a80207ULL);
	assert_int_equal(vm->nics[1].pkey.raw, 0x8102);
	assert_int_equal(vm->nics[1].network_id, 4);
	assert_true(vm->nics[1].has_pf);
	pci_addr_fmt(&vm->nics[1].pf, buf);
	assert_string_equal(buf, "0000:3b:00.0");
	assert_int_equal(vm->nics[1].port, 2);
}

/* vm.xml as deploy writes it: the bridge NIC and the USER_TEMPLATE and
 * CONTEXT P_Keys (0xffff, 0x7fff) are not looked at. */
static void vm_file(void **state)
{
	struct one_vm vm;
	char err[256] = "";
	size_t len;
	char *xml = unit_read_data("vm.xml", &len);

	(void)state;
	assert_int_equal(onexml_parse_vm(xml, len, &vm, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	check_vm42(&vm);
	one_vm_free(&vm);
	assert_null(vm.nics);
	assert_int_equal(vm.n, 0);
	one_vm_free(&vm);
	free(xml);
}

/* What every other action gets on stdin. */
static void action_data(void **state)
{
	static const char head[] =
		"<VMM_DRIVER_ACTION_DATA><HOST>node07</HOST><MIGR_HOST/>"
		"<DEPLOY_ID>5f1c2a3e-7d4b-4c1a-9f0e-2b3c4d5e6f70</DEPLOY_ID>"
		"<LOCAL_DEPLOYMENT_FILE>/var/lib/one/vms/42/deployment.0"
		"</LOCAL_DEPLOYMENT_FILE><REMOTE_DEPLOYMENT_FILE>"
		"/var/lib/one//datastores/0/42/deployment.0"
		"</REMOTE_DEPLOYMENT_FILE><CHECKPOINT_FILE/><TM_COMMAND/>"
		"<TM_COMMAND_ROLLBACK/><DISK_TARGET_PATH/>";
	static const char tail[] = "<DATASTORE><ID>0</ID><NAME>system</NAME>"
				   "</DATASTORE></VMM_DRIVER_ACTION_DATA>\n";
	struct one_vm vm;
	char err[256] = "", *xml, *wrapped;
	size_t len;

	(void)state;
	xml = unit_read_data("vm.xml", &len);
	wrapped = malloc(sizeof(head) + len + sizeof(tail));
	assert_non_null(wrapped);
	snprintf(wrapped, sizeof(head) + len + sizeof(tail), "%s%s%s", head,
		 xml, tail);
	assert_int_equal(onexml_parse_vm(wrapped, strlen(wrapped), &vm, err,
					 sizeof(err)),
			 0);
	check_vm42(&vm);
	one_vm_free(&vm);
	free(wrapped);
	free(xml);
}

/* Template with NIC bodies: <VM><ID>42</ID><TEMPLATE>...</TEMPLATE></VM> */
static char *vm_doc(const char *tmpl)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf),
		 "<VM><ID>42</ID><NAME>w</NAME><TEMPLATE>%s</TEMPLATE>"
		 "<USER_TEMPLATE><IB_PKEY>0x8105</IB_PKEY></USER_TEMPLATE>"
		 "</VM>",
		 tmpl);
	return buf;
}

#define IB "<VN_MAD>ib</VN_MAD>"
#define NIC1 "<NIC_ID>1</NIC_ID>"
#define MAC1 "<MAC>02:00:c0:a8:01:05</MAC>"
#define PK1 "<IB_PKEY>0x8101</IB_PKEY>"

static void plain_and_cdata(void **state)
{
	struct one_vm vm;
	char err[256] = "";
	const char *xml =
		vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>33025</IB_PKEY></NIC>"
		       "<NIC><VN_MAD><![CDATA[i]]>b</VN_MAD>"
		       "<NIC_ID><![CDATA[3]]></NIC_ID><MAC><![CDATA[02:00:C0]]>"
		       ":A8:01:06</MAC><IB_PKEY><![CDATA[0x8102]]></IB_PKEY>"
		       "<IB_PORT>1</IB_PORT></NIC>"
		       "<NIC><VN_MAD>ibx</VN_MAD><NIC_ID>x</NIC_ID></NIC>"
		       "<NIC><VN_MAD>IB</VN_MAD></NIC>"
		       "<NIC_ALIAS>" IB "<NIC_ID>9</NIC_ID></NIC_ALIAS>"
		       "<PCI>" IB "<NIC_ID>8</NIC_ID></PCI>");

	(void)state;
	assert_int_equal(onexml_parse_vm(xml, strlen(xml), &vm, err, 256), 0);
	assert_int_equal(vm.n, 2);
	assert_int_equal(vm.nics[0].nic_id, 1);
	assert_int_equal(vm.nics[0].pkey.raw, 0x8101);
	assert_int_equal(vm.nics[0].network_id, -1);
	assert_int_equal(vm.nics[1].nic_id, 3);
	assert_int_equal(vm.nics[1].mac, 0x0200c0a80106ULL);
	assert_int_equal(vm.nics[1].pkey.raw, 0x8102);
	assert_int_equal(vm.nics[1].port, 1);
	one_vm_free(&vm);

	xml = vm_doc("<NIC><VN_MAD>bridge</VN_MAD><NIC_ID>0</NIC_ID></NIC>");
	assert_int_equal(onexml_parse_vm(xml, strlen(xml), &vm, err, 256), 0);
	assert_int_equal(vm.id, 42);
	assert_int_equal(vm.n, 0);
	assert_null(vm.nics);
	xml = "<VM><ID>7</ID></VM>";
	assert_int_equal(onexml_parse_vm(xml, strlen(xml), &vm, err, 256), 0);
	assert_int_equal(vm.id, 7);
	assert_int_equal(vm.n, 0);
}

/* Refused with exactly this line, libxml2 silent, *vm left empty. */
static void refused(const char *xml, const char *want)
{
	struct one_vm vm = { .id = 1,
			     .nics = (struct ib_nic *)&vm,
			     .n = 3,
			     .attach_other = true };
	char err[256] = "";
	int saved, rc;
	FILE *tmp;

	fflush(stderr);
	saved = dup(2);
	tmp = tmpfile();
	assert_non_null(tmp);
	dup2(fileno(tmp), 2);
	rc = onexml_parse_vm(xml, strlen(xml), &vm, err, sizeof(err));
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fseek(tmp, 0, SEEK_END);
	assert_int_equal(ftell(tmp), 0);
	fclose(tmp);

	assert_int_equal(rc, -EINVAL);
	assert_null(strchr(err, '\n'));
	/* "...*": libxml2's own words follow, and they vary by version */
	if (want[strlen(want) - 1] == '*')
		assert_memory_equal(err, want, strlen(want) - 1);
	else
		assert_string_equal(err, want);
	assert_int_equal(vm.n, 0);
	assert_null(vm.nics);
	assert_null(vm.pci);
	assert_int_equal(vm.npci, 0);
	assert_false(vm.attach_other);
}

static void refuse_document(void **state)
{
	(void)state;
	refused("<VM><ID>42</ID>", "VM XML: not well-formed XML: line 1: *");
	refused("<HOST><ID>1</ID></HOST>", "VM XML: root element <HOST> is "
					   "neither <VM> nor "
					   "<VMM_DRIVER_ACTION_DATA>");
	refused("<VMM_DRIVER_ACTION_DATA><HOST>n</HOST>"
		"</VMM_DRIVER_ACTION_DATA>",
		"VM XML: <VMM_DRIVER_ACTION_DATA> has no <VM>");
	refused("<VMM_DRIVER_ACTION_DATA><VM><ID>1</ID></VM><VM><ID>2</ID>"
		"</VM></VMM_DRIVER_ACTION_DATA>",
		"VM XML: <VMM_DRIVER_ACTION_DATA> has more than one <VM>");
	refused("<VM><NAME>x</NAME></VM>", "VM XML: <VM> has no <ID>");
	refused("<VM><ID>4x2</ID></VM>", "VM XML: <VM> ID '4x2' is not a "
					 "number");
	refused("<VM><ID>-1</ID></VM>", "VM XML: <VM> ID '-1' is not a number");
	refused("<VM><ID>99999999999</ID></VM>", "VM XML: <VM> ID "
						 "'99999999999' is not a "
						 "number");
	refused("<VM><ID>1</ID><ID>2</ID></VM>", "VM XML: <VM> has more than "
						 "one <ID>");
	refused("<VM><ID>42</ID><TEMPLATE/><TEMPLATE/></VM>", "VM 42: TEMPLATE "
							      "given twice");
	refused("<!DOCTYPE VM [<!ENTITY p \"0x8101\">]><VM><ID>42</ID>"
		"<TEMPLATE><NIC>" IB NIC1 MAC1 "<IB_PKEY>&p;</IB_PKEY></NIC>"
		"</TEMPLATE></VM>",
		"VM XML: DOCTYPE refused (no DTD or entity is accepted)");
	refused("<VM><ID>42</ID><TEMPLATE><NIC>" IB NIC1 MAC1 "<IB_PKEY>&p;</"
		"IB_PKEY></NIC></"
		"TEMPLATE></VM>",
		"VM XML: not well-formed XML: line 1: *");
}

static void refuse_nic_fields(void **state)
{
	(void)state;
	/* worded as the partitions renderer words them: one NIC reader */
	refused(vm_doc("<NIC>" IB MAC1 PK1 "</NIC>"), "VM 42 (NIC element 1): "
						      "no NIC_ID");
	refused(vm_doc("<NIC><VN_MAD>bridge</VN_MAD></NIC><NIC>" IB
		       "<NIC_ID>1a</NIC_ID>" MAC1 PK1 "</NIC>"),
		"VM 42 (NIC element 2): malformed NIC_ID '1a'");
	refused(vm_doc("<NIC>" IB "<NIC_ID> 1</NIC_ID>" MAC1 PK1 "</NIC>"),
		"VM 42 (NIC element 1): malformed NIC_ID ' 1'");
	refused(vm_doc("<NIC>" IB NIC1 NIC1 MAC1 PK1 "</NIC>"), "VM 42 (NIC "
								"element 1): "
								"NIC_ID given "
								"twice");
	refused(vm_doc("<NIC>" IB NIC1 PK1 "</NIC>"), "VM 42 NIC 1: no MAC");
	refused(vm_doc("<NIC>" IB NIC1 "<MAC>02:00:c0:a8:01</MAC>" PK1 "</"
		       "NIC>"),
		"VM 42 NIC 1: malformed MAC '02:00:c0:a8:01'");
	refused(vm_doc("<NIC>" IB NIC1 "<MAC><X/></MAC>" PK1 "</NIC>"),
		"VM 42 NIC 1: malformed MAC ''");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "</NIC>"), "VM 42 NIC 1: no "
						       "IB_PKEY (the virtual "
						       "network sets it, "
						       "INHERIT_VNET_ATTR must "
						       "carry it)");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x1g</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0x1g' is not a P_Key (hex like 0x8101, "
		"or decimal)");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x10000</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0x10000' is not a P_Key: more than 16 "
		"bits");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x7fff</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0x7fff' is the default partition, never "
		"a tenant's");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0xFFFF</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0xFFFF' is the default partition, never "
		"a tenant's");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0' is partition 0, which is invalid");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x8000</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0x8000' is partition 0, which is "
		"invalid");
	/* finding 4: never quietly mapped to full membership */
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x0101</IB_PKEY></NIC>"),
		"VM 42 NIC 1: IB_PKEY '0x0101' is a limited-member key (write "
		"0x8101: a tenant network's VFs are full members)");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<NETWORK_ID>three</NETWORK_ID>"
		       "</NIC>"),
		"VM 42 NIC 1: malformed NETWORK_ID 'three'");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PF>3b:00.0</IB_PF></NIC>"),
		"VM 42 NIC 1: IB_PF '3b:00.0' is not a PCI address like "
		"0000:3b:00.0");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PORT>0</IB_PORT></NIC>"),
		"VM 42 NIC 1: IB_PORT '0' is not a port number 1..9");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PORT>10</IB_PORT></NIC>"),
		"VM 42 NIC 1: IB_PORT '10' is not a port number 1..9");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PORT/></NIC>"),
		"VM 42 NIC 1: IB_PORT '' is not a port number 1..9");
}

/*
 * oned writes every element of a NIC once: a second one is refused. (The
 * owner's own IB_PKEY is not caught here: inheritance copies the
 * network's only into a NIC without one, so such a NIC carries one key,
 * the owner's; the partitions renderer, which sees the network, leaves
 * it out.)
 */
static void refuse_twice(void **state)
{
	(void)state;
	refused(vm_doc("<NIC>" IB NIC1 MAC1 "<IB_PKEY>0x8102</IB_PKEY>" PK1
		       "</NIC>"),
		"VM 42 NIC 1: IB_PKEY given twice");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 MAC1 "</NIC>"), "VM 42 NIC 1: "
								"MAC given "
								"twice");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<VN_MAD>bridge</VN_MAD>"
		       "</NIC>"),
		"VM 42 NIC 1: VN_MAD given twice");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PF>0000:3b:00.0</IB_PF>"
		       "<IB_PF>0000:af:00.0</IB_PF></NIC>"),
		"VM 42 NIC 1: IB_PF given twice");
	/* across NICs */
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "</NIC><NIC>" IB
		       "<NIC_ID>2</NIC_ID>" MAC1 PK1 "</NIC>"),
		"VM 42 NIC 2: MAC 02:00:c0:a8:01:05 also used by NIC 1");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "</NIC><NIC>" IB NIC1
		       "<MAC>02:00:c0:a8:01:06</MAC>" PK1 "</NIC>"),
		"VM 42 NIC 1: NIC_ID used by two IB NICs");
	/* only TEMPLATE/NIC counts: USER_TEMPLATE and CONTEXT P_Keys don't */
	refused(vm_doc("<CONTEXT><IB_PKEY>0x8101</IB_PKEY></CONTEXT>"
		       "<NIC>" IB NIC1 MAC1 "</NIC>"),
		"VM 42 NIC 1: no IB_PKEY (the virtual network sets it, "
		"INHERIT_VNET_ATTR must carry it)");
}

/* A tenant's string cannot add a line, forge a message or flood the log. */
static void hostile_values(void **state)
{
	char big[300];
	char want[256];

	(void)state;
	refused(vm_doc("<NIC>" IB NIC1 "<MAC><![CDATA[x'\n<VM>\"\r\t]]>"
		       "</MAC>" PK1 "</NIC>"),
		"VM 42 NIC 1: malformed MAC 'x'?<VM>\"?\?'");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_PF>\xc3\xa9&lt;&amp;"
		       "</IB_PF></NIC>"),
		"VM 42 NIC 1: IB_PF '?\?<&' is not a PCI address like "
		"0000:3b:00.0");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<ONE_SAYS_HI/><ONE_SAYS_HI/>"
		       "</NIC>"),
		"VM 42 NIC 1: ONE_SAYS_HI given twice");
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	snprintf(want, sizeof(want), "VM 42 NIC 1: malformed MAC '%.64s...'",
		 big);
	{
		char tmpl[1024];

		snprintf(tmpl, sizeof(tmpl),
			 "<NIC>" IB NIC1 "<MAC>%s</MAC>" PK1 "</NIC>", big);
		refused(vm_doc(tmpl), want);
	}
}

/*
 * The NIC of a hot-plug action: the one OpenNebula marks ATTACH="YES";
 * none when the marked NIC is not InfiniBand, even if an IB NIC has the
 * same MAC (two networks can hand out the same MAC); by MAC when none is
 * marked.
 */
static void nic_by_mac(void **state)
{
	static const char ib0[] = "<NIC>" IB "<NIC_ID>0</NIC_ID>"
				  "<MAC>02:00:c0:a8:01:05</MAC>" PK1 "</NIC>";
	static const char ib1[] = "<NIC>" IB "<NIC_ID>1</NIC_ID>"
				  "<MAC>02:00:c0:a8:01:06</MAC>" PK1 "</NIC>";
	static const char ib1_att[] = "<NIC>" IB "<NIC_ID>1</NIC_ID>"
				      "<MAC>02:00:c0:a8:01:06</MAC>" PK1
				      "<ATTACH>YES</ATTACH></NIC>";
	static const char br2_att[] = "<NIC><VN_MAD>bridge</VN_MAD>"
				      "<NIC_ID>2</NIC_ID>"
				      "<MAC>02:00:c0:a8:01:05</MAC>"
				      "<ATTACH>YES</ATTACH></NIC>";
	const uint64_t m5 = 0x0200c0a80105ull, m6 = 0x0200c0a80106ull;
	char tmpl[2048], err[256];
	struct one_vm vm;

	(void)state;
	snprintf(tmpl, sizeof(tmpl), "%s%s", ib0, ib1);
	assert_int_equal(onexml_parse_vm(vm_doc(tmpl), strlen(vm_doc(tmpl)),
					 &vm, err, sizeof(err)),
			 0);
	assert_false(vm.nics[0].attach || vm.nics[1].attach);
	assert_int_equal(onexml_nic_by_mac(&vm, m5), 0);
	assert_int_equal(onexml_nic_by_mac(&vm, m6), 1);
	assert_int_equal(onexml_nic_by_mac(&vm, 0x0200c0a80107ull), -1);
	one_vm_free(&vm);

	snprintf(tmpl, sizeof(tmpl), "%s%s", ib0, ib1_att);
	assert_int_equal(onexml_parse_vm(vm_doc(tmpl), strlen(vm_doc(tmpl)),
					 &vm, err, sizeof(err)),
			 0);
	assert_true(vm.nics[1].attach);
	assert_int_equal(onexml_nic_by_mac(&vm, m6), 1);
	/* another MAC than the marked NIC's: no NIC */
	assert_int_equal(onexml_nic_by_mac(&vm, m5), -1);
	one_vm_free(&vm);

	/* the bridge NIC being detached shares NIC 0's MAC */
	snprintf(tmpl, sizeof(tmpl), "%s%s%s", ib0, ib1, br2_att);
	assert_int_equal(onexml_parse_vm(vm_doc(tmpl), strlen(vm_doc(tmpl)),
					 &vm, err, sizeof(err)),
			 0);
	assert_true(vm.attach_other);
	assert_int_equal(vm.n, 2);
	assert_int_equal(onexml_nic_by_mac(&vm, m5), -1);
	one_vm_free(&vm);
}

/* NUMA_NODE/CPUS as oned writes them for a pinned VM (two virtual nodes,
 * host node 1), an unpinned topology (no CPUS), and a CPUS that is not a
 * CPU list. */
static void numa_nodes(void **state)
{
	const char *pinned = "<VM><ID>5</ID><TEMPLATE>"
			     "<TOPOLOGY><PIN_POLICY><![CDATA[CORE]]></"
			     "PIN_POLICY></TOPOLOGY>"
			     "<NUMA_NODE><CPUS><![CDATA[16,17]]></CPUS>"
			     "<MEMORY_NODE_ID><![CDATA[1]]></MEMORY_NODE_ID>"
			     "<NODE_ID><![CDATA[1]]></NODE_ID>"
			     "<TOTAL_CPUS><![CDATA[2]]></TOTAL_CPUS></"
			     "NUMA_NODE>"
			     "<NUMA_NODE><CPUS><![CDATA[18,19]]></CPUS>"
			     "<TOTAL_CPUS><![CDATA[2]]></TOTAL_CPUS></"
			     "NUMA_NODE>"
			     "</TEMPLATE></VM>";
	const char *unpinned = "<VM><ID>6</"
			       "ID><TEMPLATE><NUMA_NODE><TOTAL_CPUS>2</"
			       "TOTAL_CPUS>"
			       "<MEMORY>1048576</MEMORY></"
			       "NUMA_NODE><NUMA_NODE><CPUS></CPUS>"
			       "</NUMA_NODE></TEMPLATE></VM>";
	struct one_vm vm;
	char err[256] = "";
	int i;

	(void)state;
	assert_int_equal(onexml_parse_vm(pinned, strlen(pinned), &vm, err,
					 sizeof(err)),
			 0);
	assert_true(vm.pinned);
	assert_true(vm.cpus[0] == 0xf0000ULL);
	for (i = 1; i < CPULIST_WORDS; i++)
		assert_true(vm.cpus[i] == 0);
	one_vm_free(&vm);
	assert_int_equal(onexml_parse_vm(unpinned, strlen(unpinned), &vm, err,
					 sizeof(err)),
			 0);
	assert_false(vm.pinned);
	one_vm_free(&vm);
	refused("<VM><ID>7</ID><TEMPLATE><NUMA_NODE><CPUS>4-x</CPUS>"
		"</NUMA_NODE></TEMPLATE></VM>",
		"VM 7: NUMA_NODE CPUS '4-x' is not a CPU list");
	refused("<VM><ID>7</ID><TEMPLATE><NUMA_NODE><CPUS>4</CPUS><CPUS>5</"
		"CPUS>"
		"</NUMA_NODE></TEMPLATE></VM>",
		"VM 7: NUMA_NODE CPUS '(given twice)' is not a CPU list");
}

/* Rails and GPUs (design decision 15): IB_RAILS and IB_AFFINITY inherited
 * into the NIC, and the PCI devices oned assigned (ADDRESS), in order. */
static void rails_affinity_pci(void **state)
{
	const char *xml = vm_doc("<PCI><ADDRESS><![CDATA[0000:18:00.0]]></"
				 "ADDRESS>"
				 "<CLASS>0302</CLASS><PCI_ID>0</PCI_ID></PCI>"
				 "<NIC>" IB NIC1 MAC1 PK1 "<IB_RAILS>pack</"
				 "IB_RAILS>"
				 "<IB_AFFINITY>required</IB_AFFINITY></NIC>"
				 "<PCI><CLASS>0302</CLASS></PCI>"
				 "<NIC>" IB "<NIC_ID>2</"
				 "NIC_ID><MAC>02:00:c0:a8:01:06</"
				 "MAC>" PK1 "</NIC>"
				 "<PCI><ADDRESS>0000:17:00.0</ADDRESS></PCI>");
	char err[256] = "", buf[PCI_ADDR_STRLEN];
	struct one_vm vm;

	(void)state;
	assert_int_equal(onexml_parse_vm(xml, strlen(xml), &vm, err, 256), 0);
	assert_int_equal(vm.n, 2);
	assert_int_equal(vm.nics[0].rails, IB_RAILS_PACK);
	assert_int_equal(vm.nics[0].affinity, IB_AFFINITY_REQUIRED);
	assert_int_equal(vm.nics[1].rails, IB_RAILS_SPREAD);
	assert_int_equal(vm.nics[1].affinity, IB_AFFINITY_PREFERRED);
	/* oned's form and the kernel's; the PCI without ADDRESS (not
	 * assigned) adds nothing */
	assert_int_equal(vm.npci, 2);
	pci_addr_fmt(&vm.pci[0], buf);
	assert_string_equal(buf, "0000:18:00.0");
	pci_addr_fmt(&vm.pci[1], buf);
	assert_string_equal(buf, "0000:17:00.0");
	one_vm_free(&vm);
	assert_null(vm.pci);
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_AFFINITY>strict</"
		       "IB_AFFINITY></NIC>"),
		"VM 42 NIC 1: IB_AFFINITY 'strict' is not preferred, required "
		"or none");
	refused(vm_doc("<NIC>" IB NIC1 MAC1 PK1 "<IB_RAILS>all</IB_RAILS>"
		       "</NIC>"),
		"VM 42 NIC 1: IB_RAILS 'all' is not spread or pack");
	refused(vm_doc("<PCI><ADDRESS>0000:17:00</ADDRESS></PCI>"),
		"VM 42: PCI ADDRESS '0000:17:00' is not a PCI address");
	refused(vm_doc("<PCI><ADDRESS>0000:17:00:x</ADDRESS></PCI>"),
		"VM 42: PCI ADDRESS '0000:17:00:x' is not a PCI address");
	refused(vm_doc("<PCI><ADDRESS>0000:17:00.0</ADDRESS></PCI>"
		       "<PCI><ADDRESS>0000:18:00.0</ADDRESS>"
		       "<ADDRESS>0000:19:00.0</ADDRESS></PCI>"),
		"VM 42: PCI ADDRESS '(given twice)' is not a PCI address");
}

static void sanitize(void **state)
{
	struct san_str long_one;

	(void)state;
	assert_string_equal(str_sanitize("ok 0x8101").s, "ok 0x8101");
	assert_string_equal(str_sanitize("a\nb\x7f\xff").s, "a?b??");
	assert_string_equal(str_sanitize(NULL).s, "");
	long_one = str_sanitize("0123456789012345678901234567890123456789"
				"0123456789012345678901234567890123456789");
	assert_int_equal(strlen(long_one.s), 67);
	assert_string_equal(long_one.s + 64, "...");
	/* exactly 64 characters: nothing cut, no marker */
	long_one = str_sanitize("0123456789012345678901234567890123456789"
				"012345678901234567890123");
	assert_int_equal(strlen(long_one.s), 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vm_file),
		cmocka_unit_test(action_data),
		cmocka_unit_test(plain_and_cdata),
		cmocka_unit_test(refuse_document),
		cmocka_unit_test(refuse_nic_fields),
		cmocka_unit_test(refuse_twice),
		cmocka_unit_test(hostile_values),
		cmocka_unit_test(nic_by_mac),
		cmocka_unit_test(numa_nodes),
		cmocka_unit_test(rails_affinity_pci),
		cmocka_unit_test(sanitize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
