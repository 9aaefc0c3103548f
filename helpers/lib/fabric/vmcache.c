// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/poolread.h"
#include "fabric/vmcache.h"

#define VM_STATE_DONE 6

struct kept {
	int id;
	size_t seq; /* read order: the later of one ID wins */
	bool done; /* STATE DONE: it left the cloud */
	char *xml;
	size_t len;
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

/* One VM kept: its bytes copied. */
static int keep(struct cache *c, int id, bool done, const char *xml, size_t len,
		char *err, size_t errlen)
{
	struct kept *k;

	if (ALLOC_GROW(c->v, c->n + 1, c->cap))
		goto nomem;
	k = &c->v[c->n];
	k->id = id;
	k->seq = c->n;
	k->done = done;
	k->len = len;
	k->xml = malloc(len ? len : 1);
	if (!k->xml)
		goto nomem;
	memcpy(k->xml, xml, len);
	c->n++;
	return 0;
nomem:
	err_set(err, errlen, "VM %d: out of memory", id);
	return -ENOMEM;
}

/* A <VM> as the pool reader keeps it (poolread_vm_fn). */
static int keep_vm(void *arg, int id, int state, const xmlNode *vm, char *err,
		   size_t errlen)
{
	struct cache *c = arg;
	xmlBufferPtr b;
	int r;

	if (id >= c->next)
		c->next = (long)id + 1;
	if (c->first && refreshed(c, id))
		return 0;
	b = xmlBufferCreate();
	if (!b || xmlNodeDump(b, vm->doc, (xmlNode *)vm, 0, 0) < 0) {
		xmlBufferFree(b);
		err_set(err, errlen, "VM %d: out of memory", id);
		return -ENOMEM;
	}
	r = keep(c, id, state == VM_STATE_DONE,
		 (const char *)xmlBufferContent(b), (size_t)xmlBufferLength(b),
		 err, errlen);
	xmlBufferFree(b);
	return r;
}

/* What vmcache writes (vmcache.h): the head, the records, the end. */
#define KEPT_HEAD "<!-- next VM ID: "
#define KEPT_POOL " -->\n<VM_POOL>\n"
#define KEPT_END "</VM_POOL>\n"

/* A decimal number at *p (at most 10 digits), *p moved past it; -1 if none. */
static long number(const char **p, const char *end)
{
	long v = 0;
	int n = 0;

	while (*p < end && **p >= '0' && **p <= '9' && n < 10) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n ? v : -1;
}

static bool literal(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/*
 * The records of a listing vmcache wrote, copied (the first file's, the
 * refreshed ones aside): 0; 1 when the file is not one (it is parsed);
 * -EINVAL with err set when it starts as one and is not.
 */
static int read_kept(struct cache *c, const char *path, char *err,
		     size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char head[sizeof(KEPT_HEAD)] = "";
	const char *p, *end, *rec;
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : NULL;
	long next, id, len;
	int r = 1;

	if (!f)
		return 1; /* the parser says why */
	if (fread(head, 1, sizeof(head) - 1, f) != sizeof(head) - 1 ||
	    strcmp(head, KEPT_HEAD)) {
		fclose(f);
		return 1;
	}
	rewind(f);
	r = sb_read(&sb, f, (size_t)1 << 32);
	fclose(f);
	if (r) {
		err_set(err, errlen, "%.200s: %s", path, strerror(-r));
		sb_release(&sb);
		return r;
	}
	p = sb.buf + strlen(KEPT_HEAD);
	end = sb.buf + sb.len;
	next = number(&p, end);
	if (next < 0 || !literal(&p, end, KEPT_POOL))
		goto bad;
	if (next > c->next)
		c->next = next;
	while (!literal(&p, end, KEPT_END)) {
		if (!literal(&p, end, "<!-- ") || (id = number(&p, end)) < 0 ||
		    id > INT32_MAX || !literal(&p, end, " ") ||
		    (len = number(&p, end)) < 0 || !literal(&p, end, " -->") ||
		    len > end - p)
			goto bad;
		/* the VM the record says (its ID as the reader reads it) */
		rec = p;
		if (len < 5 || !literal(&rec, p + len, "<VM><ID>") ||
		    number(&rec, p + len) != id ||
		    !literal(&rec, p + len, "</ID>") ||
		    memcmp(p + len - 5, "</VM>", 5) || p + len == end ||
		    p[len] != '\n' || id >= next)
			goto bad;
		if (!refreshed(c, (int)id)) {
			r = keep(c, (int)id, false, p, (size_t)len, err,
				 errlen);
			if (r)
				goto out;
		}
		p += len + 1;
	}
	if (p != end)
		goto bad;
	r = 0;
	goto out;
bad:
	err_set(err, errlen, "%.200s: byte %zu: not a VM listing vmcache kept",
		path, (size_t)(p - sb.buf));
	r = -EINVAL;
out:
	sb_release(&sb);
	return r;
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
		r = c.first ? read_kept(&c, paths[f], err, errlen) : 1;
		if (r == 1)
			r = poolread_vms(paths[f], keep_vm, &c, err, errlen);
	}
	if (!r) {
		if (c.n)
			qsort(c.v, c.n, sizeof(*c.v), by_id_then_seq);
		fprintf(out, KEPT_HEAD "%ld" KEPT_POOL, c.next);
		for (i = 0; i < c.n; i++) {
			if (i + 1 < c.n && c.v[i + 1].id == c.v[i].id)
				continue; /* a later one of this ID follows */
			if (c.v[i].done)
				continue;
			fprintf(out, "<!-- %d %zu -->", c.v[i].id, c.v[i].len);
			fwrite(c.v[i].xml, 1, c.v[i].len, out);
			fputc('\n', out);
		}
		fputs(KEPT_END, out);
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

long vmcache_next_id(const char *path)
{
	char head[64];
	const char *p, *end;
	FILE *f = fopen(path, "re");
	size_t n;
	long next;

	if (!f)
		return -1;
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	p = head;
	end = head + n;
	if (!literal(&p, end, KEPT_HEAD))
		return -1;
	next = number(&p, end);
	return next >= 0 && literal(&p, end, KEPT_POOL) ? next : -1;
}
