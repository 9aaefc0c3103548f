// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/child.h"
#include "core/conffile.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/scratch.h"
#include "fabric/desired.h"
#include "fabric/hookevent.h"
#include "fabric/keptvms.h"
#include "fabric/oned.h"
#include "fabric/poolread.h"
#include "fabric/smset.h"
#include "fabric/sync.h"
#include "fabric/vmcache.h"
#include "fabric/writeback.h"

#define WHY_MAX 2048

/* The settings, parsed. */
struct sync_cfg {
	const char *cmd, *read_cmd, *qos_cmd; /* qos_cmd NULL: none */
	bool qos_unknown; /* unset beside the site's own partitions command */
	char lock[PATH_MAX - 32];
	unsigned timeout;
	long full_every;
	const char *static_file, *hosts_partition, *sls, *best_effort;
	unsigned cloud_id;
	bool legacy_guids;
};

struct sync {
	struct sync_cfg cfg;
	const struct sync_settings *set;
	struct sync_report *rep;
	struct scratch tmp;
	struct kept kept;
	int lock_fd;
	struct hook_event ev;
	struct oned oned;
	struct kept_take take;
	struct cloud_facts f;
	bool facts; /* f holds the three listings */
	struct desired d;
	struct partitions m;
	struct partitions_plan pp;
	struct wb_plan wb;
	struct smset sms; /* every SM of the fabric (smset.h) */
	struct strbuf text, in_force, policy;
	bool rendered, have_wb;
	char read_why[WHY_MAX], render_why[WHY_MAX], count_why[WHY_MAX];
	char path[4][PATH_MAX]; /* the listings: vms, hosts, vnets, cache */
};

enum { P_VMS, P_HOSTS, P_VNETS, P_CACHE };

static int fail(struct sync *s, const char *fmt, ...) ONEIB_PRINTF(2, 3);
static int fail(struct sync *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->rep->fail, sizeof(s->rep->fail), fmt, ap);
	va_end(ap);
	return -1;
}

static void warn(struct sync *s, const char *line)
{
	sb_addf(&s->rep->warnings, "oneib-partitions: warning: %s\n", line);
}

/* each line of text (ending in '\n') a warning */
static void warn_lines(struct sync *s, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		sb_addf(&s->rep->warnings, "oneib-partitions: warning: %.*s\n",
			(int)n, text);
		text += n + (text[n] == '\n');
	}
}

/* --- settings ---------------------------------------------------------------- */

static const char * or (const char *v, const char *dflt)
{
	return v ? v : dflt;
}

static int seconds(struct sync *s, const char *name, const char *v, long lo,
		   long *out)
{
	int n;

	if (!*v || dec_parse_int(v, &n) || n < lo)
		return fail(s, "%s '%.40s' is not a number of seconds", name,
			    v);
	*out = n;
	return 0;
}

