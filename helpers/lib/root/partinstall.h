/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one root part of the partitions (design decision 6): an already
 * rendered partitions.conf, taken only if it is exactly what the renderer
 * writes (partconf_canonical: strict opensm grammar, then re-rendered and
 * compared byte for byte), installed atomically beside the old one (kept
 * as FILE.bak, conffile.h), then opensm told to re-read it. It reads no
 * cloud XML and links no XML library. The QoS policy file beside it
 * (design decision 13) goes the same way, checked by its own grammar
 * (qospolicy_canonical): opensm drops a policy it cannot read silently,
 * every partition's SL with it, so nothing else is ever installed; opensm
 * re-reads the policy at every heavy sweep, which the same SIGHUP forces.
 *
 * A reload that fails is remembered, so the next run retries it even when
 * the text has not changed (opensm would otherwise keep the old partitions
 * while every run says "unchanged"): FILE.reload-pending is written, whole
 * and synced, before FILE is replaced, and removed once opensm was told.
 * A crash between the two leaves it behind, which only costs one more
 * reload.
 *
 *   /etc/opensm/partitions.conf                the file opensm reads
 *   /etc/opensm/partitions.conf.bak            the one before it
 *   /etc/opensm/partitions.conf.reload-pending opensm not told yet (rare)
 */
#ifndef ONEIB_PARTINSTALL_H
#define ONEIB_PARTINSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "root/opensm.h"

#define PARTINSTALL_PENDING_SUFFIX ".reload-pending"

enum reload_how {
	RELOAD_SERVICE, /* SIGHUP to the main process of the units (opensm.h) */
	RELOAD_PIDFILE, /* SIGHUP to the opensm in pid_file */
	RELOAD_CMD, /* /bin/sh -c cmd */
	RELOAD_NONE, /* someone else tells opensm */
};

enum install_kind {
	INSTALL_PARTITIONS, /* partitions.conf (partconf.h) */
	INSTALL_QOS_POLICY, /* qos-policy.conf (qospolicy.h) */
	/*
	 * NVIDIA UFM as the subnet manager: its partitions.conf is its own
	 * and cannot be edited; it merges partitions.conf.user_ext (same
	 * grammar) into it, validated, when /opt/ufm/scripts/
	 * sync_partitions_conf.sh runs, which also starts a heavy sweep (UFM
	 * Enterprise User Manual, "Appendix - Partitioning"). The rendered
	 * file is taken as for INSTALL_PARTITIONS, and what is written is it
	 * without the default partition (partconf_render_ufm): UFM's stays,
	 * whose HCA ports are full members unless the operator says otherwise
	 * (`oneib-partitions verify` reports a tenant VF that is). Told by
	 * running the sync script (RELOAD_CMD).
	 */
	INSTALL_UFM,
};

#define UFM_USER_EXT "/opt/ufm/files/conf/partitions.conf.user_ext"
#define UFM_SYNC_CMD "/opt/ufm/scripts/sync_partitions_conf.sh"

struct install_opts {
	enum install_kind kind;
	const char *path; /* /etc/opensm/partitions.conf */
	const char *backup; /* NULL: path.bak */
	enum reload_how how;
	const char *pid_file, *cmd;
	const char *units; /* RELOAD_SERVICE; NULL: OPENSM_UNITS */
};

enum install_state {
	INSTALL_UNCHANGED, /* the file already held the text */
	INSTALL_REPLACED, /* over an older file, now the backup */
	INSTALL_NEW, /* where there was none */
};

struct install_report {
	enum install_state state;
	size_t partitions, members, notes; /* INSTALL_PARTITIONS, _UFM */
	size_t rules; /* INSTALL_QOS_POLICY: P_Keys with an SL */
	int default_sl; /* ... and the SL of the rest */
	bool retried; /* unchanged, but opensm had not been told before */
	bool reloaded; /* opensm told (or none running: reads it at start) */
	int signalled; /* how many subnet managers were signalled */
	pid_t pid[OPENSM_TOLD_MAX]; /* the first of them */
	char reload_err[256]; /* why opensm was not told */
};

/*
 * Returns 0 when the file holds text and opensm was told (or had nothing
 * to be told); 1 when the file holds text but telling opensm failed (see
 * rep->reload_err; the next call retries); -EINVAL when text is refused,
 * -errno when it could not be installed: one line in err, and the file,
 * its backup and the pending mark are as they were.
 */
int partitions_install(const char *text, size_t len,
		       const struct install_opts *o, struct install_report *rep,
		       char *err, size_t errlen);

#endif
