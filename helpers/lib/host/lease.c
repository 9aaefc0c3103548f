// SPDX-License-Identifier: Apache-2.0
/*
 * The lease ledger (see lease.h for the files and the format).
 *
 * A commit replaces the file through leases.tmp.<pid> (atomic_replace,
 * core/atomicfile.h: written, fsync'ed, renamed over leases, directory
 * fsync'ed), so a writer killed with -9 or a host losing power at any
 * instant leaves the old ledger or the new one. A killed writer may leave
 * leases.tmp.<pid> behind; the next ledger_open removes it, since holding
 * the exclusive lock proves no writer is alive.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/guid.h"
#include "core/atomicfile.h"
#include "host/lease.h"
#include "core/sysfs.h"

#define LEASES_NAME "leases"
#define LOCK_NAME "leases.lock"
#define TMP_PREFIX "leases.tmp."

#define PORT_MAX 255 /* ibv port_num is a u8 */

static const char header[] = "# one-ib VF leases, written by oneib-vf under "
			     "flock; "
			     "see oneib-vf(8) before editing by hand\n";

/* Bytes a domain name keeps on the line; every other byte becomes %XX. */
static bool domain_plain(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || (c && strchr("._+:@-", c));
}

/* "legacy db\n" -> "legacy%20db%0A" */
static int domain_encode(const char *s, struct strbuf *out)
{
	int r = 0;

	for (; *s && !r; s++) {
		if (domain_plain(*s))
			r = sb_add(out, s, 1);
		else
			r = sb_addf(out, "%%%02X", (unsigned char)*s);
	}
	return r;
}

/*
 * "legacy%20db" -> "legacy db". -EINVAL for a byte the encoder never leaves
 * raw, a broken escape ("%2", "%zz"), "%00" (it would cut the name short),
 * an empty name or one longer than LEASE_DOMAIN_MAX - 1 bytes.
 */
static int domain_decode(const char *s, char out[LEASE_DOMAIN_MAX])
{
	size_t n = 0;
	int c, hi, lo;

	while (*s) {
		if (*s == '%') {
			hi = hex_digit(s[1]);
			lo = hi < 0 ? -1 : hex_digit(s[2]);
			if (lo < 0)
				return -EINVAL;
			c = hi * 16 + lo;
			if (c == 0)
				return -EINVAL;
			s += 3;
		} else if (domain_plain(*s)) {
			c = (unsigned char)*s++;
		} else {
			return -EINVAL;
		}
		if (n + 1 >= LEASE_DOMAIN_MAX)
			return -EINVAL;
		out[n++] = (char)c;
	}
	if (n == 0)
		return -EINVAL;
	out[n] = '\0';
	return 0;
}

