// SPDX-License-Identifier: Apache-2.0
/*
 * The VM listing the front-end hook keeps between runs (fabric/vmcache.h):
 * read back, it gives exactly the facts the full listing gives, from a
 * fraction of the bytes (a tenant's text that looks like a VM included);
 * one VM per ID in ID order, a later file's winning; the first file's
 * refreshed VMs and DONE VMs gone; where new VMs begin said first; a kept
 * listing read back by copying its records, and refused, naming the byte,
 * when they are damaged; a document that is not a VM pool, or a VM
 * without an ID, refused.
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

#include "fabric/cloudfacts.h"
#include "fabric/poolread.h"
#include "fabric/vmcache.h"

/* VM 9 placed (HID 4, its last host), a tenant's requirement that reads
 * like XML; VM 3 pending with two IB NICs; VM 5 DONE. */
static const char *const listing =
	"<VM_POOL><VM><ID>9</ID><UID>0</UID><NAME>big</NAME><STATE>3</STATE>"
	"<LCM_STATE>3</LCM_STATE><TEMPLATE><CPU>1</CPU>"
	"<CONTEXT><NETWORK>YES</NETWORK><ONEIB_TOPOLOGY><![CDATA[9 10.0.0.9 "
	"0x0002c90200000a00]]></ONEIB_TOPOLOGY></CONTEXT>"
	"<DISK><IMAGE>x</IMAGE></DISK>"
	"<NIC><AR_ID>0</AR_ID><BRIDGE>br0</BRIDGE><IB_PKEY>0x8101</IB_PKEY>"
	"<IP>10.0.0.9</IP><MAC>02:00:0a:00:00:09</MAC><NETWORK_ID>5</"
	"NETWORK_ID>"
	"<NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD></NIC></TEMPLATE>"
	"<USER_TEMPLATE><SCHED_REQUIREMENTS><![CDATA[ID!=\"</VM><VM><ID>99</ID>"
	"\"]]></SCHED_REQUIREMENTS><LABEL>a</LABEL></USER_TEMPLATE>"
	"<HISTORY_RECORDS><HISTORY><SEQ>0</SEQ><HID>2</HID></HISTORY>"
	"<HISTORY><SEQ>1</SEQ><HID>4</HID><HOSTNAME>n4</HOSTNAME></HISTORY>"
	"</HISTORY_RECORDS></VM>"
	"<VM><ID>3</ID><NAME>p</NAME><STATE>1</STATE><LCM_STATE>0</LCM_STATE>"
	"<TEMPLATE><NIC><MAC>02:00:0a:00:00:03</MAC><NETWORK_ID>5</NETWORK_ID>"
	"<NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD></NIC><NIC><MAC>"
	"02:00:0a:00:01:03</MAC><NETWORK_ID>6</NETWORK_ID><NIC_ID>1</NIC_ID>"
	"<VN_MAD>ib</VN_MAD></NIC></TEMPLATE><USER_TEMPLATE/></VM>"
	"<VM><ID>5</ID><STATE>6</STATE><LCM_STATE>0</LCM_STATE></VM>"
	"</VM_POOL>";

