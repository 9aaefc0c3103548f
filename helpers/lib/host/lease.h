/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lease ledger: the host-local record of which VF is leased to which VM
 * NIC (design decision 5). It lives in one directory, /var/lib/one/ib by
 * default:
 *
 *   leases        the ledger, one line per lease, sorted by VF
 *   leases.lock   what writers flock; leases itself is replaced by rename,
 *                 so a lock on it would be a lock on a file about to vanish
 *   leases.tmp.N  the next version being written by pid N
 *
 *   # one-ib VF leases, written by oneib-vf under flock; see oneib-vf(8) ...
 *   vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=42 nic=0 mac=02:00:c0:a8:01:05 guid=0x0200c0fffea80105 pkey=0x8101 since=1763784000 boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=86412 owner=4242/8641100
 *   vf=0000:3b:00.2 pf=0000:3b:00.0 port=1 vm=- nic=- domain=legacy-db since=1763784100 boot=0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10 up=86512
 *   vf=0000:3b:00.3 pf=0000:3b:00.0 port=1 vm=43 nic=0 mac=... guid=... pkey=0x8101 since=1763784200 boot=... up=86612 state=reserved
 *
 * since is when the lease was taken or last renewed, in unix seconds, for
 * people; boot and up say the same on the clock no step moves
 * (core/bootclock.h: that boot, seconds after it began), which is what
 * reconcile's grace period counts; owner is the action holding the lease
 * (pid/start time, core/procid.h) in that boot: while it runs, reconcile
 * never takes the lease, whatever any clock says. A line written before
 * boot and up existed (one-ib 1.x) is read as it is, its age unknown.
 *
 * The second line is an adopted lease: a libvirt domain outside OpenNebula
 * holds the VF. Its name is percent-encoded ("legacy db" -> "legacy%20db")
 * so that no name can break a line or a token. The third is a reservation:
 * the VF is set aside on the destination of a live migration for VM 43's
 * NIC, not programmed yet (the source VF still carries the GUID); once the
 * VM has arrived it becomes an ordinary lease. Only reservations carry
 * state=.
 *
 * Writers: ledger_open (takes the lock), change, ledger_commit, ledger_close.
 * The rewrite goes to leases.tmp.<pid>, is fsynced and renamed over leases,
 * so a writer killed at any instant leaves the old or the new ledger, whole.
 * Readers that only look (oneib-discover, list) use ledger_read, no lock.
 *
 * A ledger that does not parse is refused whole, never partly used: a lease
 * dropped in silence is a VF handed out twice.
 */
#ifndef ONEIB_LEASE_H
#define ONEIB_LEASE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/bootclock.h"
#include "core/pci.h"
#include "core/pkey.h"
#include "core/procid.h"
#include "core/strbuf.h"

#define LEASE_DOMAIN_MAX 256
/* Longest ledger line; a 255-byte domain, all of it encoded, needs 850. */
#define LEASE_LINE_MAX 1024

struct lease {
	struct pci_addr vf, pf;
	int port; /* 1.. */
	int vmid; /* -1: adopted */
	int nic_id; /* -1: adopted */
	uint64_t mac; /* low 48 bits; 0 when adopted */
	uint64_t guid; /* 0 when adopted */
	struct pkey pkey; /* raw 0 when adopted */
	int64_t since; /* unix seconds */
	char boot[BOOT_ID_LEN]; /* the boot of up and owner; "": an old line */
	uint64_t up; /* seconds after that boot began (CLOCK_BOOTTIME) */
	struct proc_id owner; /* the action holding it; pid 0: none */
	char domain[LEASE_DOMAIN_MAX]; /* adopted only, "" otherwise */
	bool reserved; /* a migration's destination VF, not programmed yet */
};

/* Now, on both clocks: for since, and for boot and up. */
struct lease_clock {
	int64_t wall; /* time(NULL) */
	struct boot_moment boot;
};

void lease_clock_now(struct lease_clock *now);

/*
 * x taken or renewed now, for owner (NULL, or pid 0: no action holds it
 * past this command): since, boot, up and owner set.
 */
void lease_stamp(struct lease *x, const struct lease_clock *now,
		 const struct proc_id *owner);

/* What keeps a lease no domain holds from reconcile (lease_hold). */
enum lease_hold {
	LEASE_EXPIRED, /* nothing: its action ended (or died) past the grace */
	LEASE_OWNED, /* the action holding it runs: whatever the clocks say */
	LEASE_FRESH, /* taken or renewed less than grace seconds ago */
	LEASE_UNDATED, /* an old line, no boot time: its age is unknown */
};

/*
 * Why reconcile must keep x, which no domain holds, at now with a grace
 * of grace seconds (> 0): its owner alive in this boot, or less than
 * grace seconds since it was stamped on this boot's clock. A stamp of an
 * earlier boot is older than any grace (no action outlives a reboot). The
 * caller dates an undated lease now, so that its grace starts there.
 */
enum lease_hold lease_hold(const struct lease *x, const struct lease_clock *now,
			   long grace);

/*
 * v is kept sorted by VF. lock_fd is >= 3 while the lock is held (moved off
 * 0..2 at open), so a zeroed struct (lock_fd 0) holds no lock.
 */
struct ledger {
	char dir[PATH_MAX];
	int lock_fd;
	struct lease *v;
	size_t n, cap;
};

static inline bool lease_adopted(const struct lease *x)
{
	return x->vmid < 0;
}

/*
 * mkdir dir (0750) if missing, open or create leases.lock (0640), flock it
 * exclusively (blocking), remove leftover leases.tmp.* files, read and parse
 * leases (absent = empty ledger). On error: lock released, nothing
 * allocated, -errno, err filled.
 */
int ledger_open(struct ledger *l, const char *dir, char *err, size_t errlen);
/*
 * Atomic rewrite of <dir>/leases (mode 0640); keeps the lock. -ENOLCK on a
 * ledger from ledger_read. On error the file holds the old or the new ledger.
 */
int ledger_commit(struct ledger *l, char *err, size_t errlen);
/* Free and unlock; safe on a zeroed struct and twice. */
void ledger_close(struct ledger *l);

/* -EEXIST if that VF is already leased, -EINVAL for an inconsistent lease. */
int ledger_add(struct ledger *l, const struct lease *x);
void ledger_remove(struct ledger *l, size_t i);
/* Index or -1. Adopted leases have no NIC and are never found by NIC. */
long ledger_find_vf(const struct ledger *l, const struct pci_addr *vf);
long ledger_find_nic(const struct ledger *l, int vmid, int nic_id);
/* Index of a lease of VM vmid (any NIC), or -1. */
long ledger_find_vm(const struct ledger *l, int vmid);
/* Index of the NIC lease carrying that port GUID, or -1. */
long ledger_find_guid(const struct ledger *l, uint64_t guid);

/* One line, no newline, appended to out; -EINVAL for an inconsistent lease. */
int lease_format(const struct lease *x, struct strbuf *out);
/*
 * The text of a whole ledger into l's leases, replacing them (l zeroed or
 * opened). On error l is untouched and err holds one line:
 *   ledger /var/lib/one/ib/leases line 3: bad mac '02:00:zz:a8:01:05'
 */
int ledger_parse(struct ledger *l, const char *text,
		 const char *name_for_errors, char *err, size_t errlen);
/*
 * <dir>/leases without the lock (absent = empty): the file is always whole
 * thanks to rename. Close with ledger_close.
 */
int ledger_read(struct ledger *l, const char *dir, char *err, size_t errlen);

#endif
