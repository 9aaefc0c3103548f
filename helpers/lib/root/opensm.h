/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Making a running opensm re-read partitions.conf: SIGHUP forces a heavy
 * sweep, and the P_Key manager parses the file again on every heavy sweep
 * (reference §5.7). A signal only ever goes to a process whose name is
 * "opensm": a stale pid file must not make root signal whatever now holds
 * that pid.
 */
#ifndef ONEIB_OPENSM_H
#define ONEIB_OPENSM_H

#include <stddef.h>
#include <sys/types.h>

/* SIGHUP to the pid in pidfile. 0 with *pid set, or -errno and err. */
int opensm_hup_pidfile(const char *pidfile, pid_t *pid, char *err,
		       size_t errlen);

/*
 * SIGHUP to every process named opensm (one per port under Debian's
 * opensm@.service, all reading the same file). Returns how many, or -errno.
 */
int opensm_hup_all(char *err, size_t errlen);

/* /bin/sh -c cmd; 0 when it exits 0, else -EIO with its status in err. */
int opensm_run_cmd(const char *cmd, char *err, size_t errlen);

#endif
