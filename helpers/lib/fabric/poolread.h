/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reads OpenNebula pool listings into cloud facts (cloudfacts.h), the one
 * reader of `onevm list -x`, `onehost list -x` and `onevnet list -x`, for
 * the partitions renderer and for vnet_create's view of the other networks.
 *
 * Documents are read one at a time, in any order and any number per pool
 * (a pool listed in pages), by libxml2's SAX2 parser: of each child (<VM>,
 * <HOST>, <VNET>) only the values the facts need are built, and freed once
 * its facts are kept; the rest (most of a listing) is tokenized and
 * dropped. They are untrusted (tenants choose names and values): no DTD,
 * no entity, no network; every refusal is one line.
 */
#ifndef ONEIB_POOLREAD_H
#define ONEIB_POOLREAD_H

#include <stddef.h>

#include <libxml/tree.h>

#include "fabric/cloudfacts.h"

/*
 * One document through read, a libxml2 xmlInputReadCallback (e.g.
 * pool_stream_read). expect: the pool it must be, or -1 for any; what names
 * it in errors ("standard input", "VNET pool"). 0, or -EINVAL / -ENOMEM with
 * one line in err, e.g.
 *   VM pool: VM element 3 has no single <ID>
 *   HOST 3 (node03): IB_PF PORT_GUID '0x0002c9zz00a1b2c1' is not a GUID
 * After an error the facts are incomplete: only free them.
 */
int poolread_doc(struct cloud_facts *f, int expect,
		 int (*read)(void *ctx, char *buf, int len), void *ctx,
		 const char *what, char *err, size_t errlen);

/* One document held in memory. */
int poolread_mem(struct cloud_facts *f, int expect, const char *xml, size_t len,
		 const char *what, char *err, size_t errlen);

/*
 * Every document of the files given ("-" or none: standard input), one
 * after another as `{ onevm list -x; onehost list -x; onevnet list -x; }`
 * prints them (pools.h finds where each ends).
 */
int poolread_files(struct cloud_facts *f, int expect, int n, char *const *paths,
		   char *err, size_t errlen);

/*
 * The <VM> elements of the VM_POOL documents in the file path ("-":
 * standard input) one at a time, in document order, each as the reader
 * keeps it (only what the facts are made of: fabric/vmcache.h writes them
 * out), with its ID and STATE (-1 when it has none), to each; what each
 * returns non-zero stops the reading and is returned, with err set.
 */
typedef int (*poolread_vm_fn)(void *arg, int id, int state, const xmlNode *vm,
			      char *err, size_t errlen);
int poolread_vms(const char *path, poolread_vm_fn each, void *arg, char *err,
		 size_t errlen);

#endif