static int parse_cfg(struct sync *s)
{
	const struct sync_settings *set = s->set;
	struct sync_cfg *c = &s->cfg;
	const char *lg = or (set->legacy_guids, "no"), *q = set->qos_cmd;
	long t = 0;
	int n;

	c->cmd = or (set->partitions_cmd, "");
	if (!*c->cmd)
		c->cmd = SYNC_DEFAULT_CMD;
	c->read_cmd = or (set->read_cmd, "");
	if (!*c->read_cmd)
		c->read_cmd = SYNC_DEFAULT_READ_CMD;
	if (seconds(s, "ONEIB_PARTITIONS_TIMEOUT", or (set->timeout, "300"), 1,
		    &t))
		return -1;
	c->timeout = (unsigned)t;
	if (seconds(s, "ONEIB_PARTITIONS_FULL_EVERY",
		    or (set->full_every, "600"), 0, &c->full_every))
		return -1;
	if (!strcmp(lg, "yes") || !strcmp(lg, "YES"))
		c->legacy_guids = true;
	else if (strcmp(lg, "no") && strcmp(lg, "NO") && *lg)
		return fail(s,
			    "ONEIB_PARTITIONS_LEGACY_GUIDS '%.40s' is not yes "
			    "or no",
			    lg);
	if (set->cloud_id && *set->cloud_id &&
	    cloud_id_parse(set->cloud_id, &c->cloud_id))
		return fail(s,
			    "ONEIB_CLOUD_ID '%.20s' is not a cloud id 0..255",
			    set->cloud_id);
	if (strstr(c->cmd, "oneib-pkey partitions"))
		return fail(s, "ONEIB_PARTITIONS_CMD in etc/vnm/ib/ibrc still "
			       "runs 'oneib-pkey partitions', which is now "
			       "oneib-partitions-install (see "
			       "one-ib-upgrade(7))");
	/* The QoS policy is optional. Unset, it goes where the partitions
	 * go when that is the default (opensm on the front-end, one sudoers
	 * rule for both); beside a partitions command of the site's own (an
	 * ibrc from before the policy) no installer is known: off. */
	if (q)
		c->qos_cmd = *q ? q : NULL;
	else if (!strcmp(c->cmd, SYNC_DEFAULT_CMD))
		c->qos_cmd = SYNC_DEFAULT_QOS_CMD;
	else
		c->qos_unknown = true;
	if (set->lock && *set->lock)
		n = snprintf(c->lock, sizeof(c->lock), "%s", set->lock);
	else if (set->one_location && *set->one_location)
		n = snprintf(c->lock, sizeof(c->lock),
			     "%s/var/.oneib-partitions.lock",
			     set->one_location);
	else
		n = snprintf(c->lock, sizeof(c->lock),
			     "/var/lib/one/.oneib-partitions.lock");
	if (n < 0 || (size_t)n >= sizeof(c->lock))
		return fail(s, "ONEIB_PARTITIONS_LOCK: path too long");
	c->static_file =
		set->static_file && *set->static_file ? set->static_file : NULL;
	c->hosts_partition = set->hosts_partition && *set->hosts_partition
				     ? set->hosts_partition
				     : NULL;
	c->sls = set->sls && *set->sls ? set->sls : NULL;
	c->best_effort = c->sls ? or (set->sl_best_effort, "0") : NULL;
	if (c->best_effort && !*c->best_effort)
		c->best_effort = "0";
	if (smset_init(&s->sms, set->sms, set->sm_ssh, c->cmd, c->read_cmd,
		       c->qos_cmd, c->timeout, s->rep->fail,
		       sizeof(s->rep->fail)))
		return -1;
	return 0;
}

/* --- sync_lock ------------------------------------------------------------- */

/*
 * A lock file opened for flock (reading is enough), 0600 and the lock
 * directory owner's: created by root (a run by hand) it is given to that
 * owner, so oneadmin's runs still open it; one of ours that others may
 * read (created by an earlier release, 0644) is closed to them first, or
 * any user could hold it and silence every run.
 */
static int open_lock(struct sync *s, const char *path, const struct stat *dir)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return fail(s, "cannot open the lock file %.400s", path);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(s, "cannot open the lock file %.400s", path);
	}
	/* (a chown that fails leaves it root's: root's runs still work) */
	if (st.st_uid == geteuid() && geteuid() == 0 &&
	    dir->st_uid != st.st_uid && !fchown(fd, dir->st_uid, dir->st_gid))
		st.st_uid = dir->st_uid;
	if (st.st_uid == geteuid() && (st.st_mode & 077))
		fchmod(fd, 0600);
	else if (st.st_uid != geteuid() && (st.st_mode & 077) &&
		 st.st_uid != dir->st_uid) {
		close(fd);
		return fail(s,
			    "the lock file %.400s is not the lock directory "
			    "owner's and others may open it: remove it",
			    path);
	}
	return fd;
}

static void woken(int sig)
{
	(void)sig; /* only to end the wait: flock returns EINTR */
}

/*
 * flock within seconds, waiting in the kernel (a run queued behind
 * another wakes the moment it ends, and shows in /proc/locks as waiting),
 * an alarm ending the wait: 0, or -1 when it is still held. The run is
 * one thread; the alarm and its handler are put back as they were.
 */
static int flock_within(int fd, long seconds)
{
	struct sigaction sa = { .sa_handler = woken }, old;
	unsigned left;
	int r;

	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: the alarm ends flock */
	if (sigaction(SIGALRM, &sa, &old))
		return -1;
	left = alarm((unsigned)seconds);
	r = flock(fd, LOCK_EX);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (left)
		alarm(left);
	return r ? -1 : 0;
}

