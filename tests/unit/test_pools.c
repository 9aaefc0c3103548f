// SPDX-License-Identifier: Apache-2.0
/*
 * What `oneib-pkey partitions` does around the renderer: finding the three
 * pool documents in one stream (declarations, comments, CDATA holding
 * markup, several pages of one pool) and replacing the file opensm reads
 * (unchanged -> untouched, changed -> backup + atomic rename, refusals
 * leave everything as it was).
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "lib/conffile.h"
#include "lib/pools.h"

static int add(struct pools *p, const char *text, char *err)
{
	return pools_add(p, "input", text, strlen(text), err, 256);
}

static void splits_one_stream(void **state)
{
	struct pools p = POOLS_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(add(&p,
			     "<?xml "
			     "version=\"1.0\"?>\n<VM_POOL><VM><ID>1</ID></VM>"
			     "</VM_POOL>\n<!-- hosts "
			     "-->\n<HOST_POOL>\n</HOST_POOL >"
			     "<VNET_POOL/>\n",
			     err),
			 0);
	assert_int_equal(pools_finish(&p, err, sizeof(err)), 0);
	assert_string_equal(sb_str(&p.doc[POOL_VM]), "<VM_POOL><VM><ID>1</ID></"
						     "VM></VM_POOL>\n");
	assert_string_equal(sb_str(&p.doc[POOL_HOST]), "<HOST_POOL>\n</"
						       "HOST_POOL>\n");
	assert_string_equal(sb_str(&p.doc[POOL_VNET]), "<VNET_POOL></"
						       "VNET_POOL>\n");
	pools_release(&p);
}

/* A tenant's VM name may hold "</VM_POOL>" inside CDATA or a comment. */
static void markup_in_cdata_does_not_end_a_document(void **state)
{
	struct pools p = POOLS_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(add(&p,
			     "<VM_POOL><VM><NAME><![CDATA[x</"
			     "VM_POOL><HOST_POOL>"
			     "]]></NAME><!-- </VM_POOL> --></VM></VM_POOL>"
			     "<HOST_POOL/><VNET_POOL/>",
			     err),
			 0);
	assert_int_equal(p.count[POOL_HOST], 1);
	assert_int_equal(pools_finish(&p, err, sizeof(err)), 0);
	assert_non_null(strstr(sb_str(&p.doc[POOL_VM]), "<!-- </VM_POOL> "
							"--></VM></VM_POOL>"));
	pools_release(&p);
}

static void merges_pages_in_order(void **state)
{
	struct pools p = POOLS_INIT;
	char err[256] = "";

	(void)state;
	assert_int_equal(add(&p, "<VM_POOL><VM>a</VM></VM_POOL>", err), 0);
	assert_int_equal(
		add(&p, "<VM_POOL><VM>b</VM></VM_POOL><HOST_POOL/>", err), 0);
	assert_int_equal(add(&p, "<VNET_POOL/>", err), 0);
	assert_int_equal(p.count[POOL_VM], 2);
	assert_int_equal(pools_finish(&p, err, sizeof(err)), 0);
	assert_string_equal(sb_str(&p.doc[POOL_VM]), "<VM_POOL><VM>a</"
						     "VM><VM>b</VM></"
						     "VM_POOL>\n");
	pools_release(&p);
}

static void refuses(const char *text, const char *want)
{
	struct pools p = POOLS_INIT;
	char err[256] = "";
	int r = add(&p, text, err);

	if (!r)
		r = pools_finish(&p, err, sizeof(err));
	assert_int_equal(r, -EINVAL);
	assert_string_equal(err, want);
	pools_release(&p);
}

