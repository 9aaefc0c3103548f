// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "core/cpulist.h"

static void skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

/* Decimal CPU number: "12" -> 12; -ERANGE from 1024 on. */
static int cpu_num(const char **p, unsigned *out)
{
	unsigned v = 0;
	bool big = false;

	if (**p < '0' || **p > '9')
		return -EINVAL;
	for (; **p >= '0' && **p <= '9'; (*p)++) {
		v = v * 10 + (unsigned)(**p - '0');
		if (v >= CPULIST_MAX) {
			big = true;
			v = CPULIST_MAX;
		}
	}
	*out = v;
	return big ? -ERANGE : 0;
}

int cpulist_parse(const char *s, uint64_t bits[CPULIST_WORDS], bool allow_excl)
{
	uint64_t acc[CPULIST_WORDS] = { 0 };
	const char *p = s;
	unsigned a, b, c;

	if (!s)
		return -EINVAL;
	skip_blanks(&p);
	while (*p) {
		bool excl = *p == '^';
		int r;

		if (excl && !allow_excl)
			return -EINVAL;
		p += excl;
		r = cpu_num(&p, &a);
		if (r)
			return r;
		b = a;
		skip_blanks(&p);
		if (*p == '-' && !excl) {
			p++;
			skip_blanks(&p);
			r = cpu_num(&p, &b);
			if (r)
				return r;
			if (b < a)
				return -EINVAL;
			skip_blanks(&p);
		}
		for (c = a; c <= b; c++) {
			if (excl)
				acc[c / 64] &= ~(1ULL << (c % 64));
			else
				acc[c / 64] |= 1ULL << (c % 64);
		}
		if (*p == ',') {
			p++;
			skip_blanks(&p);
			if (!*p)
				return -EINVAL; /* "0-3," */
		} else if (*p) {
			return -EINVAL;
		}
	}
	memcpy(bits, acc, sizeof(acc));
	return 0;
}