/* 1: coalesced (a run waits already), 0: holding the lock, -1: failed. */
static int sync_lock(struct sync *s)
{
	char next[PATH_MAX], dir[PATH_MAX], what[16], err[512] = "";
	const char *slash = strrchr(s->cfg.lock, '/');
	struct stat dst;
	long wait = 7L * s->cfg.timeout + 60;
	int nfd;

	snprintf(dir, sizeof(dir), "%.*s",
		 !slash			? 1
		 : slash == s->cfg.lock ? 1
					: (int)(slash - s->cfg.lock),
		 !slash ? "." : s->cfg.lock);
	snprintf(next, sizeof(next), "%s.next", s->cfg.lock);
	if (stat(dir, &dst))
		return fail(s, "cannot open the lock file %.400s", next);
	if (dst.st_mode & S_IWOTH)
		return fail(s,
			    "the lock directory %.400s is writable by every "
			    "user (mode %04o): anyone could hold its lock and "
			    "silence every run; make it oneadmin's alone or "
			    "set ONEIB_PARTITIONS_LOCK",
			    dir, (unsigned)(dst.st_mode & 07777));
	if (kept_init(&s->kept, s->cfg.lock, err, sizeof(err)))
		return fail(s, "%s", err);
	if (s->ev.kind == HOOK_EVENT_VM)
		snprintf(what, sizeof(what), "%d", s->ev.vm);
	else
		strcpy(what, s->ev.kind == HOOK_EVENT_NEW ? "new" : "all");
	if (kept_spool(&s->kept, what, err, sizeof(err)))
		sb_addf(&s->rep->warnings, "oneib-partitions: %s\n", err);
	nfd = open_lock(s, next, &dst);
	if (nfd < 0)
		return -1;
	if (flock(nfd, LOCK_EX | LOCK_NB)) {
		close(nfd);
		sb_addf(&s->rep->out,
			"oneib-partitions: a run is already waiting for "
			"%s; it will see this change\n",
			s->cfg.lock);
		return 1;
	}
	s->lock_fd = open_lock(s, s->cfg.lock, &dst);
	if (s->lock_fd < 0) {
		close(nfd);
		return -1;
	}
	if (flock_within(s->lock_fd, wait)) {
		close(nfd);
		return fail(s,
			    "%.400s still locked after %ld s: is a run stuck?",
			    s->cfg.lock, wait);
	}
	/* the next event may queue behind this run now; children hold
	 * neither lock (O_CLOEXEC), so a killed run leaves none behind */
	close(nfd);
	return 0;
}

/* --- sync_list --------------------------------------------------------------- */

/* oned's METHOD into the scratch file name. */
static int call_into(struct sync *s, const char *label, const char *name,
		     const char *method, const struct onerpc_arg *a, size_t n,
		     char *why)
{
	FILE *out = scratch_open(&s->tmp, name, "w");
	int r;

	if (!out) {
		snprintf(why, WHY_MAX, "%s: cannot write %s: %s", label, name,
			 strerror(errno));
		return -1;
	}
	r = oned_call(&s->oned, label, method, a, n, out, why, WHY_MAX);
	if (fclose(out) && !r) {
		snprintf(why, WHY_MAX, "%s: cannot write %s", label, name);
		r = -EIO;
	}
	return r ? -1 : 0;
}

static int vmcache_into(struct sync *s, char *const *paths, int n,
			const int *ids, size_t nids, char *why)
{
	FILE *out = scratch_open(&s->tmp, "vms.xml", "w");
	char err[512] = "";
	int r;

	if (!out) {
		snprintf(why, WHY_MAX, "cannot write vms.xml: %s",
			 strerror(errno));
		return -1;
	}
	r = vmcache_write(out, n, paths, ids, nids, err, sizeof(err));
	if (fclose(out) && !r)
		r = -EIO;
	if (r)
		snprintf(why, WHY_MAX, "the VM listing: %s",
			 err[0] ? err : strerror(-r));
	return r ? -1 : 0;
}

