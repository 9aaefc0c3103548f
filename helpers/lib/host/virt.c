// SPDX-License-Identifier: Apache-2.0
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>

#include "host/domxml.h"
#include "host/virt.h"

/*
 * libvirt is loaded when a scan needs it, not when the program starts:
 * linking it costs every run of oneib-vf ~12 ms of dynamic linking (56
 * shared libraries) before main, also for the commands that never talk to
 * libvirt. The table holds the entry points once loaded; the types come
 * from libvirt's own header, so a mismatch fails the build.
 */
struct virt_api {
	__typeof__(virSetErrorFunc) *set_error_func;
	__typeof__(virConnectOpenReadOnly) *open_ro;
	__typeof__(virConnectClose) *close;
	__typeof__(virConnectListAllDomains) *list_all;
	__typeof__(virDomainGetName) *dom_name;
	__typeof__(virDomainGetXMLDesc) *dom_xml;
	__typeof__(virDomainFree) *dom_free;
	__typeof__(virGetLastError) *last_error;
	__typeof__(virGetLastErrorCode) *last_error_code;
};

#define VIRT_SYM(api, field, name)                                             \
	((api)->field = (__typeof__((api)->field))dlsym(h, name)) != NULL

/* The table, loaded on first use (the same every time after). */
static const struct virt_api *virt_load(char *err, size_t errlen)
{
	static struct virt_api api;
	static bool loaded;
	void *h;

	if (loaded)
		return &api;
	h = dlopen("libvirt.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load libvirt: %s", dlerror());
		return NULL;
	}
	if (!(VIRT_SYM(&api, set_error_func, "virSetErrorFunc") &&
	      VIRT_SYM(&api, open_ro, "virConnectOpenReadOnly") &&
	      VIRT_SYM(&api, close, "virConnectClose") &&
	      VIRT_SYM(&api, list_all, "virConnectListAllDomains") &&
	      VIRT_SYM(&api, dom_name, "virDomainGetName") &&
	      VIRT_SYM(&api, dom_xml, "virDomainGetXMLDesc") &&
	      VIRT_SYM(&api, dom_free, "virDomainFree") &&
	      VIRT_SYM(&api, last_error, "virGetLastError") &&
	      VIRT_SYM(&api, last_error_code, "virGetLastErrorCode"))) {
		snprintf(err, errlen, "cannot load libvirt: %s", dlerror());
		return NULL; /* h stays open: dlclose of libvirt is not safe */
	}
	loaded = true;
	return &api;
}

