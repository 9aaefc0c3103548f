// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer: the one parser per IB_* attribute (ibattr.h), on any string.
 * First byte: which attribute; the rest its value. A refusal names the
 * attribute on one line and leaves the output as it was; what is accepted
 * is within the rules every reader relies on (a full-member tenant P_Key,
 * an MTU opensm has an enum for, a rate code and service level opensm
 * takes, a port 1..9).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ibattr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ib_attrs a, before;
	enum ib_attr which;
	char err[256] = "", *v;

	if (size < 1)
		return 0;
	which = (enum ib_attr)(data[0] % IBA_COUNT);
	v = malloc(size);
	if (!v)
		return 0;
	memcpy(v, data + 1, size - 1);
	v[size - 1] = '\0';
	memset(&a, 0, sizeof(a));
	memcpy(&before, &a, sizeof(a));
	if (ibattr_parse(which, v, &a, "VNET 1", err, sizeof(err))) {
		if (!strstr(err, ib_attr_name[which]) || strchr(err, '\n') ||
		    memcmp(&a, &before, sizeof(a)))
			abort();
		goto out;
	}
	if (!ibattr_has(&a, which))
		abort();
	switch (which) {
	case IBA_PKEY:
		if (!pkey_is_full(a.pkey) || !pkey_tenant_ok(a.pkey))
			abort();
		break;
	case IBA_MTU:
		if (!ibattr_mtu_enum(a.mtu))
			abort();
		break;
	case IBA_RATE:
		if (a.rate < IB_RATE_MIN || a.rate > IB_RATE_MAX)
			abort();
		break;
	case IBA_SL:
		if (a.sl < 0 || a.sl > IB_SL_MAX)
			abort();
		break;
	case IBA_PORT:
		if (a.port < 1 || a.port > 9)
			abort();
		break;
	default:
		break;
	}
out:
	free(v);
	return 0;
}
