// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

void log_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write per line, so concurrent helpers never interleave. */
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, line);
}

void err_set(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int dec_parse_int(const char *s, int *out)
{
	long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > INT_MAX)
			return -ERANGE;
	}
	*out = (int)v;
	return 0;
}

int opt_int(const char *opt, const char *arg, int lo, int hi, const char *what,
	    int *out)
{
	int v;

	if (!dec_parse_int(arg, &v) && v >= lo && v <= hi) {
		*out = v;
		return 0;
	}
	if (hi == INT_MAX)
		log_msg("%s '%s': not %s", opt, str_sanitize(arg).s, what);
	else
		log_msg("%s '%s': not %s (%d-%d)", opt, str_sanitize(arg).s,
			what, lo, hi);
	return -EINVAL;
}

struct san_str str_sanitize(const char *in)
{
	struct san_str out;
	size_t i = 0;

	for (; in && i < SANITIZE_MAX - 4 && in[i]; i++) {
		unsigned char ch = (unsigned char)in[i];

		out.s[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	if (in && in[i])
		memcpy(out.s + i, "...", 4);
	else
		out.s[i] = '\0';
	return out;
}
