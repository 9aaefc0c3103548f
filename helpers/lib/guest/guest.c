// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/atomicfile.h"
#include "core/sysfs.h"
#include "guest/context.h"
#include "guest/guest.h"
#include "guest/guestnccl.h"
#include "guest/guestapply.h"
#include "guest/guestplan.h"
#include "guest/guestsl.h"
#include "guest/guesttopo.h"
#include "core/guid.h"
#include "guest/ibport.h"
#include "guest/ipoib.h"
#include "core/log.h"
#include "guest/nicconf.h"

/* How often a port waiting for its tenant P_Key is read again. */
#define WAIT_STEP_NS 500000000L
/* How long one SA query of guest_sl may wait (twice). */
#define SA_TIMEOUT_MS 500

struct run {
	const struct guest_opts *o;
	struct context ctx;
	struct ipoib_devs devs;
	struct gstate old;
	uint32_t vmid;
	struct nic_plan *plans;
	size_t nplans;
	int lockfd;
	struct strbuf env; /* the environment file's text (guestsl.h) */
};

static void warn_line(void *arg, const char *msg)
{
	(void)arg;
	log_msg("%s", msg);
}

/* The state directory and its lock, held until the process ends. */
static int lock_state(struct run *r, char *err, size_t errlen)
{
	char path[512];
	int e;

	if (mkdir(r->o->state_dir, 0700) && errno != EEXIST) {
		e = errno;
		err_set(err, errlen, "%s: %s", r->o->state_dir, strerror(e));
		return -e;
	}
	snprintf(path, sizeof(path), "%s/lock", r->o->state_dir);
	r->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (r->lockfd < 0 || flock(r->lockfd, LOCK_EX)) {
		e = errno;
		err_set(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/* The context's oddities, one line each, the ones past the kept few counted. */
static void context_issues(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->ctx.nissues && i < CONTEXT_ISSUES_KEPT; i++)
		log_msg("%s: %s", r->o->context, r->ctx.issue[i]);
	if (r->ctx.nissues > CONTEXT_ISSUES_KEPT)
		log_msg("%s: %zu more malformed lines skipped", r->o->context,
			r->ctx.nissues - CONTEXT_ISSUES_KEPT);
}

/* Facts of dev's port, then the plan; p->nic, p->conf, p->what set. */
static void plan_with_facts(struct nic_plan *p, const struct ipoib_dev *dev)
{
	struct ib_port_facts f;
	char note[200], err[200];

	if (p->what == PLAN_CONFIGURE &&
	    ibport_query(dev->ibdev, dev->port, &f, note, sizeof(note), err,
			 sizeof(err))) {
		p->have_dev = true;
		p->dev = *dev;
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why), "%s", err);
		return;
	}
	if (p->what != PLAN_CONFIGURE) {
		plan_nic(p, dev, NULL);
		return;
	}
	if (note[0])
		plan_note(p, "%s: read from sysfs", note);
	plan_nic(p, dev, &f);
	ibport_facts_free(&f);
}

static void plan_one(struct run *r, const struct nic_ref *ref,
		     struct nic_plan *p)
{
	char err[PLAN_TEXT];
	int m;

	memset(p, 0, sizeof(*p));
	p->nic = ref->id;
	m = plan_match(&r->devs, r->vmid, ref->id);
	if (m == -1) {
		p->what = PLAN_STOCK;
		err_set(p->why, sizeof(p->why),
			"no IPoIB netdev carries the GUID of VM %u NIC %d",
			r->vmid, ref->id);
		return;
	}
	if (m == -2) {
		size_t i;

		for (i = 0; i < r->devs.n; i++)
			if (guid_is_nic(r->devs.v[i].guid, r->vmid,
					(uint16_t)ref->id))
				break;
		p->have_dev = true;
		p->dev = r->devs.v[i];
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why),
			"more than one IPoIB netdev carries its GUID");
		return;
	}
	if (nic_conf_parse(&r->ctx, ref->id, &p->conf, err, sizeof(err))) {
		p->have_dev = true;
		p->dev = r->devs.v[m];
		p->what = PLAN_ERROR;
		err_set(p->why, sizeof(p->why), "%s", err);
		return;
	}
	if (p->conf.method == NIC_SKIP) {
		p->what = PLAN_SKIP;
		err_set(p->why, sizeof(p->why), "ETH%d_METHOD skip", ref->id);
	} else {
		p->what = PLAN_CONFIGURE;
	}
	if (!ref->has_mac)
		plan_note(p, "no ETH%d_MAC in the context: matched by its GUID",
			  ref->id);
	plan_with_facts(p, &r->devs.v[m]);
}