static char *file_of(const char *text)
{
	char *path = strdup("/tmp/test_vmcache.XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* vmcache_write on the texts (files), its output in *out */
static int cache_of(int n, const char *const *texts, const int *refresh,
		    size_t nrefresh, char **out, char *err, size_t errlen)
{
	char *paths[4];
	size_t len;
	FILE *o = open_memstream(out, &len);
	int i, r;

	assert_non_null(o);
	for (i = 0; i < n; i++)
		paths[i] = file_of(texts[i]);
	r = vmcache_write(o, n, paths, refresh, nrefresh, err, errlen);
	fclose(o);
	for (i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	return r;
}

static const char *text(const struct cloud_facts *f, int i)
{
	return i == FACT_NONE ? "(none)" : f->texts[i];
}

static void facts_of(const char *xml, struct cloud_facts *f)
{
	char err[256];

	memset(f, 0, sizeof(*f));
	assert_int_equal(poolread_mem(f, -1, xml, strlen(xml), "VMs", err,
				      sizeof(err)),
			 0);
}

static void same_facts_fewer_bytes(void **state)
{
	struct cloud_facts a, b;
	char *out, err[256];
	const char *body;
	size_t i;

	(void)state;
	assert_int_equal(cache_of(1, &listing, NULL, 0, &out, err, sizeof(err)),
			 0);
	body = strchr(out, '\n') + 1;
	facts_of(listing, &a);
	facts_of(body, &b);
	assert_int_equal(b.nvms, 2); /* the DONE VM is gone... */
	assert_int_equal(a.nvms, 3); /* ...which the reader counts */
	/* the same facts, in ID order: VM 3, VM 9 */
	assert_int_equal(b.vms[0].id, 3);
	assert_int_equal(b.vms[1].id, 9);
	for (i = 0; i < b.nvms; i++) {
		const struct vm_fact *x = &a.vms[i == 0 ? 1 : 0],
				     *y = &b.vms[i];

		assert_int_equal(x->id, y->id);
		assert_int_equal(x->state, y->state);
		assert_int_equal(x->ib_nics, y->ib_nics);
		assert_int_equal(x->net, y->net);
		assert_int_equal(x->has_ip, y->has_ip);
		assert_int_equal(x->ip, y->ip);
		assert_string_equal(text(&a, x->req), text(&b, y->req));
		assert_int_equal(x->context, y->context);
		assert_string_equal(text(&a, x->topo), text(&b, y->topo));
	}
	assert_string_equal(text(&b, b.vms[1].req), "ID!=\"</VM><VM><ID>99</"
						    "ID>\"");
	assert_int_equal(a.nnics, 1);
	assert_int_equal(b.nnics, 1);
	assert_int_equal(b.nics[0].vm, 9);
	assert_int_equal(b.nics[0].host, 4);
	assert_int_equal(b.nics[0].mac, a.nics[0].mac);
	assert_true(b.nics[0].has_pkey);
	assert_memory_equal(&b.nics[0].pkey, &a.nics[0].pkey,
			    sizeof(a.nics[0].pkey));
	/* what the renderer never reads is not kept */
	assert_null(strstr(out, "<NAME>"));
	assert_null(strstr(out, "DISK"));
	assert_null(strstr(out, "HOSTNAME"));
	assert_null(strstr(out, "LABEL"));
	assert_non_null(strstr(out, "<BRIDGE/>")); /* bare: the NIC reader's
						      "given twice" rule */
	assert_true(strlen(out) < strlen(listing));
	cloud_facts_free(&a);
	cloud_facts_free(&b);
	free(out);
}

static void next_id_and_order(void **state)
{
	char *out, *again, err[256];
	const char *texts[1];

	(void)state;
	assert_int_equal(cache_of(1, &listing, NULL, 0, &out, err, sizeof(err)),
			 0);
	/* 5 is DONE and dropped, 9 the highest: a tenant's "99" is text */
	assert_int_equal(
		strncmp(out, "<!-- next VM ID: 10 -->\n<VM_POOL>\n<!-- 3 ", 41),
		0);
	assert_non_null(strstr(out, "</VM>\n<!-- 9 "));
	assert_non_null(strstr(out, "</VM>\n</VM_POOL>\n"));
	/* read back (copied, not parsed): the same bytes */
	texts[0] = out;
	assert_int_equal(cache_of(1, texts, NULL, 0, &again, err, sizeof(err)),
			 0);
	assert_string_equal(again, out);
	free(again);
	free(out);
	texts[0] = "<VM_POOL></VM_POOL>";
	assert_int_equal(cache_of(1, texts, NULL, 0, &out, err, sizeof(err)),
			 0);
	assert_string_equal(out, "<!-- next VM ID: 0 "
				 "-->\n<VM_POOL>\n</VM_POOL>\n");
	free(out);
}

#define VM3 "<VM><ID>3</ID><STATE>3</STATE><LCM_STATE>3</LCM_STATE></VM>"
#define VM12 "<VM><ID>12</ID><STATE>1</STATE><LCM_STATE>0</LCM_STATE></VM>"

static void later_wins_refreshed_go(void **state)
{
	const char *texts[3] = {
		listing,
		/* VM 3 placed now; VM 12 new */
		"<VM_POOL>" VM12 VM3 "</VM_POOL>",
		/* VM 9 terminated */
		"<VM_POOL><VM><ID>9</ID><STATE>6</STATE><LCM_STATE>0</"
		"LCM_STATE>"
		"</VM></VM_POOL>",
	};
	const int refresh[] = { 9, 3 };
	const char *only[2] = { listing, "<VM_POOL/>" };
	char *out, *kept, want[512], err[256];

	(void)state;
	snprintf(want, sizeof(want),
		 "<!-- next VM ID: 13 -->\n<VM_POOL>\n<!-- 3 %zu -->" VM3
		 "\n<!-- 12 %zu -->" VM12 "\n</VM_POOL>\n",
		 strlen(VM3), strlen(VM12));
	assert_int_equal(cache_of(3, texts, refresh, 2, &out, err, sizeof(err)),
			 0);
	assert_string_equal(out, want);
	free(out);
	/* the same from the listing kept before: its records copied, the
	 * refreshed ones aside */
	assert_int_equal(
		cache_of(1, &listing, NULL, 0, &kept, err, sizeof(err)), 0);
	texts[0] = kept;
	assert_int_equal(cache_of(3, texts, refresh, 2, &out, err, sizeof(err)),
			 0);
	assert_string_equal(out, want);
	free(out);
	free(kept);
	/* asked for again and not answered (gone from oned): dropped */
	assert_int_equal(cache_of(2, only, refresh, 2, &out, err, sizeof(err)),
			 0);
	assert_string_equal(out, "<!-- next VM ID: 10 "
				 "-->\n<VM_POOL>\n</VM_POOL>\n");
	free(out);
}

/* A listing that starts as a kept one and is not: refused, where. */
static void kept_damaged(void **state)
{
	static const char *const bad[] = {
		/* a length one short, one long */
		"<!-- next VM ID: 13 -->\n<VM_POOL>\n<!-- 3 58 -->" VM3 "\n"
		"</VM_POOL>\n",
		"<!-- next VM ID: 13 -->\n<VM_POOL>\n<!-- 3 60 -->" VM3 "\n"
		"</VM_POOL>\n",
		/* another VM than the record says */
		"<!-- next VM ID: 13 -->\n<VM_POOL>\n<!-- 4 59 -->" VM3 "\n"
		"</VM_POOL>\n",
		/* at or above the next ID */
		"<!-- next VM ID: 3 -->\n<VM_POOL>\n<!-- 3 59 -->" VM3 "\n"
		"</VM_POOL>\n",
		/* cut short */
		"<!-- next VM ID: 13 -->\n<VM_POOL>\n<!-- 3 59 -->" VM3 "\n",
	};
	char *out, err[256];
	size_t i;

	(void)state;
	assert_int_equal(strlen(VM3), 59);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(cache_of(1, &bad[i], NULL, 0, &out, err,
					  sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, ": not a VM listing vmcache kept"));
		assert_non_null(strstr(err, ": byte "));
		free(out);
	}
}

static void refused(void **state)
{
	const char *texts[2] = { listing, "<HOST_POOL></HOST_POOL>" };
	char *out, err[256], *paths[1] = { "/nonexistent/vms.xml" };
	FILE *o;
	size_t len;

	(void)state;
	assert_int_equal(cache_of(2, texts, NULL, 0, &out, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ": expected a <VM_POOL> document"));
	free(out);
	texts[0] = "<VM_POOL><VM><ID>1</ID></VM><VM><NAME>x</NAME></VM>"
		   "</VM_POOL>";
	assert_int_equal(cache_of(1, texts, NULL, 0, &out, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "VM pool: VM element 2 has no single <ID>");
	free(out);
	o = open_memstream(&out, &len);
	assert_non_null(o);
	assert_int_equal(vmcache_write(o, 1, paths, NULL, 0, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/vms.xml: No such file or "
				 "directory");
	fclose(o);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_facts_fewer_bytes),
		cmocka_unit_test(next_id_and_order),
		cmocka_unit_test(later_wins_refreshed_go),
		cmocka_unit_test(kept_damaged),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
