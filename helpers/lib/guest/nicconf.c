// SPDX-License-Identifier: Apache-2.0
#include <sys/socket.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/ibattr.h"
#include "core/log.h"
#include "guest/nicconf.h"

/* "0".."max", decimal digits only. */
static int dec_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*out = (uint32_t)v;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	const struct nic_ref *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int context_nics(const struct context *c, struct nic_ref **out, size_t *n)
{
	struct nic_ref *v = NULL;
	size_t i, k = 0, cap = 0;

	*out = NULL;
	*n = 0;
	/* names are sorted: ETH10_A < ETH1_A < ETH1_B < ETH2_A */
	for (i = 0; i < c->n; i++) {
		const char *name = c->v[i].name, *p;
		uint32_t id;
		char digits[8];
		size_t d;
		bool mac;

		if (strncmp(name, "ETH", 3))
			continue;
		p = name + 3;
		for (d = 0; p[d] >= '0' && p[d] <= '9' && d < 6; d++)
			;
		if (d == 0 || p[d] != '_' || (d > 1 && p[0] == '0'))
			continue;
		memcpy(digits, p, d);
		digits[d] = '\0';
		if (dec_u32(digits, 65535, &id))
			continue;
		mac = !strcmp(p + d, "_MAC") && c->v[i].value[0];
		/* sorted names: all of "ETH1_" sit together */
		if (k > 0 && v[k - 1].id == (int)id) {
			v[k - 1].has_mac = v[k - 1].has_mac || mac;
			continue;
		}
		if (ALLOC_GROW(v, k + 1, cap)) {
			free(v);
			return -ENOMEM;
		}
		v[k].id = (int)id;
		v[k].has_mac = mac;
		k++;
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), by_id);
	*out = v;
	*n = k;
	return 0;
}

/* ETH<id>_<what>, NULL when absent or empty */
static const char *nic_var(const struct context *c, int id, const char *what,
			   char name[64])
{
	const char *v;

	snprintf(name, 64, "ETH%d_%s", id, what);
	v = context_get(c, name);
	return v && *v ? v : NULL;
}

static int bad(char *err, size_t errlen, const char *name, const char *v,
	       const char *why)
{
	err_set(err, errlen, "%s '%s': %s", name, str_sanitize(v).s, why);
	return -EINVAL;
}

/*
 * One route of ROUTES, one-context's "DST via GW" (its renderers take the
 * first and the third word): "10.12.0.0/16 via 10.11.0.254".
 */
