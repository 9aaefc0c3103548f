// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/log.h"
#include "core/railhint.h"

/* Rails are 0..255 (host/rails.h's RAIL_MAX). */
#define HINT_RAIL_MAX 255

static int hint_cmp(const void *a, const void *b)
{
	const struct rail_hint *x = a, *y = b;

	return (x->nic_id > y->nic_id) - (x->nic_id < y->nic_id);
}

/* "12" within 0..max, decimal, no leading zero but "0" itself. */
static int small_dec(const char *s, size_t len, int max, int *out)
{
	int v = 0;
	size_t i;

	if (!len || len > 5 || (len > 1 && s[0] == '0'))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int rail_hints_parse(const char *s, struct rail_hint **out, size_t *n,
		     char *err, size_t errlen)
{
	struct rail_hint *v = NULL;
	const char *p = s;
	size_t nv = 0, cap = 0, i;

	*out = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ","), eq = strcspn(p, "=");
		struct rail_hint h;

		if (eq >= len || small_dec(p, eq, 65535, &h.nic_id) ||
		    small_dec(p + eq + 1, len - eq - 1, HINT_RAIL_MAX,
			      &h.rail) ||
		    (p[len] == ',' && !p[len + 1]))
			goto bad;
		for (i = 0; i < nv; i++)
			if (v[i].nic_id == h.nic_id)
				goto bad;
		if (ALLOC_GROW(v, nv + 1, cap)) {
			free(v);
			err_set(err, errlen, "--rails: out of memory");
			return -ENOMEM;
		}
		v[nv++] = h;
		p += len + (p[len] == ',');
	}
	*out = v;
	*n = nv;
	return 0;
bad:
	free(v);
	err_set(err, errlen,
		"--rails: '%s' is not NIC=RAIL pairs, each NIC once "
		"(0=3,1=5)",
		str_sanitize(s).s);
	return -EINVAL;
}

int rail_hints_fmt(struct rail_hint *h, size_t n, struct strbuf *out)
{
	size_t i;
	int r = 0;

	if (n)
		qsort(h, n, sizeof(*h), hint_cmp);
	for (i = 0; !r && i < n; i++)
		r = sb_addf(out, "%s%d=%d", i ? "," : "", h[i].nic_id,
			    h[i].rail);
	return r;
}

int rail_hint_find(const struct rail_hint *h, size_t n, int nic_id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (h[i].nic_id == nic_id)
			return h[i].rail;
	return -1;
}