static void refusals(void **state)
{
	(void)state;
	refuses("<VM_POOL/><HOST_POOL/>", "no <VNET_POOL> in the input "
					  "(onevm/onehost/onevnet list -x)");
	refuses("<VM_POOL/>$ onehost list -x\n<HOST_POOL/>", "input: byte 11: "
							     "expected "
							     "<VM_POOL>, "
							     "<HOST_POOL> or "
							     "<VNET_POOL>");
	refuses("<VM_POOLS/>", "input: byte 1: expected <VM_POOL>, "
			       "<HOST_POOL> or <VNET_POOL>");
	refuses("<!DOCTYPE x><VM_POOL/>", "input: byte 1: expected "
					  "<VM_POOL>, <HOST_POOL> or "
					  "<VNET_POOL>");
	refuses("<VM_POOL><VM>", "input: <VM_POOL> has no end tag");
	refuses("<VM_POOL><![CDATA[</VM_POOL>", "input: <VM_POOL> has no end "
						"tag");
	refuses("<VM_POOL a=\">", "input: <VM_POOL> start tag not closed");
	refuses("<!-- x", "input: a comment, CDATA or declaration is not "
			  "closed");
}

/* --- conffile -------------------------------------------------------------- */

struct tmp {
	char dir[64], file[96], bak[96];
};

static void tmp_make(struct tmp *t)
{
	strcpy(t->dir, "/tmp/oneib-conffile.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->file, sizeof(t->file), "%s/partitions.conf", t->dir);
	snprintf(t->bak, sizeof(t->bak), "%s/partitions.conf.bak", t->dir);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void installs_keeps_backup_and_skips_unchanged(void **state)
{
	struct stat a, b;
	struct tmp t;
	char err[256] = "";

	(void)state;
	tmp_make(&t);
	assert_int_equal(conffile_install(t.file, t.bak, "one\n", 4, err,
					  sizeof(err)),
			 2);
	assert_string_equal(slurp(t.file), "one\n");
	assert_int_equal(access(t.bak, F_OK), -1); /* nothing to keep */
	assert_int_equal(chmod(t.file, 0640), 0);
	assert_int_equal(stat(t.file, &a), 0);
	assert_int_equal(conffile_install(t.file, t.bak, "one\n", 4, err,
					  sizeof(err)),
			 1);
	assert_int_equal(stat(t.file, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino); /* not rewritten */
	assert_int_equal(access(t.bak, F_OK), -1);
	assert_int_equal(conffile_install(t.file, t.bak, "two\n", 4, err,
					  sizeof(err)),
			 0);
	assert_string_equal(slurp(t.file), "two\n");
	assert_string_equal(slurp(t.bak), "one\n");
	assert_int_equal(stat(t.file, &b), 0);
	assert_int_equal(b.st_mode & 07777, 0640); /* the old file's mode */
	assert_int_equal(entries(t.dir), 2); /* no temporary left */
	assert_int_equal(unit_rm_tree(t.dir), 0);
}

static void refuses_links_and_keeps_old_file(void **state)
{
	struct tmp t;
	char err[256] = "", link[128];

	(void)state;
	tmp_make(&t);
	assert_int_equal(conffile_install(t.file, NULL, "one\n", 4, err,
					  sizeof(err)),
			 2);
	snprintf(link, sizeof(link), "%s/link", t.dir);
	assert_int_equal(symlink(t.file, link), 0);
	assert_int_equal(conffile_install(link, NULL, "two\n", 4, err,
					  sizeof(err)),
			 -ELOOP);
	assert_non_null(strstr(err, "link: is a symbolic link, not a file"));
	assert_int_equal(symlink("/nonexistent", t.bak), 0);
	assert_int_equal(conffile_install(t.file, t.bak, "two\n", 4, err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ".bak: not a regular file"));
	assert_string_equal(slurp(t.file), "one\n");
	assert_int_equal(conffile_install(t.dir, NULL, "x", 1, err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, ": not a regular file"));
	assert_int_equal(entries(t.dir), 3);
	assert_int_equal(unit_rm_tree(t.dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(splits_one_stream),
		cmocka_unit_test(markup_in_cdata_does_not_end_a_document),
		cmocka_unit_test(merges_pages_in_order),
		cmocka_unit_test(refusals),
		cmocka_unit_test(installs_keeps_backup_and_skips_unchanged),
		cmocka_unit_test(refuses_links_and_keeps_old_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
