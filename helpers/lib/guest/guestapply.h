/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bringing a guest's IPoIB configuration to the plans, over rtnetlink, and
 * remembering what oneib-context itself created, so that a later run can
 * take away exactly that when a NIC leaves the context, and nothing else:
 *
 *   /run/oneib-context/state  (tmpfs: the kernel forgets it all at reboot too)
 *   # oneib-context: what it created; undone when its NIC leaves the context
 *   ETH1 child ib0.8011 ib0 0x8011
 *   ETH1 addr ib0.8011 10.11.0.5/24
 *   ETH1 route ib0.8011 0.0.0.0/0 10.11.0.1 0
 *
 * What was there before (an address the admin set, a child someone else
 * made) is used when it fits, never recorded and never removed. A NIC is
 * configured whole or not at all: when the kernel refuses a step, what
 * this run created for that NIC is taken away again. The parent's mode
 * goes through its sysfs mode file (the kernel's documented switch, which
 * every IPoIB parent has); a child gets its mode when it is created.
 */
#ifndef ONEIB_GUESTAPPLY_H
#define ONEIB_GUESTAPPLY_H

#include <net/if.h>
#include <stdint.h>
#include <stdio.h>

#include "guest/guestplan.h"
#include "guest/inet.h"

enum gobj_kind { GOBJ_CHILD, GOBJ_ADDR, GOBJ_ROUTE };

/* One thing oneib-context created. */
struct gobj {
	int nic;
	enum gobj_kind kind;
	char link[IF_NAMESIZE];
	char parent[IF_NAMESIZE]; /* GOBJ_CHILD */
	uint16_t pkey; /* GOBJ_CHILD */
	struct inet_addr addr; /* GOBJ_ADDR; GOBJ_ROUTE: the destination */
	struct inet_addr gw; /* GOBJ_ROUTE */
	uint32_t metric; /* GOBJ_ROUTE */
};

struct gstate {
	struct gobj *v;
	size_t n, alloc;
};

/* Missing file: empty. A line that does not parse is dropped, with a warning. */
int gstate_load(const char *path, struct gstate *s, char *err, size_t errlen);
int gstate_save(const char *path, const struct gstate *s, char *err,
		size_t errlen);
int gstate_add(struct gstate *s, const struct gobj *o);
void gstate_free(struct gstate *s);
/* "ETH1 addr ib0.8011 10.11.0.5/24" (no '\n'); the state file's lines */
int gobj_fmt(const struct gobj *o, struct strbuf *out);
int gobj_parse(const char *line, struct gobj *o);

/* Names of the P_Key children in s: they are no parents, whatever sysfs says. */
bool gstate_is_child(const struct gstate *s, const char *name);

/*
 * Applies plans[0..n) (only PLAN_CONFIGURE ones are configured) against
 * old, the previous record, into *now, the new record: objects of NICs
 * that are neither configured nor waiting/refused/skipped now are taken
 * away first. One line per NIC on out ("ETH1 ib0.8011: configured ...",
 * "... unchanged", "ETH3 ib2: deconfigured: ..."), kernel refusals with
 * log_msg. Returns how many configurable NICs failed; -errno with err
 * when the kernel's state cannot be read at all.
 */
int guest_apply(struct nic_plan *plans, size_t n, const struct gstate *old,
		struct gstate *now, FILE *out, char *err, size_t errlen);

#endif
