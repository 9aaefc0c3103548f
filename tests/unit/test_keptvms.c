// SPDX-License-Identifier: Apache-2.0
/*
 * The VM listing kept between the front-end's runs and the events spooled
 * for the next (fabric/keptvms.h): the events a run takes, and when a run
 * must list every VM instead (no listing, too old, ahead of the clock, an
 * event of every VM, too many VMs, not the directory owner's run).
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "fabric/keptvms.h"
#include "unit.h"

struct dirs {
	char dir[64], lock[128], moved[128], vms[128];
};

static int setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	strcpy(d->dir, "/tmp/test_keptvms.XXXXXX");
	assert_non_null(mkdtemp(d->dir));
	snprintf(d->lock, sizeof(d->lock), "%s/lock", d->dir);
	snprintf(d->moved, sizeof(d->moved), "%s/moved.xml", d->dir);
	snprintf(d->vms, sizeof(d->vms), "%s/vms.xml", d->dir);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dirs *d = *state;
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->dir);
	assert_int_equal(system(cmd), 0);
	free(d);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* a listing as vmcache writes it, next VM ID 45, kept at stamp */
static void keep_listing(const struct dirs *d, const struct kept *k,
			 time_t stamp)
{
	write_file(d->vms, "<!-- next VM ID: 45 -->\n<VM_POOL>\n</VM_POOL>\n");
	assert_int_equal(kept_keep(k, d->vms, stamp), 0);
}

static void events_taken(void **state)
{
	struct dirs *d = *state;
	time_t now = time(NULL);
	struct kept_take t;
	struct kept k;
	struct stat st;
	char err[256] = "", path[160];

	assert_int_equal(kept_init(&k, d->lock, err, sizeof(err)), 0);
	assert_true(k.own);
	keep_listing(d, &k, now - 300);
	snprintf(path, sizeof(path), "%s.vms", d->lock);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_mtime, now - 300);
	assert_int_equal(kept_spool(&k, "44", err, sizeof(err)), 0);
	assert_int_equal(kept_spool(&k, "43", err, sizeof(err)), 0);
	assert_int_equal(kept_spool(&k, "44", err, sizeof(err)), 0);
	assert_int_equal(kept_spool(&k, "new", err, sizeof(err)), 0);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_false(t.full);
	assert_int_equal(t.nids, 2);
	assert_int_equal(t.ids[0], 43);
	assert_int_equal(t.ids[1], 44);
	assert_int_equal(t.next, 45);
	assert_int_equal(t.stamp, now - 300);
	/* taken: the listing moved, the spool empty */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(d->moved, F_OK), 0);
	kept_take_free(&t);
	keep_listing(d, &k, now - 300);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_false(t.full);
	assert_int_equal(t.nids, 0);
	kept_take_free(&t);
}

/* every VM listed, each rule on its own */
static void every_vm(void **state)
{
	struct dirs *d = *state;
	time_t now = time(NULL);
	struct kept_take t;
	struct kept k;
	char err[256] = "", id[16];
	int i;

	assert_int_equal(kept_init(&k, d->lock, err, sizeof(err)), 0);
	/* no kept listing; its events go with the full listing */
	assert_int_equal(kept_spool(&k, "43", err, sizeof(err)), 0);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	assert_int_equal(t.stamp, now);
	kept_take_free(&t);
	keep_listing(d, &k, now - 1);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_false(t.full); /* that event went with the last full one */
	kept_take_free(&t);
	/* as old as full_every */
	keep_listing(d, &k, now - 600);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	assert_int_equal(t.stamp, now);
	kept_take_free(&t);
	/* ahead of the clock, however little */
	keep_listing(d, &k, now + 1);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
	/* full_every 0: every run */
	keep_listing(d, &k, now);
	assert_int_equal(kept_take(&k, d->moved, 0, now, &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
	/* an event of every VM */
	keep_listing(d, &k, now);
	assert_int_equal(kept_spool(&k, "all", err, sizeof(err)), 0);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
	/* more than KEPT_IDS_MAX VMs */
	keep_listing(d, &k, now);
	for (i = 0; i <= KEPT_IDS_MAX; i++) {
		snprintf(id, sizeof(id), "%d", i);
		assert_int_equal(kept_spool(&k, id, err, sizeof(err)), 0);
	}
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
	/* a first line it cannot read */
	write_file(d->vms, "<VM_POOL>\n</VM_POOL>\n");
	assert_int_equal(kept_keep(&k, d->vms, now), 0);
	assert_int_equal(kept_take(&k, d->moved, 600, now, &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
}

/* Not the directory owner's run: every VM, the spool left alone. */
static void not_the_owner(void **state)
{
	struct dirs *d = *state;
	struct kept_take t;
	struct kept k;
	char err[256] = "", path[160];

	assert_int_equal(kept_init(&k, d->lock, err, sizeof(err)), 0);
	keep_listing(d, &k, time(NULL));
	assert_int_equal(kept_spool(&k, "43", err, sizeof(err)), 0);
	k.own = false;
	assert_int_equal(kept_spool(&k, "44", err, sizeof(err)), 0);
	assert_int_equal(kept_take(&k, d->moved, 600, time(NULL), &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
	assert_int_equal(kept_keep(&k, "/nonexistent", time(NULL)), 0);
	snprintf(path, sizeof(path), "%s.vms", d->lock);
	assert_int_equal(access(path, F_OK), 0);
	k.own = true;
	assert_int_equal(kept_take(&k, d->moved, 600, time(NULL), &t), 0);
	assert_false(t.full);
	assert_int_equal(t.nids, 1); /* 43 only: 44 was never spooled */
	assert_int_equal(t.ids[0], 43);
	kept_take_free(&t);
}

/* An event it cannot spool: said, and the kept listing dropped. */
static void cannot_spool(void **state)
{
	struct dirs *d = *state;
	struct kept_take t;
	struct kept k;
	char err[256] = "", path[160];

	assert_int_equal(kept_init(&k, d->lock, err, sizeof(err)), 0);
	keep_listing(d, &k, time(NULL));
	snprintf(path, sizeof(path), "%s.events", d->lock);
	write_file(path, "not a directory");
	assert_int_equal(kept_spool(&k, "43", err, sizeof(err)), -ENOTDIR);
	assert_string_equal(strstr(err, "cannot record the event (43) in "),
			    err);
	assert_non_null(strstr(err, "; the next run lists every VM"));
	assert_int_equal(kept_take(&k, d->moved, 600, time(NULL), &t), 0);
	assert_true(t.full);
	kept_take_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(events_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(every_vm, setup, teardown),
		cmocka_unit_test_setup_teardown(not_the_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(cannot_spool, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