/* Decimal digits only, 0..max: "42" yes; "+42", " 42", "0x2a", "" no. */
static int parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* vm=42 -> 42, vm=- -> -1 (adopted) */
static int parse_id(const char *s, int *out)
{
	uint64_t v;

	if (!strcmp(s, "-")) {
		*out = -1;
		return 0;
	}
	if (parse_dec(s, INT_MAX, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/*
 * A value as an error message shows it: printable ASCII as is, other bytes
 * as %XX, so the message stays one line even for the "\r" an editor left
 * ("1763784000\r" -> "1763784000%0D"); cut after 64 bytes.
 */
static void show(const char *s, char *buf, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < 64 && s[i] && n + 4 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c > 0x20 && c < 0x7f)
			buf[n++] = (char)c;
		else
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", c);
	}
	if (s[i] && n + 4 < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}

/* What every lease in memory satisfies, so each one can be written back. */
static int lease_check(const struct lease *x)
{
	if (x->port < 1 || x->port > PORT_MAX || x->since < 0)
		return -EINVAL;
	if (x->vmid < -1 || x->nic_id < -1 || (x->vmid < 0) != (x->nic_id < 0))
		return -EINVAL;
	if (!memchr(x->domain, '\0', sizeof(x->domain)))
		return -EINVAL;
	/* up and owner mean something only in their boot */
	if (x->boot[0] ? !boot_id_valid(x->boot)
		       : x->up || x->owner.pid || x->owner.start)
		return -EINVAL;
	if (x->owner.pid < 0 || (lease_adopted(x) && x->owner.pid))
		return -EINVAL;
	if (lease_adopted(x))
		return x->domain[0] && !x->mac && !x->guid && !x->pkey.raw &&
				       !x->reserved
			       ? 0
			       : -EINVAL;
	return !x->domain[0] && !(x->mac >> 48) ? 0 : -EINVAL;
}

int lease_format(const struct lease *x, struct strbuf *out)
{
	char vf[PCI_ADDR_STRLEN], pf[PCI_ADDR_STRLEN];
	int r;

	r = lease_check(x);
	if (r)
		return r;
	pci_addr_fmt(&x->vf, vf);
	pci_addr_fmt(&x->pf, pf);
	r = sb_addf(out, "vf=%s pf=%s port=%d ", vf, pf, x->port);
	if (r)
		return r;
	if (lease_adopted(x)) {
		r = sb_adds(out, "vm=- nic=- domain=");
		if (!r)
			r = domain_encode(x->domain, out);
	} else {
		char mac[MAC_STRLEN], guid[GUID_STRLEN], pkey[PKEY_STRLEN];

		mac_fmt(x->mac, mac);
		guid_fmt_hex(x->guid, guid);
		pkey_fmt(x->pkey, pkey);
		r = sb_addf(out, "vm=%d nic=%d mac=%s guid=%s pkey=%s", x->vmid,
			    x->nic_id, mac, guid, pkey);
	}
	if (r)
		return r;
	r = sb_addf(out, " since=%" PRId64, x->since);
	if (!r && x->boot[0])
		r = sb_addf(out, " boot=%s up=%" PRIu64, x->boot, x->up);
	if (!r && x->owner.pid)
		r = sb_addf(out, " owner=%ld/%" PRIu64, x->owner.pid,
			    x->owner.start);
	if (!r && x->reserved)
		r = sb_adds(out, " state=reserved");
	return r;
}

enum key {
	K_VF,
	K_PF,
	K_PORT,
	K_VM,
	K_NIC,
	K_MAC,
	K_GUID,
	K_PKEY,
	K_DOMAIN,
	K_SINCE,
	K_BOOT,
	K_UP,
	K_OWNER,
	K_STATE,
	K_COUNT
};

static const char *const key_name[K_COUNT] = {
	"vf",	"pf",	  "port",  "vm",   "nic", "mac",   "guid",
	"pkey", "domain", "since", "boot", "up",  "owner", "state",
};

/* Keys of the NIC form ("vm=42 ... mac=...") and of the adopted form. */
#define KEYS_COMMON                                                            \
	(1u << K_VF | 1u << K_PF | 1u << K_PORT | 1u << K_VM | 1u << K_NIC |   \
	 1u << K_SINCE)
#define KEYS_NIC (1u << K_MAC | 1u << K_GUID | 1u << K_PKEY)
#define KEYS_NIC_OPTIONAL (1u << K_STATE | 1u << K_OWNER)
#define KEYS_ADOPTED (1u << K_DOMAIN)
/* Either form; absent on lines of one-ib 1.x (no boot-relative time). */
#define KEYS_ANY_OPTIONAL (1u << K_BOOT | 1u << K_UP)

/* Lowest key in a mask, -1 for none: names the first missing or extra key. */
static int first_key(unsigned mask)
{
	int k;

	for (k = 0; k < K_COUNT; k++)
		if (mask & 1u << k)
			return k;
	return -1;
}

/* The value of key k into x; -EINVAL when it does not fit. */
static int parse_value(enum key k, const char *s, struct lease *x)
{
	uint64_t v;
	int r;

	switch (k) {
	case K_VF:
		return pci_addr_parse(s, &x->vf);
	case K_PF:
		return pci_addr_parse(s, &x->pf);
	case K_PORT:
		r = parse_dec(s, PORT_MAX, &v);
		if (r || v < 1)
			return -EINVAL;
		x->port = (int)v;
		return 0;
	case K_VM:
		return parse_id(s, &x->vmid);
	case K_NIC:
		return parse_id(s, &x->nic_id);
	case K_MAC:
		return mac_parse(s, &x->mac);
	case K_GUID:
		return guid_parse_hex(s, &x->guid);
	case K_PKEY:
		return pkey_parse(s, &x->pkey);
	case K_DOMAIN:
		return domain_decode(s, x->domain);
	case K_SINCE:
		if (parse_dec(s, INT64_MAX, &v))
			return -EINVAL;
		x->since = (int64_t)v;
		return 0;
	case K_BOOT:
		if (!boot_id_valid(s))
			return -EINVAL;
		memcpy(x->boot, s, BOOT_ID_LEN);
		return 0;
	case K_UP:
		return parse_dec(s, INT64_MAX, &x->up);
	case K_OWNER: {
		/* "4242/8641100": pid / start time in clock ticks */
		char pid[24];
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : 0;

		if (!n || n >= sizeof(pid))
			return -EINVAL;
		memcpy(pid, s, n);
		pid[n] = '\0';
		if (parse_dec(pid, INT_MAX, &v) || v < 1 ||
		    parse_dec(slash + 1, INT64_MAX, &x->owner.start))
			return -EINVAL;
		x->owner.pid = (long)v;
		return 0;
	}
	case K_STATE:
		/* the only state written: a lease without one is leased */
		if (strcmp(s, "reserved"))
			return -EINVAL;
		x->reserved = true;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * One lease line (modified in place: tokens are cut at the spaces) into x;
 * -EINVAL with the reason in why.
 */
static int parse_line(char *line, struct lease *x, char *why, size_t whylen)
{
	const char *val[K_COUNT] = { NULL };
	char shown[256];
	unsigned seen = 0, want;
	char *p = line, *sp, *eq;
	int k;

	memset(x, 0, sizeof(*x));
	for (;;) {
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		if (!*p) {
			err_set(why, whylen, "empty field (stray space)");
			return -EINVAL;
		}
		eq = strchr(p, '=');
		if (!eq) {
			show(p, shown, sizeof(shown));
			err_set(why, whylen, "'%s' is not key=value", shown);
			return -EINVAL;
		}
		*eq = '\0';
		for (k = 0; k < K_COUNT && strcmp(p, key_name[k]); k++)
			;
		if (k == K_COUNT) {
			show(p, shown, sizeof(shown));
			err_set(why, whylen, "unknown key '%s'", shown);
			return -EINVAL;
		}
		if (seen & 1u << k) {
			err_set(why, whylen, "duplicate key '%s'", key_name[k]);
			return -EINVAL;
		}
		seen |= 1u << k;
		val[k] = eq + 1;
		if (!sp)
			break;
		p = sp + 1;
	}

	k = first_key(KEYS_COMMON & ~seen);
	if (k >= 0) {
		err_set(why, whylen, "missing %s", key_name[k]);
		return -EINVAL;
	}
	for (k = 0; k < K_COUNT; k++) {
		if (val[k] && parse_value((enum key)k, val[k], x)) {
			show(val[k], shown, sizeof(shown));
			err_set(why, whylen, "bad %s '%s'", key_name[k], shown);
			return -EINVAL;
		}
	}

	if ((x->vmid < 0) != (x->nic_id < 0)) {
		err_set(why, whylen, "vm and nic must both be '-' or both ids");
		return -EINVAL;
	}
	want = lease_adopted(x) ? KEYS_ADOPTED : KEYS_NIC;
	k = first_key(want & ~seen);
	if (k >= 0) {
		err_set(why, whylen, "missing %s", key_name[k]);
		return -EINVAL;
	}
	/* "vm=- ... mac=..." or "vm=42 ... domain=...": which one is meant? */
	k = first_key(seen & ~(KEYS_COMMON | want | KEYS_ANY_OPTIONAL |
			       (lease_adopted(x) ? 0 : KEYS_NIC_OPTIONAL)));
	if (k >= 0) {
		err_set(why, whylen, "%s not allowed with vm=%s", key_name[k],
			val[K_VM]);
		return -EINVAL;
	}
	/* up and owner count in a boot: "boot=... up=..." or neither */
	if (!(seen & 1u << K_BOOT) != !(seen & 1u << K_UP)) {
		err_set(why, whylen, "boot and up go together");
		return -EINVAL;
	}
	if ((seen & 1u << K_OWNER) && !(seen & 1u << K_BOOT)) {
		err_set(why, whylen, "owner needs boot");
		return -EINVAL;
	}
	return 0;
}

static int lease_cmp(const void *a, const void *b)
{
	const struct lease *x = a, *y = b;

	return pci_addr_cmp(&x->vf, &y->vf);
}

int ledger_parse(struct ledger *l, const char *text,
		 const char *name_for_errors, char *err, size_t errlen)
{
	char line[LEASE_LINE_MAX + 1], why[512], vf[PCI_ADDR_STRLEN];
	struct lease *v = NULL;
	unsigned *lineno = NULL, no = 0;
	size_t n = 0, cap = 0, capno = 0, len, i;
	const char *p = text, *eol;
	int r = 0;

	while (*p) {
		no++;
		eol = strchr(p, '\n');
		len = eol ? (size_t)(eol - p) : strlen(p);
		if (len > LEASE_LINE_MAX) {
			err_set(err, errlen,
				"ledger %s line %u: longer than %d bytes",
				name_for_errors, no, LEASE_LINE_MAX);
			r = -EINVAL;
			goto out;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol ? eol + 1 : p + len;
		if (line[0] == '#' || strspn(line, " \t\r") == len)
			continue;

		if (ALLOC_GROW(v, n + 1, cap) ||
		    ALLOC_GROW(lineno, n + 1, capno)) {
			err_set(err, errlen, "ledger %s: out of memory",
				name_for_errors);
			r = -ENOMEM;
			goto out;
		}
		if (parse_line(line, &v[n], why, sizeof(why))) {
			err_set(err, errlen, "ledger %s line %u: %s",
				name_for_errors, no, why);
			r = -EINVAL;
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (pci_addr_cmp(&v[i].vf, &v[n].vf))
				continue;
			pci_addr_fmt(&v[n].vf, vf);
			err_set(err, errlen,
				"ledger %s line %u: duplicate vf %s (also line "
				"%u)",
				name_for_errors, no, vf, lineno[i]);
			r = -EINVAL;
			goto out;
		}
		lineno[n++] = no;
	}

	if (n > 1)
		qsort(v, n, sizeof(*v), lease_cmp);
	free(l->v);
	l->v = v;
	l->n = n;
	l->cap = cap;
	v = NULL;
out:
	free(v);
	free(lineno);
	return r;
}

/* <dir>/leases into l; an absent file is an empty ledger. */
static int load(struct ledger *l, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char path[PATH_MAX];
	const char *nul;
	unsigned no = 1;
	ssize_t got;
	int fd, r;

	r = path_fmt(path, sizeof(path), "%s/" LEASES_NAME, l->dir);
	if (r) {
		err_set(err, errlen, "ledger %s: path too long", l->dir);
		return r;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ENOENT)
			return 0;
		err_set(err, errlen, "open %s: %s", path, strerror(-r));
		return r;
	}
	for (;;) {
		r = sb_grow(&sb, 8192);
		if (r) {
			err_set(err, errlen, "read %s: %s", path, strerror(-r));
			goto out;
		}
		got = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			err_set(err, errlen, "read %s: %s", path, strerror(-r));
			goto out;
		}
		if (got == 0)
			break;
		sb.len += (size_t)got;
		sb.buf[sb.len] = '\0';
	}
	/* The parser sees a C string: a NUL would hide every line after it. */
	nul = memchr(sb.buf, '\0', sb.len);
	if (nul) {
		for (const char *c = sb.buf; c < nul; c++)
			no += *c == '\n';
		err_set(err, errlen, "ledger %s line %u: NUL byte", path, no);
		r = -EINVAL;
		goto out;
	}
	r = ledger_parse(l, sb_str(&sb), path, err, errlen);
out:
	close(fd);
	sb_release(&sb);
	return r;
}

static int ledger_init(struct ledger *l, const char *dir, char *err,
		       size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->lock_fd = -1;
	if (strlen(dir) >= sizeof(l->dir)) {
		err_set(err, errlen, "ledger directory name too long");
		return -ENAMETOOLONG;
	}
	memcpy(l->dir, dir, strlen(dir) + 1);
	return 0;
}

/* leases.tmp.<pid> of writers killed mid-commit; only under the lock. */
static int remove_leftovers(const struct ledger *l, char *err, size_t errlen)
{
	struct dirent *e;
	DIR *d;
	int r = 0;

	d = opendir(l->dir);
	if (!d) {
		r = -errno;
		err_set(err, errlen, "open %s: %s", l->dir, strerror(-r));
		return r;
	}
	errno = 0;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) &&
		    unlinkat(dirfd(d), e->d_name, 0) && errno != ENOENT) {
			r = -errno;
			err_set(err, errlen, "remove %s/%s: %s", l->dir,
				e->d_name, strerror(-r));
			break;
		}
		errno = 0;
	}
	if (!e && errno) {
		r = -errno;
		err_set(err, errlen, "read %s: %s", l->dir, strerror(-r));
	}
	closedir(d);
	return r;
}

