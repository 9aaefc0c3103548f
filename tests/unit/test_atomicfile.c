// SPDX-License-Identifier: Apache-2.0
/*
 * The one atomic file writer (core/atomicfile.h) the ledger, the
 * partitions installer and the guest's state share: the text and the mode
 * exactly, no temporary file left, a leftover temporary of the ledger's
 * form replaced, and a failure that leaves the file as it was. (The order
 * of write, fsync, rename and fsync of the directory is read from real
 * runs under strace: t0213, t0409.)
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

#include "core/atomicfile.h"
#include "core/strbuf.h"

static char dir[] = "/tmp/oneib-atomic-XXXXXX";

static const char *in_dir(const char *name)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static size_t entries(void)
{
	struct dirent *e;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void assert_file(const char *name, const char *text, mode_t mode)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;

	assert_int_equal(sb_read_file(&sb, in_dir(name), 1024), 0);
	assert_string_equal(sb_str(&sb), text);
	sb_release(&sb);
	assert_int_equal(stat(in_dir(name), &st), 0);
	assert_int_equal(st.st_mode & 07777, mode);
}

static void replaces_with_mode(void **state)
{
	char err[256] = "", path[128];
	mode_t old = umask(077);

	(void)state;
	snprintf(path, sizeof(path), "%s", in_dir("conf"));
	assert_int_equal(atomic_replace(path, NULL, "a\n", 2, 0644, err,
					sizeof(err)),
			 0);
	assert_file("conf", "a\n", 0644);
	assert_int_equal(atomic_replace(path, NULL, "bb\n", 3, 0640, err,
					sizeof(err)),
			 0);
	assert_file("conf", "bb\n", 0640);
	assert_int_equal(entries(), 1);
	umask(old);
	unlink(path);
}

/* The ledger's form: a named temporary, a leftover of it replaced. */
static void named_temporary(void **state)
{
	char err[256] = "", path[128], tmp[128];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s", in_dir("leases"));
	snprintf(tmp, sizeof(tmp), "%s", in_dir("leases.tmp.1"));
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs("vf=half a line", f);
	fclose(f);
	assert_int_equal(
		atomic_replace(path, tmp, "x\n", 2, 0640, err, sizeof(err)), 0);
	assert_file("leases", "x\n", 0640);
	assert_int_equal(entries(), 1);
	unlink(path);
}

static void failure_changes_nothing(void **state)
{
	char err[256] = "", path[128], want[256];

	(void)state;
	snprintf(path, sizeof(path), "%s", in_dir("none/conf"));
	assert_int_equal(atomic_replace(path, NULL, "a\n", 2, 0644, err,
					sizeof(err)),
			 -ENOENT);
	snprintf(want, sizeof(want),
		 "%s: cannot create a file beside it: No such file or "
		 "directory",
		 path);
	assert_string_equal(err, want);

	/* the rename fails: path is a directory; the temporary goes */
	assert_int_equal(mkdir(in_dir("d"), 0755), 0);
	snprintf(path, sizeof(path), "%s", in_dir("d"));
	assert_int_equal(atomic_replace(path, NULL, "a\n", 2, 0644, err,
					sizeof(err)),
			 -EISDIR);
	assert_int_equal(entries(), 1);
	rmdir(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replaces_with_mode),
		cmocka_unit_test(named_temporary),
		cmocka_unit_test(failure_changes_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
