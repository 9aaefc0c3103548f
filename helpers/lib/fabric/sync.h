/* SPDX-License-Identifier: Apache-2.0 */
/*
 * oneib-partitions sync: the front-end's run (design decision 16), what
 * OpenNebula's hooks start after every event that can change who is in
 * which partition (the shim remotes/hooks/oneib-partitions, as oneadmin):
 * keep opensm's partitions.conf and QoS policy equal to the cloud's state
 * (design decision 7) and the scheduler's free-VF counters and
 * requirements exact (decision 12). Its steps, in order, and what each
 * does when it fails:
 *
 *   sync_lock      the event spooled (keptvms.h), then at most one run
 *                  queues behind the one in progress: a run that finds
 *                  that place taken leaves at once (exit 0, "a run is
 *                  already waiting for LOCK; it will see this change"):
 *                  the waiting run lists the cloud and takes the spool
 *                  only once it holds the lock, so after this event's
 *                  change. A burst of a hundred deployments costs two
 *                  runs. The lock files are 0600, the directory's owner's;
 *                  a directory every user may write is refused, as is a
 *                  lock still held after 7 * ONEIB_PARTITIONS_TIMEOUT + 60 s
 *   sync_list      oned asked as the CLI asks it (oned.h): the VMs (the
 *                  listing kept from the last run with the VMs the events
 *                  named, one.vmpool.infoset, and those made since,
 *                  one.vmpool.infoextended from the next ID; or every VM,
 *                  one.vmpool.infoextended -2 -1 -1 -1), each reduced to
 *                  what the renderer reads (vmcache.h); the hosts
 *                  (one.hostpool.info) and networks (one.vnpool.info -2 -1
 *                  -1). A listing that fails fails the run: nothing is
 *                  rendered, written or installed
 *   sync_render    the installed partitions.conf read back
 *                  (ONEIB_PARTITIONS_READ_CMD, from every SM: adoption on
 *                  each; one that cannot be read gets nothing this run
 *                  and is named at its end), then the model from one
 *                  parse of the listings (desired.h): partitions.conf, the
 *                  same with the SLs in force, the QoS policy, and the
 *                  write-back (writeback.h). The render refused (the static
 *                  file, adoption) or the read failing still leaves the
 *                  write-back to do, so placement never waits on the SM's
 *                  side; the run fails after it. Rendered, the run's VM
 *                  listing is kept for the next run
 *   sync_write_back  each update to oned, appending, in order; one that
 *                  fails is named (the first) and the run fails after the
 *                  rest, the partitions still installed; a VM's map that
 *                  fails keeps its gate (its requirement is not written);
 *                  each VM updated is spooled, so the next run reads it as
 *                  it is now
 *   sync_install   the QoS policy (ONEIB_QOS_POLICY_CMD), then the
 *                  partitions (ONEIB_PARTITIONS_CMD), each through a root
 *                  installer's strict re-parse (design decision 6), on
 *                  every SM of the fabric at once (smset.h: ONEIB_SMS;
 *                  the run fails naming each SM that does not hold the
 *                  new files, never holding the others back). The
 *                  policy never holds the partitions back: when it cannot
 *                  be installed they go in with the SLs in force and the
 *                  run fails after them; unset beside an
 *                  ONEIB_PARTITIONS_CMD of the site's own it stays off
 *                  (one warning when a planned SL is then not in force)
 *
 * Every command (curl, the read and install commands) is bounded by
 * ONEIB_PARTITIONS_TIMEOUT and killed with what it started. A failure is
 * one line naming what failed, e.g.
 *   one.vmpool.infoextended failed: oned: [one.vmpool.infoextended] User couldn't be authenticated, aborting call.
 *   test ! -e /etc/opensm/partitions.conf || cat /etc/opensm/partitions.conf failed (exit 255): ssh: connect to host sm1 port 22: No route to host
 *   render: the installed partitions.conf holds partitions one-ib did not write: lab (0x0300); ...
 * and a run that repeats a failed one's work is always safe: run it by
 * hand or from cron to repair a missed event.
 */
#ifndef ONEIB_SYNC_H
#define ONEIB_SYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"
#include "fabric/oned.h"

#define SYNC_DEFAULT_CMD                                                       \
	"sudo -n /usr/sbin/oneib-partitions-install --output "                 \
	"/etc/opensm/partitions.conf -"
#define SYNC_DEFAULT_READ_CMD                                                  \
	"test ! -e /etc/opensm/partitions.conf || cat "                        \
	"/etc/opensm/partitions.conf"
#define SYNC_DEFAULT_QOS_CMD                                                   \
	"sudo -n /usr/sbin/oneib-partitions-install --qos-policy "             \
	"/etc/opensm/qos-policy.conf -"

/*
 * The settings, as main reads them from the environment the shim hands
 * on (etc/vnm/ib/ibrc and kvm-ibrc, sourced through ib/helpers.sh, then
 * exported; NULL: unset, the default):
 */
struct sync_settings {
	const char *partitions_cmd; /* ONEIB_PARTITIONS_CMD */
	const char *read_cmd; /* ONEIB_PARTITIONS_READ_CMD */
	const char *qos_cmd; /* ONEIB_QOS_POLICY_CMD ("" none) */
	const char *sms; /* ONEIB_SMS: every SM's host (smset.h) */
	const char *sm_ssh; /* ONEIB_SM_SSH: how each is reached */
	const char *lock; /* ONEIB_PARTITIONS_LOCK */
	const char *timeout; /* ONEIB_PARTITIONS_TIMEOUT: 300 */
	const char *full_every; /* ONEIB_PARTITIONS_FULL_EVERY: 600 */
	const char *legacy_guids; /* ONEIB_PARTITIONS_LEGACY_GUIDS: no */
	const char *cloud_id; /* ONEIB_CLOUD_ID: 0 */
	const char *static_file; /* ONEIB_PARTITIONS_STATIC: none */
	const char *hosts_partition; /* ONEIB_HOSTS_PARTITION */
	const char *sls; /* ONEIB_SLS ("" plans none) */
	const char *sl_best_effort; /* ONEIB_SL_BEST_EFFORT: 0 */
	const char *one_location; /* ONE_LOCATION: a self-contained one */
	const char *tmpdir; /* TMPDIR */
	struct oned_where oned; /* ONE_XMLRPC, ONE_AUTH, HOME */
};

/* What a run says: main prints out on stdout, then warnings and fail. */
struct sync_report {
	struct strbuf out; /* the installers' lines */
	struct strbuf warnings; /* stderr, lines ending in '\n' */
	char fail[2048]; /* the failure's one line, "" when none */
};

/*
 * One run for the event text (hookevent.h; "" none: every VM). 0, or 1
 * with rep->fail set; rep is filled either way (sync_report_free after).
 */
int sync_run(const struct sync_settings *set, const char *event, size_t len,
	     struct sync_report *rep);
void sync_report_free(struct sync_report *rep);

#endif