int ledger_open(struct ledger *l, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd, hi, r;

	r = ledger_init(l, dir, err, errlen);
	if (r)
		return r;
	if (mkdir(dir, 0750) == 0) {
		/* exactly 0750 whatever the umask; oneadmin's group reads */
		r = chmod(dir, 0750) ? -errno : fsync_dir_of(dir);
	} else if (errno != EEXIST) {
		r = -errno;
	}
	if (r) {
		err_set(err, errlen, "mkdir %s: %s", dir, strerror(-r));
		goto fail;
	}

	r = path_fmt(path, sizeof(path), "%s/" LOCK_NAME, dir);
	if (r) {
		err_set(err, errlen, "ledger %s: path too long", dir);
		goto fail;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0) {
		r = -errno;
		err_set(err, errlen, "open %s: %s", path, strerror(-r));
		goto fail;
	}
	if (fd < 3) {
		hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		r = hi < 0 ? -errno : 0;
		close(fd);
		if (r) {
			err_set(err, errlen, "open %s: %s", path, strerror(-r));
			goto fail;
		}
		fd = hi;
	}
	l->lock_fd = fd;
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		r = -errno;
		err_set(err, errlen, "lock %s: %s", path, strerror(-r));
		goto fail;
	}

	r = remove_leftovers(l, err, errlen);
	if (!r)
		r = load(l, err, errlen);
	if (r)
		goto fail;
	return 0;
