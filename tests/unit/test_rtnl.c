// SPDX-License-Identifier: Apache-2.0
/*
 * rtnetlink in the guest: the IPoIB P_Key child messages rtnl.c builds are
 * the ones iproute2 6.1 sends, byte for byte (tests/fixtures/netlink/
 * ipoib_*.hex, captured with capture-ipoib.sh there): no kernel here has
 * an IPoIB parent to make a child on, so this is where the message is
 * checked. And against the kernel itself, in new user and network
 * namespaces of the test's own (nothing on the machine is touched): link
 * MTU and state, addresses and routes set, read back and taken away, and
 * the refusal of a child without ib_ipoib as one clean error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "unit.h"

#include "guest/rtnl.h"

static void add_same_as_iproute2(const char *file, enum ipoib_mode mode)
{
	uint8_t buf[RTNL_MSG_MAX];
	struct unit_capture c;
	int n;

	unit_load_capture(file, &c);
	memset(buf, 0xa5, sizeof(buf)); /* no byte may be left unwritten */
	n = rtnl_ipoib_add_msg(buf, sizeof(buf), c.seq, c.ifindex, "ib0.8011",
			       0x8011, mode);
	assert_int_equal(n, (int)c.len);
	assert_memory_equal(buf, c.bytes, c.len);
}

static void ipoib_add_datagram(void **state)
{
	(void)state;
	add_same_as_iproute2("ipoib_add_datagram.hex", IPOIB_DATAGRAM);
}

static void ipoib_add_connected(void **state)
{
	(void)state;
	add_same_as_iproute2("ipoib_add_connected.hex", IPOIB_CONNECTED);
}

static void link_del(void **state)
{
	uint8_t buf[RTNL_MSG_MAX];
	struct unit_capture c;
	int n;

	(void)state;
	unit_load_capture("ipoib_del.hex", &c);
	memset(buf, 0xa5, sizeof(buf));
	n = rtnl_link_del_msg(buf, sizeof(buf), c.seq, c.ifindex);
	assert_int_equal(n, (int)c.len);
	assert_memory_equal(buf, c.bytes, c.len);
}

static void msg_refusals(void **state)
{
	uint8_t buf[RTNL_MSG_MAX];

	(void)state;
	assert_int_equal(rtnl_ipoib_add_msg(buf, sizeof(buf), 1, 0, "ib0.8011",
					    0x8011, IPOIB_DATAGRAM),
			 -EINVAL);
	assert_int_equal(rtnl_ipoib_add_msg(buf, sizeof(buf), 1, 3, "", 0x8011,
					    IPOIB_DATAGRAM),
			 -EINVAL);
	assert_int_equal(
		rtnl_ipoib_add_msg(buf, sizeof(buf), 1, 3, "a-name-of-16-ch",
				   0x8011, IPOIB_DATAGRAM),
		96); /* 15 characters fit: IFLA_IFNAME 20 bytes, not 16 */
	assert_int_equal(rtnl_ipoib_add_msg(buf, sizeof(buf), 1, 3,
					    "a-name-of-16-chr", 0x8011,
					    IPOIB_DATAGRAM),
			 -EINVAL);
	/* one byte short of the 92 the message needs */
	assert_int_equal(rtnl_ipoib_add_msg(buf, 91, 1, 3, "ib0.8011", 0x8011,
					    IPOIB_DATAGRAM),
			 -ENOSPC);
	assert_int_equal(rtnl_ipoib_add_msg(buf, 92, 1, 3, "ib0.8011", 0x8011,
					    IPOIB_DATAGRAM),
			 92);
	assert_int_equal(rtnl_link_del_msg(buf, sizeof(buf), 1, 0), -EINVAL);
	assert_int_equal(rtnl_link_del_msg(buf, 31, 1, 5), -ENOSPC);
}

/* --- the kernel ----------------------------------------------------------- */

struct kernel_says {
	int unshared; /* 0: no user namespace for us here */
	int up, mtu_set, addr4, addr6, addr_again, route, route_again;
	int child, child_ns, del_route, del_addr4, del_addr6;
	unsigned lo_mtu, lo_flags, lo_type;
	char lo_kind[16];
	int has4, has6, has_route, gone4, gone6, gone_route;
	char child_why[256], again_why[256];
};

