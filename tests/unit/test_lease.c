// SPDX-License-Identifier: Apache-2.0
/*
 * The lease ledger: line format both ways, strict refusal of every malformed
 * line with its number, and the file discipline (lock, atomic rewrite, modes,
 * leftover temp files, a writer killed with -9).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "core/guid.h"
#include "host/lease.h"

/* What oneib-vf writes for VM 42's NIC 0 and for a foreign domain. */
#define LINE_NIC                                                               \
	"vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=42 nic=0 "                  \
	"mac=02:00:c0:a8:01:05 guid=0x0200c0fffea80105 pkey=0x8101 "           \
	"since=1763784000"
#define LINE_ADOPTED                                                           \
	"vf=0000:3b:00.2 pf=0000:3b:00.0 port=1 vm=- nic=- domain=legacy-db "  \
	"since=1763784100"
#define HEADER                                                                 \
	"# one-ib VF leases, written by oneib-vf under flock; "                \
	"see oneib-vf(8) before editing by hand\n"

static char tmpdir[64];
static char dir[128]; /* tmpdir/ib: the ledger directory */

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/oneib-unit-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(dir, sizeof(dir), "%s/ib", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_tree(tmpdir) == 0 ? 0 : -1;
}

static const char *in_dir(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void put(const char *name, const char *content, size_t len)
{
	FILE *f;

	mkdir(dir, 0750);
	f = fopen(in_dir(name), "w");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static struct lease nic_lease(const char *vf, int vmid, int nic_id)
{
	struct lease x;

	memset(&x, 0, sizeof(x));
	assert_int_equal(pci_addr_parse(vf, &x.vf), 0);
	assert_int_equal(pci_addr_parse("0000:3b:00.0", &x.pf), 0);
	x.port = 1;
	x.vmid = vmid;
	x.nic_id = nic_id;
	x.mac = 0x0200c0a80105ull;
	x.guid = 0x0200c0fffea80105ull;
	x.pkey.raw = 0x8101;
	x.since = 1763784000;
	return x;
}

static struct lease adopted_lease(const char *vf, const char *domain)
{
	struct lease x = nic_lease(vf, -1, -1);

	x.mac = 0;
	x.guid = 0;
	x.pkey.raw = 0;
	x.since = 1763784100;
	snprintf(x.domain, sizeof(x.domain), "%s", domain);
	return x;
}

static void assert_lease_equal(const struct lease *a, const struct lease *b)
{
	assert_int_equal(pci_addr_cmp(&a->vf, &b->vf), 0);
	assert_int_equal(pci_addr_cmp(&a->pf, &b->pf), 0);
	assert_int_equal(a->port, b->port);
	assert_int_equal(a->vmid, b->vmid);
	assert_int_equal(a->nic_id, b->nic_id);
	assert_int_equal(a->mac, b->mac);
	assert_int_equal(a->guid, b->guid);
	assert_int_equal(a->pkey.raw, b->pkey.raw);
	assert_int_equal(a->since, b->since);
	assert_string_equal(a->domain, b->domain);
	assert_int_equal(a->reserved, b->reserved);
	assert_string_equal(a->boot, b->boot);
	assert_int_equal(a->up, b->up);
	assert_int_equal(a->owner.pid, b->owner.pid);
	assert_int_equal(a->owner.start, b->owner.start);
}

/* Format x, check the line, parse it back and compare. */
static void round_trip(const struct lease *x, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	struct ledger l;
	char err[512] = "";

	memset(&l, 0, sizeof(l));
	assert_int_equal(lease_format(x, &sb), 0);
	if (want)
		assert_string_equal(sb_str(&sb), want);
	assert_true(sb.len <= LEASE_LINE_MAX);
	assert_int_equal(
		ledger_parse(&l, sb_str(&sb), "test", err, sizeof(err)), 0);
	assert_int_equal(l.n, 1);
	assert_lease_equal(&l.v[0], x);
	ledger_close(&l);
	sb_release(&sb);
}

static void format_parse_nic(void **state)
{
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);

	(void)state;
	round_trip(&x, LINE_NIC);
}

static void format_parse_adopted(void **state)
{
	struct lease x = adopted_lease("0000:3b:00.2", "legacy-db");

	(void)state;
	round_trip(&x, LINE_ADOPTED);
	/* a name that would break the line or a token if written raw */
	x = adopted_lease("0000:3b:00.2", "old db 100%\n\"x'y\"=\t");
	round_trip(&x, "vf=0000:3b:00.2 pf=0000:3b:00.0 port=1 vm=- nic=- "
		       "domain=old%20db%20100%25%0A%22x%27y%22%3D%09 "
		       "since=1763784100");
	x = adopted_lease("0000:3b:00.2", "a.b_c+d:e@f-9");
	round_trip(&x, "vf=0000:3b:00.2 pf=0000:3b:00.0 port=1 vm=- nic=- "
		       "domain=a.b_c+d:e@f-9 since=1763784100");
}

/* A live migration's destination VF: state=reserved, last, round trip. */
static void format_parse_reserved(void **state)
{
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);
	char want[512];

	(void)state;
	x.reserved = true;
	snprintf(want, sizeof(want), "%s state=reserved", LINE_NIC);
	round_trip(&x, want);
}

