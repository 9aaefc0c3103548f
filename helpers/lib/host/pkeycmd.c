// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/child.h"
#include "core/guid.h"
#include "core/log.h"
#include "host/pkeycmd.h"

/* cmd's words, then the operation's: argv for child_run. */
static int call_init(struct child_cmd *c, const char *cmd, const char *op,
		     const char *bdf, char *err, size_t errlen)
{
	int r = child_cmd_init(c, cmd);

	if (r == -ENAMETOOLONG)
		err_set(err, errlen, "oneib-pkey command too long");
	else if (r)
		err_set(err, errlen, "no oneib-pkey command configured");
	if (!r)
		r = child_cmd_add(c, op);
	if (!r)
		r = child_cmd_add(c, bdf);
	return r;
}

/* The rest of argv, then the run; oneib-pkey's line on failure. */
static int call_run(struct child_cmd *c, int port, char *err, size_t errlen)
{
	struct child ch = { .argv = c->argv,
			    .no_stdout = true,
			    .keep_stderr = true };
	char portstr[16];
	int r;

	snprintf(portstr, sizeof(portstr), "%d", port);
	r = child_cmd_add(c, "--port");
	if (!r)
		r = child_cmd_add(c, portstr);
	if (!r)
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
	struct child_cmd c;
	int r;

	pci_addr_fmt(vf, bdf);
	r = call_init(&c, cmd, "map", bdf, err, errlen);
	if (r)
		return r;
	guid_fmt_hex(guid, g);
	pkey_fmt(pk, p);
	r = child_cmd_add(&c, g);
	if (!r)
		r = child_cmd_add(&c, p);
	return r ? r : call_run(&c, port, err, errlen);
}

int pkeycmd_unmap(const char *cmd, const struct pci_addr *vf, int port,
		  char *err, size_t errlen)
{
	char bdf[PCI_ADDR_STRLEN];
	struct child_cmd c;
	int r;

	pci_addr_fmt(vf, bdf);
	r = call_init(&c, cmd, "unmap", bdf, err, errlen);
	return r ? r : call_run(&c, port, err, errlen);
}
