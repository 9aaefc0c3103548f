/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One NIC's network settings as the context carries them: the ETH<n>_*
 * variables oned writes for the NIC with NIC_ID n (VirtualMachineContext.cc:
 * IP, MASK, GATEWAY, MTU from the network's GUEST_MTU, METHOD, IP6...),
 * the ROUTES one-context reads, and the InfiniBand ones a template passes
 * (ETH<n>_IB_MODE, ETH<n>_IB_PKEY, ETH<n>_IB_SL), parsed into types at once:
 *
 *   ETH1_IP='10.11.0.5'  ETH1_MASK='255.255.255.0'  ETH1_GATEWAY='10.11.0.1'
 *   ETH1_MTU='2044'      ETH1_ROUTES='10.12.0.0/16 via 10.11.0.254'
 *   -> { .id = 1, .ip4 = 10.11.0.5/24, .gw4 = 10.11.0.1, .mtu = 2044,
 *        .routes = { 10.12.0.0/16 via 10.11.0.254 } }
 *
 * An empty value is no value (oned writes ETH1_MTU='' when the network has
 * no GUEST_MTU). A value that does not parse refuses the whole NIC, with
 * one line naming the variable and the value:
 *   ETH1_IP '10.11.0.300': not an IPv4 address
 * (IB_MODE and IB_PKEY by ibattr.c's rules and words, as everywhere else:
 *   ETH1: IB_MODE 'bulk' is not datagram or connected)
 */
#ifndef ONEIB_NICCONF_H
#define ONEIB_NICCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "guest/context.h"
#include "guest/inet.h"
#include "guest/ipoib.h"
#include "core/pkey.h"

enum nic_method { NIC_STATIC, NIC_DHCP, NIC_SKIP }; /* ETH<n>_METHOD */
enum nic_method6 { /* ETH<n>_IP6_METHOD */
		   IP6_STATIC,
		   IP6_AUTO, /* SLAAC: the kernel's own */
		   IP6_DHCP,
		   IP6_DISABLE,
		   IP6_SKIP,
};

struct nic_route {
	struct inet_addr dst; /* with plen: 10.12.0.0/16 */
	struct inet_addr via;
};

#define NIC_ROUTES_MAX 32

struct nic_conf {
	int id; /* n of ETH<n>: the NIC_ID */
	enum nic_method method;
	enum nic_method6 method6; /* IP6_METHOD, METHOD's when not given */
	bool has_ip4, mask_default; /* no MASK: /24, as one-context assumes */
	struct inet_addr ip4;
	bool has_gw4;
	struct inet_addr gw4;
	uint32_t metric; /* METRIC, 0 when not given */
	bool has_ip6;
	struct inet_addr ip6; /* IP6 (or IPV6), IP6_PREFIX_LENGTH (64) */
	bool has_gw6;
	struct inet_addr gw6; /* IP6_GATEWAY (or GATEWAY6) */
	uint32_t metric6; /* IP6_METRIC, METRIC's when not given */
	struct nic_route routes[NIC_ROUTES_MAX]; /* ROUTES */
	size_t nroutes;
	int mtu; /* MTU 68..65535; 0 = not given */
	bool has_mode;
	enum ipoib_mode mode; /* IB_MODE */
	bool has_pkey;
	struct pkey pkey; /* IB_PKEY, full-member form */
	/* IB_SL: what the template says; the SA's answer wins (guestsl.h) */
	bool has_sl;
	int sl;
};

/* A NIC the context speaks of: some ETH<n>_ variable, ETH<n>_MAC or not. */
struct nic_ref {
	int id;
	bool has_mac;
};

/* Every n with an ETH<n>_ variable (n = 0..65535), ascending. -ENOMEM. */
int context_nics(const struct context *c, struct nic_ref **out, size_t *n);

/* ETH<id>_* -> out; -EINVAL with "ETH1_MTU 'big': not a number ..." */
int nic_conf_parse(const struct context *c, int id, struct nic_conf *out,
		   char *err, size_t errlen);

/* VMID, 0..4294967295; -ENOENT when absent or empty, -EINVAL with a line */
int context_vmid(const struct context *c, uint32_t *vmid, char *err,
		 size_t errlen);

#endif
