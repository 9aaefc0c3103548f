/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pool readers behind poolread.h, one per pool: the SAX engine
 * (poolread.c) builds each <VM>, <HOST> or <VNET> with only what they read
 * and hands it to its reader (poolvm.c, poolhost.c, poolvnet.c), which
 * turns it into facts; poolelem.c has what they share. Not for other
 * callers: poolread.h is the way in.
 */
#ifndef ONEIB_POOLELEM_H
#define ONEIB_POOLELEM_H

#include <stdbool.h>
#include <stddef.h>

#include <libxml/tree.h>

#include "core/log.h"
#include "fabric/cloudfacts.h"

/* The number of the only child called name: 0, -ENOENT or -EINVAL. */
int pool_leaf_uint(const xmlNode *parent, const char *name, int *out);
/* Does the only child called name hold want? */
bool pool_leaf_is(const xmlNode *parent, const char *name, const char *want);
/* The <ID> of the nth element of pool kind: 0, or -EINVAL with err. */
int pool_elem_id(const xmlNode *e, int kind, size_t nth, int *id, char *err,
		 size_t errlen);
/* A text kept in the facts; *at its index. 0 or -ENOMEM. */
int pool_keep(struct cloud_facts *f, int *at, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);

/* One pool element into its facts: 0, or -EINVAL / -ENOMEM with err. */
int pool_vm_element(const xmlNode *vm, struct cloud_facts *f, char *err,
		    size_t errlen);
int pool_host_element(const xmlNode *host, struct cloud_facts *f, char *err,
		      size_t errlen);
int pool_vnet_element(const xmlNode *c, struct cloud_facts *f, char *err,
		      size_t errlen);

#endif