#define BOOT "0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10"

/* Since, on the boot clock too, and the action holding it; an old line
 * (one-ib 1.x) without them reads as it did. */
static void format_parse_clocks(void **state)
{
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);
	char want[512];

	(void)state;
	memcpy(x.boot, BOOT, sizeof(BOOT));
	x.up = 86412;
	x.owner.pid = 4242;
	x.owner.start = 8641100;
	snprintf(want, sizeof(want),
		 "%s boot=" BOOT " up=86412 owner=4242/8641100", LINE_NIC);
	round_trip(&x, want);
	x.reserved = true;
	snprintf(want, sizeof(want),
		 "%s boot=" BOOT " up=86412 owner=4242/8641100 state=reserved",
		 LINE_NIC);
	round_trip(&x, want);
	x = adopted_lease("0000:3b:00.2", "legacy-db");
	memcpy(x.boot, BOOT, sizeof(BOOT));
	x.up = 7;
	round_trip(&x, LINE_ADOPTED " boot=" BOOT " up=7");
	x = nic_lease("0000:3b:00.1", 42, 0);
	round_trip(&x, LINE_NIC); /* undated */
}

/*
 * What keeps a lease no domain holds from reconcile: its owner alive in
 * this boot, whatever since and up say; else less than grace seconds on
 * the boot clock; an earlier boot's lease never; an old line is undated.
 */
static void hold(void **state)
{
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);
	struct lease_clock now;
	struct proc_id dead;
	pid_t child;

	(void)state;
	lease_clock_now(&now);
	assert_true(now.boot.boot[0] != '\0'); /* a Linux with /proc */
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_UNDATED);

	/* stamped now by this process: fresh, and owned */
	assert_int_equal(proc_id_of(getpid(), &x.owner), 0);
	lease_stamp(&x, &now, &x.owner);
	assert_int_equal(x.since, now.wall);
	assert_string_equal(x.boot, now.boot.boot);
	assert_int_equal(x.owner.pid, getpid());
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_OWNED);
	/* a wall clock stepped forward a year, or an up far in the past:
	 * the owner runs, so it stays */
	x.since = 0;
	x.up = 0;
	now.wall += 366 * 86400;
	now.boot.ns += 366ull * 86400 * 1000000000u;
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_OWNED);

	/* its owner gone (its pid taken by nobody, or by another process) */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(proc_id_of(child, &dead), 0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_false(proc_id_alive(&dead));
	lease_clock_now(&now);
	lease_stamp(&x, &now, &dead);
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_FRESH);
	assert_int_equal(lease_hold(&x, &now, 1), LEASE_FRESH);
	/* the wall clock does not count, the boot clock does */
	now.wall += 366 * 86400;
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_FRESH);
	now.boot.ns += 600ull * 1000000000u;
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_EXPIRED);
	assert_int_equal(lease_hold(&x, &now, 601), LEASE_FRESH);
	/* the same pid and start time in an earlier boot is another process */
	lease_clock_now(&now);
	lease_stamp(&x, &now, &x.owner);
	assert_int_equal(proc_id_of(getpid(), &x.owner), 0);
	memcpy(x.boot, BOOT, sizeof(BOOT));
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_EXPIRED);
	/* no owner recorded: the grace alone */
	lease_stamp(&x, &now, NULL);
	assert_int_equal(x.owner.pid, 0);
	assert_int_equal(lease_hold(&x, &now, 600), LEASE_FRESH);
	/* adopted leases have no owner */
	x = adopted_lease("0000:3b:00.2", "db");
	assert_int_equal(proc_id_of(getpid(), &dead), 0);
	lease_stamp(&x, &now, &dead);
	assert_int_equal(x.owner.pid, 0);
}

