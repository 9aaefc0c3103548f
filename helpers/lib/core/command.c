// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/command.h"
#include "core/log.h"

const struct command *command_find(const struct command *cmds, size_t n,
				   const char *name)
{
	char list[256];
	size_t i, at = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	list[0] = '\0';
	for (i = 0; i < n && at < sizeof(list); i++)
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
				       i ? ", " : "", cmds[i].name);
	log_msg("unknown command '%s' (%s)", str_sanitize(name).s, list);
	return NULL;
}

void command_usage(FILE *f, const char *tool, const struct command *cmds,
		   size_t n, const char *more)
{
	size_t i, pad = strlen("usage: ");
	const char *s;

	for (i = 0; i < n; i++) {
		fprintf(f, "%s%s %s ", i ? "       " : "usage: ", tool,
			cmds[i].name);
		/* a synopsis of several lines: each under the first */
		for (s = cmds[i].synopsis; *s; s++) {
			fputc(*s, f);
			if (*s == '\n' && s[1])
				fprintf(f, "%*s",
					(int)(pad + strlen(tool) +
					      strlen(cmds[i].name) + 2),
					"");
		}
		if (s == cmds[i].synopsis || s[-1] != '\n')
			fputc('\n', f);
	}
	if (more)
		fputs(more, f);
}

int command_help(int argc, char **argv, const char *tool,
		 const struct command *cmds, size_t n, const char *more)
{
	if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h"))
		return -1;
	command_usage(argc < 2 ? stderr : stdout, tool, cmds, n, more);
	return argc < 2 ? 2 : 0;
}

void command_misuse(const char *tool, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_msg("%s (usage: %s --help)", line, tool);
}