fail:
	ledger_close(l);
	return r;
}

int ledger_read(struct ledger *l, const char *dir, char *err, size_t errlen)
{
	int r;

	r = ledger_init(l, dir, err, errlen);
	if (!r)
		r = load(l, err, errlen);
	if (r)
		ledger_close(l);
	return r;
}

int ledger_commit(struct ledger *l, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX], vf[PCI_ADDR_STRLEN];
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int r;

	if (l->lock_fd < 3) {
		err_set(err, errlen, "ledger %s: commit without the lock",
			l->dir);
		return -ENOLCK;
	}
	/* Callers may have edited v in place; what is written must parse. */
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), lease_cmp);
	r = sb_adds(&sb, header);
	for (i = 0; i < l->n && !r; i++) {
		pci_addr_fmt(&l->v[i].vf, vf);
		if (i && !pci_addr_cmp(&l->v[i - 1].vf, &l->v[i].vf)) {
			err_set(err, errlen, "ledger %s: vf %s leased twice",
				l->dir, vf);
			r = -EINVAL;
			goto out;
		}
		r = lease_format(&l->v[i], &sb);
		if (r == -EINVAL) {
			err_set(err, errlen,
				"ledger %s: lease of vf %s is invalid", l->dir,
				vf);
			goto out;
		}
		if (!r)
			r = sb_adds(&sb, "\n");
	}
	if (r) {
		err_set(err, errlen, "ledger %s: %s", l->dir, strerror(-r));
		goto out;
	}

	if (path_fmt(path, sizeof(path), "%s/" LEASES_NAME, l->dir) ||
	    path_fmt(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%ld", l->dir,
		     (long)getpid())) {
		err_set(err, errlen, "ledger %s: path too long", l->dir);
		r = -ENAMETOOLONG;
		goto out;
	}
	/* 0640 exactly: oneadmin's group reads it */
	r = atomic_replace(path, tmp, sb.buf, sb.len, 0640, err, errlen);
