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
 * A NIC's port GUID is built from what the cloud never repeats (design
 * decision 2), so host, subnet manager and guest all compute the same value
 * and no two NICs of one cloud ever share it:
 *
 *   02 : CC : VV VV VV VV : NN NN
 *   |    |    |             '- NIC_ID, 16 bits
 *   |    |    '- VM ID, 32 bits
 *   |    '- cloud id (0-255, one per OpenNebula zone sharing a fabric)
 *   '- locally administered: never a vendor's GUID
 *
 *   cloud 0, VM 42, NIC 1 -> 0x02000000002a0001 -> "VM 42 NIC 1"
 *
 * MACs do not qualify: OpenNebula keeps a MAC unique only inside one
 * virtual network. Leases written before this change carry the old
 * MAC-derived GUID (EUI-64 style, 02:00:c0:a8:01:05 -> 02:00:c0:ff:fe:a8:01:05);
 * guid_from_mac() stays only to recognise and describe those.
 */
#ifndef ONEIB_GUID_H
#define ONEIB_GUID_H

#include <stdbool.h>
#include <stddef.h>
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

/* qsort/bsearch order of uint64_t GUIDs (port, node, leaf switch). */
int guid_cmp(const void *a, const void *b);

/* "02:00:c0:a8:01:05" -> 0x0200c0a80105 in the low 48 bits. */
int mac_parse(const char *s, uint64_t *out);
#define MAC_STRLEN 18
void mac_fmt(uint64_t mac, char buf[MAC_STRLEN]);
uint64_t guid_from_mac(uint64_t mac);

#define GUID_NIC_TAG 0x02 /* the first byte of every one-ib NIC GUID */
#define GUID_CLOUD_MAX 255
#define GUID_NIC_MAX 65535

/*
 * The port GUID of VM vmid's NIC nic_id in cloud cloud_id. Callers check
 * the ranges (cloud_id <= GUID_CLOUD_MAX, nic_id <= GUID_NIC_MAX) where the
 * values enter; guid_for_nic_checked() does it and says which one is off.
 */
uint64_t guid_for_nic(unsigned cloud_id, uint32_t vmid, uint16_t nic_id);
/* -ERANGE (err: "VM 42 NIC 70000: NIC_ID does not fit the GUID's 16 bits")
 * for a negative or too large value; 0 and *out set otherwise. */
int guid_for_nic_checked(int cloud_id, long long vmid, int nic_id,
			 uint64_t *out, char *err, size_t errlen);
/* Is g a one-ib NIC GUID? Then its parts (any pointer may be NULL). */
bool guid_decode_nic(uint64_t g, unsigned *cloud_id, uint32_t *vmid,
		     uint16_t *nic_id);
/* Does g name VM vmid's NIC nic_id, in whatever cloud? (what the guest
 * checks: it knows VMID and ETH<n> from its context, not the cloud id) */
bool guid_is_nic(uint64_t g, uint32_t vmid, uint16_t nic_id);

/*
 * May oneib-pkey program g on a VF? Only a GUID that names no hardware and
 * that one-ib hands out: the locally administered bit set, the group bit
 * clear, and either a NIC GUID (first byte 0x02, guid_decode_nic) or the
 * MAC-derived form of a lease written before the upgrade (ff:fe in bytes
 * 3-4, as guid_from_mac builds it from a locally administered MAC), so
 * such a lease can still be mapped again. A vendor's GUID (0x0002c903...,
 * 0x0c42a103...: OUIs never have the local bit) is refused, as are zero
 * and all ones.
 */
bool guid_assignable(uint64_t g);

/*
 * A GUID for people, in every listing:
 *   0x02000000002a0001 -> "VM 42 NIC 1"
 *   0x02030000002a0001 -> "cloud 3 VM 42 NIC 1"
 *   0x0200c0fffea80105 -> "MAC 02:00:c0:a8:01:05 (old GUID)"   ff:fe in bytes 3-4
 *   anything else      -> "-"
 */
#define GUID_DESC_LEN 48
void guid_describe(uint64_t g, char buf[GUID_DESC_LEN]);

/* "0".."255": the cloud id setting (kvm-ibrc ONEIB_CLOUD_ID, --cloud-id). */
int cloud_id_parse(const char *s, unsigned *out);

#endif
