// SPDX-License-Identifier: Apache-2.0
/*
 * What `oneib-partitions` does around the renderer: finding the pool
 * documents in one stream, read in pieces of any size (declarations,
 * comments, CDATA holding markup) and replacing the file opensm reads
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

#include "core/conffile.h"
#include "fabric/pools.h"

/*
 * Splits text with pool_stream, reading each document in pieces of `chunk`
 * bytes (so boundaries fall everywhere); the documents are joined with '|'
 * and prefixed with their kind's initial: "V:<VM_POOL/>|H:<HOST_POOL/>".
 * Returns pool_stream_next's final status (0 at the end) or -1 when a
 * document's read failed (reason in err).
 */
static int split(const char *text, size_t chunk, char *out, size_t outlen,
		 char *err)
{
	static const char initial[] = "VHN";
	struct pool_stream *s = malloc(sizeof(*s));
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	enum pool_kind kind;
	size_t at = 0;
	int r;

	assert_non_null(s);
	assert_non_null(f);
	out[0] = '\0';
	err[0] = '\0';
	pool_stream_init(s, f, "input");
	while ((r = pool_stream_next(s, &kind, err, 256)) == 1) {
		char buf[64];
		int n;

		at += (size_t)snprintf(out + at, outlen - at,
				       "%s%c:", at ? "|" : "", initial[kind]);
		while ((n = pool_stream_read(s, buf, (int)chunk)) > 0)
			at += (size_t)snprintf(out + at, outlen - at, "%.*s", n,
					       buf);
		if (n < 0) {
			snprintf(err, 256, "%s", s->err);
			r = -1;
			break;
		}
	}
	fclose(f);
	free(s);
	return r;
}

static void splits_one_stream(void **state)
{
	char out[512], err[256];
	size_t chunk;

	(void)state;
	for (chunk = 1; chunk <= 64; chunk *= 2) {
		assert_int_equal(split("<?xml "
				       "version=\"1.0\"?>\n<VM_POOL><VM><ID>1</"
				       "ID>"
				       "</VM></VM_POOL>\n<!-- hosts "
				       "-->\n<HOST_POOL>\n"
				       "</HOST_POOL >trailing<VNET_POOL/>\n",
				       chunk, out, sizeof(out), err),
				 -EINVAL);
		assert_string_equal(out, "V:<VM_POOL><VM><ID>1</ID></VM>"
					 "</VM_POOL>|H:<HOST_POOL>\n"
					 "</HOST_POOL >");
		assert_string_equal(err, "input: byte 102: expected <VM_POOL>, "
					 "<HOST_POOL> or <VNET_POOL>");
		assert_int_equal(split("<VM_POOL/>\n<VNET_POOL a=\"1\"/>"
				       "<VM_POOL></VM_POOL>",
				       chunk, out, sizeof(out), err),
				 0);
		assert_string_equal(out, "V:<VM_POOL/>|N:<VNET_POOL a=\"1\"/>|"
					 "V:<VM_POOL></VM_POOL>");
	}
}

/* A tenant's VM name may hold "</VM_POOL>" inside CDATA or a comment. */
static void markup_in_cdata_does_not_end_a_document(void **state)
{
	static const char doc[] = "<VM_POOL><VM><NAME><![CDATA[x</"
				  "VM_POOL><HOST_POOL>]]]></NAME>"
				  "<!-- </VM_POOL> --><?pi "
				  "</VM_POOL>?></VM></VM_POOL>";
	char out[512], err[256], want[512];
	size_t chunk;

	(void)state;
	snprintf(want, sizeof(want), "V:%s|H:<HOST_POOL/>", doc);
	for (chunk = 1; chunk <= 64; chunk *= 2) {
		char in[512];

		snprintf(in, sizeof(in), "%s<HOST_POOL/>", doc);
		assert_int_equal(split(in, chunk, out, sizeof(out), err), 0);
		assert_string_equal(out, want);
	}
}

static void refuses(const char *text, const char *want)
{
	char out[512], err[256];

	assert_true(split(text, 7, out, sizeof(out), err) < 0);
	assert_string_equal(err, want);
}

static void refusals(void **state)
{
	(void)state;
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
	refuses("<VM_POOL><!-- </VM_POOL> -- ", "input: <VM_POOL> has no end "
						"tag");
	refuses("<!-- x", "input: a comment or declaration is not closed");
	refuses("<?xml", "input: a comment or declaration is not closed");
}

/* --- conffile -------------------------------------------------------------- */

struct tmp {
	char dir[64], file[96], bak[96];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/oneib-conffile.XXXXXX");
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
		cmocka_unit_test(refusals),
		cmocka_unit_test(installs_keeps_backup_and_skips_unchanged),
		cmocka_unit_test(refuses_links_and_keeps_old_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
