// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/grow.h"
#include "core/guid.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "core/sysfs.h"
#include "host/peercmd.h"
#include "host/rails.h"

#define LEAVES_MAX (1 << 20)

/* "0x0002c90200000a00=3" */
static int group_parse(const char *s, size_t len, struct rail_map_entry *e)
{
	char buf[GUID_STRLEN];
	const char *eq = memchr(s, '=', len);
	size_t gl = eq ? (size_t)(eq - s) : 0;
	int rail = 0;
	size_t i;

	if (!eq || gl != 18 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	memcpy(buf, s, gl);
	buf[gl] = '\0';
	if (guid_parse_hex(buf, &e->leaf) || !e->leaf)
		return -EINVAL;
	if (len - gl - 1 == 0 || len - gl - 1 > 3)
		return -EINVAL;
	for (i = gl + 1; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		rail = rail * 10 + (s[i] - '0');
	}
	if (rail > RAIL_MAX || (len - gl - 1 > 1 && s[gl + 1] == '0'))
		return -EINVAL;
	e->rail = rail;
	return 0;
}

int rail_map_parse(const char *s, struct rail_map *out, char *err,
		   size_t errlen)
{
	size_t cap = 0, i;
	int r = 0;

	out->v = NULL;
	out->n = 0;
	for (;;) {
		struct rail_map_entry e;
		size_t len;

		s += strspn(s, " \t,");
		if (!*s)
			break;
		len = strcspn(s, " \t,");
		if (group_parse(s, len, &e)) {
			err_set(err, errlen,
				"ONEIB_RAIL_MAP: '%.*s' is not a leaf GUID, "
				"'=' and a rail 0-%d",
				(int)(len > 40 ? 40 : len), s, RAIL_MAX);
			r = -EINVAL;
			break;
		}
		for (i = 0; i < out->n && out->v[i].leaf != e.leaf; i++)
			;
		if (i < out->n) {
			char g[GUID_STRLEN];

			guid_fmt_hex(e.leaf, g);
			err_set(err, errlen,
				"ONEIB_RAIL_MAP: leaf %s given twice", g);
			r = -EINVAL;
			break;
		}
		if (ALLOC_GROW(out->v, out->n + 1, cap)) {
			err_set(err, errlen, "ONEIB_RAIL_MAP: out of memory");
			r = -ENOMEM;
			break;
		}
		out->v[out->n++] = e;
		s += len;
	}
	if (r)
		rail_map_free(out);
	return r;
}

void rail_map_free(struct rail_map *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

int rail_map_find(const struct rail_map *m, uint64_t leaf)
{
	size_t i;

	for (i = 0; m && i < m->n; i++)
		if (m->v[i].leaf == leaf)
			return m->v[i].rail;
	return -1;
}

bool rail_port(const struct hca *h, const struct ib_port *pt)
{
	return h->has_pci && h->nvfs > 0 &&
	       !strcmp(pt->link_layer, "InfiniBand");
}

void rails_assign(struct hca_list *l, const struct rail_map *map)
{
	bool by_leaf = map && map->n;
	int next = 0;
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		struct hca *h = &l->v[i];

		for (p = 0; p < h->nports; p++) {
			struct ib_port *pt = &h->ports[p];

			pt->rail = -1;
			if (!rail_port(h, pt))
				continue;
			if (!by_leaf && next <= RAIL_MAX)
				pt->rail = next++;
			else if (by_leaf && port_has_leaf(pt))
				pt->rail =
					rail_map_find(map, pt->peer.node_guid);
		}
	}
}

bool rails_why_none(const struct hca *h, const struct ib_port *pt,
		    const struct rail_map *map, char *buf, size_t len)
{
	char addr[PCI_ADDR_STRLEN];
	char why[sizeof(pt->peer_why) + 128];

	buf[0] = '\0';
	if (pt->rail >= 0 || !rail_port(h, pt) || !map || !map->n)
		return false;
	pci_addr_fmt(&h->addr, addr);
	if (port_has_leaf(pt)) {
		char g[GUID_STRLEN];

		guid_fmt_hex(pt->peer.node_guid, g);
		snprintf(buf, len,
			 "PF %s port %d: leaf %s is not in ONEIB_RAIL_MAP",
			 addr, pt->num, g);
	} else if (port_no_leaf(h, pt, why, sizeof(why))) {
		snprintf(buf, len, "%s (so no rail)", why);
	} else {
		snprintf(buf, len, "PF %s port %d: leaf switch not known", addr,
			 pt->num);
	}
	return true;
}

enum pci_near rails_near(const struct hca_list *l, const struct pci_place *dev,
			 struct rail_set *out)
{
	enum pci_near best = PCI_NEAR_NONE, n;
	size_t i;
	int p, pass;

	memset(out, 0, sizeof(*out));
	/* pass 0 finds the best level, pass 1 collects its rails */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < l->n; i++) {
			const struct hca *h = &l->v[i];

			n = pci_near(dev, &h->place);
			for (p = 0; p < h->nports; p++) {
				if (h->ports[p].rail < 0)
					continue;
				if (pass == 0 && n < best)
					best = n;
				if (pass == 1 && n == best)
					rail_set_add(out, h->ports[p].rail);
			}
		}
	return best;
}

