// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/conffile.h"
#include "core/log.h"
#include "root/opensm.h"
#include "root/partconf.h"
#include "root/partinstall.h"
#include "root/qospolicy.h"
#include "core/strbuf.h"

/* Tells opensm; 0, or -errno with rep->reload_err. */
static int reload(const struct install_opts *o, struct install_report *rep)
{
	int r = 0;

	switch (o->how) {
	case RELOAD_NONE:
		return 0;
	case RELOAD_PIDFILE:
		r = opensm_hup_pidfile(o->pid_file, &rep->pid[0],
				       rep->reload_err,
				       sizeof(rep->reload_err));
		if (!r)
			rep->signalled = 1;
		break;
	case RELOAD_CMD:
		r = opensm_run_cmd(o->cmd, rep->reload_err,
				   sizeof(rep->reload_err));
		break;
	case RELOAD_SERVICE:
		r = opensm_hup_service(o->units ? o->units : OPENSM_UNITS,
				       rep->pid, rep->reload_err,
				       sizeof(rep->reload_err));
		if (r >= 0) {
			rep->signalled = r;
			r = 0;
		}
		break;
	}
	rep->reloaded = !r;
	return r;
}

/* "opensm has not re-read ..." beside the file, whole or not at all. */
static int mark_pending(const char *pending, const char *path, char *err,
			size_t errlen)
{
	char line[512];
	int n = snprintf(line, sizeof(line),
			 "opensm has not re-read %s since it was installed "
			 "at %lld; the next install tells it\n",
			 path, (long long)time(NULL));
	int r = conffile_install(pending, NULL, line,
				 (size_t)n < sizeof(line) ? (size_t)n
							  : sizeof(line) - 1,
				 err, errlen);

	return r < 0 ? r : 0;
}

static int unmark_pending(const char *pending, char *err, size_t errlen)
{
	int r = 0;

	if (unlink(pending) && errno != ENOENT)
		r = -errno;
	if (!r)
		r = fsync_dir_of(pending);
	if (r)
		err_set(err, errlen, "%s: cannot remove it: %s", pending,
			strerror(-r));
	return r;
}

/*
 * Is text exactly what the renderer writes for its kind? Counts into rep;
 * for UFM, the user extension to write into ufm (else it is text itself).
 */
static int canonical(const struct install_opts *o, const char *text, size_t len,
		     struct install_report *rep, struct strbuf *ufm, char *err,
		     size_t errlen)
{
	struct partitions m;
	struct qos_policy q;
	int r;

	if (o->kind == INSTALL_QOS_POLICY) {
		r = qospolicy_canonical(text, len, &q, err, errlen);
		if (r)
			return r;
		rep->rules = q.n;
		rep->default_sl = q.default_sl;
		qospolicy_free(&q);
		return 0;
	}
	r = partconf_canonical(text, len, &m, err, errlen);
	if (r)
		return r;
	rep->partitions = m.n;
	rep->members = partitions_members(&m);
	rep->notes = m.nnotes;
	if (o->kind == INSTALL_UFM && partconf_render_ufm(&m, ufm)) {
		err_set(err, errlen, "out of memory");
		r = -ENOMEM;
	}
	partitions_free(&m);
	return r;
}

int partitions_install(const char *text, size_t len,
		       const struct install_opts *o, struct install_report *rep,
		       char *err, size_t errlen)
{
	struct strbuf bak = STRBUF_INIT, pend = STRBUF_INIT, ufm = STRBUF_INIT;
	bool was_pending, mark = o->how != RELOAD_NONE;
	struct stat st;
	int r;

	memset(rep, 0, sizeof(*rep));
	if (!o->path || !*o->path || o->path[strlen(o->path) - 1] == '/') {
		err_set(err, errlen, "'%s': not a file name",
			o->path ? o->path : "");
		return -EINVAL;
	}
	/* Only the exact text the renderer writes: the check is here, in
	 * the one function that installs, so nothing gets around it. */
	r = canonical(o, text, len, rep, &ufm, err, errlen);
	if (r) {
		sb_release(&ufm);
		return r;
	}
	if (o->kind == INSTALL_UFM) {
		/* what goes in: the user extension of what was checked */
		text = ufm.buf;
		len = ufm.len;
	}

	if (sb_addf(&pend, "%s" PARTINSTALL_PENDING_SUFFIX, o->path) ||
	    (!o->backup && sb_addf(&bak, "%s.bak", o->path))) {
		err_set(err, errlen, "out of memory");
		r = -ENOMEM;
		goto out;
	}
	was_pending = !lstat(sb_str(&pend), &st);
	r = conffile_holds(o->path, text, len, err, errlen);
	if (r < 0)
		goto out;
	if (r == 1) {
		rep->state = INSTALL_UNCHANGED;
		r = 0;
		if (!was_pending || !mark)
			goto out;
		rep->retried = true;
	} else {
		if (mark && !was_pending) {
			r = mark_pending(sb_str(&pend), o->path, err, errlen);
			if (r)
				goto out;
		}
		r = conffile_install(o->path,
				     o->backup ? o->backup : sb_str(&bak), text,
				     len, err, errlen);
		if (r < 0) {
			if (mark && !was_pending)
				unmark_pending(sb_str(&pend), NULL, 0);
			goto out;
		}
		rep->state = r == 2   ? INSTALL_NEW
			     : r == 1 ? INSTALL_UNCHANGED
				      : INSTALL_REPLACED;
		r = 0;
	}
	if (reload(o, rep)) {
		r = 1; /* the pending mark stays: the next run retries */
		goto out;
	}
	if (mark && unmark_pending(sb_str(&pend), rep->reload_err,
				   sizeof(rep->reload_err)))
		r = 1;
out:
	sb_release(&bak);
	sb_release(&pend);
	sb_release(&ufm);
	return r;
}
