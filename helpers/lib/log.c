// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

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
