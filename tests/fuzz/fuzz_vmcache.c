// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the VM listing the front-end hook keeps (fabric/vmcache.h),
 * from any bytes read as a VM listing (a tenant writes names, requirements
 * and context values): no crash, no leak, a refusal always leaves an error
 * line; what it keeps is kept again unchanged (a fixed point, so an event's
 * run starts from exactly what the last run kept), and read back gives the
 * facts the listing gives: as many VMs (one per ID, DONE ones aside) and
 * NICs, each VM with its state, IB NICs, network, requirement and map.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/poolread.h"
#include "fabric/vmcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* bytes into a file of their own (vmcache_write reads paths) */
static char *file_of(const char *bytes, size_t len)
{
	char *path = strdup("/tmp/fuzz_vmcache.XXXXXX");
	int fd = path ? mkstemp(path) : -1;

	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len)
		abort();
	close(fd);
	return path;
}

/* vmcache of bytes: 0 and the kept listing in *out, or the refusal */
static int kept(const char *bytes, size_t len, char **out, size_t *outlen)
{
	char *path = file_of(bytes, len), err[256] = "";
	FILE *o = open_memstream(out, outlen);
	int r;

	if (!o)
		abort();
	r = vmcache_write(o, 1, &path, NULL, 0, err, sizeof(err));
	fclose(o);
	unlink(path);
	free(path);
	if (r && !err[0])
		abort();
	return r;
}

static const char *text(const struct cloud_facts *f, int i)
{
	return i < 0 ? "" : f->texts[i];
}

static int by_id(const void *a, const void *b)
{
	const struct vm_fact *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The facts of the listing (unique IDs, none DONE) and of what is kept. */
static void same_facts(const char *listing, size_t len, const char *body,
		       size_t bodylen)
{
	struct cloud_facts a = { 0 }, b = { 0 };
	char err[256];
	size_t i;

	if (poolread_mem(&a, POOL_VM, listing, len, "listing", err,
			 sizeof(err)))
		goto out;
	for (i = 0; i < a.nvms; i++)
		if (a.vms[i].state == 6 ||
		    (i && a.vms[i].id <= a.vms[i - 1].id))
			goto out; /* not ascending and unique: not compared */
	if (poolread_mem(&b, POOL_VM, body, bodylen, "kept", err, sizeof(err)))
		abort(); /* kept from a listing the reader reads */
	if (a.nvms != b.nvms || a.nnics != b.nnics)
		abort();
	qsort(a.vms, a.nvms, sizeof(*a.vms), by_id);
	for (i = 0; i < a.nvms; i++) {
		const struct vm_fact *x = &a.vms[i], *y = &b.vms[i];

		if (x->id != y->id || x->state != y->state ||
		    x->ib_nics != y->ib_nics || x->net != y->net ||
		    x->has_ip != y->has_ip || x->context != y->context ||
		    strcmp(text(&a, x->req), text(&b, y->req)) ||
		    strcmp(text(&a, x->topo), text(&b, y->topo)))
			abort();
	}
out:
	cloud_facts_free(&a);
	cloud_facts_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *once = NULL, *twice = NULL, *body;
	size_t len1 = 0, len2 = 0;

	if (kept((const char *)data, size, &once, &len1))
		goto out;
	if (kept(once, len1, &twice, &len2) || len1 != len2 ||
	    memcmp(once, twice, len1))
		abort();
	body = memchr(once, '\n', len1);
	if (!body)
		abort();
	body++;
	same_facts((const char *)data, size, body,
		   len1 - (size_t)(body - once));
out:
	free(once);
	free(twice);
	return 0;
}
