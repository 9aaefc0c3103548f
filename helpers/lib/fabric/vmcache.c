// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/xml.h"
#include "fabric/poolread.h"
#include "fabric/vmcache.h"

#define VM_STATE_DONE 6

struct kept {
	int id;
	size_t seq; /* read order: the later of one ID wins */
	bool done; /* STATE DONE: it left the cloud */
	char *xml;
	int len;
};

struct cache {
	struct kept *v;
	size_t n, cap;
	const int *refresh;
	size_t nrefresh;
	long next; /* above every ID read */
	bool first; /* reading the first file */
};

static bool refreshed(const struct cache *c, int id)
{
	size_t i;

	for (i = 0; i < c->nrefresh; i++)
		if (c->refresh[i] == id)
			return true;
	return false;
}

static int keep_vm(void *arg, int id, const xmlNode *vm, char *err,
		   size_t errlen)
{
	struct cache *c = arg;
	xmlBufferPtr b;
	struct kept *k;
	char *st = NULL;
	int state = -1;

	if (id >= c->next)
		c->next = (long)id + 1;
	if (c->first && refreshed(c, id))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct kept *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		c->v = v;
		c->cap = cap;
	}
	b = xmlBufferCreate();
	if (!b || xmlNodeDump(b, vm->doc, (xmlNode *)vm, 0, 0) < 0) {
		xmlBufferFree(b);
		goto nomem;
	}
	k = &c->v[c->n];
	k->id = id;
	k->seq = c->n;
	if (!xml_only_leaf(vm, "STATE", &st))
		(void)dec_parse_int(st, &state);
	free(st);
	k->done = state == VM_STATE_DONE;
	k->len = xmlBufferLength(b);
	/* exactly its bytes: a buffer holds 4 kB at least */
	k->xml = malloc((size_t)k->len);
	if (k->xml)
		memcpy(k->xml, xmlBufferContent(b), (size_t)k->len);
	xmlBufferFree(b);
	if (!k->xml)
		goto nomem;
	c->n++;
	return 0;
nomem:
	err_set(err, errlen, "VM %d: out of memory", id);
	return -ENOMEM;
}

static int by_id_then_seq(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int vmcache_write(FILE *out, int n, char *const *paths, const int *refresh,
		  size_t nrefresh, char *err, size_t errlen)
{
	struct cache c = { .refresh = refresh, .nrefresh = nrefresh };
	size_t i;
	int f, r = 0;

	err[0] = '\0';
	for (f = 0; f < n && !r; f++) {
		c.first = f == 0;
		r = poolread_vms(paths[f], keep_vm, &c, err, errlen);
	}
	if (!r) {
		if (c.n)
			qsort(c.v, c.n, sizeof(*c.v), by_id_then_seq);
		fprintf(out, "<!-- next VM ID: %ld -->\n<VM_POOL>", c.next);
		for (i = 0; i < c.n; i++) {
			if (i + 1 < c.n && c.v[i + 1].id == c.v[i].id)
				continue; /* a later one of this ID follows */
			if (!c.v[i].done)
				fwrite(c.v[i].xml, 1, (size_t)c.v[i].len, out);
		}
		fputs("</VM_POOL>\n", out);
		if (fflush(out) || ferror(out)) {
			err_set(err, errlen, "cannot write the VM listing: %s",
				strerror(errno));
			r = -EIO;
		}
	}
	for (i = 0; i < c.n; i++)
		free(c.v[i].xml);
	free(c.v);
	return r;
}
