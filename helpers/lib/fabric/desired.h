/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What render, plan, verify and the front-end's run (sync.h) share: how
 * the cloud becomes the partitions opensm should have (design decisions
 * 7, 11, 13), around the model of partitions.h:
 *   desired_sls        ONEIB_SLS and ONEIB_SL_BEST_EFFORT
 *   desired_static     the operator's static file, strictly its rules, or
 *                      nothing is rendered
 *   desired_installed  the file installed now, which a network left out
 *                      keeps; adoption: a file that does not read, or
 *                      that holds partitions one-ib did not write and the
 *                      static file does not hold, is never replaced
 *   desired_build      the cloud's facts into the model (and the SL plan)
 *   desired_text       the model as partitions.conf, checked as the root
 *                      installer will check it
 *   desired_policy     opensm's QoS policy for the model, its default the
 *                      best-effort SL, checked the same way
 */
#ifndef ONEIB_DESIRED_H
#define ONEIB_DESIRED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"
#include "fabric/cloudfacts.h"
#include "fabric/partitions.h"
#include "fabric/slplan.h"
#include "root/partconf.h"

struct desired {
	struct render_opts o; /* cloud id, legacy GUIDs, hosts partition */
	struct sl_opts so;
	struct partitions inst, st; /* what o points to */
};

/* sls NULL: no plan (each network's IB_SL alone). 0 or -EINVAL, err. */
int desired_sls(struct desired *d, const char *sls, const char *best_effort,
		char *err, size_t errlen);

/* 0 or -errno with one line in err, e.g.
 *   /etc/one/ib/partitions.static.conf line 4: ALL=full would make every tenant VF a full member of infra (0x0105) */
int desired_static(struct desired *d, const char *path, char *err,
		   size_t errlen);

/*
 * The installed file's text (empty: none yet). 0, or -EINVAL with one
 * line in err:
 *   the installed partitions.conf holds partitions one-ib did not write: lab (0x0300); move them into the static file (ONEIB_PARTITIONS_STATIC), then run again (one-ib-fabric(7))
 * Call desired_static first: its partitions are one-ib's to carry.
 */
int desired_installed(struct desired *d, const char *text, size_t len,
		      char *err, size_t errlen);
/* The same from a file ("--installed FILE"). */
int desired_installed_file(struct desired *d, const char *path, char *err,
			   size_t errlen);

/* partitions_desired_plan with d's settings (plan may be NULL). */
int desired_build(const struct desired *d, const struct cloud_facts *f,
		  struct partitions *m, struct partitions_plan *plan, char *err,
		  size_t errlen);

/* m as partitions.conf, appended to out. 0, or -EINVAL / -ENOMEM, err. */
int desired_text(const struct partitions *m, struct strbuf *out, char *err,
		 size_t errlen);

/* opensm's QoS policy for m, appended to out. 0, or -EINVAL / -ENOMEM. */
int desired_policy(const struct desired *d, const struct partitions *m,
		   struct strbuf *out, char *err, size_t errlen);

void desired_free(struct desired *d);

#endif