static int route_parse(char *s, struct nic_route *r, const char **why)
{
	char *w[4], *save = NULL, *slash;
	int n = 0;
	uint32_t plen;

	for (char *t = strtok_r(s, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			break;
		w[n++] = t;
	}
	if (n != 3 || strcmp(w[1], "via")) {
		*why = "not DESTINATION via GATEWAY";
		return -EINVAL;
	}
	slash = strchr(w[0], '/');
	if (slash)
		*slash++ = '\0';
	if (inet_parse_any(w[0], &r->dst)) {
		*why = "the destination is not an address";
		return -EINVAL;
	}
	if (slash) {
		if (dec_u32(slash, r->dst.family == AF_INET ? 32 : 128,
			    &plen)) {
			*why = "bad prefix length";
			return -EINVAL;
		}
		r->dst.plen = (uint8_t)plen;
	}
	if (!inet_is_network(&r->dst)) {
		*why = "the destination has host bits set";
		return -EINVAL;
	}
	if (inet_parse(w[2], r->dst.family, &r->via)) {
		*why = "the gateway is not an address of the destination's "
		       "family";
		return -EINVAL;
	}
	return 0;
}

static int routes_parse(const char *name, const char *v, struct nic_conf *n,
			char *err, size_t errlen)
{
	char *copy = strdup(v), *save = NULL, *one;
	const char *why = NULL;
	int r = 0;

	if (!copy) {
		err_set(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (one = strtok_r(copy, ",", &save); one && !r;
	     one = strtok_r(NULL, ",", &save)) {
		if (!one[strspn(one, " \t")])
			continue; /* "a via b, " */
		if (n->nroutes == NIC_ROUTES_MAX) {
			r = bad(err, errlen, name, v, "more than 32 routes");
			break;
		}
		if (route_parse(one, &n->routes[n->nroutes], &why))
			r = bad(err, errlen, name, v, why);
		else
			n->nroutes++;
	}
	free(copy);
	return r;
}

static int method_parse(const char *name, const char *v, struct nic_conf *n,
			char *err, size_t errlen)
{
	if (!strcmp(v, "static"))
		n->method = NIC_STATIC;
	else if (!strcmp(v, "dhcp"))
		n->method = NIC_DHCP;
	else if (!strcmp(v, "skip"))
		n->method = NIC_SKIP;
	else
		return bad(err, errlen, name, v,
			   "expected static, dhcp or skip");
	return 0;
}

static int method6_parse(const char *name, const char *v, struct nic_conf *n,
			 char *err, size_t errlen)
{
	static const char *const words[] = { [IP6_STATIC] = "static",
					     [IP6_AUTO] = "auto",
					     [IP6_DHCP] = "dhcp",
					     [IP6_DISABLE] = "disable",
					     [IP6_SKIP] = "skip" };
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(v, words[i])) {
			n->method6 = (enum nic_method6)i;
			return 0;
		}
	}
	return bad(err, errlen, name, v,
		   "expected static, auto, dhcp, disable or skip");
}

/* "ETH1_IP '127.0.0.1': a loopback address, never an IPoIB NIC's" */
static int unusable(const struct inet_addr *a, const char *name, const char *v,
		    char *err, size_t errlen)
{
	char why[96];
	const char *no = inet_not_unicast(a);

	if (!no)
		return 0;
	snprintf(why, sizeof(why), "%s, never an IPoIB NIC's", no);
	return bad(err, errlen, name, v, why);
}

static int ip4_part(const struct context *c, struct nic_conf *n, char *err,
		    size_t errlen)
{
	char name[64];
	const char *v;
	uint32_t u;

	if ((v = nic_var(c, n->id, "IP", name))) {
		if (inet_parse(v, AF_INET, &n->ip4))
			return bad(err, errlen, name, v, "not an IPv4 address");
		if (unusable(&n->ip4, name, v, err, errlen))
			return -EINVAL;
		n->has_ip4 = true;
		n->ip4.plen = 24;
		n->mask_default = true;
		if ((v = nic_var(c, n->id, "MASK", name))) {
			if (inet_mask_parse(v, &n->ip4.plen))
				return bad(err, errlen, name, v,
					   "not a network mask");
			n->mask_default = false;
		}
	}
	if ((v = nic_var(c, n->id, "GATEWAY", name))) {
		if (inet_parse(v, AF_INET, &n->gw4))
			return bad(err, errlen, name, v, "not an IPv4 address");
		if (unusable(&n->gw4, name, v, err, errlen))
			return -EINVAL;
		n->has_gw4 = true;
	}
	if ((v = nic_var(c, n->id, "METRIC", name))) {
		if (dec_u32(v, UINT32_MAX, &u))
			return bad(err, errlen, name, v, "not a metric");
		n->metric = u;
	}
	return 0;
}

static int ip6_part(const struct context *c, struct nic_conf *n, char *err,
		    size_t errlen)
{
	char name[64];
	const char *v;
	uint32_t u;

	if ((v = nic_var(c, n->id, "IP6", name)) ||
	    (v = nic_var(c, n->id, "IPV6", name))) {
		if (inet_parse(v, AF_INET6, &n->ip6))
			return bad(err, errlen, name, v, "not an IPv6 address");
		if (unusable(&n->ip6, name, v, err, errlen))
			return -EINVAL;
		n->has_ip6 = true;
		n->ip6.plen = 64;
		if ((v = nic_var(c, n->id, "IP6_PREFIX_LENGTH", name))) {
			if (dec_u32(v, 128, &u))
				return bad(err, errlen, name, v,
					   "not a prefix length (0-128)");
			n->ip6.plen = (uint8_t)u;
		}
	}
	if ((v = nic_var(c, n->id, "IP6_GATEWAY", name)) ||
	    (v = nic_var(c, n->id, "GATEWAY6", name))) {
		if (inet_parse(v, AF_INET6, &n->gw6))
			return bad(err, errlen, name, v, "not an IPv6 address");
		if (unusable(&n->gw6, name, v, err, errlen))
			return -EINVAL;
		n->has_gw6 = true;
	}
	n->metric6 = n->metric;
	if ((v = nic_var(c, n->id, "IP6_METRIC", name))) {
		if (dec_u32(v, UINT32_MAX, &u))
			return bad(err, errlen, name, v, "not a metric");
		n->metric6 = u;
	}
	return 0;
}

/*
 * ETH<n>_IB_MODE, ETH<n>_IB_PKEY and ETH<n>_IB_SL are the network's
 * IB_MODE, IB_PKEY and IB_SL passed through the template: ibattr.c's rules
 * and words, the ones vnet_create and deploy apply ("ETH1: IB_PKEY
 * '0x0011' is a limited-member key (write 0x8011 ...)").
 */
static int ib_part(const struct context *c, struct nic_conf *n, char *err,
		   size_t errlen)
{
	struct ib_attrs a = { 0 };
	char name[64], who[16];
	const char *v;

	snprintf(who, sizeof(who), "ETH%d", n->id);
	if ((v = nic_var(c, n->id, "IB_MODE", name))) {
		if (ibattr_parse(IBA_MODE, v, &a, who, err, errlen))
			return -EINVAL;
		n->has_mode = true;
		n->mode = a.mode == IB_MODE_CONNECTED ? IPOIB_CONNECTED
						      : IPOIB_DATAGRAM;
	}
	if ((v = nic_var(c, n->id, "IB_PKEY", name))) {
		if (ibattr_parse(IBA_PKEY, v, &a, who, err, errlen))
			return -EINVAL;
		n->has_pkey = true;
		n->pkey = a.pkey;
	}
	if ((v = nic_var(c, n->id, "IB_SL", name))) {
		if (ibattr_parse(IBA_SL, v, &a, who, err, errlen))
			return -EINVAL;
		n->has_sl = true;
		n->sl = a.sl;
	}
	return 0;
}

int nic_conf_parse(const struct context *c, int id, struct nic_conf *n,
		   char *err, size_t errlen)
{
	char name[64];
	const char *v;
	uint32_t u;
	int r;

	memset(n, 0, sizeof(*n));
	n->id = id;
	n->method = NIC_STATIC;
	if ((v = nic_var(c, id, "METHOD", name)) &&
	    (r = method_parse(name, v, n, err, errlen)))
		return r;
	/* one-context: IP6_METHOD defaults to METHOD */
	n->method6 = n->method == NIC_SKIP   ? IP6_SKIP
		     : n->method == NIC_DHCP ? IP6_DHCP
					     : IP6_STATIC;
	if ((v = nic_var(c, id, "IP6_METHOD", name)) &&
	    (r = method6_parse(name, v, n, err, errlen)))
		return r;
	if (n->method == NIC_SKIP)
		return 0; /* left alone: its other values do not matter */
	if ((r = ip4_part(c, n, err, errlen)) ||
	    (r = ip6_part(c, n, err, errlen)))
		return r;
	if ((v = nic_var(c, id, "ROUTES", name)) &&
	    (r = routes_parse(name, v, n, err, errlen)))
		return r;
	if ((v = nic_var(c, id, "MTU", name))) {
		if (dec_u32(v, 65535, &u) || u < 68)
			return bad(err, errlen, name, v,
				   "not an MTU (68-65535)");
		n->mtu = (int)u;
	}
	return ib_part(c, n, err, errlen);
}

int context_vmid(const struct context *c, uint32_t *vmid, char *err,
		 size_t errlen)
{
	const char *v = context_get(c, "VMID");

	if (!v || !*v) {
		err_set(err, errlen, "no VMID in the context");
		return -ENOENT;
	}
	if (dec_u32(v, UINT32_MAX, vmid))
		return bad(err, errlen, "VMID", v, "not a VM ID");
	return 0;
}
