// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/topomap.h"

static int cmp_entry(const void *a, const void *b)
{
	const struct topo_entry *x = a, *y = b;

	if (x->leaf != y->leaf)
		return (x->leaf > y->leaf) - (x->leaf < y->leaf);
	return (x->ip > y->ip) - (x->ip < y->ip);
}

static int cmp_ip(const void *a, const void *b)
{
	const struct topo_entry *x = a, *y = b;

	if (x->ip != y->ip)
		return (x->ip > y->ip) - (x->ip < y->ip);
	return (x->leaf > y->leaf) - (x->leaf < y->leaf);
}

int topomap_format(struct topo_entry *e, size_t n, struct strbuf *out)
{
	char g[GUID_STRLEN], ip[INET_ADDRSTRLEN];
	size_t i, k;
	int r = 0;

	/* each address once, under its lowest leaf */
	qsort(e, n, sizeof(*e), cmp_ip);
	for (i = k = 0; i < n; i++)
		if (!k || e[k - 1].ip != e[i].ip)
			e[k++] = e[i];
	qsort(e, k, sizeof(*e), cmp_entry);
	for (i = 0; !r && i < k; i++) {
		struct in_addr a = { .s_addr = htonl(e[i].ip) };

		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		if (i && e[i - 1].leaf == e[i].leaf) {
			r = sb_addf(out, ",%s", ip);
			continue;
		}
		guid_fmt_hex(e[i].leaf, g);
		r = sb_addf(out, "%s%s=%s", i ? " " : "", g, ip);
	}
	return r;
}

/* "0x" and 16 hex digits, not zero. */
static int leaf_parse(const char *s, size_t len, uint64_t *out)
{
	char buf[GUID_STRLEN];

	if (len != 18 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (guid_parse_hex(buf, out) || !*out)
		return -EINVAL;
	return 0;
}

static int ip_parse(const char *s, size_t len, uint32_t *out)
{
	char buf[INET_ADDRSTRLEN];
	struct in_addr a;

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return -EINVAL;
	*out = ntohl(a.s_addr);
	return 0;
}

static int bad(char *err, size_t errlen, const char *what, const char *s,
	       size_t len)
{
	err_set(err, errlen, "ONEIB_TOPOLOGY: '%.*s' is not %s",
		(int)(len > 40 ? 40 : len), s, what);
	return -EINVAL;
}

int topomap_parse(const char *s, struct topo_entry **e, size_t *n, char *err,
		  size_t errlen)
{
	struct topo_entry *v = NULL;
	size_t nv = 0, cap = 0, i;
	int r = 0;

	while (!r && *s) {
		size_t gl = strcspn(s, "= ");
		uint64_t leaf;

		if (s[gl] != '=' || leaf_parse(s, gl, &leaf)) {
			r = bad(err, errlen, "a leaf switch GUID and '='", s,
				gl);
			break;
		}
		for (i = 0; i < nv; i++)
			if (v[i].leaf == leaf) {
				r = bad(err, errlen, "a leaf named once", s,
					gl);
				break;
			}
		s += gl + 1;
		for (; !r;) {
			size_t il = strcspn(s, ", ");
			uint32_t ip;

			if (ip_parse(s, il, &ip)) {
				r = bad(err, errlen, "an IPv4 address", s, il);
				break;
			}
			for (i = 0; i < nv; i++)
				if (v[i].ip == ip) {
					r = bad(err, errlen,
						"an address named once", s, il);
					break;
				}
			if (r)
				break;
			if (ALLOC_GROW(v, nv + 1, cap)) {
				r = -ENOMEM;
				err_set(err, errlen, "out of memory");
				break;
			}
			v[nv++] = (struct topo_entry){ leaf, ip };
			s += il;
			if (*s != ',')
				break;
			s++;
		}
		if (!r && *s == ' ') {
			s++;
			if (!*s)
				r = bad(err, errlen, "a group after ' '", s, 0);
		}
	}
	if (r) {
		free(v);
		return r;
	}
	*e = v;
	*n = nv;
	return 0;
}