int leaves_write(const char *dir, const struct hca_list *l, char *err,
		 size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char path[PATH_MAX], addr[PCI_ADDR_STRLEN], g[GUID_STRLEN];
	size_t i;
	int p, r = 0;

	if (path_fmt(path, sizeof(path), "%s/leaves", dir)) {
		err_set(err, errlen, "%s/leaves: path too long", dir);
		return -ENAMETOOLONG;
	}
	for (i = 0; !r && i < l->n; i++) {
		const struct hca *h = &l->v[i];

		for (p = 0; !r && h->has_pci && p < h->nports; p++) {
			if (!port_has_leaf(&h->ports[p]))
				continue;
			pci_addr_fmt(&h->addr, addr);
			guid_fmt_hex(h->ports[p].peer.node_guid, g);
			r = sb_addf(&sb, "%s %d %s\n", addr, h->ports[p].num,
				    g);
		}
	}
	if (r)
		err_set(err, errlen, "%s: out of memory", path);
	else
		r = atomic_replace(path, NULL, sb_str(&sb), sb.len, 0644, err,
				   errlen);
	sb_release(&sb);
	return r;
}

/* "0000:3b:00.0 1 0x0002c90200000a00" into the port it names. */
static void leaves_line(char *line, struct hca_list *l)
{
	char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	struct pci_addr a;
	uint64_t leaf;
	int port;
	size_t i;
	int p;

	if (!sp2)
		return;
	*sp1 = *sp2 = '\0';
	if (pci_addr_parse(line, &a) || dec_parse_int(sp1 + 1, &port) ||
	    guid_parse_hex(sp2 + 1, &leaf) || !leaf)
		return;
	for (i = 0; i < l->n; i++) {
		struct hca *h = &l->v[i];

		if (!h->has_pci || pci_addr_cmp(&h->addr, &a))
			continue;
		for (p = 0; p < h->nports; p++) {
			struct ib_port *pt = &h->ports[p];

			if (pt->num != port || pt->peer_known)
				continue;
			memset(&pt->peer, 0, sizeof(pt->peer));
			pt->peer_known = true;
			pt->peer.type = SMP_NODE_SWITCH;
			pt->peer.node_guid = leaf;
		}
	}
}

int leaves_read(const char *dir, struct hca_list *l, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char path[PATH_MAX], *s, *nl;
	int r;

	if (path_fmt(path, sizeof(path), "%s/leaves", dir)) {
		err_set(err, errlen, "%s/leaves: path too long", dir);
		return -ENAMETOOLONG;
	}
	r = sb_read_file(&sb, path, LEAVES_MAX);
	if (r == -ENOENT) {
		sb_release(&sb);
		return 0;
	}
	if (r) {
		err_set(err, errlen, "%s: %s", path, strerror(-r));
		sb_release(&sb);
		return r;
	}
	for (s = sb.buf; s && *s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		leaves_line(s, l);
	}
	sb_release(&sb);
	return 0;
}

int rail_of_port(const struct hca_list *l, const struct pci_addr *pf, int num)
{
	size_t i;
	int p;

	for (i = 0; i < l->n; i++) {
		const struct hca *h = &l->v[i];

		if (!h->has_pci || pci_addr_cmp(&h->addr, pf))
			continue;
		for (p = 0; p < h->nports; p++)
			if (h->ports[p].num == num)
				return h->ports[p].rail;
	}
	return -2;
}
