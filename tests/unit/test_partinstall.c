// SPDX-License-Identifier: Apache-2.0
/*
 * The root install of partitions.conf (partinstall.h) in a scratch
 * directory, opensm told through a reload command that counts its runs:
 * only the renderer's exact text is installed (never a tenant VF as a
 * full member outside its network's partition, "both" included), an
 * unchanged file is left alone and nobody told, and a reload that failed is retried by the next
 * run even though the text did not change (finding 5), then never again.
 * opensm's QoS policy goes through the same steps under its own grammar:
 * a partitions file is no policy, a policy with an `ipoib` rule or a
 * P_Key beyond 0x7fff is none either, and what was installed stays.
 */
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

#include "root/partinstall.h"
#include "core/strbuf.h"

#define HEAD                                                                   \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"
#define ONEIB "# from: one-ib\n"
#define DEF ONEIB "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"

static const char one[] = HEAD DEF ONEIB "vnet5_a=0x0101, ipoib :\n"
					 "\t0x02000000002a0000=full ;\n";
static const char two[] = HEAD DEF ONEIB "vnet5_a=0x0101, ipoib :\n"
					 "\t0x02000000002a0000=full,\n"
					 "\t0x02000000002b0000=full ;\n";

struct fx {
	char dir[64];
	char conf[128], bak[160], pending[160], count[128];
	char ok_cmd[256], fail_cmd[256];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_partinstall.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->conf, sizeof(f->conf), "%s/partitions.conf", f->dir);
	snprintf(f->bak, sizeof(f->bak), "%s.bak", f->conf);
	snprintf(f->pending, sizeof(f->pending), "%s.reload-pending", f->conf);
	snprintf(f->count, sizeof(f->count), "%s/reloads", f->dir);
	snprintf(f->ok_cmd, sizeof(f->ok_cmd), "echo >>%s", f->count);
	snprintf(f->fail_cmd, sizeof(f->fail_cmd), "echo >>%s; exit 3",
		 f->count);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unit_rm_tree(f->dir);
	free(f);
	return 0;
}

static int reloads(const struct fx *f)
{
	struct strbuf sb = STRBUF_INIT;
	int n = 0;
	size_t i;

	if (!sb_read_file(&sb, f->count, 4096))
		for (i = 0; i < sb.len; i++)
			n += sb.buf[i] == '\n';
	sb_release(&sb);
	return n;
}

static bool exists(const char *p)
{
	struct stat st;

	return !lstat(p, &st);
}

static void holds(const char *path, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(sb_read_file(&sb, path, 1 << 20), 0);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

static int install(const struct fx *f, const char *text, const char *cmd,
		   struct install_report *rep, char *err)
{
	struct install_opts o = { .path = f->conf,
				  .how = cmd ? RELOAD_CMD : RELOAD_NONE,
				  .cmd = cmd };

	return partitions_install(text, strlen(text), &o, rep, err, 256);
}

static void only_the_renderers_text(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";
	static const char *const refused[] = {
		"",
		DEF "vnet5_a=0x0101, ipoib : ;\n", /* no header */
		HEAD DEF "vnet5_a=0x0101, ipoib :\r\n\t;\n",
		HEAD DEF "vnet5_a=0x0101, ipoib :\n\t0x02000000002a0000=full "
			 ";\n"
			 "# anything\n",
		HEAD DEF "vnet1_abcdefghijklmnopqrstuvwxyz=0x0101, ipoib :\n"
			 "\t;\n",
	};
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(install(f, refused[i], f->ok_cmd, &rep, err),
				 -EINVAL);
		assert_non_null(strstr(err, "partitions.conf line"));
		assert_false(exists(f->conf));
		assert_false(exists(f->pending));
		assert_int_equal(reloads(f), 0);
	}
	/* bytes after a NUL are never installed unseen */
	assert_int_equal(
		partitions_install(one, sizeof(one), /* with NUL */
				   &(struct install_opts){ .path = f->conf,
							   .how = RELOAD_NONE },
				   &rep, err, sizeof(err)),
		-EINVAL);
	assert_false(exists(f->conf));
}

/*
 * A tenant VF listed "both" is a full member: the installer refuses it in
 * the operator's partitions and the default one, as the renderer does,
 * and installs nothing; "limited" goes in.
 */
static void tenant_both_refused(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";
	static const char *const refused[] = {
		HEAD DEF "# from: the static file\ninfra=0x0105, ipoib :\n"
			 "\t0x0002c903000a0001=full,\n"
			 "\t0x02000000002a0000=both ;\n",
		HEAD "# from: the static file\nDefault=0x7fff, ipoib :\n"
		     "\tALL=limited,\n\tSELF=full,\n"
		     "\t0x02000000002a0000=both ;\n",
	};
	static const char limited[] = HEAD DEF "# from: the static file\n"
					       "infra=0x0105, ipoib :\n"
					       "\t0x0002c903000a0001=full,\n"
					       "\t0x02000000002a0000=limited "
					       ";\n";
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(install(f, refused[i], f->ok_cmd, &rep, err),
				 -EINVAL);
		if (!strstr(err, "0x02000000002a0000 (VM 42 NIC 0) is a tenant "
				 "VF's port GUID: never a full member"))
			fail_msg("case %zu: %s", i, err);
		assert_false(exists(f->conf));
		assert_false(exists(f->pending));
		assert_int_equal(reloads(f), 0);
	}
	assert_int_equal(install(f, limited, f->ok_cmd, &rep, err), 0);
	holds(f->conf, limited);
	assert_int_equal(reloads(f), 1);
}

