/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IPoIB netdevs of a guest, found the way udev's persistent IPoIB rules
 * and rdma_rename find them, in sysfs: type 32 (ARPHRD_INFINIBAND) and a
 * 20-byte hardware address whose bytes 12-19 are the port GUID:
 *
 *   /sys/class/net/ib0/address
 *     80:00:01:08:fe:80:00:00:00:00:00:00:02:00:00:00:00:2a:00:01
 *     |  '--QPN-' '---- subnet prefix ----' '----- port GUID -----'
 *     '- flags: 0x80 = connected mode possible (ipoib_cm_dev_init ran;
 *        never on mlx5's enhanced IPoIB, which is datagram only)
 *     -> GUID 0x02000000002a0001 (VM 42 NIC 1), cm
 *   /sys/class/net/ib0/device/infiniband/mlx5_0     its RDMA device
 *   /sys/class/net/ib0/dev_port                     port - 1
 *   /sys/class/net/ib0/iflink == ifindex            a parent
 *   /sys/class/net/ib0/mode                         "datagram" / "connected"
 *
 * Only parents are listed: a P_Key child carries its parent's address. The
 * kernel marks children by an iflink that names the parent
 * (ipoib_get_iflink) and legacy (sysfs-made) children by a `parent` file.
 * Configuration then goes through rtnetlink by name; the names in sysfs
 * and in rtnetlink are one namespace.
 */
#ifndef ONEIB_IPOIB_H
#define ONEIB_IPOIB_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* = IFLA_IPOIB_MODE's values (IPOIB_MODE_DATAGRAM = 0, _CONNECTED = 1) */
enum ipoib_mode { IPOIB_DATAGRAM = 0, IPOIB_CONNECTED = 1 };

/* "datagram", "connected": the words of the sysfs mode file and IB_MODE */
const char *ipoib_mode_name(enum ipoib_mode m);
int ipoib_mode_parse(const char *s, enum ipoib_mode *m);

#define IPOIB_IBDEV_MAX 64

struct ipoib_dev {
	char name[IF_NAMESIZE];
	uint64_t guid; /* bytes 12-19 of the address */
	bool cm; /* connected mode possible (address byte 0 & 0x80) */
	char ibdev[IPOIB_IBDEV_MAX]; /* "mlx5_0"; "" when sysfs names none */
	int port; /* 1..; 0 when unknown */
	bool has_mode;
	enum ipoib_mode mode; /* the sysfs mode file, when there is one */
};

struct ipoib_devs {
	struct ipoib_dev *v; /* sorted by name */
	size_t n, alloc;
};

/* "80:00:01:08:fe:80:...:00:01" (20 bytes) -> GUID and the CM flag */
int ipoib_addr_parse(const char *s, uint64_t *guid, bool *cm);

/*
 * The IPoIB parents under /sys/class/net. A netdev whose files do not make
 * sense is skipped with one line in warn (NULL: none), e.g.
 * "/sys/class/net/ib1/address: not a 20-byte IPoIB address". 0, or -errno
 * with err when /sys/class/net cannot be read.
 */
typedef void (*ipoib_warn_fn)(void *arg, const char *msg);
int ipoib_list(struct ipoib_devs *out, ipoib_warn_fn warn, void *arg, char *err,
	       size_t errlen);
void ipoib_devs_free(struct ipoib_devs *d);

/* Writes "connected\n" / "datagram\n" to /sys/class/net/<name>/mode. */
int ipoib_set_mode(const char *name, enum ipoib_mode mode, char *err,
		   size_t errlen);

#endif
