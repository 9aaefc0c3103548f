// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "core/conffile.h"
#include "core/log.h"
#include "fabric/desired.h"
#include "root/qospolicy.h"

int desired_sls(struct desired *d, const char *sls, const char *best_effort,
		char *err, size_t errlen)
{
	if (!sls && best_effort) {
		err_set(err, errlen, "--sl-best-effort without --sls");
		return -EINVAL;
	}
	if (!sls)
		return 0;
	if (sl_opts_parse(sls, best_effort, &d->so, err, errlen))
		return -EINVAL;
	d->o.sls = &d->so;
	return 0;
}

int desired_static(struct desired *d, const char *path, char *err,
		   size_t errlen)
{
	int r = partitions_read_static(path, &d->st, err, errlen);

	if (r)
		return r;
	d->o.stat = &d->st;
	d->o.stat_label = path;
	return 0;
}

int desired_installed(struct desired *d, const char *text, size_t len,
		      char *err, size_t errlen)
{
	char why[512] = "", names[512];

	partitions_free(&d->inst);
	d->o.installed = NULL;
	if (!len)
		return 0;
	if (partconf_parse_as("the installed partitions.conf", text, len,
			      PARTCONF_ANY, &d->inst, why, sizeof(why))) {
		err_set(err, errlen,
			"%s: one-ib replaces only a file it can read; move its "
			"partitions into the static file (one-ib-fabric(7))",
			why);
		return -EINVAL;
	}
	if (partitions_foreign(&d->inst, d->o.stat, names, sizeof(names))) {
		err_set(err, errlen,
			"the installed partitions.conf holds partitions one-ib "
			"did not write: %s; move them into the static file "
			"(ONEIB_PARTITIONS_STATIC), then run again "
			"(one-ib-fabric(7))",
			names);
		partitions_free(&d->inst);
		return -EINVAL;
	}
	d->o.installed = &d->inst;
	return 0;
}

int desired_installed_file(struct desired *d, const char *path, char *err,
			   size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	int r = sb_read_file(&sb, path, CONFFILE_MAX);

	if (r)
		err_set(err, errlen, "--installed %.200s: %s", path,
			strerror(-r));
	else
		r = desired_installed(d, sb.buf, sb.len, err, errlen);
	sb_release(&sb);
	return r;
}

int desired_build(const struct desired *d, const struct cloud_facts *f,
		  struct partitions *m, struct partitions_plan *plan, char *err,
		  size_t errlen)
{
	return partitions_desired_plan(f, &d->o, m, plan, err, errlen);
}

int desired_text(const struct partitions *m, struct strbuf *out, char *err,
		 size_t errlen)
{
	size_t at = out->len;
	int r = partconf_render(m, out);

	if (r) {
		err_set(err, errlen, "out of memory");
		return r;
	}
	/* never hand on a file the grammar reads differently */
	return partconf_check(out->buf + at, out->len - at, m, err, errlen);
}

int desired_policy(const struct desired *d, const struct partitions *m,
		   struct strbuf *out, char *err, size_t errlen)
{
	struct qos_policy q, back;
	size_t at = out->len;
	int r = qospolicy_from_partitions(m, d->o.sls ? d->so.best_effort : 0,
					  &q);

	if (!r)
		r = qospolicy_render(&q, out);
	qospolicy_free(&q);
	if (r) {
		err_set(err, errlen, "out of memory");
		return r;
	}
	/* never hand on a policy the installer would refuse */
	r = qospolicy_canonical(out->buf + at, out->len - at, &back, err,
				errlen);
	qospolicy_free(&back);
	return r;
}

void desired_free(struct desired *d)
{
	partitions_free(&d->inst);
	partitions_free(&d->st);
	d->o.installed = NULL;
	d->o.stat = NULL;
}