out:
	sb_release(&sb);
	return r;
}

void ledger_close(struct ledger *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
	/* closing the only descriptor of the lock file drops the flock */
	if (l->lock_fd > 2)
		close(l->lock_fd);
	l->lock_fd = -1;
}

int ledger_add(struct ledger *l, const struct lease *x)
{
	size_t i;

	if (lease_check(x))
		return -EINVAL;
	if (ledger_find_vf(l, &x->vf) >= 0)
		return -EEXIST;
	if (ALLOC_GROW(l->v, l->n + 1, l->cap))
		return -ENOMEM;
	for (i = 0; i < l->n && pci_addr_cmp(&l->v[i].vf, &x->vf) < 0; i++)
		;
	memmove(&l->v[i + 1], &l->v[i], (l->n - i) * sizeof(*l->v));
	l->v[i] = *x;
	l->n++;
	return 0;
}

void ledger_remove(struct ledger *l, size_t i)
{
	if (i >= l->n)
		return;
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

long ledger_find_vf(const struct ledger *l, const struct pci_addr *vf)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!pci_addr_cmp(&l->v[i].vf, vf))
			return (long)i;
	return -1;
}

long ledger_find_nic(const struct ledger *l, int vmid, int nic_id)
{
	size_t i;

	if (vmid < 0 || nic_id < 0)
		return -1;
	for (i = 0; i < l->n; i++)
		if (l->v[i].vmid == vmid && l->v[i].nic_id == nic_id)
			return (long)i;
	return -1;
}

