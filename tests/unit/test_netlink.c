// SPDX-License-Identifier: Apache-2.0
/*
 * rtnetlink for mlx5 VFs: the messages netlink.c builds are the ones
 * iproute2 6.1 sends, byte for byte (the .hex files in
 * tests/fixtures/netlink/, captured with capture.sh there, see its
 * README.md); RTM_GETLINK answers laid out
 * as the kernel's rtnl_fill_vfinfo() writes them are parsed, and cut ones
 * refused without reading past their end; and the kernel's own answer to a
 * VF setting on a netdev without VFs (lo, in a user + network namespace of
 * the test's own, so nothing on the machine is touched) comes back as a
 * clean -EOPNOTSUPP instead of a hang.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "unit.h"

#include "root/netlink.h"

#define GUID 0x0200c0fffea80105ULL /* 02:00:c0:ff:fe:a8:01:05 */

/* --- captured messages ---------------------------------------------------- */

static void same_as_iproute2(const char *file, enum nl_vf_attr what,
			     uint64_t value)
{
	uint8_t buf[NL_VF_MSG_MAX];
	struct unit_capture c;
	int n;

	unit_load_capture(file, &c);
	memset(buf, 0xa5, sizeof(buf)); /* no byte may be left unwritten */
	n = nl_vf_msg(buf, sizeof(buf), c.seq, c.ifindex, 3, what, value);
	assert_int_equal(n, (int)c.len);
	assert_memory_equal(buf, c.bytes, c.len);
}

static void node_guid_msg(void **state)
{
	(void)state;
	same_as_iproute2("node_guid.hex", NL_VF_NODE_GUID, GUID);
}

static void port_guid_msg(void **state)
{
	(void)state;
	same_as_iproute2("port_guid.hex", NL_VF_PORT_GUID, GUID);
}

static void state_msgs(void **state)
{
	(void)state;
	same_as_iproute2("state_auto.hex", NL_VF_LINK_STATE, NL_VF_STATE_AUTO);
	same_as_iproute2("state_enable.hex", NL_VF_LINK_STATE,
			 NL_VF_STATE_ENABLE);
	same_as_iproute2("state_disable.hex", NL_VF_LINK_STATE,
			 NL_VF_STATE_DISABLE);
}

static void getlink_msg(void **state)
{
	uint8_t buf[NL_VF_MSG_MAX];
	struct unit_capture c;
	int n;

	(void)state;
	unit_load_capture("getlink.hex", &c);
	memset(buf, 0xa5, sizeof(buf));
	n = nl_getlink_msg(buf, sizeof(buf), c.seq, c.ifindex);
	assert_int_equal(n, (int)c.len);
	assert_memory_equal(buf, c.bytes, c.len);
}

static void msg_refusals(void **state)
{
	uint8_t buf[NL_VF_MSG_MAX];

	(void)state;
	assert_int_equal(nl_vf_msg(buf, sizeof(buf), 1, 3, -1, NL_VF_NODE_GUID,
				   GUID),
			 -EINVAL);
	assert_int_equal(nl_vf_msg(buf, sizeof(buf), 1, 0, 3, NL_VF_NODE_GUID,
				   GUID),
			 -EINVAL);
	assert_int_equal(nl_vf_msg(buf, sizeof(buf), 1, 3, 3, NL_VF_LINK_STATE,
				   3),
			 -EINVAL);
	assert_int_equal(nl_vf_msg(buf, sizeof(buf), 1, 3, 3,
				   (enum nl_vf_attr)7, 0),
			 -EINVAL);
	assert_int_equal(nl_vf_msg(buf, 59, 1, 3, 3, NL_VF_PORT_GUID, GUID),
			 -ENOSPC);
	assert_int_equal(nl_vf_msg(buf, 52, 1, 3, 3, NL_VF_LINK_STATE, 0), 52);
	assert_int_equal(nl_getlink_msg(buf, 39, 1, 3), -ENOSPC);
	assert_int_equal(nl_getlink_msg(buf, sizeof(buf), 1, -2), -EINVAL);
	assert_string_equal(nl_vf_state_name(NL_VF_STATE_DISABLE), "disable");
	assert_string_equal(nl_vf_state_name(9), "?");
}

