/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every subnet manager of the fabric (design decision 17): a master and
 * its standbys each enforce the partitions.conf and QoS policy on their
 * own disk, read when they become master, and nothing in opensm copies
 * them (reference/sm-redundancy.md): a standby with an older file drops
 * the partitions of every VM made since at the failover, one with a file
 * opensm rejects opens the whole fabric. So the front-end's run (sync.h)
 * reaches each SM, through the settings of etc/vnm/ib/ibrc:
 *
 *   ONEIB_SMS unset or ""   one SM, the commands as they are
 *                           (ONEIB_PARTITIONS_CMD, ONEIB_PARTITIONS_READ_CMD,
 *                           ONEIB_QOS_POLICY_CMD run with sh -c on the
 *                           front-end: they reach the SM themselves), and
 *                           every line as it always was
 *   ONEIB_SMS="sm1 sm2"     every SM host of the fabric, master and
 *                           standbys, in any order; the same three
 *                           commands are what runs on each, reached
 *                           through ONEIB_SM_SSH (default "ssh -o
 *                           BatchMode=yes -o ConnectTimeout=10"), run as
 *                             sh -c '<ONEIB_SM_SSH> "$1" "$2"' - sm2 '<command>'
 *                           so the defaults (the sudo lines the sm role's
 *                           sudoers rule allows) are right on every SM
 *
 * Each step runs on every SM at once, each command bounded by
 * ONEIB_PARTITIONS_TIMEOUT (core/child.h: child_start, child_wait_any):
 * a standby that is down or hangs costs its own timeout, never holds the
 * master back, and is named in the run's failure line; the next run tries
 * it again (the installer's "unchanged" is per SM). Which SM is master
 * does not matter here; `oneib-partitions verify` says (SMInfo).
 *
 *   smset_read      each SM's installed partitions.conf (the read command)
 *   smset_install   on each SM that read: the QoS policy, then the
 *                   partitions (with the SLs in force where its policy was
 *                   refused, as for one SM: sync.h), then, with ONEIB_SMS,
 *                   the file read back and compared with what it was
 *                   given (partdiff.h): an SM holds the new file only when
 *                   it reads back so
 *
 * With ONEIB_SMS every line an SM's commands print, and every failure, is
 * prefixed with its name:
 *   sm2: /etc/opensm/partitions.conf: installed (3 partitions, 9 members), previous file kept as /etc/opensm/partitions.conf.bak
 *   sm2: ssh -o BatchMode=yes ... failed (exit 255): ssh: connect to host sm2 port 22: No route to host
 */
#ifndef ONEIB_SMSET_H
#define ONEIB_SMSET_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define SMSET_MAX 16
#define SMSET_NAME_MAX 64
#define SMSET_WHY_MAX 2048
#define SMSET_DEFAULT_SSH "ssh -o BatchMode=yes -o ConnectTimeout=10"

struct sm {
	char name[SMSET_NAME_MAX]; /* "sm2"; "" the one SM without ONEIB_SMS */
	struct strbuf installed; /* smset_read: its partitions.conf */
	bool read; /* ... which it could read */
	bool installed_ok; /* smset_install: it holds the new partitions */
	struct strbuf out; /* its installers' lines (prefixed) */
	struct strbuf warnings; /* their stderr when they succeeded */
	char why[SMSET_WHY_MAX]; /* why it failed, "" when it did not */
};

struct smset {
	struct sm sm[SMSET_MAX];
	size_t n;
	bool many; /* ONEIB_SMS named them */
	const char *ssh; /* ONEIB_SM_SSH */
	const char *cmd, *read_cmd, *qos_cmd; /* qos_cmd NULL: none */
	unsigned timeout;
};

/*
 * sms: ONEIB_SMS (NULL or blank: one SM); ssh: ONEIB_SM_SSH (NULL or "":
 * the default). The commands are kept, not copied. 0, or -EINVAL with one
 * line in err, e.g.
 *   ONEIB_SMS names sm1 twice
 *   ONEIB_PARTITIONS_CMD runs ssh itself while ONEIB_SMS names the subnet managers: ...
 */
int smset_init(struct smset *s, const char *sms, const char *ssh,
	       const char *cmd, const char *read_cmd, const char *qos_cmd,
	       unsigned timeout, char *err, size_t errlen);

/* Reads every SM's installed partitions.conf: how many could be read. */
size_t smset_read(struct smset *s);

/*
 * What smset_install hands each SM: the QoS policy (NULL: none), the
 * partitions, and the same with the SLs the installed policy knows, for
 * an SM whose policy was refused.
 */
struct smset_files {
	const struct strbuf *policy, *text, *in_force;
};

/*
 * Installs on every SM that read (smset_read), at once: how many hold the
 * new partitions (sm->installed_ok). An SM that failed in any step says
 * why in sm->why; one whose partitions went in but not its policy has
 * installed_ok and why both.
 */
size_t smset_install(struct smset *s, const struct smset_files *f);

/*
 * The SMs that failed, one phrase each, into out ("sm2: ...; sm3: ...";
 * without ONEIB_SMS the one SM's why alone): how many.
 */
size_t smset_failures(const struct smset *s, struct strbuf *out);

void smset_free(struct smset *s);

#endif