/* the kept listing, the VMs the events named and those made since */
static int list_events(struct sync *s, char *why)
{
	struct onerpc_arg a[4] = { { ONERPC_INT, -2, NULL, 0 },
				   { ONERPC_INT, s->take.next, NULL, 0 },
				   { ONERPC_INT, -1, NULL, 0 },
				   { ONERPC_INT, -1, NULL, 0 } };
	char label[64], set[PATH_MAX], news[PATH_MAX];
	char *paths[3] = { s->path[P_CACHE], news, set };
	struct strbuf ids = STRBUF_INIT;

	snprintf(label, sizeof(label), "one.vmpool.infoextended from %ld",
		 s->take.next);
	if (call_into(s, label, "new.xml", "one.vmpool.infoextended", a, 4,
		      why))
		return -1;
	scratch_path(&s->tmp, "new.xml", news, sizeof(news));
	scratch_path(&s->tmp, "set.xml", set, sizeof(set));
	if (s->take.nids) {
		struct onerpc_arg b[2] = { { ONERPC_STRING, 0, NULL, 0 },
					   { ONERPC_BOOL, 1, NULL, 0 } };
		size_t i;
		char *l;
		int r;

		for (i = 0; i < s->take.nids; i++)
			sb_addf(&ids, "%s%d", i ? "," : "", s->take.ids[i]);
		b[0].s = sb_str(&ids);
		b[0].s_len = ids.len;
		l = malloc(ids.len + 32);
		if (!l) {
			sb_release(&ids);
			snprintf(why, WHY_MAX, "out of memory");
			return -1;
		}
		sprintf(l, "one.vmpool.infoset %s", sb_str(&ids));
		r = call_into(s, l, "set.xml", "one.vmpool.infoset", b, 2, why);
		free(l);
		sb_release(&ids);
		if (r)
			return -1;
	}
	/* a kept listing it cannot read (root's, a broken one): every VM */
	if (vmcache_into(s, paths, s->take.nids ? 3 : 2, s->take.ids,
			 s->take.nids, why))
		return 1;
	return 0;
}

static int list_all(struct sync *s, char *why)
{
	struct onerpc_arg a[4] = { { ONERPC_INT, -2, NULL, 0 },
				   { ONERPC_INT, -1, NULL, 0 },
				   { ONERPC_INT, -1, NULL, 0 },
				   { ONERPC_INT, -1, NULL, 0 } };
	char path[PATH_MAX];
	char *paths[1] = { path };
	int r;

	if (call_into(s, "one.vmpool.infoextended", "listing.xml",
		      "one.vmpool.infoextended", a, 4, why))
		return -1;
	scratch_path(&s->tmp, "listing.xml", path, sizeof(path));
	r = vmcache_into(s, paths, 1, NULL, 0, why);
	unlink(path);
	return r;
}

static int sync_list(struct sync *s)
{
	struct onerpc_arg vn[3] = { { ONERPC_INT, -2, NULL, 0 },
				    { ONERPC_INT, -1, NULL, 0 },
				    { ONERPC_INT, -1, NULL, 0 } };
	char why[WHY_MAX] = "", err[WHY_MAX] = "";
	int r;

	if (oned_locate(&s->oned, &s->set->oned, s->cfg.timeout, &s->tmp, err,
			sizeof(err)))
		return fail(s, "%s", err);
	scratch_path(&s->tmp, "cache.xml", s->path[P_CACHE], PATH_MAX);
	scratch_path(&s->tmp, "vms.xml", s->path[P_VMS], PATH_MAX);
	scratch_path(&s->tmp, "hosts.xml", s->path[P_HOSTS], PATH_MAX);
	scratch_path(&s->tmp, "vnets.xml", s->path[P_VNETS], PATH_MAX);
	kept_take(&s->kept, s->path[P_CACHE], s->cfg.full_every, time(NULL),
		  &s->take);
	if (s->ev.kind == HOOK_EVENT_ALL)
		s->take.full = true;
	if (s->take.full)
		s->take.stamp = time(NULL);
	r = s->take.full ? 1 : list_events(s, why);
	if (r < 0)
		return fail(s, "%s", why);
	if (r > 0) {
		s->take.full = true;
		s->take.stamp = time(NULL);
		if (list_all(s, why))
			return fail(s, "%s", why);
	}
	if (call_into(s, "one.hostpool.info", "hosts.xml", "one.hostpool.info",
		      NULL, 0, why) ||
	    call_into(s, "one.vnpool.info", "vnets.xml", "one.vnpool.info", vn,
		      3, why))
		return fail(s, "%s", why);
	return 0;
}

/* --- sync_render ------------------------------------------------------------ */

/*
 * Every SM's installed file, read: adoption (design decision 11) on each
 * (a partition one-ib did not write on any SM stops the render), and the
 * networks the renderer leaves out keep their partitions from the first
 * SM that read. An SM that cannot be read is named at the end of the run
 * and gets nothing this time: what it holds is not known.
 */
