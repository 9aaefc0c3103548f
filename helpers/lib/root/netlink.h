/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtnetlink for the VF settings of an mlx5 PF's IPoIB netdev, the messages
 * iproute2 sends for
 *
 *   ip link set dev ib0 vf 3 node_guid 02:00:c0:ff:fe:a8:01:05
 *   ip link set dev ib0 vf 3 port_guid 02:00:c0:ff:fe:a8:01:05
 *   ip link set dev ib0 vf 3 state auto|enable|disable
 *
 * laid out as it lays them out (attribute order, lengths, padding; checked
 * byte for byte against captures in tests/fixtures/netlink/):
 *
 *   nlmsghdr    RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq, pid 0
 *   ifinfomsg   AF_UNSPEC, ifi_index = the PF netdev
 *   IFLA_VFINFO_LIST { IFLA_VF_INFO { IFLA_VF_IB_NODE_GUID  ifla_vf_guid
 *                                   | IFLA_VF_IB_PORT_GUID  ifla_vf_guid
 *                                   | IFLA_VF_LINK_STATE    ifla_vf_link_state
 *   } }
 *
 * The kernel hands them to the IPoIB PF netdev's ndo_set_vf_guid /
 * ndo_set_vf_link_state (mlx5_ib: a MODIFY_HCA_VPORT_CONTEXT on vport vf+1);
 * any other netdev answers -EOPNOTSUPP. Reading back is an RTM_GETLINK with
 * IFLA_EXT_MASK RTEXT_FILTER_VF: every VF's link state, and on an IPoIB
 * netdev of a kernel with "net/core: Add support for getting VF GUIDs"
 * (2019) its node and port GUID as mlx5_ib cached them (0 until set).
 */
#ifndef ONEIB_NETLINK_H
#define ONEIB_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

enum nl_vf_attr {
	NL_VF_NODE_GUID, /* value: the GUID, 0x0200c0fffea80105 */
	NL_VF_PORT_GUID,
	NL_VF_LINK_STATE, /* value: one of NL_VF_STATE_* */
};

/* = IFLA_VF_LINK_STATE_AUTO, _ENABLE, _DISABLE (OFED: Follow, Up, Down) */
enum nl_vf_state {
	NL_VF_STATE_AUTO = 0,
	NL_VF_STATE_ENABLE = 1,
	NL_VF_STATE_DISABLE = 2,
};

/* Longest message built here: the GUID one, 60 bytes. */
#define NL_VF_MSG_MAX 64

/*
 * The RTM_NEWLINK for one VF setting into buf; returns its length, or
 * -EINVAL (bad vf, state or ifindex) / -ENOSPC (buf too small).
 */
int nl_vf_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex, int vf,
	      enum nl_vf_attr what, uint64_t value);
/* The RTM_GETLINK of ifindex with RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS. */
int nl_getlink_msg(uint8_t *buf, size_t len, uint32_t seq, int ifindex);

/* What RTM_GETLINK says about a netdev and one of its VFs. */
struct nl_link {
	int ifindex;
	unsigned int type; /* ARPHRD_*: 32 = InfiniBand (IPoIB) */
	char name[IF_NAMESIZE];
	int num_vf; /* IFLA_NUM_VF; -1 when absent */
	bool vf_found; /* the VF's IFLA_VF_INFO was there */
	bool has_guids; /* ... and carried its IB GUIDs */
	uint64_t node_guid, port_guid;
	uint32_t link_state; /* NL_VF_STATE_* */
};

/* An RTM_NEWLINK answer (one nlmsghdr and its payload) -> out; -EBADMSG. */
int nl_link_parse(const uint8_t *msg, size_t len, int vf, struct nl_link *out);

/* Every VF's GUIDs in one answer: one entry per VF that reports both. */
struct nl_vf_guid {
	uint32_t vf;
	uint64_t node_guid, port_guid;
};
struct nl_vf_guids {
	struct nl_vf_guid *v;
	size_t n, cap;
};
/* out as nl_link_parse fills it but for the per-VF fields; all emptied
 * first. -EBADMSG, -ENOMEM. */
int nl_link_parse_all(const uint8_t *msg, size_t len, struct nl_link *out,
		      struct nl_vf_guids *all);
void nl_vf_guids_free(struct nl_vf_guids *g);

/*
 * Sends one message on a NETLINK_ROUTE socket and waits (5 s at most) for
 * the kernel's answer. 0 or the kernel's -errno (-EOPNOTSUPP: not an
 * IPoIB PF netdev; -ENODEV: no such ifindex; -EPERM: no CAP_NET_ADMIN);
 * err gets the reason in words, with the kernel's extended ack message
 * when it sent one: "Operation not supported".
 */
int nl_vf_set(int ifindex, int vf, enum nl_vf_attr what, uint64_t value,
	      char *err, size_t errlen);
int nl_link_get(int ifindex, int vf, struct nl_link *out, char *err,
		size_t errlen);
/* One RTM_GETLINK for every VF's GUIDs (nl_link_parse_all). */
int nl_link_get_all(int ifindex, struct nl_link *out, struct nl_vf_guids *all,
		    char *err, size_t errlen);

/* NL_VF_STATE_AUTO -> "auto" (ip link's words); "?" for anything else. */
const char *nl_vf_state_name(uint32_t state);

#endif
