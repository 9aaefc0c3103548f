/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading sysfs attributes: one helper per value shape, so no caller repeats
 * open/read/parse. Every attribute ends in one '\n' in the kernel's format
 * ("4: ACTIVE\n", "0x15b3\n"); ibsim's fake files have none, so the newline
 * is optional.
 *
 * Readers return 0, -ENOENT when the file is absent, or -EINVAL when the value
 * does not fit; -EINVAL has already been reported on stderr with the path and
 * the value, so callers only decide what a missing file means.
 */
#ifndef ONEIB_SYSFS_H
#define ONEIB_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The sysfs directories one-ib reads, named once (the simulated cloud of
 * the tests mounts its trees over these same paths):
 *   SYS_PCI "/0000:3b:00.0/virtfn2"   SYS_IB "/mlx5_0/ports/1/state"
 *   SYS_NET "/ib0/address"            SYS_NODE "/node1/cpulist"
 *   SYS_DMI "/entries/11-0/raw"       (a guest's SMBIOS OEM strings)
 */
#define SYS_PCI "/sys/bus/pci/devices"
#define SYS_IB "/sys/class/infiniband"
#define SYS_NET "/sys/class/net"
#define SYS_NODE "/sys/devices/system/node"
#define SYS_DMI "/sys/firmware/dmi"

/* Longest attribute we ever need to read whole (GIDs are 39 characters). */
#define SYSFS_VALUE_MAX 256

int sysfs_read_str(const char *path, char *buf, size_t len);
/* Decimal or 0x-hex integer filling the whole value: "0x15b3", "-1", "8". */
int sysfs_read_long(const char *path, long *out);
/* basename of a symlink's target: driver -> ../../bus/pci/drivers/vfio-pci. */
int sysfs_link_name(const char *path, char *buf, size_t len);
/*
 * The same, NAME relative to the directory DIRFD (openat(2) rules), so that
 * many attributes of one device cost one path walk to it: DIR is how a
 * message names that directory ("/sys/bus/pci/devices/0000:3b:00.1").
 */
int sysfs_read_str_at(int dirfd, const char *name, char *buf, size_t len);
int sysfs_read_long_at(int dirfd, const char *dir, const char *name, long *out);
int sysfs_link_name_at(int dirfd, const char *name, char *buf, size_t len);
/* A symlink's whole target ("../0000:3b:00.1"), NAME relative to DIRFD. */
int sysfs_link_at(int dirfd, const char *name, char *buf, size_t len);
/*
 * Writes val in one write(2), the way "echo 1 > pkey_idx/0" does: opened
 * O_WRONLY | O_TRUNC (sysfs ignores the truncation; a plain-file test tree
 * then holds exactly the value), never O_CREAT (sysfs files exist or the
 * write is wrong), O_NOFOLLOW.
 */
int sysfs_write_str(const char *path, const char *val);
/* snprintf into a path buffer; -ENAMETOOLONG instead of a silent cut. */
int path_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
