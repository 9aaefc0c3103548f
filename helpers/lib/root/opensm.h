/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Making the subnet manager re-read partitions.conf: SIGHUP forces a heavy
 * sweep, and the P_Key manager parses the file again on every heavy sweep
 * (reference §5.7). Root signals only the subnet manager it is configured
 * for, never a process found by its name (any local user can name a
 * process "opensm"):
 *
 *   --service UNITS  the main process systemd records for each loaded unit
 *                    matching UNITS (`systemctl show --property=Id,MainPID
 *                    -- UNITS`); the default, "opensm@*.service", is
 *                    Debian 12's opensm package: opensm.service starts one
 *                    opensm@<port GUID>.service per port
 *   --pid-file FILE  the pid in FILE (e.g. /run/opensm-<port GUID>, which
 *                    Debian's init script has start-stop-daemon write)
 *
 * and only a process that is the subnet manager: one of root's, running
 * the opensm executable (/proc/<pid>/exe is OPENSM_EXE, the same file), so
 * that neither a stale pid file nor a unit started with another program
 * makes root signal whatever holds that pid now.
 */
#ifndef ONEIB_OPENSM_H
#define ONEIB_OPENSM_H

#include <stddef.h>
#include <sys/types.h>

#define OPENSM_EXE "/usr/sbin/opensm"
#define OPENSM_UNITS "opensm@*.service"
#define OPENSM_SYSTEMCTL "/usr/bin/systemctl"
/* How many subnet managers one report names. */
#define OPENSM_TOLD_MAX 8

/* SIGHUP to the opensm in pidfile. 0 with *pid set, or -errno and err:
 *   opensm pid file /run/opensm.pid: process 4242 is not the subnet
 *   manager: it runs /home/eve/opensm, not /usr/sbin/opensm */
int opensm_hup_pidfile(const char *pidfile, pid_t *pid, char *err,
		       size_t errlen);

/*
 * SIGHUP to the main process of every loaded systemd unit matching units,
 * each checked as above. Returns how many (pids[] the first
 * OPENSM_TOLD_MAX), or -errno with err: systemctl's own line, "no unit
 * matching opensm@*.service runs opensm", or the first unit whose main
 * process is not the subnet manager (then none is signalled).
 */
int opensm_hup_service(const char *units, pid_t pids[OPENSM_TOLD_MAX],
		       char *err, size_t errlen);

/* /bin/sh -c cmd; 0 when it exits 0, else -EIO with its status in err. */
int opensm_run_cmd(const char *cmd, char *err, size_t errlen);

#endif