static int installed(struct sync *s, char *err)
{
	struct smset *ss = &s->sms;
	size_t k;

	if (!smset_read(ss)) {
		struct strbuf why = STRBUF_INIT;

		smset_failures(ss, &why);
		snprintf(s->read_why, WHY_MAX, "%s", sb_str(&why));
		sb_release(&why);
		return 1;
	}
	/* the first SM that read last: its file is the one kept */
	for (k = ss->n; k-- > 0;) {
		const struct sm *sm = &ss->sm[k];
		char why[WHY_MAX] = "";

		if (!sm->read)
			continue;
		if (desired_installed(&s->d, sm->installed.buf,
				      sm->installed.len, why, sizeof(why))) {
			if (ss->many)
				snprintf(err, WHY_MAX, "%s: %.1900s", sm->name,
					 why);
			else
				snprintf(err, WHY_MAX, "%s", why);
			return -1;
		}
	}
	return 0;
}

static int render(struct sync *s)
{
	char err[WHY_MAX] = "";
	int r;

	s->d.o.cloud_id = s->cfg.cloud_id;
	s->d.o.legacy_guids = s->cfg.legacy_guids;
	s->d.o.hosts_partition = s->cfg.hosts_partition;
	if (desired_sls(&s->d, s->cfg.sls, s->cfg.best_effort, err,
			sizeof(err)) ||
	    (s->cfg.static_file &&
	     desired_static(&s->d, s->cfg.static_file, err, sizeof(err)))) {
		snprintf(s->render_why, WHY_MAX, "render: %.2000s", err);
		return -1;
	}
	r = installed(s, err);
	if (r > 0)
		return -1;
	if (!r)
		r = desired_build(&s->d, &s->f, &s->m, &s->pp, err,
				  sizeof(err));
	if (!r)
		r = desired_text(&s->m, &s->text, err, sizeof(err));
	if (!r && s->cfg.qos_cmd)
		r = desired_policy(&s->d, &s->m, &s->policy, err, sizeof(err));
	if (!r) {
		/* last: it changes m's SLs */
		partitions_sls_in_force(&s->m, &s->d.inst);
		r = desired_text(&s->m, &s->in_force, err, sizeof(err));
	}
	if (r) {
		snprintf(s->render_why, WHY_MAX, "render: %.2000s", err);
		return -1;
	}
	return 0;
}

static int sync_render(struct sync *s)
{
	char *paths[3] = { s->path[P_VMS], s->path[P_HOSTS], s->path[P_VNETS] };
	char err[WHY_MAX] = "";

	if (poolread_files(&s->f, -1, 3, paths, err, sizeof(err))) {
		/* nothing to count from either */
		snprintf(s->render_why, WHY_MAX, "render: %.2000s", err);
		return -1;
	}
	s->facts = true;
	s->rendered = !render(s);
	if (s->rendered) {
		size_t i;

		for (i = 0; i < s->m.nnotes; i++)
			warn(s, s->m.notes[i]);
		warn_lines(s, sb_str(&s->pp.warnings));
	}
	/* the write-back from the same reading, also when the render
	 * refused or the installed file could not be read */
	if (writeback_plan(&s->f, &s->wb, err, sizeof(err))) {
		if (!s->render_why[0] && !s->read_why[0])
			snprintf(s->render_why, WHY_MAX, "render: %.2000s",
				 err);
	} else {
		s->have_wb = true;
		warn_lines(s, sb_str(&s->wb.warnings));
	}
	/* the run's VM listing, kept for the next once the renderer read it */
	if (s->rendered)
		kept_keep(&s->kept, s->path[P_VMS], s->take.stamp);
	return s->rendered ? 0 : -1;
}

/* --- sync_write_back ---------------------------------------------------------- */

static int sync_write_back(struct sync *s)
{
	static const char *const method[] = { "one.host.update",
					      "one.vm.updateconf",
					      "one.vm.update" };
	FILE *sink = fopen("/dev/null", "w");
	int unmapped = -1;
	size_t i;

	if (!s->have_wb || !sink) {
		if (sink)
			fclose(sink);
		return 0;
	}
	for (i = 0; i < s->wb.n; i++) {
		const struct wb_update *u = &s->wb.u[i];
		struct onerpc_arg a[3] = {
			{ ONERPC_INT, u->id, NULL, 0 },
			{ ONERPC_STRING, 0, u->text, strlen(u->text) },
			{ ONERPC_INT, 1, NULL, 0 }, /* append */
		};
		char label[64], why[WHY_MAX] = "";

		/* its map refused: the gate stays, the next run tries again */
		if (u->kind == WB_VM && u->id == unmapped)
			continue;
		snprintf(label, sizeof(label), "%s %d", method[u->kind], u->id);
		if (oned_call(&s->oned, label, method[u->kind], a, 3, sink, why,
			      sizeof(why))) {
			if (!s->count_why[0])
				snprintf(s->count_why, WHY_MAX, "%s", why);
			if (u->kind == WB_CONTEXT)
				unmapped = u->id;
			continue;
		}
		if (u->kind != WB_HOST) {
			char id[16], err[512];

			/* the next run reads it as it is now */
			snprintf(id, sizeof(id), "%d", u->id);
			if (kept_spool(&s->kept, id, err, sizeof(err)))
				sb_addf(&s->rep->warnings,
					"oneib-partitions: %s\n", err);
		}
	}
	fclose(sink);
	return s->count_why[0] ? -1 : 0;
}

