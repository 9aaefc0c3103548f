// SPDX-License-Identifier: Apache-2.0
#include <string.h>
#include <time.h>

#include "core/bootclock.h"
#include "core/sysfs.h"

bool boot_id_valid(const char *s)
{
	size_t i;

	for (i = 0; i < BOOT_ID_LEN - 1; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-'
			 : !((s[i] >= '0' && s[i] <= '9') ||
			     (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return s[i] == '\0';
}

void boot_now(struct boot_moment *m)
{
	struct timespec ts;
	char buf[BOOT_ID_LEN + 8];

	m->boot[0] = '\0';
	m->ns = 0;
	if (clock_gettime(CLOCK_BOOTTIME, &ts))
		return;
	m->ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	/* "0f3c2a9e-6f33-4c5e-9d1a-3c1b7e1f2a10" */
	if (sysfs_read_str("/proc/sys/kernel/random/boot_id", buf,
			   sizeof(buf)) == 0 &&
	    boot_id_valid(buf))
		memcpy(m->boot, buf, BOOT_ID_LEN);
}