static void install_unchanged_and_retry(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";

	/* first install: no backup, opensm told, nothing pending */
	assert_int_equal(install(f, one, f->ok_cmd, &rep, err), 0);
	assert_int_equal(rep.state, INSTALL_NEW);
	assert_true(rep.reloaded);
	assert_int_equal(rep.partitions, 1);
	assert_int_equal(rep.members, 1);
	holds(f->conf, one);
	assert_false(exists(f->bak));
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 1);

	/* unchanged: nothing written, nobody told */
	assert_int_equal(install(f, one, f->ok_cmd, &rep, err), 0);
	assert_int_equal(rep.state, INSTALL_UNCHANGED);
	assert_false(rep.retried);
	assert_int_equal(reloads(f), 1);

	/* a new file, and telling opensm fails: installed, pending */
	assert_int_equal(install(f, two, f->fail_cmd, &rep, err), 1);
	assert_int_equal(rep.state, INSTALL_REPLACED);
	assert_false(rep.reloaded);
	assert_non_null(strstr(rep.reload_err, "exited with 3"));
	holds(f->conf, two);
	holds(f->bak, one);
	assert_true(exists(f->pending));
	assert_int_equal(reloads(f), 2);

	/* the same text again: opensm is told this time (finding 5) */
	assert_int_equal(install(f, two, f->ok_cmd, &rep, err), 0);
	assert_int_equal(rep.state, INSTALL_UNCHANGED);
	assert_true(rep.retried);
	assert_true(rep.reloaded);
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 3);

	/* and then never again for that text */
	assert_int_equal(install(f, two, f->ok_cmd, &rep, err), 0);
	assert_false(rep.retried);
	assert_int_equal(reloads(f), 3);
	holds(f->bak, one);
}

/* Two failures in a row, then a new text: still one mark, then cleared. */
static void pending_survives_until_told(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";

	assert_int_equal(install(f, one, f->fail_cmd, &rep, err), 1);
	assert_true(exists(f->pending));
	assert_int_equal(install(f, one, f->fail_cmd, &rep, err), 1);
	assert_true(rep.retried);
	assert_true(exists(f->pending));
	/* someone else tells opensm: the mark stays for the next reload */
	assert_int_equal(install(f, two, NULL, &rep, err), 0);
	assert_true(exists(f->pending));
	assert_int_equal(install(f, two, f->ok_cmd, &rep, err), 0);
	assert_true(rep.retried);
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 3);
}

static void no_reload_no_mark(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";

	assert_int_equal(install(f, one, NULL, &rep, err), 0);
	assert_int_equal(rep.state, INSTALL_NEW);
	assert_false(rep.reloaded);
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 0);
}

/*
 * Text the strict reader refuses, over a file already installed (the
 * usual case: there always is one): the file and its backup keep their
 * bytes and inodes, no pending mark is made, and opensm is not told, even
 * when a reload of the previous file is still pending (issue 14, item 4).
 */
static void refused_keeps_the_installed_file(void **state)
{
	static const char full_default[] = HEAD "Default=0x7fff, ipoib : "
						"ALL=full, SELF=full ;\n";
	struct fx *f = *state;
	struct install_report rep;
	struct stat conf, bak, now;
	char err[256] = "";

	assert_int_equal(install(f, one, f->ok_cmd, &rep, err), 0);
	assert_int_equal(install(f, two, f->ok_cmd, &rep, err), 0);
	assert_int_equal(reloads(f), 2);
	assert_int_equal(stat(f->conf, &conf), 0);
	assert_int_equal(stat(f->bak, &bak), 0);

	assert_int_equal(install(f, full_default, f->ok_cmd, &rep, err),
			 -EINVAL);
	assert_non_null(strstr(err, "partitions.conf line"));
	holds(f->conf, two);
	holds(f->bak, one);
	assert_int_equal(stat(f->conf, &now), 0);
	assert_int_equal(now.st_ino, conf.st_ino);
	assert_int_equal(stat(f->bak, &now), 0);
	assert_int_equal(now.st_ino, bak.st_ino);
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 2);

	/* a reload still owed is not paid by a refused text either */
	assert_int_equal(install(f, one, f->fail_cmd, &rep, err), 1);
	assert_true(exists(f->pending));
	assert_int_equal(reloads(f), 3);
	assert_int_equal(install(f, full_default, f->ok_cmd, &rep, err),
			 -EINVAL);
	assert_true(exists(f->pending));
	assert_int_equal(reloads(f), 3);
	holds(f->conf, one);
	holds(f->bak, two);
}

