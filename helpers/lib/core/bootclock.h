/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Time that no clock step moves: CLOCK_BOOTTIME (it counts suspend too,
 * and settimeofday, NTP or a wrong RTC never change it), with the kernel's
 * boot id, without which a boot time means nothing: a moment of another
 * boot is before this boot began.
 *
 *   { .boot = "0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10", .ns = 183340571223 }
 *   = 183.3 s after that boot started
 *
 * Who uses it: the lease ledger (how long ago a lease was taken, for
 * reconcile's grace; which boot a lease's owner ran in) and the shared
 * view of libvirt (taken at or after a deploy's start).
 */
#ifndef ONEIB_BOOTCLOCK_H
#define ONEIB_BOOTCLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* 36 characters and the NUL */
#define BOOT_ID_LEN 37

struct boot_moment {
	char boot[BOOT_ID_LEN]; /* "" when unknown: then ns means nothing */
	uint64_t ns;
};

/* Now. No /proc (or no CLOCK_BOOTTIME): boot "" and ns 0. */
void boot_now(struct boot_moment *m);

/* A boot id as the kernel writes it: 36 characters, lowercase hex and
 * dashes at 8, 13, 18 and 23. */
bool boot_id_valid(const char *s);

#endif