/* Who a process is: pid and start time, and alive only while it runs. */
static void proc_identity(void **state)
{
	struct proc_id me, again, none;

	(void)state;
	assert_int_equal(proc_id_of(getpid(), &me), 0);
	assert_int_equal(me.pid, getpid());
	assert_true(me.start > 0);
	assert_int_equal(proc_id_of(getpid(), &again), 0);
	assert_int_equal(again.start, me.start);
	assert_true(proc_id_alive(&me));
	me.start++;
	assert_false(proc_id_alive(&me)); /* same pid, another process */
	assert_int_equal(proc_id_of(0, &none), -EINVAL);
	assert_int_equal(proc_id_of(-1, &none), -EINVAL);
	assert_int_equal(none.pid, 0);
	assert_false(proc_id_alive(&none));
	assert_true(boot_id_valid(BOOT));
	assert_false(boot_id_valid("0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a1"));
	assert_false(boot_id_valid("0F3C2A9E-6f33-4c5e-9d1a-3c1b7e1f2a10"));
	assert_false(boot_id_valid("0f3c2a9e66f33-4c5e-9d1a-3c1b7e1f2a10"));
}

/* The longest lease there can be still fits in one ledger line. */
static void format_longest(void **state)
{
	struct lease x = adopted_lease("ffff:ff:1f.7", "");

	(void)state;
	memset(x.domain, 0xff, LEASE_DOMAIN_MAX - 1);
	x.domain[LEASE_DOMAIN_MAX - 1] = '\0';
	x.port = 255;
	x.since = INT64_MAX;
	round_trip(&x, NULL);
	x = nic_lease("ffff:ff:1f.7", 2147483647, 2147483647);
	x.mac = 0xffffffffffffull;
	x.guid = UINT64_MAX;
	x.pkey.raw = 0xffff;
	x.port = 255;
	x.since = INT64_MAX;
	x.reserved = true;
	memcpy(x.boot, BOOT, sizeof(BOOT));
	x.up = INT64_MAX;
	x.owner.pid = 2147483647;
	x.owner.start = INT64_MAX;
	round_trip(&x, NULL);
	x = adopted_lease("ffff:ff:1f.7", "");
	memset(x.domain, 0xff, LEASE_DOMAIN_MAX - 1);
	x.domain[LEASE_DOMAIN_MAX - 1] = '\0';
	x.port = 255;
	x.since = INT64_MAX;
	memcpy(x.boot, BOOT, sizeof(BOOT));
	x.up = INT64_MAX;
	round_trip(&x, NULL);
}

/* A lease that could not be written back and read is refused on the way in. */
static void format_rejects_inconsistent(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct ledger l;
	struct lease bad[13];
	size_t i;

	(void)state;
	memset(&l, 0, sizeof(l));
	bad[0] = adopted_lease("0000:3b:00.2", ""); /* no domain */
	bad[1] = nic_lease("0000:3b:00.1", 42, 0);
	snprintf(bad[1].domain, sizeof(bad[1].domain), "x"); /* domain on NIC */
	bad[2] = nic_lease("0000:3b:00.1", -1, 0); /* half adopted */
	bad[3] = nic_lease("0000:3b:00.1", 42, 0);
	bad[3].port = 0;
	bad[4] = nic_lease("0000:3b:00.1", 42, 0);
	bad[4].mac = 1ull << 48;
	bad[5] = adopted_lease("0000:3b:00.2", "x");
	bad[5].mac = 1; /* adopted leases have no MAC */
	bad[6] = nic_lease("0000:3b:00.1", 42, 0);
	bad[6].since = -1;
	bad[7] = adopted_lease("0000:3b:00.2", "x");
	memset(bad[7].domain, 'a', sizeof(bad[7].domain)); /* no NUL */
	bad[8] = adopted_lease("0000:3b:00.2", "x");
	bad[8].reserved = true; /* only a NIC's VF is reserved */
	bad[9] = nic_lease("0000:3b:00.1", 42, 0);
	bad[9].owner.pid = 1; /* an owner needs its boot */
	bad[10] = nic_lease("0000:3b:00.1", 42, 0);
	bad[10].up = 5; /* so does up */
	bad[11] = adopted_lease("0000:3b:00.2", "x");
	memcpy(bad[11].boot, BOOT, sizeof(BOOT));
	bad[11].owner.pid = 1; /* an adopted VF has no owner */
	bad[12] = nic_lease("0000:3b:00.1", 42, 0);
	memcpy(bad[12].boot, "0f3c2a9e", 9); /* not a boot id */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(lease_format(&bad[i], &sb), -EINVAL);
		assert_int_equal(ledger_add(&l, &bad[i]), -EINVAL);
	}
	assert_int_equal(sb.len, 0);
	assert_int_equal(l.n, 0);
	ledger_close(&l);
	sb_release(&sb);
}

