// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/guid.h"

/*
 * Groups of `width` hex digits separated by ':' (exactly `groups` of them):
 * sysfs = 4 x 4, bytes = 8 x 2, MAC = 6 x 2.
 */
static int parse_groups(const char *s, int groups, int width, uint64_t *out)
{
	uint64_t v = 0;
	int g, i;

	if (!s || strlen(s) != (size_t)(groups * (width + 1) - 1))
		return -EINVAL;
	for (g = 0; g < groups; g++) {
		for (i = 0; i < width; i++) {
			int d = hex_digit(*s++);
			if (d < 0)
				return -EINVAL;
			v = v << 4 | (uint64_t)d;
		}
		if (g < groups - 1 && *s++ != ':')
			return -EINVAL;
	}
	*out = v;
	return 0;
}

int guid_parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n > 16)
		return -EINVAL;
	for (; *s; s++) {
		int d = hex_digit(*s);
		if (d < 0)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

int guid_parse_sysfs(const char *s, uint64_t *out)
{
	return parse_groups(s, 4, 4, out);
}

int guid_parse_bytes(const char *s, uint64_t *out)
{
	return parse_groups(s, 8, 2, out);
}

int guid_parse(const char *s, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	if (strlen(s) == 19)
		return guid_parse_sysfs(s, out);
	if (strlen(s) == 23)
		return guid_parse_bytes(s, out);
	return guid_parse_hex(s, out);
}

void guid_fmt_hex(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "0x%016llx", (unsigned long long)g);
}

void guid_fmt_sysfs(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "%04x:%04x:%04x:%04x",
		 (unsigned)(g >> 48) & 0xffff, (unsigned)(g >> 32) & 0xffff,
		 (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

int guid_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void guid_fmt_bytes(uint64_t g, char buf[GUID_STRLEN])
{
	snprintf(buf, GUID_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned)(g >> 56) & 0xff, (unsigned)(g >> 48) & 0xff,
		 (unsigned)(g >> 40) & 0xff, (unsigned)(g >> 32) & 0xff,
		 (unsigned)(g >> 24) & 0xff, (unsigned)(g >> 16) & 0xff,
		 (unsigned)(g >> 8) & 0xff, (unsigned)g & 0xff);
}

int mac_parse(const char *s, uint64_t *out)
{
	return parse_groups(s, 6, 2, out);
}

void mac_fmt(uint64_t mac, char buf[MAC_STRLEN])
{
	snprintf(buf, MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned)(mac >> 40) & 0xff, (unsigned)(mac >> 32) & 0xff,
		 (unsigned)(mac >> 24) & 0xff, (unsigned)(mac >> 16) & 0xff,
		 (unsigned)(mac >> 8) & 0xff, (unsigned)mac & 0xff);
}

/* 02:00:c0 | ff:fe | a8:01:05 */
uint64_t guid_from_mac(uint64_t mac)
{
	return (mac >> 24) << 40 | (uint64_t)0xfffe << 24 | (mac & 0xffffff);
}

uint64_t guid_for_nic(unsigned cloud_id, uint32_t vmid, uint16_t nic_id)
{
	return (uint64_t)GUID_NIC_TAG << 56 |
	       (uint64_t)(cloud_id & 0xff) << 48 | (uint64_t)vmid << 16 |
	       nic_id;
}

int guid_for_nic_checked(int cloud_id, long long vmid, int nic_id,
			 uint64_t *out, char *err, size_t errlen)
{
	if (cloud_id < 0 || cloud_id > GUID_CLOUD_MAX) {
		err_set(err, errlen, "cloud id %d is not in 0..%d", cloud_id,
			GUID_CLOUD_MAX);
		return -ERANGE;
	}
	if (vmid < 0 || vmid > (long long)UINT32_MAX) {
		err_set(err, errlen,
			"VM %lld: the VM ID does not fit the "
			"GUID's 32 bits",
			vmid);
		return -ERANGE;
	}
	if (nic_id < 0 || nic_id > GUID_NIC_MAX) {
		err_set(err, errlen,
			"VM %lld NIC %d: NIC_ID does not fit the "
			"GUID's 16 bits",
			vmid, nic_id);
		return -ERANGE;
	}
	*out = guid_for_nic((unsigned)cloud_id, (uint32_t)vmid,
			    (uint16_t)nic_id);
	return 0;
}

bool guid_decode_nic(uint64_t g, unsigned *cloud_id, uint32_t *vmid,
		     uint16_t *nic_id)
{
	if (g >> 56 != GUID_NIC_TAG)
		return false;
	if (cloud_id)
		*cloud_id = (unsigned)(g >> 48) & 0xff;
	if (vmid)
		*vmid = (uint32_t)(g >> 16);
	if (nic_id)
		*nic_id = (uint16_t)g;
	return true;
}

bool guid_is_nic(uint64_t g, uint32_t vmid, uint16_t nic_id)
{
	const uint64_t no_cloud = ~((uint64_t)0xff << 48);

	return (g & no_cloud) == guid_for_nic(0, vmid, nic_id);
}

bool guid_assignable(uint64_t g)
{
	unsigned first = (unsigned)(g >> 56);

	if ((first & 0x03) != 0x02) /* local bit set, group bit clear */
		return false;
	return first == GUID_NIC_TAG || (g >> 24 & 0xffff) == 0xfffe;
}

/*
 * The old MAC-derived form has ff:fe in bytes 3-4 (02:00:c0:ff:fe:a8:01:05).
 * A VM/NIC GUID looks the same only for VM IDs with 0xfffe in bits 8-23
 * (16,776,704 and up), which no cloud reaches; below that the two forms
 * never meet.
 */
void guid_describe(uint64_t g, char buf[GUID_DESC_LEN])
{
	unsigned cloud;
	uint32_t vmid;
	uint16_t nic;

	if ((g >> 24 & 0xffff) == 0xfffe) {
		char mac[MAC_STRLEN];

		mac_fmt((g >> 40) << 24 | (g & 0xffffff), mac);
		snprintf(buf, GUID_DESC_LEN, "MAC %s (old GUID)", mac);
	} else if (!guid_decode_nic(g, &cloud, &vmid, &nic)) {
		snprintf(buf, GUID_DESC_LEN, "-");
	} else if (cloud) {
		snprintf(buf, GUID_DESC_LEN, "cloud %u VM %u NIC %u", cloud,
			 (unsigned)vmid, (unsigned)nic);
	} else {
		snprintf(buf, GUID_DESC_LEN, "VM %u NIC %u", (unsigned)vmid,
			 (unsigned)nic);
	}
}

int cloud_id_parse(const char *s, unsigned *out)
{
	int v;

	if (dec_parse_int(s, &v) || v > GUID_CLOUD_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}
