// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/vfcount.h"

/* The term, up to its count: TERM_HEAD "N" */
#define TERM_HEAD                                                              \
	"\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = "      \
	"TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > "

static int by_id(const void *a, const void *b)
{
	const struct vm_fact *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

void vfcount_prepare(struct cloud_facts *f)
{
	if (f->nvms > 1)
		qsort(f->vms, f->nvms, sizeof(*f->vms), by_id);
}

int vfcount_host(const struct cloud_facts *f, const struct host_fact *h,
		 long out[HC_COUNT])
{
	long used = 0, sum = 0;
	size_t i;

	for (i = 0; i < h->nvms; i++) {
		const struct vm_fact key = { .id = h->vms[i] }, *v;

		v = bsearch(&key, f->vms, f->nvms, sizeof(*f->vms), by_id);
		if (!v)
			return -ENOENT;
		used += v->ib_nics;
		sum += v->id;
	}
	out[HC_USABLE] = h->count[HC_USABLE] < 0 ? 0 : h->count[HC_USABLE];
	out[HC_USED] = used;
	out[HC_AVAIL] = out[HC_USABLE] > used ? out[HC_USABLE] - used : 0;
	out[HC_SYNC_VMS] = (long)h->nvms;
	out[HC_SYNC_SUM] = sum;
	return 0;
}

bool vfcount_current(const struct host_fact *h, const long want[HC_COUNT])
{
	int k;

	for (k = HC_USED; k < HC_COUNT; k++)
		if (h->count[k] != want[k])
			return false;
	return true;
}

/* PENDING, HOLD, STOPPED, UNDEPLOYED: the scheduler places it (again). */
static bool to_be_placed(int state)
{
	return state == 1 || state == 2 || state == 4 || state == 9;
}

/*
 * The count of the term req starts with (and where what follows it
 * starts), or -1 when it does not start with the term.
 */
static long term_count(const char *req, const char **rest)
{
	size_t n = strlen(TERM_HEAD);
	char *end;
	long k;

	if (strncmp(req, TERM_HEAD, n) || req[n] < '0' || req[n] > '9')
		return -1;
	k = strtol(req + n, &end, 10);
	*rest = end;
	return k;
}

int vfcount_requirement(const struct cloud_facts *f, const struct vm_fact *v,
			char **out, char *err, size_t errlen)
{
	const char *old = v->req == FACT_NONE ? "" : f->texts[v->req];
	const char *rest = NULL, *user = old;
	struct strbuf sb = STRBUF_INIT;
	size_t ulen;
	long had;

	*out = NULL;
	if (!v->ib_nics || !to_be_placed(v->state))
		return 0;
	had = term_count(old, &rest);
	if (had == v->ib_nics - 1)
		return 0;
	if (had >= 0) {
		/* ours, for another count: keep what the user wrote */
		user = "";
		if (!strncmp(rest, " & (", 4) && strlen(rest) > 5 &&
		    rest[strlen(rest) - 1] == ')')
			user = rest + 4;
		else if (*rest) {
			err_set(err, errlen,
				"VM %d: SCHED_REQUIREMENTS starts with "
				"one-ib's "
				"VF term but goes on unlike it: left as it is",
				v->id);
			return -EINVAL;
		}
	}
	if (strpbrk(old, "\n\r\\")) {
		err_set(err, errlen,
			"VM %d: SCHED_REQUIREMENTS holds a newline or a "
			"backslash: the free-VF term is not added",
			v->id);
		return -EINVAL;
	}
	ulen = strlen(user);
	if (had >= 0 && ulen)
		ulen--; /* the closing parenthesis of " & (...)" */
	if (sb_addf(&sb, TERM_HEAD "%d", v->ib_nics - 1) ||
	    (ulen && (sb_adds(&sb, " & (") || sb_add(&sb, user, ulen) ||
		      sb_adds(&sb, ")")))) {
		sb_release(&sb);
		return -ENOMEM;
	}
	*out = sb.buf;
	return 1;
}
