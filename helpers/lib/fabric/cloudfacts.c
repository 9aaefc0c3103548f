// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
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
	free(f->ibnets);
	free(f->nics);
	for (i = 0; i < f->nhosts; i++) {
		free(f->hosts[i].pf);
		free(f->hosts[i].ports);
		free(f->hosts[i].leaves);
		free(f->hosts[i].vms);
		free(f->hosts[i].rails);
		free(f->hosts[i].pcis);
	}
	free(f->hosts);
	free(f->vms);
	free(f->vmpcis);
	for (i = 0; i < f->ntexts; i++)
		free(f->texts[i]);
	free(f->texts);
	memset(f, 0, sizeof(*f));
}

int cloud_facts_text(struct cloud_facts *f, const char *s)
{
	if (ALLOC_GROW(f->texts, f->ntexts + 1, f->captexts) ||
	    !(f->texts[f->ntexts] = strdup(s ? s : "")))
		return -ENOMEM;
	return (int)f->ntexts++;
}

/* One more element of the array v (n used, cap allocated), zeroed; NULL
 * on ENOMEM. */
#define NEW_ZEROED(v, n, cap)                                                  \
	(ALLOC_GROW(v, (n) + 1, cap) ? NULL                                    \
				     : memset(&(v)[(n)++], 0, sizeof(*(v))))

struct vnet_fact *cloud_facts_new_vnet(struct cloud_facts *f)
{
	struct vnet_fact *v = NEW_ZEROED(f->v, f->nv, f->capv);

	if (v) {
		v->bad = FACT_NONE;
		v->parent = -1;
	}
	return v;
}

struct vnet_claim *cloud_facts_new_claim(struct cloud_facts *f)
{
	return NEW_ZEROED(f->claims, f->nclaims, f->capclaims);
}

struct nic_fact *cloud_facts_new_nic(struct cloud_facts *f)
{
	struct nic_fact *n = NEW_ZEROED(f->nics, f->nnics, f->capnics);

	if (n) {
		n->nic = n->net = FACT_NONE;
		n->bad = n->bad_mac = FACT_NONE;
		n->host = FACT_NONE;
	}
	return n;
}

struct host_fact *cloud_facts_new_host(struct cloud_facts *f)
{
	return NEW_ZEROED(f->hosts, f->nhosts, f->caphosts);
}

struct vm_fact *cloud_facts_new_vm(struct cloud_facts *f)
{
	struct vm_fact *v = NEW_ZEROED(f->vms, f->nvms, f->capvms);

	if (v) {
		v->req = FACT_NONE;
		v->net = FACT_NONE;
		v->topo = FACT_NONE;
	}
	return v;
}

int cloud_facts_add_ibnet(struct cloud_facts *f, int net, bool has_ip,
			  uint32_t ip)
{
	struct vm_fact *v = f->nvms ? &f->vms[f->nvms - 1] : NULL;

	if (!v || ALLOC_GROW(f->ibnets, f->nibnets + 1, f->capibnets))
		return -ENOMEM;
	if (!v->nibnet)
		v->ibnet = f->nibnets;
	f->ibnets[f->nibnets++] =
		(struct vm_ibnet){ .net = net, .has_ip = has_ip, .ip = ip };
	v->nibnet++;
	return 0;
}

int cloud_facts_add_vmpci(struct cloud_facts *f, const struct vm_pci *p)
{
	struct vm_fact *v = f->nvms ? &f->vms[f->nvms - 1] : NULL;

	if (!v || ALLOC_GROW(f->vmpcis, f->nvmpcis + 1, f->capvmpcis))
		return -ENOMEM;
	if (!v->npci)
		v->pci = f->nvmpcis;
	f->vmpcis[f->nvmpcis++] = *p;
	v->npci++;
	return 0;
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
