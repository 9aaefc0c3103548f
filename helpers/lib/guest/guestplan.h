/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What oneib-context does for one NIC of the context, decided from the
 * NIC's settings, the IPoIB netdev whose port GUID is that NIC's, and that
 * port's facts; and the plan as one line (--dry-run):
 *
 *   ETH1 ib0 guid 0x02000000002a0001 pkey 0x8011 via ib0.8011 mode datagram mtu 2044 sl 3 (sa) ip 10.11.0.5/24 gw 10.11.0.1
 *
 * The NIC's netdev: the IPoIB parent whose GUID is guid_for_nic(any cloud,
 * VMID, n) for ETH<n> (guid_is_nic). None: the NIC is not InfiniBand, the
 * stock scripts have it. Two: refused.
 *
 * The partition: the tenant P_Key is the one full-member key of the port's
 * table other than the default partition (0x7fff/0xffff); ETH<n>_IB_PKEY
 * names it when the table has several. At index 0 (ConnectX-3: the host
 * maps the tenant key there) the parent carries it; elsewhere (ConnectX-4
 * and later: the subnet manager puts the default partition at index 0) a
 * child does, named as the kernel names its own, "%.10s.%04x":
 *   table 0xffff 0x8011 -> child ib0.8011;  table 0x8011 0x7fff -> ib0
 * No tenant key yet: the subnet manager has not programmed the port (wait).
 *
 * Mode and MTU: datagram unless ETH<n>_IB_MODE is connected and the netdev
 * can (its address flag 0x80; mlx5 enhanced IPoIB cannot: datagram, with a
 * note). ETH<n>_MTU is clamped to the mode: datagram at most the port's
 * active MTU - 4 (2044, 4092; 4092 when the MTU is unknown, and the
 * kernel then refuses what the port cannot carry), connected 65520.
 */
#ifndef ONEIB_GUESTPLAN_H
#define ONEIB_GUESTPLAN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest/ibport.h"
#include "guest/ipoib.h"
#include "guest/nicconf.h"
#include "core/pkey.h"
#include "core/strbuf.h"

/* Where a NIC's service level comes from (guestsl.h). */
enum sl_source {
	SLS_NONE, /* not known: the MPI stacks' own default (SL 0) */
	SLS_SA, /* the SA's path record in the NIC's partition */
	SLS_CONTEXT, /* ETH<n>_IB_SL, when the SA could not be asked */
};

enum plan_what {
	PLAN_STOCK, /* no IPoIB netdev carries the NIC's GUID */
	PLAN_SKIP, /* ETH<n>_METHOD skip */
	PLAN_CONFIGURE,
	PLAN_WAIT, /* the port's table has no tenant P_Key (yet) */
	PLAN_ERROR, /* a bad value, two netdevs, several tenant keys, ... */
};

#define PLAN_NOTES 4
#define PLAN_TEXT 200

struct nic_plan {
	int nic; /* n of ETH<n> */
	enum plan_what what;
	struct nic_conf conf; /* valid from PLAN_SKIP on */
	bool have_dev;
	struct ipoib_dev dev; /* the parent netdev */
	struct pkey pkey; /* the tenant key as the table holds it: 0x8011,
			     or 0x0104 on a service network (limited) */
	bool child; /* the key is not at index 0: a child carries it */
	char link[IF_NAMESIZE]; /* where addresses go: ib0 or ib0.8011 */
	enum ipoib_mode mode;
	int mtu; /* 0: left as it is */
	bool ip6_off; /* ETH<n>_IP6_METHOD disable */
	uint16_t sa_pkey_index; /* the default partition's: SA MADs go there */
	enum sl_source sl_source;
	int sl; /* with sl_source */
	bool has_ipoib_sl;
	int ipoib_sl; /* its IPoIB broadcast group's, as the SA answers */
	char why[PLAN_TEXT]; /* for STOCK, SKIP, WAIT, ERROR */
	char note[PLAN_NOTES][PLAN_TEXT]; /* clamps, fallbacks, oddities */
	size_t nnotes;
};

void plan_note(struct nic_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The IPoIB netdevs of NIC nic of VM vmid: index into devs, -1 none, -2 several. */
int plan_match(const struct ipoib_devs *devs, uint32_t vmid, int nic);

/*
 * The tenant key of a P_Key table: want (ETH<n>_IB_PKEY, may be NULL; its
 * partition in either form, full preferred) or the one full-member key
 * that is no default partition, or when there is none the one
 * limited-member key (a service network's NIC: { 0x7fff, 0x0104 } ->
 * 0x0104 at 1). 0 with *out and *index; -ENOENT: none (yet); -EEXIST:
 * several and no want, why says which.
 */
int plan_tenant_pkey(const uint16_t *tbl, size_t n, const struct pkey *want,
		     struct pkey *out, size_t *index, char *why, size_t whylen);

/* "ib0", 0x8011 -> "ib0.8011"; the parent name cut to 10 as the kernel does */
void ipoib_child_name(const char *parent, uint16_t pkey, char out[IF_NAMESIZE]);

/*
 * The plan of a NIC whose netdev is dev, its settings p->conf already
 * parsed (p->nic, p->conf set, p->what PLAN_CONFIGURE or PLAN_SKIP),
 * the port's facts f.
 */
void plan_nic(struct nic_plan *p, const struct ipoib_dev *dev,
	      const struct ib_port_facts *f);

/* The plan's line, without '\n'. -ENOMEM. */
int plan_line(const struct nic_plan *p, struct strbuf *out);

#endif
