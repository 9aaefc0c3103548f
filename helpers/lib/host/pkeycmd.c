// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/child.h"
#include "core/guid.h"
#include "core/log.h"
#include "host/pkeycmd.h"

#define CMD_WORDS 8

/* cmd's words, then the operation's: argv for child_run. */
struct call {
	char words[512];
	const char *argv[CMD_WORDS + 8];
	int argc;
};

static int call_init(struct call *c, const char *cmd, const char *op,
		     const char *bdf, char *err, size_t errlen)
{
	char *save = NULL, *w;

	c->argc = 0;
	if (strlen(cmd) >= sizeof(c->words)) {
		err_set(err, errlen, "oneib-pkey command too long");
		return -ENAMETOOLONG;
	}
	memcpy(c->words, cmd, strlen(cmd) + 1);
	for (w = strtok_r(c->words, " \t", &save); w && c->argc < CMD_WORDS;
	     w = strtok_r(NULL, " \t", &save))
		c->argv[c->argc++] = w;
	if (!c->argc) {
		err_set(err, errlen, "no oneib-pkey command configured");
		return -EINVAL;
	}
	c->argv[c->argc++] = op;
	c->argv[c->argc++] = bdf;
	return 0;
}

/* The rest of argv, then the run; oneib-pkey's line on failure. */
static int call_run(struct call *c, int port, char *err, size_t errlen)
{
	struct child ch = { .argv = c->argv,
			    .no_stdout = true,
			    .keep_stderr = true };
	char portstr[16];
	int r;

	snprintf(portstr, sizeof(portstr), "%d", port);
	c->argv[c->argc++] = "--port";
	c->argv[c->argc++] = portstr;
	c->argv[c->argc] = NULL;
	r = child_run(&ch);
	if (r == -EIO)
		err_set(err, errlen, "%s",
			ch.line[0] ? ch.line : "oneib-pkey failed");
	else if (r)
		err_set(err, errlen, "cannot run %s: %s", c->argv[0],
			strerror(-r));
	return r;
}

int pkeycmd_map(const char *cmd, const struct pci_addr *vf, int port,
		uint64_t guid, struct pkey pk, char *err, size_t errlen)
{
	char bdf[PCI_ADDR_STRLEN], g[GUID_STRLEN], p[PKEY_STRLEN];
	struct call c;
	int r;

	pci_addr_fmt(vf, bdf);
	r = call_init(&c, cmd, "map", bdf, err, errlen);
	if (r)
		return r;
	guid_fmt_hex(guid, g);
	pkey_fmt(pk, p);
	c.argv[c.argc++] = g;
	c.argv[c.argc++] = p;
	return call_run(&c, port, err, errlen);
}

int pkeycmd_unmap(const char *cmd, const struct pci_addr *vf, int port,
		  char *err, size_t errlen)
{
	char bdf[PCI_ADDR_STRLEN];
	struct call c;
	int r;

	pci_addr_fmt(vf, bdf);
	r = call_init(&c, cmd, "unmap", bdf, err, errlen);
	return r ? r : call_run(&c, port, err, errlen);
}
