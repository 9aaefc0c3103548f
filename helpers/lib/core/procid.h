/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who a process is, for as long as this boot lasts: its pid and the time it
 * started (clock ticks after boot, field 22 of /proc/<pid>/stat). A pid is
 * used again once its process is gone, never with the same start time, so
 * a process that ended is never taken for alive:
 *
 *   /proc/4242/stat  "4242 (deploy) S 4200 ... 183340571 ..."
 *   -> { .pid = 4242, .start = 183340571 }
 *
 * The lease ledger records the action holding a lease this way (lease.h).
 */
#ifndef ONEIB_PROCID_H
#define ONEIB_PROCID_H

#include <stdbool.h>
#include <stdint.h>

struct proc_id {
	long pid; /* 0: none */
	uint64_t start;
};

/* pid's identity now: 0, -ESRCH when there is no such process, -EINVAL
 * for a pid < 1 or a stat line that does not parse. */
int proc_id_of(long pid, struct proc_id *id);
/* The same process still running (a zombie has ended). */
bool proc_id_alive(const struct proc_id *id);

#endif