/* --- sync_install ------------------------------------------------------------- */

static int sync_install(struct sync *s)
{
	struct smset_files f = {
		.policy = s->cfg.qos_cmd ? &s->policy : NULL,
		/* no installer known: the partitions with the SLs in force */
		.text = s->cfg.qos_unknown ? &s->in_force : &s->text,
		.in_force = &s->in_force,
	};
	struct smset *ss = &s->sms;
	struct strbuf why = STRBUF_INIT;
	size_t i, ok = smset_install(ss, &f);
	int r = 0;

	for (i = 0; i < ss->n; i++)
		sb_add(&s->rep->out, ss->sm[i].out.buf, ss->sm[i].out.len);
	/* said when it costs something: a planned SL not in force */
	if (ok && s->cfg.qos_unknown &&
	    (s->text.len != s->in_force.len ||
	     memcmp(s->text.buf, s->in_force.buf, s->text.len)))
		warn(s, "no QoS policy installed (ONEIB_QOS_POLICY_CMD "
			"is not set in etc/vnm/ib/ibrc, and "
			"ONEIB_PARTITIONS_CMD installs elsewhere): the "
			"partitions keep the SLs in force and the "
			"planned ones wait; set ONEIB_QOS_POLICY_CMD "
			"as "
			"ONEIB_PARTITIONS_CMD is set, or "
			"ONEIB_SLS=\"\" "
			"to plan none");
	for (i = 0; i < ss->n; i++)
		sb_add(&s->rep->warnings, ss->sm[i].warnings.buf,
		       ss->sm[i].warnings.len);
	if (smset_failures(ss, &why)) {
		/* one line: each SM that does not hold the new files, and
		 * that the others do */
		if (ss->many)
			r = fail(s,
				 "%.1800s; %zu of %zu subnet managers hold the "
				 "new partitions, the next run tries the "
				 "others again",
				 sb_str(&why), ok, ss->n);
		else
			r = fail(s, "%s", sb_str(&why));
	}
	sb_release(&why);
	return r;
}

/* --- the run -------------------------------------------------------------------- */

int sync_run(const struct sync_settings *set, const char *event, size_t len,
	     struct sync_report *rep)
{
	struct sync s = { .set = set, .rep = rep, .lock_fd = -1 };
	char err[512] = "";
	int r;

	memset(rep, 0, sizeof(*rep));
	s.ev = hook_event_read(event, len);
	if (parse_cfg(&s))
		return 1;
	r = sync_lock(&s);
	if (r > 0)
		return 0;
	if (r < 0)
		goto out;
	if (scratch_make(&s.tmp, set->tmpdir, "oneib-partitions", err,
			 sizeof(err))) {
		r = fail(&s, "%s", err);
		goto out;
	}
	r = sync_list(&s);
	if (r)
		goto out;
	sync_render(&s);
	sync_write_back(&s);
	if (s.read_why[0]) {
		r = fail(&s, "%s", s.read_why);
		goto out;
	}
	if (s.render_why[0]) {
		r = fail(&s, "%s", s.render_why);
		goto out;
	}
	r = sync_install(&s);
	if (!r && s.count_why[0])
		r = fail(&s, "%s", s.count_why);
out:
	oned_free(&s.oned);
	kept_take_free(&s.take);
	writeback_free(&s.wb);
	partitions_plan_free(&s.pp);
	partitions_free(&s.m);
	desired_free(&s.d);
	cloud_facts_free(&s.f);
	sb_release(&s.text);
	sb_release(&s.in_force);
	sb_release(&s.policy);
	smset_free(&s.sms);
	scratch_remove(&s.tmp);
	if (s.lock_fd >= 0)
		close(s.lock_fd);
	return r ? 1 : 0;
}

void sync_report_free(struct sync_report *rep)
{
	sb_release(&rep->out);
	sb_release(&rep->warnings);
}