/* Root never writes through a symlink, nor beside a name that is none. */
static void refuses_links(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "", target[128];

	snprintf(target, sizeof(target), "%s/elsewhere", f->dir);
	assert_int_equal(symlink(target, f->conf), 0);
	assert_true(install(f, one, f->ok_cmd, &rep, err) < 0);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_false(exists(target));
	assert_false(exists(f->pending));
	assert_int_equal(reloads(f), 0);
	unlink(f->conf);

	/* a pending mark that is a link: never written through, removed */
	assert_int_equal(symlink(target, f->pending), 0);
	assert_int_equal(install(f, one, f->ok_cmd, &rep, err), 0);
	assert_false(exists(target));
	assert_false(exists(f->pending));
	holds(f->conf, one);
}

#define POLICY_HEAD                                                            \
	"# oneib-partitions: generated from the cloud's state, do not edit\n"  \
	"# the SL of every partition that has one (sl=), by P_Key\n"           \
	"qos-ulps\n\tdefault : 0\n"
static const char policy[] = POLICY_HEAD "\tany, pkey 0x0101 : 1\n"
					 "end-qos-ulps\n";

static void qos_policy_by_its_grammar(void **state)
{
	struct fx *f = *state;
	struct install_report rep;
	char err[256] = "";
	struct install_opts o = { .kind = INSTALL_QOS_POLICY,
				  .path = f->conf,
				  .how = RELOAD_CMD,
				  .cmd = f->ok_cmd };
	static const char *const refused[] = {
		one, /* a partitions.conf */
		POLICY_HEAD "\tipoib, pkey 0x0101 : 1\nend-qos-ulps\n",
		POLICY_HEAD "\tany, pkey 0x0101 : 1\nend-qos-ulps\n"
			    "qos-levels\n",
		/* a range whose upper end has the membership bit */
		POLICY_HEAD "\tany, pkey 0x7ffe-0x8001 : 1\nend-qos-ulps\n",
	};
	size_t i;

	assert_int_equal(partitions_install(policy, strlen(policy), &o, &rep,
					    err, sizeof(err)),
			 0);
	assert_int_equal(rep.state, INSTALL_NEW);
	assert_int_equal(rep.rules, 1);
	assert_int_equal(rep.default_sl, 0);
	assert_int_equal(reloads(f), 1);
	holds(f->conf, policy);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(partitions_install(refused[i],
						    strlen(refused[i]), &o,
						    &rep, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "qos-policy.conf"));
		holds(f->conf, policy);
		assert_false(exists(f->bak));
		assert_int_equal(reloads(f), 1);
	}
	/* and the policy is no partitions file */
	o.kind = INSTALL_PARTITIONS;
	assert_int_equal(partitions_install(policy, strlen(policy), &o, &rep,
					    err, sizeof(err)),
			 -EINVAL);
	holds(f->conf, policy);
}

/*
 * UFM (partinstall.h, INSTALL_UFM): the rendered file is checked as for
 * opensm, and what goes into the user extension is it without the
 * default partition; a text the renderer did not write is refused and
 * nothing written; unchanged, UFM's sync is not run again.
 */
static void ufm_user_extension(void **state)
{
	struct fx *f = *state;
	struct install_opts o = { .kind = INSTALL_UFM,
				  .path = f->conf,
				  .how = RELOAD_CMD,
				  .cmd = f->ok_cmd };
	struct install_report rep;
	char err[256] = "";

	assert_int_equal(partitions_install(one, strlen(one), &o, &rep, err,
					    sizeof(err)),
			 0);
	holds(f->conf, HEAD ONEIB "vnet5_a=0x0101, ipoib :\n"
				  "\t0x02000000002a0000=full ;\n");
	assert_int_equal(rep.partitions, 1);
	assert_int_equal(reloads(f), 1);
	assert_int_equal(partitions_install(one, strlen(one), &o, &rep, err,
					    sizeof(err)),
			 0);
	assert_int_equal(rep.state, INSTALL_UNCHANGED);
	assert_int_equal(reloads(f), 1);
	/* the extension itself is no rendered file */
	assert_int_equal(partitions_install(HEAD ONEIB "vnet5_a=0x0101, ipoib "
						       ":\n\t;\n",
					    strlen(HEAD ONEIB "vnet5_a=0x0101, "
							      "ipoib "
							      ":\n\t;\n"),
					    &o, &rep, err, sizeof(err)),
			 -EINVAL);
	holds(f->conf, HEAD ONEIB "vnet5_a=0x0101, ipoib :\n"
				  "\t0x02000000002a0000=full ;\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(only_the_renderers_text, setup,
						teardown),
		cmocka_unit_test_setup_teardown(tenant_both_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(install_unchanged_and_retry,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pending_survives_until_told,
						setup, teardown),
		cmocka_unit_test_setup_teardown(no_reload_no_mark, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			refused_keeps_the_installed_file, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_links, setup, teardown),
		cmocka_unit_test_setup_teardown(ufm_user_extension, setup,
						teardown),
		cmocka_unit_test_setup_teardown(qos_policy_by_its_grammar,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
