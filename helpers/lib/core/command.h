/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The commands of a tool with several (git's commands[] in git.c): one
 * table per main, each command's name, what runs it and its synopsis, so
 * that the usage, the lookup and their refusals are written once, the same
 * way in every tool:
 *
 *   static const struct command cmds[] = {
 *           { "map", cmd_map, "VF GUID PKEY [--port N]" },
 *           { "unmap", cmd_unmap, "VF [--port N]" },
 *   };
 *   c = command_find(cmds, 2, argv[1]);   NULL: said, exit 2
 *
 *   oneib-pkey: unknown command 'mapp' (map, unmap)
 *   usage: oneib-pkey map VF GUID PKEY [--port N]
 *          oneib-pkey unmap VF [--port N]
 */
#ifndef ONEIB_COMMAND_H
#define ONEIB_COMMAND_H

#include <stddef.h>
#include <stdio.h>

struct command {
	const char *name;
	/* argc/argv as main got them (argv[1] the command), ctx the
	 * tool's: the exit status */
	int (*run)(int argc, char **argv, void *ctx);
	const char *synopsis; /* after "tool name", one or more lines */
};

/* The command called name, or NULL with one line listing the commands. */
const struct command *command_find(const struct command *cmds, size_t n,
				   const char *name);

/* "usage: TOOL NAME SYNOPSIS" per command (continuation lines indented),
 * then more (NULL: nothing) as it is. */
void command_usage(FILE *f, const char *tool, const struct command *cmds,
		   size_t n, const char *more);

/*
 * What every main says about argv before it runs a command: no command
 * or --help/-h gives the usage (0 for help, 2 otherwise); else -1: go on.
 */
int command_help(int argc, char **argv, const char *tool,
		 const struct command *cmds, size_t n, const char *more);

/* A wrong use of a command: one line, "(usage: TOOL --help)" after it. */
void command_misuse(const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