long ledger_find_vm(const struct ledger *l, int vmid)
{
	size_t i;

	for (i = 0; vmid >= 0 && i < l->n; i++)
		if (l->v[i].vmid == vmid)
			return (long)i;
	return -1;
}

long ledger_find_guid(const struct ledger *l, uint64_t guid)
{
	size_t i;

	if (!guid)
		return -1;
	for (i = 0; i < l->n; i++)
		if (!lease_adopted(&l->v[i]) && l->v[i].guid == guid)
			return (long)i;
	return -1;
}

void lease_clock_now(struct lease_clock *now)
{
	now->wall = (int64_t)time(NULL);
	boot_now(&now->boot);
}

void lease_stamp(struct lease *x, const struct lease_clock *now,
		 const struct proc_id *owner)
{
	struct proc_id who = { 0, 0 };

	if (owner && owner->pid > 0 && now->boot.boot[0] && !lease_adopted(x))
		who = *owner; /* owner may be &x->owner */
	x->since = now->wall > 0 ? now->wall : 0;
	memcpy(x->boot, now->boot.boot, BOOT_ID_LEN);
	x->up = x->boot[0] ? now->boot.ns / 1000000000u : 0;
	x->owner = who;
}

enum lease_hold lease_hold(const struct lease *x, const struct lease_clock *now,
			   long grace)
{
	uint64_t up = now->boot.ns / 1000000000u;

	if (!x->boot[0])
		return LEASE_UNDATED;
	if (strcmp(x->boot, now->boot.boot))
		return LEASE_EXPIRED; /* an earlier boot: every action ended */
	if (x->owner.pid && proc_id_alive(&x->owner))
		return LEASE_OWNED;
	if (grace > 0 && up >= x->up && up - x->up < (uint64_t)grace)
		return LEASE_FRESH;
	return LEASE_EXPIRED;
}