/* --- RTM_GETLINK answers -------------------------------------------------- */

struct msg {
	uint8_t b[4096];
	size_t len;
};

static size_t put(struct msg *m, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len),
			    .nla_type = type };
	size_t at = m->len;

	assert_true(at + NLA_HDRLEN + NLA_ALIGN(len) <= sizeof(m->b));
	memcpy(m->b + at, &a, sizeof(a));
	if (len)
		memcpy(m->b + at + NLA_HDRLEN, data, len);
	memset(m->b + at + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	m->len = at + NLA_HDRLEN + NLA_ALIGN(len);
	return at;
}

static void nest_end(struct msg *m, size_t at)
{
	uint16_t len = (uint16_t)(m->len - at);

	memcpy(m->b + at, &len, sizeof(len));
}

/*
 * An IPoIB PF netdev "ib0" (ifindex 5, ARPHRD_INFINIBAND) with 4 VFs, VF n
 * carrying node GUID GUID + n, port GUID GUID + 0x100 + n, link state n % 3,
 * each IFLA_VF_INFO in rtnl_fill_vfinfo()'s order (Linux 6.1).
 */
static void ib0_answer(struct msg *m, int with_guids)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_type = 32,
				 .ifi_index = 5 };
	struct nlmsghdr nh = { .nlmsg_type = RTM_NEWLINK, .nlmsg_seq = 7 };
	uint32_t u32 = 2044, len32;
	size_t list, vf;
	uint32_t i;

	memset(m, 0, sizeof(*m));
	m->len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifi));
	memcpy(m->b + NLMSG_HDRLEN, &ifi, sizeof(ifi));
	put(m, IFLA_IFNAME, "ib0", 4);
	put(m, IFLA_MTU, &u32, 4);
	u32 = 4;
	put(m, IFLA_NUM_VF, &u32, 4);
	list = put(m, IFLA_VFINFO_LIST, NULL, 0);
	for (i = 0; i < 4; i++) {
		struct ifla_vf_mac mac = { .vf = i };
		struct ifla_vf_broadcast bc;
		struct ifla_vf_vlan vlan = { .vf = i };
		struct ifla_vf_rate rate = { .vf = i };
		struct ifla_vf_tx_rate txr = { .vf = i };
		struct ifla_vf_spoofchk sc = { .vf = i };
		struct ifla_vf_link_state ls = { .vf = i, .link_state = i % 3 };
		struct ifla_vf_rss_query_en rss = { .vf = i };
		struct ifla_vf_trust tr = { .vf = i };
		struct ifla_vf_guid ng, pg;
		struct ifla_vf_vlan_info vi = { .vf = i };
		size_t vl;

		memset(&bc, 0xff, sizeof(bc));
		memset(&ng, 0, sizeof(ng));
		memset(&pg, 0, sizeof(pg));
		ng.vf = pg.vf = i;
		ng.guid = GUID + i;
		pg.guid = GUID + 0x100 + i;
		vf = put(m, IFLA_VF_INFO, NULL, 0);
		put(m, IFLA_VF_MAC, &mac, sizeof(mac));
		put(m, IFLA_VF_BROADCAST, &bc, sizeof(bc));
		put(m, IFLA_VF_VLAN, &vlan, sizeof(vlan));
		put(m, IFLA_VF_RATE, &rate, sizeof(rate));
		put(m, IFLA_VF_TX_RATE, &txr, sizeof(txr));
		put(m, IFLA_VF_SPOOFCHK, &sc, sizeof(sc));
		put(m, IFLA_VF_LINK_STATE, &ls, sizeof(ls));
		put(m, IFLA_VF_RSS_QUERY_EN, &rss, sizeof(rss));
		put(m, IFLA_VF_TRUST, &tr, sizeof(tr));
		if (with_guids) {
			put(m, IFLA_VF_IB_NODE_GUID, &ng, sizeof(ng));
			put(m, IFLA_VF_IB_PORT_GUID, &pg, sizeof(pg));
		}
		vl = put(m, IFLA_VF_VLAN_LIST, NULL, 0);
		put(m, IFLA_VF_VLAN_INFO, &vi, sizeof(vi));
		nest_end(m, vl);
		nest_end(m, vf);
	}
	nest_end(m, list);
	u32 = 1;
	put(m, IFLA_CARRIER, &u32, 4);
	nh.nlmsg_len = (uint32_t)m->len;
	memcpy(m->b, &nh, sizeof(nh));
	len32 = nh.nlmsg_len;
	assert_int_equal(len32, m->len);
}

