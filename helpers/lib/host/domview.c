// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "host/domview.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/sysfs.h"

#define VIEW_NAME "domains"
#define VIEW_MAX (4 << 20) /* 64k VFs a line each: far beyond any host */

static const char header[] = "# one-ib: VFs libvirt domains held when "
			     "oneib-vf last asked; a cache\n";

static int add_vf(struct virt_domains *out, size_t *cap,
		  const struct pci_addr *a, int vmid)
{
	struct virt_domain *d;

	if (ALLOC_GROW(out->v, out->n + 1, *cap))
		return -ENOMEM;
	d = &out->v[out->n];
	memset(d, 0, sizeof(*d));
	d->name = strdup("");
	d->pcis = malloc(sizeof(*d->pcis));
	if (!d->name || !d->pcis) {
		free(d->name);
		free(d->pcis);
		return -ENOMEM;
	}
	d->vmid = vmid;
	d->read = true;
	d->pcis[0] = *a;
	d->npcis = 1;
	out->n++;
	return 0;
}

/*
 * The view in text, if it is whole and was taken at or after since; else
 * -ESTALE (old, from another boot, torn or not ours: ask libvirt).
 */
static int parse(char *text, const char *uri, const struct boot_moment *since,
		 struct virt_domains *out)
{
	char boot[BOOT_ID_LEN + 4], vf[PCI_ADDR_STRLEN + 1], vm[16];
	char *line, *next;
	struct pci_addr a;
	uint64_t at;
	size_t cap = 0;
	bool end = false;
	int n, vmid, r = -ESTALE;

	if (strncmp(text, header, strlen(header)))
		return -ESTALE;
	line = text + strlen(header);
	next = strchr(line, '\n');
	if (!next)
		return -ESTALE;
	*next++ = '\0';
	if (sscanf(line, "boot=%39s at=%" SCNu64 "%n", boot, &at, &n) != 2 ||
	    line[n] || strcmp(boot, since->boot) || at < since->ns)
		return -ESTALE;
	/* of this libvirt: "uri=qemu:///system" */
	line = next;
	next = strchr(line, '\n');
	if (!next)
		return -ESTALE;
	*next++ = '\0';
	if (strncmp(line, "uri=", 4) || strcmp(line + 4, uri))
		return -ESTALE;
	for (line = next; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			goto fail;
		*next++ = '\0';
		if (end)
			goto fail;
		if (!strcmp(line, "end")) {
			end = true;
			continue;
		}
		if (sscanf(line, "vf=%16s vm=%15s%n", vf, vm, &n) != 2 ||
		    line[n] || pci_addr_parse(vf, &a))
			goto fail;
		if (!strcmp(vm, "-"))
			vmid = -1;
		else if (dec_parse_int(vm, &vmid))
			goto fail;
		r = add_vf(out, &cap, &a, vmid);
		if (r)
			goto fail;
		r = -ESTALE;
	}
	if (end)
		return 0;
fail:
	virt_domains_free(out);
	return r;
}

static int format(const char *uri, const struct virt_domains *d,
		  const struct boot_moment *at, struct strbuf *sb)
{
	char vf[PCI_ADDR_STRLEN];
	size_t i, j;
	int r;

	r = sb_adds(sb, header);
	if (!r)
		r = sb_addf(sb, "boot=%s at=%" PRIu64 "\nuri=%s\n", at->boot,
			    at->ns, uri);
	for (i = 0; i < d->n && !r; i++) {
		for (j = 0; j < d->v[i].npcis && !r; j++) {
			pci_addr_fmt(&d->v[i].pcis[j], vf);
			if (d->v[i].vmid >= 0)
				r = sb_addf(sb, "vf=%s vm=%d\n", vf,
					    d->v[i].vmid);
			else
				r = sb_addf(sb, "vf=%s vm=-\n", vf);
		}
	}
	if (!r)
		r = sb_adds(sb, "end\n");
	return r;
}

/* Best effort: a view that cannot be written is simply not shared. */
static void store(int fd, const char *uri, const struct virt_domains *d,
		  const struct boot_moment *at)
{
	struct strbuf sb = STRBUF_INIT;
	size_t off = 0;

	if (strchr(uri, '\n') || format(uri, d, at, &sb) || ftruncate(fd, 0))
		goto out;
	while (off < sb.len) {
		ssize_t w = pwrite(fd, sb.buf + off, sb.len - off, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
out:
	sb_release(&sb);
}

/*
 * The view's shared memory object, "/oneib-view-<hash>", one per ledger
 * (its directory's device and inode: every simulated host's ledger is
 * another) and user; the view names its libvirt URI. -1 when it cannot be shared:
 * no such directory, or an object another user made (only one we own and
 * nobody else may write is ever believed).
 */
static int view_open(const char *dir)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	char name[64];
	struct stat st;
	uint64_t key[3];
	size_t i;
	int fd;

	if (stat(dir, &st))
		return -1;
	key[0] = (uint64_t)st.st_dev;
	key[1] = (uint64_t)st.st_ino;
	key[2] = (uint64_t)geteuid();
	for (i = 0; i < sizeof(key); i++)
		h = (h ^ ((const unsigned char *)key)[i]) * 1099511628211ull;
	snprintf(name, sizeof(name), "/oneib-view-%016" PRIx64, h);
	fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_size > VIEW_MAX) {
		close(fd);
		return -1;
	}
	return fd;
}

int domview_get(const char *dir, const char *uri,
		const struct boot_moment *since, virt_need_xml need, void *ctx,
		struct virt_domains *out, char *err, size_t errlen)
{
	struct strbuf text = STRBUF_INIT;
	struct boot_moment at;
	int fd = since->boot[0] ? view_open(dir) : -1;
	struct stat st;
	int r;

	out->v = NULL;
	out->n = 0;
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 &&
	    !sb_grow(&text, (size_t)st.st_size)) {
		ssize_t n = pread(fd, text.buf, (size_t)st.st_size, 0);

		if (n == st.st_size) {
			text.len = (size_t)n;
			text.buf[n] = '\0';
			if (parse(text.buf, uri, since, out) == 0) {
				sb_release(&text);
				close(fd);
				return 0;
			}
		}
	}
	sb_release(&text);
	/* Stale or absent: ask libvirt, from now on. */
	boot_now(&at);
	r = virt_scan(uri, need, ctx, out, err, errlen);
	if (!r && fd >= 0 && at.boot[0])
		store(fd, uri, out, &at);
	if (fd >= 0)
		close(fd);
	return r;
}
