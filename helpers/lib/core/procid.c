// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/procid.h"
#include "core/sysfs.h"

/*
 * Its state and start time from /proc/<pid>/stat. The command name, in
 * parentheses, may hold spaces and ')': the fields start after the last
 * ')'. Field 3 is the state, 22 the start time.
 */
static int stat_of(long pid, char *state, uint64_t *start)
{
	char path[64], line[1024];
	const char *p;
	unsigned long long v;
	int field, r;

	if (pid < 1)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	r = sysfs_read_str(path, line, sizeof(line));
	if (r)
		return r == -ENOENT ? -ESRCH : r;
	p = strrchr(line, ')');
	if (!p || sscanf(p + 1, " %c", state) != 1)
		return -EINVAL;
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &v) != 1)
		return -EINVAL;
	*start = v;
	return 0;
}

int proc_id_of(long pid, struct proc_id *id)
{
	char state;
	int r = stat_of(pid, &state, &id->start);

	id->pid = r ? 0 : pid;
	if (r)
		id->start = 0;
	return r;
}

bool proc_id_alive(const struct proc_id *id)
{
	uint64_t start;
	char state;

	return id->pid > 0 && !stat_of(id->pid, &state, &start) &&
	       start == id->start && state != 'Z' && state != 'X';
}
