// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/child.h"
#include "core/log.h"
#include "host/peercmd.h"

/* Four short lines: anything longer is not oneib-peer's answer. */
#define PEER_OUT_MAX 512

int peercmd_query(const char *cmd, const struct pci_addr *pf, int port,
		  struct smp_peer *out, char *err, size_t errlen)
{
	char bdf[PCI_ADDR_STRLEN], portstr[16], why[256];
	struct strbuf text = STRBUF_INIT;
	struct child_cmd c;
	struct child ch = { .keep_stderr = true,
			    .out = &text,
			    .out_max = PEER_OUT_MAX };
	int r;

	pci_addr_fmt(pf, bdf);
	snprintf(portstr, sizeof(portstr), "%d", port);
	r = child_cmd_init(&c, cmd);
	if (r) {
		err_set(err, errlen, "%s",
			r == -EINVAL ? "no oneib-peer command configured "
				       "(ONEIB_PEER in kvm-ibrc)"
				     : "oneib-peer command too long");
		return r;
	}
	r = child_cmd_add(&c, bdf);
	if (!r)
		r = child_cmd_add(&c, portstr);
	ch.argv = c.argv;
	if (!r)
		r = child_run(&ch);
	if (r == -EIO)
		err_set(err, errlen, "%s",
			ch.line[0] ? ch.line : "oneib-peer failed");
	else if (r)
		err_set(err, errlen, "cannot run %s: %s", c.argv[0],
			strerror(-r));
	if (!r && smp_peer_parse(sb_str(&text), out, why, sizeof(why))) {
		err_set(err, errlen, "oneib-peer printed no peer: %s", why);
		r = -EPROTO;
	}
	sb_release(&text);
	return r;
}