/* IPoIB netdevs with a one-ib GUID that no NIC of the context claims. */
static void strays(const struct run *r, const struct nic_ref *refs, size_t n)
{
	size_t i, j;

	for (i = 0; i < r->devs.n; i++) {
		const struct ipoib_dev *d = &r->devs.v[i];
		char desc[GUID_DESC_LEN];
		uint32_t vmid;
		uint16_t nic;

		if (!guid_decode_nic(d->guid, NULL, &vmid, &nic))
			continue;
		guid_describe(d->guid, desc);
		if (vmid != r->vmid) {
			log_msg("%s: its GUID is %s's, this is VM %u: left "
				"alone",
				d->name, desc, r->vmid);
			continue;
		}
		for (j = 0; j < n && refs[j].id != nic; j++)
			;
		if (j == n)
			log_msg("%s: %s has no ETH%u in the context (yet): "
				"left alone",
				d->name, desc, nic);
	}
}

static int plan_all(struct run *r, char *err, size_t errlen)
{
	struct nic_ref *refs;
	size_t n, i;

	if (context_nics(&r->ctx, &refs, &n)) {
		err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->plans = calloc(n ? n : 1, sizeof(*r->plans));
	if (!r->plans) {
		free(refs);
		err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		plan_one(r, &refs[i], &r->plans[i]);
	r->nplans = n;
	strays(r, refs, n);
	free(refs);
	return 0;
}

static size_t waiting(const struct run *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nplans; i++)
		n += r->plans[i].what == PLAN_WAIT;
	return n;
}

/* Reads the waiting ports again until each has its key or time is up. */
static void wait_for_keys(struct run *r)
{
	struct timespec now, end, step = { 0, WAIT_STEP_NS };
	size_t i;

	if (!waiting(r) || r->o->wait_s <= 0)
		return;
	for (i = 0; i < r->nplans; i++)
		if (r->plans[i].what == PLAN_WAIT)
			log_msg("ETH%d %s: waiting up to %d s for the subnet "
				"manager: %s",
				r->plans[i].nic, r->plans[i].dev.name,
				r->o->wait_s, r->plans[i].why);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += r->o->wait_s;
	for (;;) {
		nanosleep(&step, NULL);
		for (i = 0; i < r->nplans; i++) {
			struct nic_plan *p = &r->plans[i];
			struct ipoib_dev dev = p->dev;
			struct nic_conf conf = p->conf;
			int nic = p->nic;

			if (p->what != PLAN_WAIT)
				continue;
			memset(p, 0, sizeof(*p));
			p->nic = nic;
			p->conf = conf;
			p->what = PLAN_CONFIGURE;
			plan_with_facts(p, &dev);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!waiting(r) || now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
	}
}

static int dry_run(const struct run *r, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int failed = 0;
	size_t i, j;

	for (i = 0; i < r->nplans; i++) {
		const struct nic_plan *p = &r->plans[i];

		for (j = 0; j < p->nnotes; j++)
			log_msg("ETH%d %s: %s", p->nic, p->dev.name,
				p->note[j]);
		sb_reset(&sb);
		if (plan_line(p, &sb))
			return -ENOMEM;
		fprintf(out, "%s\n", sb_str(&sb));
		failed += p->what == PLAN_ERROR || p->what == PLAN_WAIT;
	}
	sb_release(&sb);
	return failed;
}

/* No VMID: fine when no netdev carries a one-ib GUID, else nothing can match. */
static int no_vmid(const struct run *r, FILE *out, char *err, size_t errlen)
{
	struct nic_ref *refs;
	size_t n, i;

	for (i = 0; i < r->devs.n; i++) {
		char desc[GUID_DESC_LEN];

		if (!guid_decode_nic(r->devs.v[i].guid, NULL, NULL, NULL))
			continue;
		guid_describe(r->devs.v[i].guid, desc);
		err_set(err, errlen,
			"%s: no VMID: %s carries the GUID of %s, but without "
			"VMID=\"$VMID\" in the template's CONTEXT no NIC can "
			"be matched to it",
			r->o->context, r->devs.v[i].name, desc);
		return -ENOENT;
	}
	if (context_nics(&r->ctx, &refs, &n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fprintf(out,
			r->o->dry_run ? "ETH%d - stock no IPoIB netdev carries "
					"a one-ib GUID\n"
				      : "ETH%d: left to one-context: no IPoIB "
					"netdev carries a one-ib GUID\n",
			refs[i].id);
	free(refs);
	return 0;
}

/* The topology file (guesttopo.h): written, or removed when the context
 * has no map or a malformed one (that one line on stderr). 0 or 1. */
static int write_topology(const struct run *r, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char path[512];
	int ret = guest_topology(&r->ctx, &sb, err, errlen);

	snprintf(path, sizeof(path), "%s/" GUEST_TOPO_FILE, r->o->state_dir);
	if (!ret)
		ret = atomic_replace(path, NULL, sb.buf, sb.len, 0644, err,
				     errlen);
	else if (ret == -ENOMEM)
		err_set(err, errlen, "out of memory");
	sb_release(&sb);
	if (ret)
		unlink(path); /* a map of the past would mislead */
	if (ret && ret != -ENOENT) {
		log_msg("%s", err);
		return 1;
	}
	return 0;
}

/*
 * NCCL's files (guestnccl.h): the topology file written, or removed when no
 * NIC has a GPU beside it, and its lines added to the environment file's
 * text. Best effort: a file that cannot be written is one line, 0;
 * -ENOMEM.
 */
static int nccl_files(struct run *r, char *err, size_t errlen)
{
	struct strbuf topo = STRBUF_INIT;
	struct rail_hint *h = NULL;
	struct nccl_nic *v = NULL;
	char path[512];
	size_t nh = 0, n = 0;
	bool wrote = false;
	int ret;

	snprintf(path, sizeof(path), "%s/" GUEST_NCCL_FILE, r->o->state_dir);
	ret = nccl_oem_rails(SYS_DMI "/entries", &h, &nh);
	if (!ret)
		ret = nccl_read(r->plans, r->nplans, h, nh, &v, &n);
	if (!ret) {
		ret = nccl_topology(v, n, &topo);
		if (!ret && !atomic_replace(path, NULL, topo.buf, topo.len,
					    0644, err, errlen))
			wrote = true;
		else if (!ret)
			log_msg("%s", err);
		if (ret == -ENOENT)
			ret = 0;
	}
	if (!wrote)
		unlink(path); /* a pairing of the past would mislead */
	if (!ret)
		ret = nccl_environment(v, n, wrote ? path : NULL, &r->env);
	if (ret == -ENOMEM)
		err_set(err, errlen, "out of memory");
	sb_release(&topo);
	free(v);
	free(h);
	return ret;
}

static int run(struct run *r, FILE *out, char *err, size_t errlen)
{
	char path[512];
	struct gstate now;
	size_t i, k;
	int ret;

	if ((ret = context_load(r->o->context, &r->ctx, err, errlen)))
		return ret;
	context_issues(r);
	if (!r->o->dry_run && (ret = lock_state(r, err, errlen)))
		return ret;
	snprintf(path, sizeof(path), "%s/state", r->o->state_dir);
	if ((ret = gstate_load(path, &r->old, err, errlen)))
		return ret;
	if ((ret = ipoib_list(&r->devs, warn_line, NULL, err, errlen)))
		return ret;
	/* children oneib-context made are no parents, whatever sysfs says */
	for (i = k = 0; i < r->devs.n; i++)
		if (!gstate_is_child(&r->old, r->devs.v[i].name))
			r->devs.v[k++] = r->devs.v[i];
	r->devs.n = k;
	ret = context_vmid(&r->ctx, &r->vmid, err, errlen);
	if (ret == -ENOENT)
		return no_vmid(r, out, err, errlen);
	if (ret || (ret = plan_all(r, err, errlen)))
		return ret;
	if (!r->o->dry_run)
		wait_for_keys(r);
	for (i = 0; i < r->nplans; i++)
		guest_sl(&r->plans[i], SA_TIMEOUT_MS);
	if (guest_sl_environment(r->plans, r->nplans, &r->env)) {
		err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (r->o->dry_run)
		return dry_run(r, out);
	ret = guest_apply(r->plans, r->nplans, &r->old, &now, out, err, errlen);
	if (ret < 0)
		return ret;
	fflush(out);
	if (nccl_files(r, err, errlen) == -ENOMEM)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/" GUEST_ENV_FILE, r->o->state_dir);
	if (atomic_replace(path, NULL, r->env.buf, r->env.len, 0644, err,
			   errlen)) {
		log_msg("%s", err);
		ret++;
	}
	ret += write_topology(r, err, errlen);
	snprintf(path, sizeof(path), "%s/state", r->o->state_dir);
	if (gstate_save(path, &now, err, errlen)) {
		log_msg("%s", err);
		ret++; /* what was created cannot be taken back later */
	}
	gstate_free(&now);
	return ret;
}

int guest_run(const struct guest_opts *o, FILE *out, char *err, size_t errlen)
{
	struct run r = { .o = o, .lockfd = -1 };
	int ret = run(&r, out, err, errlen);

	context_free(&r.ctx);
	ipoib_devs_free(&r.devs);
	gstate_free(&r.old);
	free(r.plans);
	sb_release(&r.env);
	if (r.lockfd >= 0)
		close(r.lockfd);
	return ret;
}
