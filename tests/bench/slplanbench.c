// SPDX-License-Identifier: Apache-2.0
/*
 * slplanbench: the SL plan's own cost (design decision 13), for make bench
 * (b41), on a cloud read once from its pool listings:
 *
 *   slplanbench 20 1-7 vms.xml hosts.xml vnets.xml
 *   -> runs=20 nets=1000 with_vms=1000 nics=14940 hosts=391 leaves=22
 *      shared=964 clashes=50 plan_p50_ms=1.902 plan_p99_ms=2.311
 *      replan_p50_ms=1.751 replan_p99_ms=2.004 partitions_p50_ms=20.112
 *      partitions_sls_p50_ms=22.430
 *
 *   plan        sl_plan_make over the networks and hosts partitions.h hands
 *               it, no SL installed (every network new)
 *   replan      the same with the first plan's SLs installed (every network
 *               keeps its SL: the steady state)
 *   partitions  partitions_desired without and with --sls (render's whole
 *               model of the cloud, without reading the XML)
 *
 * Times are wall milliseconds (CLOCK_MONOTONIC), median and p99 over the
 * runs; one line on stdout. Exit 1 when the cloud does not read or a plan
 * fails, 2 on wrong usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/guid.h"
#include "fabric/partitions.h"
#include "fabric/poolread.h"
#include "fabric/slplan.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts t; its median and p99 (ranks n/2 and n*99/100, as runstat). */
static void stats(double *t, long n, double *p50, double *p99)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	*p50 = t[n / 2];
	*p99 = t[n * 99 / 100 < n - 1 ? n * 99 / 100 : n - 1];
}

/* Distinct known leaves of the cloud's hosts. */
static size_t count_leaves(const struct slplan_host *h, size_t n)
{
	uint64_t *all;
	size_t i, j, k = 0, d = 0;

	for (i = 0; i < n; i++)
		k += h[i].nleaves;
	all = calloc(k + 1, sizeof(*all));
	if (!all)
		return 0;
	for (i = 0, k = 0; i < n; i++)
		for (j = 0; j < h[i].nleaves; j++)
			if (h[i].leaves[j])
				all[k++] = h[i].leaves[j];
	qsort(all, k, sizeof(*all), guid_cmp);
	for (i = 0; i < k; i++)
		d += !i || all[i] != all[i - 1];
	free(all);
	return d;
}

/* Runs of sl_plan_make over nets as pp holds them, into t. */
static int time_plans(const struct partitions_plan *pp,
		      const struct slplan_net *nets, size_t nhosts,
		      const struct sl_opts *so, long runs, double *t)
{
	long i;

	for (i = 0; i < runs; i++) {
		struct sl_plan p;
		double t0 = now_ms();
		int r = sl_plan_make(nets, pp->plan.n, pp->h, nhosts, so, &p);

		t[i] = now_ms() - t0;
		if (r)
			return r;
		sl_plan_free(&p);
	}
	return 0;
}

/* Runs of partitions_desired(_plan) with o, into t. */
static int time_partitions(const struct cloud_facts *f,
			   const struct render_opts *o, long runs, double *t,
			   char *err, size_t errlen)
{
	long i;

	for (i = 0; i < runs; i++) {
		struct partitions m;
		struct partitions_plan pp;
		double t0 = now_ms();
		int r = partitions_desired_plan(f, o, &m, &pp, err, errlen);

		t[i] = now_ms() - t0;
		if (r)
			return r;
		partitions_free(&m);
		partitions_plan_free(&pp);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cloud_facts f = { 0 };
	struct render_opts o = { 0 }, os;
	struct partitions m = { 0 };
	struct partitions_plan pp = { 0 };
	struct slplan_net *kept = NULL;
	struct sl_opts so;
	double *t = NULL, p50[4], p99[4];
	char err[512] = "", *end;
	size_t i, nics = 0, with_vms = 0;
	long runs;
	int r;

	if (argc < 4) {
		fprintf(stderr, "usage: slplanbench RUNS SLS XML...\n");
		return 2;
	}
	runs = strtol(argv[1], &end, 10);
	if (*end || runs < 1 || runs > 100000) {
		fprintf(stderr, "slplanbench: bad count '%s'\n", argv[1]);
		return 2;
	}
	if (sl_opts_parse(argv[2], NULL, &so, err, sizeof(err))) {
		fprintf(stderr, "slplanbench: %s\n", err);
		return 2;
	}
	os = o;
	os.sls = &so;
	t = calloc((size_t)runs, sizeof(*t));
	r = t ? poolread_files(&f, -1, argc - 3, argv + 3, err, sizeof(err))
	      : -ENOMEM;
	/* the networks and hosts as render hands them to the plan */
	if (!r)
		r = partitions_desired_plan(&f, &os, &m, &pp, err, sizeof(err));
	if (!r) {
		kept = calloc(pp.plan.n + 1, sizeof(*kept));
		r = kept ? 0 : -ENOMEM;
	}
	for (i = 0; !r && i < pp.plan.n; i++) {
		kept[i] = pp.nets[i];
		kept[i].installed = pp.plan.c[i].sl;
		pp.nets[i].installed = -1;
		nics += pp.nets[i].nhosts;
		with_vms += pp.nets[i].nhosts > 0;
	}
	if (!r)
		r = time_plans(&pp, pp.nets, f.nhosts, &so, runs, t);
	if (!r) {
		stats(t, runs, &p50[0], &p99[0]);
		r = time_plans(&pp, kept, f.nhosts, &so, runs, t);
	}
	if (!r) {
		stats(t, runs, &p50[1], &p99[1]);
		r = time_partitions(&f, &o, runs, t, err, sizeof(err));
	}
	if (!r) {
		stats(t, runs, &p50[2], &p99[2]);
		r = time_partitions(&f, &os, runs, t, err, sizeof(err));
	}
	if (!r) {
		stats(t, runs, &p50[3], &p99[3]);
		printf("runs=%ld nets=%zu with_vms=%zu nics=%zu hosts=%zu "
		       "leaves=%zu shared=%zu clashes=%zu plan_p50_ms=%.3f "
		       "plan_p99_ms=%.3f replan_p50_ms=%.3f replan_p99_ms=%.3f "
		       "partitions_p50_ms=%.3f partitions_sls_p50_ms=%.3f\n",
		       runs, pp.plan.n, with_vms, nics, f.nhosts,
		       count_leaves(pp.h, f.nhosts), pp.plan.nshared,
		       pp.plan.nclash, p50[0], p99[0], p50[1], p99[1], p50[2],
		       p50[3]);
	} else {
		fprintf(stderr, "slplanbench: %s\n", *err ? err : strerror(-r));
	}
	free(kept);
	free(t);
	partitions_plan_free(&pp);
	partitions_free(&m);
	cloud_facts_free(&f);
	return r ? 1 : 0;
}