static void free_names(char **names, int n)
{
	int i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* libvirt prints every error on stderr by default; we report our own line. */
static void quiet(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;
}

int virt_vmid_of(const char *name)
{
	char *end;
	long v;

	if (strncmp(name, "one-", 4) || name[4] < '0' || name[4] > '9')
		return -1;
	errno = 0;
	v = strtol(name + 4, &end, 10);
	if (*end || errno || v > INT_MAX)
		return -1;
	return (int)v;
}

static const char *last_error(const struct virt_api *api)
{
	virErrorPtr e = api->last_error();

	return e && e->message ? e->message : "unknown libvirt error";
}

static int scan_domain(const struct virt_api *api, virDomainPtr dom,
		       bool active, bool paused, virt_need_xml need, void *ctx,
		       struct virt_domain *d, char *err, size_t errlen)
{
	const char *name = api->dom_name(dom);
	enum virt_read how;
	struct domxml *dx;
	char *xml;
	int r;

	d->name = strdup(name ? name : "");
	if (!d->name)
		return -ENOMEM;
	d->vmid = virt_vmid_of(d->name);
	d->active = active;
	d->paused = paused;
	how = need ? need(d->name, d->vmid, ctx) : VIRT_READ;
	if (how == VIRT_SKIP)
		return 0;
	xml = api->dom_xml(dom, 0);
	if (!xml) {
		/* Vanished between listing and asking: holds nothing now. Any
		 * other failure must not make its VFs look free. */
		if (api->last_error_code() == VIR_ERR_NO_DOMAIN)
			return 0;
		snprintf(err, errlen, "cannot read domain %s from libvirt: %s",
			 d->name, last_error(api));
		return -EIO;
	}
	d->read = true;
	r = domxml_parse(xml, strlen(xml), &dx, err, errlen);
	if (!r)
		r = domxml_pci_hostdevs(dx, &d->pcis, &d->npcis, err, errlen);
	domxml_free(dx);
	if (!r && how == VIRT_READ_KEEP)
		d->xml = xml;
	else
		free(xml);
	return r;
}

/*
 * The names of the domains listed with flags, e.g. the running ones: one
 * round trip for all, where asking each domain its state is one each.
 */
static int list_names(const struct virt_api *api, virConnectPtr conn,
		      unsigned flags, char ***names, int *n)
{
	virDomainPtr *doms = NULL;
	int i, k = api->list_all(conn, &doms, flags);

	*names = NULL;
	*n = 0;
	if (k < 0)
		return -EIO;
	*names = calloc(k ? (size_t)k : 1, sizeof(**names));
	for (i = 0; i < k; i++) {
		const char *name = api->dom_name(doms[i]);

		if (*names && name && ((*names)[*n] = strdup(name)))
			(*n)++;
		api->dom_free(doms[i]);
	}
	free(doms);
	if (!*names || *n != k) {
		free_names(*names, *n);
		*names = NULL;
		*n = 0;
		return -ENOMEM;
	}
	return 0;
}

static bool named(char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/*
 * Reading the domains' XML is one round trip each, and reconcile reads
 * every domain: on a host with 100 it is most of the time spent. libvirt's
 * connection takes calls from several threads at once, and the daemon
 * serves up to max_client_requests (5 by default) of them in parallel, so a
 * few readers share the list. Every domain is still read; a failure of any
 * one fails the scan.
 */
#define SCAN_READERS 4
#define SCAN_PER_READER 8 /* fewer domains than this each: one reader */

struct scan_job {
	const struct virt_api *api;
	virDomainPtr *doms;
	int n;
	char *const *active, *const *paused;
	int nactive, npaused;
	virt_need_xml need;
	void *ctx;
	struct virt_domain *out;
	atomic_int next;
	atomic_bool failed;
	pthread_mutex_t mu; /* guards r and err */
	int r;
	char err[512];
};

static void *scan_reader(void *arg)
{
	struct scan_job *j = arg;
	char err[sizeof(j->err)];
	int i;

	while (!atomic_load(&j->failed) &&
	       (i = atomic_fetch_add(&j->next, 1)) < j->n) {
		const char *name = j->api->dom_name(j->doms[i]);
		int r;

		err[0] = '\0';
		r = scan_domain(j->api, j->doms[i],
				named(j->active, j->nactive, name),
				named(j->paused, j->npaused, name), j->need,
				j->ctx, &j->out[i], err, sizeof(err));
		if (r) {
			pthread_mutex_lock(&j->mu);
			if (!j->r) {
				j->r = r;
				snprintf(j->err, sizeof(j->err), "%s",
					 err[0] ? err : "out of memory");
			}
			pthread_mutex_unlock(&j->mu);
			atomic_store(&j->failed, true);
		}
	}
	return NULL;
}

/* Reads doms[0..n) into out[0..n) with up to SCAN_READERS threads. */
static int scan_all(struct scan_job *j, char *err, size_t errlen)
{
	pthread_t t[SCAN_READERS - 1];
	int k, started = 0, want = j->n / SCAN_PER_READER;

	if (want > SCAN_READERS)
		want = SCAN_READERS;
	if (want > 1)
		xmlInitParser(); /* once, before threads parse (domxml.c) */
	for (k = 0; k + 1 < want; k++)
		if (!pthread_create(&t[k], NULL, scan_reader, j))
			started++;
	scan_reader(j); /* this thread reads too; alone if none started */
	for (k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	if (j->r)
		snprintf(err, errlen, "%s", j->err);
	return j->r;
}

int virt_scan(const char *uri, virt_need_xml need, void *ctx,
	      struct virt_domains *out, char *err, size_t errlen)
{
	const struct virt_api *api;
	virDomainPtr *doms = NULL;
	char **active = NULL, **paused = NULL;
	int nactive = 0, npaused = 0;
	virConnectPtr conn;
	int i, n, r = 0;

	out->v = NULL;
	out->n = 0;
	api = virt_load(err, errlen);
	if (!api)
		return -ENOENT;
	api->set_error_func(NULL, quiet);
	conn = api->open_ro(uri);
	if (!conn) {
		snprintf(err, errlen, "cannot connect to libvirt at %s: %s",
			 uri, last_error(api));
		return -ECONNREFUSED;
	}
	n = api->list_all(conn, &doms, 0);
	if (n < 0 ||
	    list_names(api, conn, VIR_CONNECT_LIST_DOMAINS_ACTIVE, &active,
		       &nactive) ||
	    list_names(api, conn, VIR_CONNECT_LIST_DOMAINS_PAUSED, &paused,
		       &npaused)) {
		snprintf(err, errlen, "cannot list libvirt domains at %s: %s",
			 uri, last_error(api));
		r = -EIO;
		n = n < 0 ? 0 : n;
	}
	if (!r) {
		out->v = calloc(n ? (size_t)n : 1, sizeof(*out->v));
		if (!out->v)
			r = -ENOMEM;
	}
	if (!r) {
		struct scan_job j = {
			.api = api,
			.doms = doms,
			.n = n,
			.active = active,
			.nactive = nactive,
			.paused = paused,
			.npaused = npaused,
			.need = need,
			.ctx = ctx,
			.out = out->v,
		};

		atomic_init(&j.next, 0);
		atomic_init(&j.failed, false);
		pthread_mutex_init(&j.mu, NULL);
		out->n = (size_t)n; /* unread entries are zero: free is safe */
		r = scan_all(&j, err, errlen);
		pthread_mutex_destroy(&j.mu);
	}
	for (i = 0; i < n; i++)
		api->dom_free(doms[i]);
	free(doms);
	free_names(active, nactive);
	free_names(paused, npaused);
	api->close(conn);
	if (r)
		virt_domains_free(out);
	return r;
}

void virt_domains_free(struct virt_domains *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].pcis);
		free(d->v[i].xml);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}
