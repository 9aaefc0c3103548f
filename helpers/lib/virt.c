// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "domxml.h"
#include "virt.h"

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

static const char *last_error(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

static int scan_domain(virDomainPtr dom, struct virt_domain *d, char *err,
		       size_t errlen)
{
	const char *name = virDomainGetName(dom);
	char *xml;
	int r, state;

	d->name = strdup(name ? name : "");
	if (!d->name)
		return -ENOMEM;
	d->vmid = virt_vmid_of(d->name);
	d->active = virDomainIsActive(dom) == 1;
	d->paused = virDomainGetState(dom, &state, NULL, 0) == 0 &&
		    state == VIR_DOMAIN_PAUSED;
	xml = virDomainGetXMLDesc(dom, 0);
	if (!xml) {
		/* Vanished between listing and asking: holds nothing now. Any
		 * other failure must not make its VFs look free. */
		if (virGetLastErrorCode() == VIR_ERR_NO_DOMAIN)
			return 0;
		snprintf(err, errlen, "cannot read domain %s from libvirt: %s",
			 d->name, last_error());
		return -EIO;
	}
	r = domxml_pci_hostdevs(xml, strlen(xml), &d->pcis, &d->npcis, err,
				errlen);
	free(xml);
	return r;
}

int virt_scan(const char *uri, struct virt_domains *out, char *err,
	      size_t errlen)
{
	virDomainPtr *doms = NULL;
	virConnectPtr conn;
	int i, n, r = 0;

	out->v = NULL;
	out->n = 0;
	virSetErrorFunc(NULL, quiet);
	conn = virConnectOpenReadOnly(uri);
	if (!conn) {
		snprintf(err, errlen, "cannot connect to libvirt at %s: %s",
			 uri, last_error());
		return -ECONNREFUSED;
	}
	n = virConnectListAllDomains(conn, &doms, 0);
	if (n < 0) {
		snprintf(err, errlen, "cannot list libvirt domains at %s: %s",
			 uri, last_error());
		virConnectClose(conn);
		return -EIO;
	}
	out->v = calloc(n ? (size_t)n : 1, sizeof(*out->v));
	if (!out->v)
		r = -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!r) {
			r = scan_domain(doms[i], &out->v[out->n], err, errlen);
			out->n++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	virConnectClose(conn);
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
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

const struct virt_domain *virt_pci_user(const struct virt_domains *d,
					const struct pci_addr *a)
{
	size_t i, j;

	for (i = 0; i < d->n; i++)
		for (j = 0; j < d->v[i].npcis; j++)
			if (!pci_addr_cmp(&d->v[i].pcis[j], a))
				return &d->v[i];
	return NULL;
}

const struct virt_domain *virt_find_vm(const struct virt_domains *d, int vmid)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].vmid == vmid)
			return &d->v[i];
	return NULL;
}
