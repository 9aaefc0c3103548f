// SPDX-License-Identifier: Apache-2.0
/*
 * Every subnet manager of the fabric (fabric/smset.h): ONEIB_SMS read
 * strictly (host names only, each once, a command that runs ssh itself
 * refused); each SM's commands run through ONEIB_SM_SSH with the host and
 * the command as words of their own, all SMs at once; an SM that fails is
 * named with why, the others still get the file, one that hangs is killed
 * at its own time and holds nobody back; a file that reads back otherwise
 * than installed is no success; without ONEIB_SMS the one SM's lines and
 * failure are exactly the commands'.
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fabric/smset.h"

static const char conf[] = "Default=0x7fff, ipoib : ALL=limited, SELF=full ;\n"
			   "vnet5_a=0x0101, ipoib : 0x02000000000a0000=full "
			   ";\n";
static const char older[] = "Default=0x7fff, ipoib : ALL=limited, "
			    "SELF=full ;\n";

static char dir[] = "/tmp/test_smset.XXXXXX";
/* an ssh stand-in: runs the command with SM set to the host */
static const char ssh[] = "f() { SM=$1 sh -c \"$2\"; }; f";
static char install[512], reader[512];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	/* as oneib-partitions-install says it; SM "down" unreachable, "hang"
	 * hangs installing, "liar" prints an older file when read */
	snprintf(install, sizeof(install),
		 "case $SM in down) echo \"ssh: connect to host $SM port 22: "
		 "No route to host\" >&2; exit 255;; hang) exec sleep 60;; "
		 "esac; cat >%s/$SM.conf && echo "
		 "\"/etc/opensm/partitions.conf: "
		 "installed (1 partitions, 1 members)\"",
		 dir);
	snprintf(reader, sizeof(reader),
		 "case $SM in down) echo \"ssh: connect to host $SM port 22: "
		 "No route to host\" >&2; exit 255;; liar) printf '%s';; *) "
		 "test ! -e %s/$SM.conf || cat %s/$SM.conf;; esac",
		 older, dir, dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void settings_refused(void **state)
{
	struct smset s;
	char err[512];

	(void)state;
	assert_int_equal(smset_init(&s, "sm1 -oProxyCommand=x", NULL, "c", "r",
				    NULL, 5, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SMS: '-oProxyCommand=x' is not a host "
				 "name");
	assert_int_equal(smset_init(&s, "sm1 sm;rm", NULL, "c", "r", NULL, 5,
				    err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SMS: 'sm;rm' is not a host name");
	assert_int_equal(smset_init(&s, "sm1, sm2 sm1", NULL, "c", "r", NULL, 5,
				    err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ONEIB_SMS names sm1 twice");
	assert_int_equal(smset_init(&s, "sm1 sm2", NULL,
				    "ssh -o BatchMode=yes sm1 sudo -n x -", "r",
				    NULL, 5, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "ONEIB_PARTITIONS_CMD runs ssh itself "
				    "while ONEIB_SMS names the subnet "
				    "managers"));
	/* one SM: a command of the site's own may well run ssh */
	assert_int_equal(smset_init(&s, " ", NULL, "ssh sm1 sudo -n x -", "r",
				    NULL, 5, err, sizeof(err)),
			 0);
	assert_false(s.many);
	assert_int_equal(s.n, 1);
	assert_int_equal(smset_init(&s, "a,b c", NULL, "c", "r", NULL, 5, err,
				    sizeof(err)),
			 0);
	assert_true(s.many);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.sm[2].name, "c");
	assert_string_equal(s.ssh, SMSET_DEFAULT_SSH);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void every_sm_at_once(void **state)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	struct smset_files f = { .text = &text, .in_force = &text };
	struct smset s;
	char err[512];
	double t0;

	(void)state;
	sb_add(&text, conf, strlen(conf));
	assert_int_equal(smset_init(&s, "hang sm1 down liar sm2", ssh, install,
				    reader, NULL, 2, err, sizeof(err)),
			 0);
	t0 = now_s();
	/* every SM read at once: the one down named, the rest read */
	assert_int_equal(smset_read(&s), 4);
	assert_false(s.sm[2].read);
	assert_non_null(strstr(s.sm[2].why, "failed (exit 255): ssh: connect "
					    "to host down port 22: No route "
					    "to host"));
	assert_true(s.sm[3].read);
	assert_int_equal(s.sm[3].installed.len, strlen(older));
	assert_int_equal(smset_install(&s, &f), 2);
	/* the one that hangs cost its own two seconds, not the others' */
	assert_true(now_s() - t0 < 4.5);
	assert_true(s.sm[1].installed_ok && s.sm[4].installed_ok);
	assert_string_equal(s.sm[1].why, "");
	assert_string_equal(sb_str(&s.sm[1].out), "sm1: "
						  "/etc/opensm/"
						  "partitions.conf: installed "
						  "(1 "
						  "partitions, 1 members)\n");
	assert_false(s.sm[0].installed_ok);
	assert_non_null(strstr(s.sm[0].why, "timed out after 2 s"));
	/* installed, but it reads back older: no success */
	assert_false(s.sm[3].installed_ok);
	assert_string_equal(s.sm[3].why, "installed, but its read command "
					 "prints another "
					 "partitions.conf: vnet5_a (0x0101): "
					 "in the "
					 "installed file, not in liar's");
	assert_int_equal(smset_failures(&s, &why), 3);
	assert_true(!strncmp(sb_str(&why), "hang: ", 6));
	assert_non_null(strstr(sb_str(&why), "; down: "));
	assert_non_null(strstr(sb_str(&why), "; liar: installed, but"));
	smset_free(&s);
	sb_release(&why);
	sb_release(&text);
}

/* Without ONEIB_SMS: the commands with sh -c, their lines unprefixed. */
static void one_sm_as_before(void **state)
{
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	struct smset_files f = { .text = &text, .in_force = &text };
	char cmd[600], rd[600], err[512];
	struct smset s;

	(void)state;
	sb_add(&text, conf, strlen(conf));
	snprintf(cmd, sizeof(cmd),
		 "cat >%s/one.conf && echo '/x: installed (1 partitions, 1 "
		 "members)'",
		 dir);
	snprintf(rd, sizeof(rd), "echo the SM host is down >&2; exit 3");
	assert_int_equal(smset_init(&s, NULL, NULL, cmd, rd, NULL, 5, err,
				    sizeof(err)),
			 0);
	assert_int_equal(smset_read(&s), 0);
	assert_int_equal(smset_failures(&s, &why), 1);
	assert_string_equal(sb_str(&why), "echo the SM host is down >&2; exit "
					  "3 failed (exit "
					  "3): the SM host is down");
	sb_reset(&why);
	smset_free(&s);
	snprintf(rd, sizeof(rd), "true");
	assert_int_equal(smset_init(&s, "", NULL, cmd, rd, NULL, 5, err,
				    sizeof(err)),
			 0);
	assert_int_equal(smset_read(&s), 1);
	/* one SM: nothing read back, the installer's word is the check */
	assert_int_equal(smset_install(&s, &f), 1);
	assert_string_equal(sb_str(&s.sm[0].out), "/x: installed (1 "
						  "partitions, 1 members)\n");
	assert_int_equal(smset_failures(&s, &why), 0);
	smset_free(&s);
	sb_release(&why);
	sb_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings_refused),
		cmocka_unit_test(every_sm_at_once),
		cmocka_unit_test(one_sm_as_before),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
