// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: GUID and MAC parsers (text from OpenNebula templates and
 * oneib-pkey's arguments). Every accepted string must format back to a
 * string that parses to the same value; nothing may crash or overrun.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[GUID_STRLEN], mb[MAC_STRLEN];
	uint64_t g, h;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (guid_parse(s, &g) == 0) {
		guid_fmt_hex(g, buf);
		if (guid_parse_hex(buf, &h) || h != g)
			abort();
		guid_fmt_sysfs(g, buf);
		if (guid_parse_sysfs(buf, &h) || h != g)
			abort();
		guid_fmt_bytes(g, buf);
		if (guid_parse_bytes(buf, &h) || h != g)
			abort();
	}
	if (mac_parse(s, &g) == 0) {
		if (g >> 48)
			abort();
		mac_fmt(g, mb);
		if (mac_parse(mb, &h) || h != g)
			abort();
		if ((guid_from_mac(g) >> 24 & 0xffff) != 0xfffe)
			abort();
	}
	free(s);
	return 0;
}
