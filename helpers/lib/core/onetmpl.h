/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writing OpenNebula template attributes (what probes and vnet_create print):
 *
 *   IB_SRIOV="YES"
 *   IB_PF=[ ADDRESS="0000:3b:00.0", PORT="1" ]
 *
 * Values are double-quoted the way OpenNebula's template parser reads
 * them back ('"' as \", see onetmpl.c), so no value can end the attribute
 * early or spoil the template, whatever sysfs or a damaged file holds.
 */
#ifndef ONEIB_ONETMPL_H
#define ONEIB_ONETMPL_H

#include <stdbool.h>
#include <stdio.h>

void tmpl_attr(FILE *f, const char *key, const char *value);
void tmpl_attr_long(FILE *f, const char *key, long long value);

struct tmpl_vec {
	FILE *f;
	bool first;
};

void tmpl_vec_begin(struct tmpl_vec *v, FILE *f, const char *name);
void tmpl_vec_add(struct tmpl_vec *v, const char *key, const char *value);
void tmpl_vec_add_long(struct tmpl_vec *v, const char *key, long long value);
void tmpl_vec_end(struct tmpl_vec *v);

#endif
