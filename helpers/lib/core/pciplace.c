// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/pciplace.h"
#include "core/sysfs.h"

/* "pci0000:14" -> domain 0, root bus 0x14 */
static int host_bridge_parse(const char *s, size_t len, uint16_t *domain,
			     uint8_t *bus)
{
	unsigned d = 0, b = 0;
	size_t i;

	if (len != 10 || strncmp(s, "pci", 3) || s[7] != ':')
		return -EINVAL;
	for (i = 3; i < 10; i++) {
		int x = hex_digit(s[i]);

		if (i == 7)
			continue;
		if (x < 0 || (s[i] >= 'A' && s[i] <= 'F'))
			return -EINVAL;
		if (i < 7)
			d = d << 4 | (unsigned)x;
		else
			b = b << 4 | (unsigned)x;
	}
	*domain = (uint16_t)d;
	*bus = (uint8_t)b;
	return 0;
}

int pci_place_parse(const char *target, const struct pci_addr *dev,
		    struct pci_place *out)
{
	const char *s = strstr(target, "devices/pci");
	struct pci_addr a;
	char comp[PCI_ADDR_STRLEN];
	size_t len;

	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	if (!s || (s != target && s[-1] != '/'))
		return -EINVAL;
	s += strlen("devices/");
	len = strcspn(s, "/");
	if (host_bridge_parse(s, len, &out->domain, &out->root_bus) ||
	    s[len] != '/')
		return -EINVAL;
	for (s += len + 1;; s += len + 1) {
		len = strcspn(s, "/");
		if (len != 12)
			return -EINVAL;
		memcpy(comp, s, len);
		comp[len] = '\0';
		if (pci_addr_parse(comp, &a) || a.domain != out->domain)
			return -EINVAL;
		if (!s[len])
			break;
		/* a bridge: the root port is on the host bridge's bus */
		if (out->nchain == PCI_CHAIN_MAX ||
		    (out->nchain == 0 && a.bus != out->root_bus))
			return -EINVAL;
		out->chain[out->nchain++] = a;
	}
	if (pci_addr_cmp(&a, dev))
		return -EINVAL;
	if (out->nchain >= 3) {
		out->has_switch = true;
		out->sw = out->chain[out->nchain - 2];
	}
	out->known = true;
	return 0;
}

void pci_place_read(const struct pci_addr *dev, struct pci_place *out)
{
	char bdf[PCI_ADDR_STRLEN], path[PATH_MAX], target[PATH_MAX];
	char me[PCI_ADDR_STRLEN];
	long v;
	ssize_t n;
	size_t i;

	pci_addr_fmt(dev, me);
	pci_addr_fmt(dev, bdf);
	memset(out, 0, sizeof(*out));
	out->numa_node = -1;
	if (path_fmt(path, sizeof(path), SYS_PCI "/%s", bdf))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		log_msg("%s: cannot read the link: %s", path, strerror(errno));
		return;
	}
	target[n] = '\0';
	if (pci_place_parse(target, dev, out)) {
		log_msg("%s: not a PCI device path: '%s'", path,
			str_sanitize(target).s);
		return;
	}
	/* A chain whose "bridges" are not bridges names no switch. */
	for (i = 0; out->has_switch && i < out->nchain; i++) {
		pci_addr_fmt(&out->chain[i], bdf);
		if (path_fmt(path, sizeof(path), SYS_PCI "/%s/class", bdf))
			continue;
		if (!sysfs_read_long(path, &v) && (v >> 8) == 0x0604)
			continue;
		log_msg("%s: not a PCI bridge, so no PCIe switch is named "
			"for %s",
			path, me);
		out->has_switch = false;
	}
}

void pci_place_from(const struct pci_addr *root_port, const struct pci_addr *sw,
		    int numa_node, struct pci_place *out)
{
	memset(out, 0, sizeof(*out));
	out->numa_node = numa_node;
	if (!root_port)
		return;
	out->known = true;
	out->domain = root_port->domain;
	out->root_bus = root_port->bus;
	out->chain[out->nchain++] = *root_port;
	if (sw) {
		out->chain[out->nchain++] = *sw;
		out->has_switch = true;
		out->sw = *sw;
	}
}

size_t pci_shared_bridges(const struct pci_place *a, const struct pci_place *b)
{
	size_t i;

	if (!a->known || !b->known || a->domain != b->domain ||
	    a->root_bus != b->root_bus)
		return 0;
	for (i = 0; i < a->nchain && i < b->nchain; i++)
		if (pci_addr_cmp(&a->chain[i], &b->chain[i]))
			break;
	return i;
}

enum pci_near pci_near(const struct pci_place *a, const struct pci_place *b)
{
	/* Sharing the root port and the switch's upstream port below it:
	 * the switch routes between them, no root port in the way. */
	if (a->has_switch && b->has_switch && pci_shared_bridges(a, b) >= 2)
		return PCI_NEAR_SWITCH;
	if (a->numa_node >= 0 && a->numa_node == b->numa_node)
		return PCI_NEAR_NODE;
	return PCI_NEAR_NONE;
}

const char *pci_near_name(enum pci_near n)
{
	switch (n) {
	case PCI_NEAR_SWITCH:
		return "switch";
	case PCI_NEAR_NODE:
		return "numa";
	case PCI_NEAR_NONE:
		break;
	}
	return "none";
}

bool pci_class_is_gpu(uint32_t class_code)
{
	return (class_code >> 16) == 0x03 || (class_code >> 16) == 0x12;
}
