/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VM listing the front-end's runs keep between them, and the VM
 * events spooled for the next run (design decision 12: at most a second
 * per VM event at 10,000 VMs), beside the run's lock LOCK:
 *   LOCK.vms       the listing (fabric/vmcache.h: each VM reduced to what
 *                  the renderer reads, the next VM ID on its first line),
 *                  its mtime the time of its last full listing
 *   LOCK.events/   one empty file per event not read yet, ID.XXXXXX
 *                  ("new.XXXXXX" a new VM, "all.XXXXXX" every VM)
 * Both are the lock directory owner's (oneadmin's): a run as anyone else
 * (root by hand) lists every VM and leaves them alone.
 *
 * The rules, in the order a run meets them:
 *   kept_spool   an event is spooled before its run tries the lock, so
 *                that the run waiting for the lock, which takes the spool
 *                only once it holds the lock, reads it: no event is lost
 *                to coalescing. One that cannot be spooled drops the kept
 *                listing: the next run lists every VM.
 *   kept_take    (holding the lock) the kept listing is moved away first,
 *                then the spool is emptied into the run. Every VM is
 *                listed (full) when there is no kept listing, when it is
 *                as old as full_every seconds or older (0: every run),
 *                when its time is ahead of the clock (a clock stepped
 *                back must not keep it young for ever), when its first
 *                line cannot be read, when an event named no VM ("all"),
 *                and when more than KEPT_IDS_MAX VMs changed.
 *   kept_keep    once the renderer has read the run's listing, it is
 *                kept (0600, atomically, with the time of its last full
 *                listing). A run that dies or fails in between keeps
 *                none: the next run lists every VM.
 * A change no event tells of (a requirement edited by hand) is picked up
 * by the next full listing: within full_every seconds, whatever the
 * clock does.
 */
#ifndef ONEIB_KEPTVMS_H
#define ONEIB_KEPTVMS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define KEPT_IDS_MAX 1000

struct kept {
	char lock[PATH_MAX - 16];
	bool own; /* the lock directory is the run's user's */
};

/* lock: the run's lock file. own as the directory's owner says. */
int kept_init(struct kept *k, const char *lock, char *err, size_t errlen);

/*
 * Records an event: what "42", "new" or "all". 0, or -errno with the
 * kept listing dropped and one line in err:
 *   cannot record the event (43) in /var/lib/one/.oneib-partitions.lock.events; the next run lists every VM
 * Not the owner: nothing is recorded (0).
 */
int kept_spool(const struct kept *k, const char *what, char *err,
	       size_t errlen);

struct kept_take {
	bool full; /* list every VM */
	/* !full: the listing to start from (moved to moved_to), the VMs
	 * the events named (sorted, each once), the first VM ID it lacks */
	int *ids;
	size_t nids;
	long next;
	time_t stamp; /* of the last full listing: now when full */
};

/*
 * Holding the lock: the kept listing moved to moved_to (a path in the
 * run's scratch directory) and the spool taken, as the rules say. 0, or
 * -ENOMEM (t then says full).
 */
int kept_take(const struct kept *k, const char *moved_to, long full_every,
	      time_t now, struct kept_take *t);
void kept_take_free(struct kept_take *t);

/*
 * vms (the run's listing, as vmcache wrote it) kept as LOCK.vms with the
 * mtime stamp. Not the owner: nothing (0). On failure none is kept.
 */
int kept_keep(const struct kept *k, const char *vms, time_t stamp);

#endif
