/* SPDX-License-Identifier: Apache-2.0 */
/*
 * InfiniBand GUIDs as uint64_t (most significant byte = first printed byte),
 * with one parser and one formatter per textual form:
 *
 *   hex    "0x0002c90300a1b2c1"       opensm, our JSON; "2c90300a1b2c3" in
 *                                      mlx4 iov/admin_guids (no 0x, no padding)
 *   sysfs  "0002:c903:00a1:b2c1"      node_guid, sys_image_guid
 *   bytes  "00:02:c9:03:00:a1:b2:c1"  ip link ... vf N node_guid, OFED sriov/
 *
 * A NIC's port GUID is derived from its OpenNebula MAC, EUI-64 style without
 * flipping any bit, so host, subnet manager and guest all compute the same
 * value: 02:00:c0:a8:01:05 -> 02:00:c0:ff:fe:a8:01:05.
 */
#ifndef ONEIB_GUID_H
#define ONEIB_GUID_H

#include <stdint.h>

#define GUID_STRLEN 24 /* longest form plus NUL */

int guid_parse_hex(const char *s, uint64_t *out);
int guid_parse_sysfs(const char *s, uint64_t *out);
int guid_parse_bytes(const char *s, uint64_t *out);
/* Any of the three forms, told apart by their separators. */
int guid_parse(const char *s, uint64_t *out);

void guid_fmt_hex(uint64_t g, char buf[GUID_STRLEN]);
void guid_fmt_sysfs(uint64_t g, char buf[GUID_STRLEN]);
void guid_fmt_bytes(uint64_t g, char buf[GUID_STRLEN]);

/* "02:00:c0:a8:01:05" -> 0x0200c0a80105 in the low 48 bits. */
int mac_parse(const char *s, uint64_t *out);
#define MAC_STRLEN 18
void mac_fmt(uint64_t mac, char buf[MAC_STRLEN]);
uint64_t guid_from_mac(uint64_t mac);

#endif