static void parse_comments_blank(void **state)
{
	static const char text[] = HEADER "\n"
					  "# VM 42 below\n" LINE_ADOPTED "\n"
					  "   \n"
					  "\n" LINE_NIC "\n"
					  "#vf=0000:3b:00.3 ignored\n";
	struct ledger l;
	char err[512] = "";

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_int_equal(ledger_parse(&l, text, "test", err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* sorted by VF whatever the order in the file */
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[0].vf.func, 1);
	assert_int_equal(l.v[0].vmid, 42);
	assert_int_equal(l.v[1].vf.func, 2);
	assert_string_equal(l.v[1].domain, "legacy-db");
	/* no trailing newline, empty text */
	assert_int_equal(ledger_parse(&l, LINE_NIC, "test", err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(ledger_parse(&l, "", "test", err, sizeof(err)), 0);
	assert_int_equal(l.n, 0);
	ledger_close(&l);
}

#define NIC3_A "vf=0000:3b:00.3 pf=0000:3b:00.0 port=1 "
#define NIC3_MAC "mac=02:00:c0:a8:01:06 "
#define NIC3_B "vm=43 nic=1 " NIC3_MAC
#define NIC3_C "guid=0x0200c0fffea80106 pkey=0x8101 "
#define NIC3 NIC3_A NIC3_B NIC3_C "since=1"
#define ADOPTED3 NIC3_A "vm=- nic=- domain=db since=1"

/* One bad thing per line, and the reason the error must give for it. */
// clang-format off
static const struct {
	const char *line, *why;
} malformed[] = {
	{ NIC3 " color=red", "unknown key 'color'" },
	{ "VF=0000:3b:00.3", "unknown key 'VF'" },
	{ NIC3_A NIC3_B NIC3_C, "empty field (stray space)" },
	{ NIC3_A NIC3_B NIC3_C "since=1 port=1", "duplicate key 'port'" },
	{ NIC3 " since=1", "duplicate key 'since'" },
	{ NIC3_A NIC3_B "pkey=0x8101 since=1", "missing guid" },
	{ NIC3_A NIC3_C "since=1", "missing vm" },
	{ NIC3_A "vm=43 nic=1 " NIC3_C "since=1", "missing mac" },
	{ NIC3_A "vm=- nic=- since=1", "missing domain" },
	{ "pf=0000:3b:00.0 port=1 vm=- nic=- domain=d since=1", "missing vf" },
	{ "vf=0000:3b:00 pf=0000:3b:00.0 port=1 vm=- nic=- domain=d since=1",
	  "bad vf '0000:3b:00'" },
	{ "vf=0000:3b:00.3 pf=3b:00.0 port=1 vm=- nic=- domain=d since=1",
	  "bad pf '3b:00.0'" },
	{ NIC3_A "vm=43 nic=1 mac=02:00:zz:a8:01:05 " NIC3_C "since=1",
	  "bad mac '02:00:zz:a8:01:05'" },
	{ NIC3_A NIC3_B "guid=0x0200c0fffea801060 pkey=0x8101 since=1",
	  "bad guid '0x0200c0fffea801060'" },
	{ NIC3_A NIC3_B "guid=0x02g0 pkey=0x8101 since=1",
	  "bad guid '0x02g0'" },
	{ NIC3_A NIC3_B "guid=0x0200c0fffea80106 pkey=0x10000 since=1",
	  "bad pkey '0x10000'" },
	{ NIC3_A NIC3_B "guid=0x0200c0fffea80106 pkey=81z1 since=1",
	  "bad pkey '81z1'" },
	{ "vf=0000:3b:00.3 pf=0000:3b:00.0 port=0 vm=- nic=- domain=d since=1",
	  "bad port '0'" },
	{ "vf=0000:3b:00.3 pf=0000:3b:00.0 port=256 vm=- nic=- domain=d since=1",
	  "bad port '256'" },
	{ "vf=0000:3b:00.3 pf=0000:3b:00.0 port=+1 vm=- nic=- domain=d since=1",
	  "bad port '+1'" },
	{ NIC3_A "vm=abc nic=1 " NIC3_MAC NIC3_C "since=1", "bad vm 'abc'" },
	{ NIC3_A "vm=-5 nic=1 " NIC3_MAC NIC3_C "since=1", "bad vm '-5'" },
	{ NIC3_A "vm=2147483648 nic=1 " NIC3_MAC NIC3_C "since=1",
	  "bad vm '2147483648'" },
	{ NIC3_A "vm=43 nic= " NIC3_MAC NIC3_C "since=1", "bad nic ''" },
	{ NIC3_A NIC3_B NIC3_C "since=-1", "bad since '-1'" },
	{ NIC3_A NIC3_B NIC3_C "since=12a", "bad since '12a'" },
	{ NIC3_A NIC3_B NIC3_C "since=9223372036854775808",
	  "bad since '9223372036854775808'" },
	/* the "\r" of a CRLF editor, shown encoded so the error is one line */
	{ NIC3 "\r", "bad since '1%0D'" },
	{ NIC3_A "vm=- nic=- domain=a/b since=1", "bad domain 'a/b'" },
	{ NIC3_A "vm=- nic=- domain=a%2 since=1", "bad domain 'a%2'" },
	{ NIC3_A "vm=- nic=- domain=a%zz since=1", "bad domain 'a%zz'" },
	{ NIC3_A "vm=- nic=- domain=a%00b since=1", "bad domain 'a%00b'" },
	{ NIC3_A "vm=- nic=- domain= since=1", "bad domain ''" },
	{ NIC3_A "vm=- nic=1 domain=d since=1",
	  "vm and nic must both be '-' or both ids" },
	{ ADOPTED3 " mac=02:00:c0:a8:01:06", "mac not allowed with vm=-" },
	{ NIC3 " domain=db", "domain not allowed with vm=43" },
	{ NIC3 " state=leased", "bad state 'leased'" },
	{ NIC3 " state=", "bad state ''" },
	{ NIC3 " state=reserved state=reserved", "duplicate key 'state'" },
	{ ADOPTED3 " state=reserved", "state not allowed with vm=-" },
	{ NIC3 " garbage", "'garbage' is not key=value" },
	{ NIC3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10",
	  "boot and up go together" },
	{ NIC3 " up=5", "boot and up go together" },
	{ NIC3 " owner=42/7", "owner needs boot" },
	{ NIC3 " boot=0f3c2a9e up=5", "bad boot '0f3c2a9e'" },
	{ NIC3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=-5",
	  "bad up '-5'" },
	{ NIC3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=5 owner=42",
	  "bad owner '42'" },
	{ NIC3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=5 owner=0/7",
	  "bad owner '0/7'" },
	{ NIC3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=5 owner=/7",
	  "bad owner '/7'" },
	{ ADOPTED3 " boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=5 owner=4/7",
	  "owner not allowed with vm=-" },
};
// clang-format on

/* Every malformed line refuses the whole ledger, naming its line number. */
static void parse_rejects(void **state)
{
	char text[2048], err[512], want[512];
	struct ledger l;
	size_t i;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		snprintf(text, sizeof(text), HEADER LINE_NIC "\n\n%s\n",
			 malformed[i].line);
		snprintf(want, sizeof(want), "ledger /x/leases line 4: %s",
			 malformed[i].why);
		err[0] = '\0';
		assert_int_equal(ledger_parse(&l, text, "/x/leases", err,
					      sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, want);
		assert_null(l.v);
		assert_int_equal(l.n, 0);
	}
	/* the lines the table breaks are good before breaking */
	snprintf(text, sizeof(text), HEADER LINE_NIC "\n\n" NIC3 "\n");
	assert_int_equal(ledger_parse(&l, text, "/x/leases", err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 2);
	snprintf(text, sizeof(text), HEADER LINE_NIC "\n\n" ADOPTED3 "\n");
	assert_int_equal(ledger_parse(&l, text, "/x/leases", err, sizeof(err)),
			 0);
	assert_int_equal(l.n, 2);
	ledger_close(&l);
}

static void parse_duplicate_vf_and_long_line(void **state)
{
	char text[4096], err[512] = "";
	struct ledger l;
	size_t n;

	(void)state;
	memset(&l, 0, sizeof(l));
	/* a failed parse leaves what was there */
	assert_int_equal(ledger_parse(&l, LINE_NIC, "t", err, sizeof(err)), 0);
	snprintf(text, sizeof(text), "%s\n%s\n#\n%s\n", NIC3, LINE_NIC,
		 ADOPTED3);
	assert_int_equal(ledger_parse(&l, text, "t", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ledger t line 4: duplicate vf 0000:3b:00.3 "
				 "(also line 1)");
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].vmid, 42);

	/* one byte over the limit, even in a comment */
	n = (size_t)snprintf(text, sizeof(text), "%s\n#", LINE_NIC);
	memset(text + n, 'x', LEASE_LINE_MAX);
	text[n + LEASE_LINE_MAX] = '\0';
	assert_int_equal(ledger_parse(&l, text, "t", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "ledger t line 2: longer than 1024 bytes");
	text[n + LEASE_LINE_MAX - 1] = '\0';
	assert_int_equal(ledger_parse(&l, text, "t", err, sizeof(err)), 0);
	ledger_close(&l);
}

static void open_creates_dir(void **state)
{
	struct ledger l;
	char err[512] = "", deep[256];
	struct stat st;
	mode_t old;

	(void)state;
	/* the mode is exact, not left to the umask */
	old = umask(077);
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	umask(old);
	assert_string_equal(err, "");
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(stat(in_dir("leases.lock"), &st), 0);
	assert_int_equal(l.n, 0);
	assert_true(l.lock_fd > 2);
	/* nothing is written until a commit */
	assert_int_equal(stat(in_dir("leases"), &st), -1);
	ledger_close(&l);
	ledger_close(&l);
	memset(&l, 0, sizeof(l));
	ledger_close(&l);

	/* a parent that is missing is an error, not a mkdir -p */
	snprintf(deep, sizeof(deep), "%s/no/ib", tmpdir);
	assert_int_equal(ledger_open(&l, deep, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "mkdir "));
	assert_int_equal(l.lock_fd, -1);
}

static void commit_reopen(void **state)
{
	struct ledger l;
	struct lease x[3];
	struct pci_addr a;
	char err[512] = "", text[2048];
	FILE *f;
	size_t n;

	(void)state;
	x[0] = nic_lease("0000:3b:00.4", 7, 1);
	x[0].guid = guid_for_nic(0, 7, 1);
	x[1] = nic_lease("0000:3b:00.1", 42, 0);
	x[2] = adopted_lease("0000:3b:00.2", "legacy-db");
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(ledger_add(&l, &x[0]), 0);
	assert_int_equal(ledger_add(&l, &x[1]), 0);
	assert_int_equal(ledger_add(&l, &x[2]), 0);
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	ledger_close(&l);

	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(l.n, 3);
	assert_lease_equal(&l.v[0], &x[1]);
	assert_lease_equal(&l.v[1], &x[2]);
	assert_lease_equal(&l.v[2], &x[0]);
	assert_int_equal(ledger_find_vf(&l, &x[0].vf), 2);
	assert_int_equal(ledger_find_nic(&l, 42, 0), 0);
	assert_int_equal(ledger_find_nic(&l, 7, 1), 2);
	assert_int_equal(ledger_find_nic(&l, 7, 0), -1);
	assert_int_equal(ledger_find_nic(&l, -1, -1), -1);
	assert_int_equal(ledger_find_guid(&l, guid_for_nic(0, 7, 1)), 2);
	assert_int_equal(ledger_find_guid(&l, 0x0200c0fffea80105ull), 0);
	assert_int_equal(ledger_find_guid(&l, guid_for_nic(0, 7, 2)), -1);
	/* adopted leases carry no GUID and are never found by one */
	assert_int_equal(ledger_find_guid(&l, 0), -1);
	pci_addr_parse("0000:3b:00.3", &a);
	assert_int_equal(ledger_find_vf(&l, &a), -1);

	/* what a person reads */
	f = fopen(in_dir("leases"), "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_string_equal(text, HEADER LINE_NIC "\n" LINE_ADOPTED "\n"
						  "vf=0000:3b:00.4 "
						  "pf=0000:3b:00.0 port=1 vm=7 "
						  "nic=1 "
						  "mac=02:00:c0:a8:01:05 "
						  "guid=0x0200000000070001 "
						  "pkey=0x8101 "
						  "since=1763784000\n");

	/* release one, commit, and a lock-free reader sees the change */
	ledger_remove(&l, 0);
	ledger_remove(&l, 5); /* out of range: nothing */
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	ledger_close(&l);
	assert_int_equal(ledger_read(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(l.n, 2);
	assert_lease_equal(&l.v[0], &x[2]);
	assert_lease_equal(&l.v[1], &x[0]);
	assert_int_equal(l.lock_fd, -1);
	/* a reader never writes */
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), -ENOLCK);
	ledger_close(&l);

	/* no ledger yet is an empty one for readers too */
	snprintf(text, sizeof(text), "%s/none", tmpdir);
	assert_int_equal(ledger_read(&l, text, err, sizeof(err)), 0);
	assert_int_equal(l.n, 0);
	ledger_close(&l);
}

static void open_removes_leftover_tmp(void **state)
{
	struct ledger l;
	char err[512] = "";
	struct stat st;

	(void)state;
	put("leases.tmp.123", "vf=half a line", 14);
	put("leases.tmp.", "", 0);
	put("leases.keep", "x", 1);
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(stat(in_dir("leases.tmp.123"), &st), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(stat(in_dir("leases.tmp."), &st), -1);
	assert_int_equal(stat(in_dir("leases.keep"), &st), 0);
	ledger_close(&l);
}

/* Names in dir other than "." and "..", sorted, joined by ' '. */
static void list_dir(char *buf, size_t len)
{
	struct dirent **names;
	int n, i;
	size_t off = 0;

	n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? " " : "",
						names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

static void commit_mode_no_tmp(void **state)
{
	struct ledger l;
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);
	char err[512] = "", names[256];
	struct stat st;
	mode_t old;

	(void)state;
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(ledger_add(&l, &x), 0);
	old = umask(077);
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(stat(in_dir("leases"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "leases leases.lock");
	/* an older file with a looser mode is replaced, mode and all */
	assert_int_equal(chmod(in_dir("leases"), 0666), 0);
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	assert_int_equal(stat(in_dir("leases"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "leases leases.lock");
	ledger_close(&l);
}

/*
 * flock(how | LOCK_NB) on leases.lock from another process: 0 or errno.
 * Both kinds must be refused while a ledger is open: an exclusive request
 * is refused by a shared lock too, so only the shared request proves that
 * ledger_open took LOCK_EX (two writers holding LOCK_SH at once would both
 * commit from what they read, and one lease would be lost).
 */
static int try_lock_elsewhere(int how)
{
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(in_dir("leases.lock"), O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(100);
		_exit(flock(fd, how | LOCK_NB) ? errno : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void lock_is_exclusive(void **state)
{
	struct ledger l;
	char err[512] = "";

	(void)state;
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(try_lock_elsewhere(LOCK_EX), EWOULDBLOCK);
	assert_int_equal(try_lock_elsewhere(LOCK_SH), EWOULDBLOCK);
	/* committing keeps the lock */
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	assert_int_equal(try_lock_elsewhere(LOCK_EX), EWOULDBLOCK);
	assert_int_equal(try_lock_elsewhere(LOCK_SH), EWOULDBLOCK);
	ledger_close(&l);
	assert_int_equal(try_lock_elsewhere(LOCK_EX), 0);
	assert_int_equal(try_lock_elsewhere(LOCK_SH), 0);
}

static void refused_ledger_unlocks(void **state)
{
	static const char text[] = HEADER LINE_ADOPTED
		"\n"
		"vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=42 nic=0 "
		"mac=02:00:zz:a8:01:05 guid=0x0200c0fffea80105 pkey=0x8101 "
		"since=1763784000\n";
	struct ledger l;
	char err[512] = "", want[512];

	(void)state;
	put("leases", text, sizeof(text) - 1);
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "ledger %s line 3: bad mac '02:00:zz:a8:01:05'",
		 in_dir("leases"));
	assert_string_equal(err, want);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.lock_fd, -1);
	assert_int_equal(try_lock_elsewhere(LOCK_EX), 0);
	/* the readers refuse it the same way */
	err[0] = '\0';
	assert_int_equal(ledger_read(&l, dir, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, want);
	ledger_close(&l);
}

/* A NUL would end the text early and hide the leases after it. */
static void nul_byte_refused(void **state)
{
	static const char text[] = HEADER LINE_NIC "\n#\0\n" LINE_ADOPTED "\n";
	struct ledger l;
	char err[512] = "", want[512];

	(void)state;
	put("leases", text, sizeof(text) - 1);
	assert_int_equal(ledger_read(&l, dir, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "ledger %s line 3: NUL byte",
		 in_dir("leases"));
	assert_string_equal(err, want);
}

static void add_existing_vf(void **state)
{
	struct ledger l;
	struct lease x = nic_lease("0000:3b:00.1", 42, 0);
	struct lease y = adopted_lease("0000:3b:00.1", "other");
	char err[512] = "";

	(void)state;
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(ledger_add(&l, &x), 0);
	assert_int_equal(ledger_add(&l, &x), -EEXIST);
	assert_int_equal(ledger_add(&l, &y), -EEXIST);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].vmid, 42);
	/* and once committed, after a reopen */
	assert_int_equal(ledger_commit(&l, err, sizeof(err)), 0);
	ledger_close(&l);
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	assert_int_equal(ledger_add(&l, &y), -EEXIST);
	ledger_close(&l);
}

/*
 * Under the lock, replace every lease by FILL_N copies of base on VFs
 * 0000:00:00.0, 0000:00:00.1, ... with since = gen. No cmocka assert here: it
 * runs in a child.
 */
#define FILL_N 200
static int fill(const struct lease *base, int gen)
{
	struct ledger l;
	char err[512], vf[16];
	struct lease x;
	int i, r;

	r = ledger_open(&l, dir, err, sizeof(err));
	if (r)
		return r;
	while (l.n)
		ledger_remove(&l, l.n - 1);
	for (i = 0; i < FILL_N && !r; i++) {
		x = *base;
		snprintf(vf, sizeof(vf), "0000:%02x:%02x.%d", i / 256,
			 i / 8 % 32, i % 8);
		x.vmid = i;
		x.since = gen;
		r = pci_addr_parse(vf, &x.vf);
		if (!r)
			r = ledger_add(&l, &x);
	}
	if (!r)
		r = ledger_commit(&l, err, sizeof(err));
	ledger_close(&l);
	return r;
}

/*
 * The ledger as a reader sees it: FILL_N leases, all of one generation. No
 * cmocka assert here: a failing one would leave the writer running forever.
 */
static bool whole(void)
{
	struct ledger l;
	char err[512] = "";
	bool ok;
	size_t i;

	if (ledger_read(&l, dir, err, sizeof(err))) {
		print_error("%s\n", err);
		return false;
	}
	ok = l.n == FILL_N;
	for (i = 1; i < l.n && ok; i++)
		ok = l.v[i].since == l.v[0].since;
	if (!ok)
		print_error("torn ledger: %zu leases\n", l.n);
	ledger_close(&l);
	return ok;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * A writer rewrites the ledger in a loop while lock-free readers look at it,
 * then is killed with -9 at an arbitrary instant: readers always see one
 * whole version, never a mix of two or a half-written file.
 */
static void killed_writer_leaves_whole_ledger(void **state)
{
	struct ledger l;
	char err[512] = "", names[256];
	int round, status, gen;
	pid_t pid;
	const struct lease base = nic_lease("0000:3b:00.1", 42, 0);

	(void)state;
	assert_int_equal(fill(&base, 1), 0);
	for (round = 0; round < 40; round++) {
		long long until = now_us() + 1000 + round * 397 % 20000;
		bool ok = true;

		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			for (gen = 2;; gen = 3 - gen)
				if (fill(&base, gen))
					_exit(2);
		while (ok && now_us() < until)
			ok = whole();
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		assert_true(ok);
		assert_true(whole());
	}
	/* the temp file of the last victim, if any, goes at the next open */
	assert_int_equal(ledger_open(&l, dir, err, sizeof(err)), 0);
	ledger_close(&l);
	list_dir(names, sizeof(names));
	assert_string_equal(names, "leases leases.lock");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(format_parse_nic),
		T(format_parse_adopted),
		T(format_parse_reserved),
		T(format_parse_clocks),
		T(hold),
		T(proc_identity),
		T(format_longest),
		T(format_rejects_inconsistent),
		T(parse_comments_blank),
		T(parse_rejects),
		T(parse_duplicate_vf_and_long_line),
		T(open_creates_dir),
		T(commit_reopen),
		T(open_removes_leftover_tmp),
		T(commit_mode_no_tmp),
		T(lock_is_exclusive),
		T(refused_ledger_unlocks),
		T(nul_byte_refused),
		T(add_existing_vf),
		T(killed_writer_leaves_whole_ledger),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