static void parse_vf_settings(void **state)
{
	struct nl_link l;
	struct msg m;

	(void)state;
	ib0_answer(&m, 1);
	assert_int_equal(nl_link_parse(m.b, m.len, 2, &l), 0);
	assert_string_equal(l.name, "ib0");
	assert_int_equal(l.ifindex, 5);
	assert_int_equal(l.type, 32);
	assert_int_equal(l.num_vf, 4);
	assert_true(l.vf_found);
	assert_true(l.has_guids);
	assert_true(l.node_guid == GUID + 2);
	assert_true(l.port_guid == GUID + 0x102);
	assert_int_equal(l.link_state, NL_VF_STATE_DISABLE);

	assert_int_equal(nl_link_parse(m.b, m.len, 0, &l), 0);
	assert_true(l.node_guid == GUID && l.port_guid == GUID + 0x100);
	assert_int_equal(l.link_state, NL_VF_STATE_AUTO);

	/* a VF the netdev does not have */
	assert_int_equal(nl_link_parse(m.b, m.len, 9, &l), 0);
	assert_false(l.vf_found);
	assert_false(l.has_guids);
}

static void parse_without_guids(void **state)
{
	struct nl_link l;
	struct msg m;

	(void)state;
	/* a kernel from before VF GUIDs were reported */
	ib0_answer(&m, 0);
	assert_int_equal(nl_link_parse(m.b, m.len, 1, &l), 0);
	assert_true(l.vf_found);
	assert_false(l.has_guids);
	assert_int_equal(l.link_state, NL_VF_STATE_ENABLE);
}

/* Every VF's GUIDs from one answer: what oneib-pkey refuses to reuse. */
static void parse_all_vfs(void **state)
{
	struct nl_vf_guids all = { 0 };
	struct nl_link l;
	struct msg m;
	uint32_t i;

	(void)state;
	ib0_answer(&m, 1);
	assert_int_equal(nl_link_parse_all(m.b, m.len, &l, &all), 0);
	assert_string_equal(l.name, "ib0");
	assert_int_equal(l.ifindex, 5);
	assert_int_equal(l.type, 32);
	assert_int_equal(all.n, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(all.v[i].vf, i);
		assert_true(all.v[i].node_guid == GUID + i);
		assert_true(all.v[i].port_guid == GUID + 0x100 + i);
	}
	/* parsed again: replaced, not appended */
	assert_int_equal(nl_link_parse_all(m.b, m.len, &l, &all), 0);
	assert_int_equal(all.n, 4);
	/* a kernel that reports no GUIDs: nothing to compare */
	ib0_answer(&m, 0);
	assert_int_equal(nl_link_parse_all(m.b, m.len, &l, &all), 0);
	assert_int_equal(all.n, 0);
	/* a cut answer */
	ib0_answer(&m, 1);
	assert_int_equal(nl_link_parse_all(m.b, 20, &l, &all), -EBADMSG);
	nl_vf_guids_free(&all);
	assert_null(all.v);
	nl_vf_guids_free(&all);
}

