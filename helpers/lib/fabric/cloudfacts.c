// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/cloudfacts.h"

void cloud_facts_free(struct cloud_facts *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nv; i++)
		free(f->v[i].clusters);
	free(f->v);
	free(f->claims);
	free(f->nics);
	for (i = 0; i < f->nhosts; i++)
		free(f->hosts[i].pf);
	free(f->hosts);
	for (i = 0; i < f->ntexts; i++)
		free(f->texts[i]);
	free(f->texts);
	memset(f, 0, sizeof(*f));
}

/* One more element of size at *v (n used, *cap allocated). */
static void *grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *nv = realloc(*v, ncap * size);

		if (!nv)
			return NULL;
		*v = nv;
		*cap = ncap;
	}
	return (char *)*v + n * size;
}

int cloud_facts_text(struct cloud_facts *f, const char *s)
{
	char **slot = grow((void **)&f->texts, &f->captexts, f->ntexts,
			   sizeof(*f->texts));

	if (!slot || !(*slot = strdup(s ? s : "")))
		return -ENOMEM;
	return (int)f->ntexts++;
}

struct vnet_fact *cloud_facts_new_vnet(struct cloud_facts *f)
{
	struct vnet_fact *v =
		grow((void **)&f->v, &f->capv, f->nv, sizeof(*f->v));

	if (v) {
		memset(v, 0, sizeof(*v));
		v->bad = FACT_NONE;
		f->nv++;
	}
	return v;
}

struct vnet_claim *cloud_facts_new_claim(struct cloud_facts *f)
{
	struct vnet_claim *c = grow((void **)&f->claims, &f->capclaims,
				    f->nclaims, sizeof(*f->claims));

	if (c) {
		memset(c, 0, sizeof(*c));
		f->nclaims++;
	}
	return c;
}

struct nic_fact *cloud_facts_new_nic(struct cloud_facts *f)
{
	struct nic_fact *n = grow((void **)&f->nics, &f->capnics, f->nnics,
				  sizeof(*f->nics));

	if (n) {
		memset(n, 0, sizeof(*n));
		n->nic = n->net = FACT_NONE;
		n->bad = n->bad_mac = FACT_NONE;
		f->nnics++;
	}
	return n;
}

struct host_fact *cloud_facts_new_host(struct cloud_facts *f)
{
	struct host_fact *h = grow((void **)&f->hosts, &f->caphosts, f->nhosts,
				   sizeof(*f->hosts));

	if (h) {
		memset(h, 0, sizeof(*h));
		f->nhosts++;
	}
	return h;
}

void vnet_fact_label(const struct vnet_fact *v, char buf[VNET_LABEL_MAX])
{
	if (v->name.s[0])
		snprintf(buf, VNET_LABEL_MAX, "VNET %d (%s)", v->id, v->name.s);
	else
		snprintf(buf, VNET_LABEL_MAX, "VNET %d", v->id);
}

int cloud_facts_complete(const struct cloud_facts *f, unsigned want, char *err,
			 size_t errlen)
{
	int k;

	for (k = 0; k < POOL_KINDS; k++)
		if ((want & (1u << k)) && !f->docs[k]) {
			err_set(err, errlen,
				"no <%s> in the input (onevm/onehost/onevnet "
				"list -x)",
				pool_root_name[k]);
			return -EINVAL;
		}
	return 0;
}