static void in_namespaces(struct kernel_says *k)
{
	struct inet_addr a4, a6;
	struct rtnl_links l;
	struct rtnl_addrs a;
	struct rtnl_routes r;
	struct rtnl_route rt;
	const struct rtnl_link *lo;
	char why[256];

	inet_parse("10.9.0.1", AF_INET, &a4);
	a4.plen = 24;
	inet_parse("fd00:9::1", AF_INET6, &a6);
	a6.plen = 64;
	memset(&rt, 0, sizeof(rt));
	inet_parse("10.8.0.0", AF_INET, &rt.dst);
	rt.dst.plen = 16;
	inet_parse("10.9.0.254", AF_INET, &rt.gw);
	rt.oif = 1;
	rt.metric = 7;

	k->mtu_set = rtnl_link_set(1, 9000, true, why, sizeof(why));
	k->addr4 = rtnl_addr_add(1, &a4, why, sizeof(why));
	k->addr6 = rtnl_addr_add(1, &a6, why, sizeof(why));
	k->addr_again =
		rtnl_addr_add(1, &a4, k->again_why, sizeof(k->again_why));
	k->route = rtnl_route_add(&rt, why, sizeof(why));
	k->route_again = rtnl_route_add(&rt, why, sizeof(why));
	if (!rtnl_links_get(&l, why, sizeof(why))) {
		lo = rtnl_link_find(&l, "lo");
		if (lo) {
			k->lo_mtu = lo->mtu;
			k->lo_flags = lo->flags;
			k->lo_type = lo->type;
			memcpy(k->lo_kind, lo->kind, sizeof(k->lo_kind));
		}
		rtnl_links_free(&l);
	}
	if (!rtnl_addrs_get(&a, why, sizeof(why))) {
		k->has4 = rtnl_addr_has(&a, 1, &a4);
		k->has6 = rtnl_addr_has(&a, 1, &a6);
		rtnl_addrs_free(&a);
	}
	if (!rtnl_routes_get(&r, why, sizeof(why))) {
		k->has_route = rtnl_route_has(&r, &rt);
		rtnl_routes_free(&r);
	}
	/* no ib_ipoib, and lo is no IPoIB parent anyway */
	k->child = rtnl_ipoib_add(1, "lo.8011", 0x8011, IPOIB_DATAGRAM,
				  k->child_why, sizeof(k->child_why));
	k->del_route = rtnl_route_del(&rt, why, sizeof(why));
	k->del_addr4 = rtnl_addr_del(1, &a4, why, sizeof(why));
	k->del_addr6 = rtnl_addr_del(1, &a6, why, sizeof(why));
	if (!rtnl_addrs_get(&a, why, sizeof(why))) {
		k->gone4 = !rtnl_addr_has(&a, 1, &a4);
		k->gone6 = !rtnl_addr_has(&a, 1, &a6);
		rtnl_addrs_free(&a);
	}
	if (!rtnl_routes_get(&r, why, sizeof(why))) {
		k->gone_route = !rtnl_route_has(&r, &rt);
		rtnl_routes_free(&r);
	}
}

/* In a child, in new user and network namespaces: lo only. */
static void ask_kernel(struct kernel_says *k)
{
	int fd[2], status;
	pid_t pid;

	memset(k, 0, sizeof(*k));
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		alarm(20);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
			k->unshared = 1;
			in_namespaces(k);
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

static void kernel_round_trip(void **state)
{
	struct kernel_says k;

	(void)state;
	ask_kernel(&k);
	if (!k.unshared)
		skip(); /* user namespaces disabled here */
	assert_int_equal(k.mtu_set, 0);
	assert_int_equal(k.lo_mtu, 9000);
	assert_true(k.lo_flags & IFF_UP);
	assert_int_equal(k.lo_type, 772); /* ARPHRD_LOOPBACK */
	assert_string_equal(k.lo_kind, "");
	assert_int_equal(k.addr4, 0);
	assert_int_equal(k.addr6, 0);
	assert_int_equal(k.addr_again, -EEXIST);
	assert_non_null(strstr(k.again_why, strerror(EEXIST)));
	assert_int_equal(k.route, 0);
	assert_int_equal(k.route_again, -EEXIST);
	assert_true(k.has4);
	assert_true(k.has6);
	assert_true(k.has_route);
	/* the kernel's word for a kind it does not know */
	assert_int_equal(k.child, -EOPNOTSUPP);
	assert_non_null(strstr(k.child_why, "Operation not supported"));
	assert_int_equal(k.del_route, 0);
	assert_int_equal(k.del_addr4, 0);
	assert_int_equal(k.del_addr6, 0);
	assert_true(k.gone4);
	assert_true(k.gone6);
	assert_true(k.gone_route);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipoib_add_datagram),
		cmocka_unit_test(ipoib_add_connected),
		cmocka_unit_test(link_del),
		cmocka_unit_test(msg_refusals),
		cmocka_unit_test(kernel_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
