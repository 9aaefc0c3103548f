// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/child.h"
#include "core/guid.h"
#include "core/log.h"
#include "host/peercmd.h"

/* Four short lines: anything longer is not oneib-peer's answer. */
#define PEER_OUT_MAX 512
/* oneib-peer's own lines name the PF and the port already. */
#define OWN "oneib-peer: "

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
	r = child_cmd_init(&c, cmd ? cmd : "");
	if (r) {
		err_set(err, errlen, "PF %s port %d: %s", bdf, port,
			r == -EINVAL ? "no peer command configured "
				       "(ONEIB_PEER in kvm-ibrc)"
				     : "peer command too long");
		return r;
	}
	r = child_cmd_add(&c, bdf);
	if (!r)
		r = child_cmd_add(&c, portstr);
	ch.argv = c.argv;
	if (!r)
		r = child_run(&ch);
	if (r == -EIO && !strncmp(ch.line, OWN, strlen(OWN)))
		err_set(err, errlen, "%s", ch.line + strlen(OWN));
	else if (r == -EIO)
		err_set(err, errlen, "PF %s port %d: %s", bdf, port,
			ch.line[0] ? ch.line : "oneib-peer failed");
	else if (r)
		err_set(err, errlen, "PF %s port %d: cannot run %s: %s", bdf,
			port, c.argv[0], strerror(-r));
	if (!r && smp_peer_parse(sb_str(&text), out, why, sizeof(why))) {
		err_set(err, errlen,
			"PF %s port %d: oneib-peer printed no "
			"peer: %s",
			bdf, port, why);
		r = -EPROTO;
	}
	sb_release(&text);
	return r;
}

bool port_has_leaf(const struct ib_port *p)
{
	return p->peer_known && p->peer.type == SMP_NODE_SWITCH;
}

/* 5 = LinkUp: the physical link a directed-route SMP needs. */
#define PHYS_LINK_UP 5

void peercmd_read_all(const char *cmd, struct hca_list *l)
{
	char bdf[PCI_ADDR_STRLEN];
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		struct hca *h = &l->v[i];

		if (!h->has_pci)
			continue;
		pci_addr_fmt(&h->addr, bdf);
		for (p = 0; p < h->nports; p++) {
			struct ib_port *pt = &h->ports[p];
			const char *ps = ib_phys_state_name(pt->phys_state);

			pt->peer_known = false;
			pt->peer_why[0] = '\0';
			if (strcmp(pt->link_layer, "InfiniBand"))
				continue;
			if (pt->phys_state != PHYS_LINK_UP)
				snprintf(pt->peer_why, sizeof(pt->peer_why),
					 "PF %s port %d: link down (%s)", bdf,
					 pt->num, ps ? ps : "unknown state");
			else
				pt->peer_known = !peercmd_query(
					cmd, &h->addr, pt->num, &pt->peer,
					pt->peer_why, sizeof(pt->peer_why));
		}
	}
}

bool port_no_leaf(const struct hca *h, const struct ib_port *p, char *buf,
		  size_t len)
{
	char bdf[PCI_ADDR_STRLEN], g[GUID_STRLEN], t[24];
	const char *type;

	buf[0] = '\0';
	if (port_has_leaf(p))
		return false;
	if (!p->peer_known) {
		snprintf(buf, len, "%s", p->peer_why);
		return buf[0] != '\0';
	}
	pci_addr_fmt(&h->addr, bdf);
	guid_fmt_hex(p->peer.node_guid, g);
	type = smp_node_type_name(p->peer.type);
	if (!type) {
		snprintf(t, sizeof(t), "node of type %u", p->peer.type);
		type = t;
	}
	snprintf(buf, len,
		 "PF %s port %d: cabled to a %s, not a switch (%s port %u, "
		 "\"%s\")",
		 bdf, p->num, type, g, p->peer.port, p->peer.desc);
	return true;
}