static void parse_refusals(void **state)
{
	struct nl_link l;
	struct nlmsghdr nh;
	struct msg m;
	size_t cut;

	(void)state;
	ib0_answer(&m, 1);
	/*
	 * Every shorter buffer: the header says more than there is, so the
	 * message is refused; run under ASan this also proves no read past
	 * the end.
	 */
	for (cut = 0; cut < m.len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		assert_non_null(copy);
		memcpy(copy, m.b, cut);
		assert_int_equal(nl_link_parse(copy, cut, 2, &l), -EBADMSG);
		free(copy);
	}
	/* a header that admits to the cut: parsed as far as it goes */
	for (cut = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct ifinfomsg));
	     cut < m.len; cut++) {
		uint8_t *copy = malloc(cut);
		int r;

		assert_non_null(copy);
		memcpy(copy, m.b, cut);
		memcpy(&nh, copy, sizeof(nh));
		nh.nlmsg_len = (uint32_t)cut;
		memcpy(copy, &nh, sizeof(nh));
		r = nl_link_parse(copy, cut, 2, &l);
		assert_true(r == 0 || r == -EBADMSG);
		free(copy);
	}
	/* not an RTM_NEWLINK */
	memcpy(&nh, m.b, sizeof(nh));
	nh.nlmsg_type = NLMSG_ERROR;
	memcpy(m.b, &nh, sizeof(nh));
	assert_int_equal(nl_link_parse(m.b, m.len, 2, &l), -EBADMSG);
}

/* --- the kernel ----------------------------------------------------------- */

struct kernel_says {
	int unshared; /* 0: no user namespace for us here */
	int node, port, state, nodev, get, get_vf;
	unsigned int type;
	char name[IF_NAMESIZE];
	char why[256];
};

/*
 * In a child, in new user and network namespaces: root there, lo only, and
 * no path back to the machine's own links. An alarm bounds any hang.
 */
static void ask_kernel(struct kernel_says *k)
{
	int fd[2], status;
	pid_t pid;

	memset(k, 0, sizeof(*k));
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct nl_link l;
		char why[256];

		close(fd[0]);
		alarm(20);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
			k->unshared = 1;
			k->node = nl_vf_set(1, 0, NL_VF_NODE_GUID, GUID, k->why,
					    sizeof(k->why));
			k->port = nl_vf_set(1, 0, NL_VF_PORT_GUID, GUID, why,
					    sizeof(why));
			k->state = nl_vf_set(1, 0, NL_VF_LINK_STATE,
					     NL_VF_STATE_DISABLE, why,
					     sizeof(why));
			k->nodev = nl_vf_set(4242, 0, NL_VF_NODE_GUID, GUID,
					     why, sizeof(why));
			k->get = nl_link_get(1, 0, &l, why, sizeof(why));
			k->get_vf = l.vf_found;
			k->type = l.type;
			memcpy(k->name, l.name, sizeof(k->name));
		}
		if (write(fd[1], k, sizeof(*k)) != (ssize_t)sizeof(*k))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	assert_int_equal(read(fd[0], k, sizeof(*k)), (ssize_t)sizeof(*k));
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void kernel_refuses_cleanly(void **state)
{
	struct kernel_says k;

	(void)state;
	ask_kernel(&k);
	if (!k.unshared)
		skip(); /* user namespaces disabled here */
	/* lo has no VF operations: the kernel says so, nothing hangs */
	assert_int_equal(k.node, -EOPNOTSUPP);
	assert_string_equal(k.why, strerror(EOPNOTSUPP));
	assert_int_equal(k.port, -EOPNOTSUPP);
	assert_int_equal(k.state, -EOPNOTSUPP);
	assert_int_equal(k.nodev, -ENODEV);
	/* and reading it back: lo, ARPHRD_LOOPBACK, no VF 0 */
	assert_int_equal(k.get, 0);
	assert_string_equal(k.name, "lo");
	assert_int_equal(k.type, 772);
	assert_false(k.get_vf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node_guid_msg),
		cmocka_unit_test(port_guid_msg),
		cmocka_unit_test(state_msgs),
		cmocka_unit_test(getlink_msg),
		cmocka_unit_test(parse_all_vfs),
		cmocka_unit_test(msg_refusals),
		cmocka_unit_test(parse_vf_settings),
		cmocka_unit_test(parse_without_guids),
		cmocka_unit_test(parse_refusals),
		cmocka_unit_test(kernel_refuses_cleanly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
