// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/guid.h"
#include "core/ibattr.h"
#include "core/log.h"

const char *const ib_attr_name[IBA_COUNT] = {
	[IBA_PKEY] = "IB_PKEY",
	[IBA_MTU] = "IB_MTU",
	[IBA_RATE] = "IB_RATE",
	[IBA_SL] = "IB_SL",
	[IBA_MODE] = "IB_MODE",
	[IBA_PF] = "IB_PF",
	[IBA_PORT] = "IB_PORT",
	[IBA_MEMBERSHIP] = "IB_MEMBERSHIP",
	[IBA_SERVICE_GUIDS] = "IB_SERVICE_GUIDS",
	[IBA_SERVICE_PARTITION] = "IB_SERVICE_PARTITION",
	[IBA_PLACEMENT] = "IB_PLACEMENT",
	[IBA_RAILS] = "IB_RAILS",
	[IBA_AFFINITY] = "IB_AFFINITY",
};

static int refuse(enum ib_attr a, const char *v, const char *why,
		  const char *who, char *err, size_t errlen)
{
	err_set(err, errlen, "%s: %s '%s' %s", who, ib_attr_name[a],
		str_sanitize(v).s, why);
	return -EINVAL;
}

/* "0x8101" -> 0x8101; "0x0101" and "257" are the limited form: refused. */
static int parse_pkey(const char *v, struct pkey *out, char *why, size_t whylen)
{
	struct pkey pk;
	int r = pkey_parse(v, &pk);

	if (r == -ERANGE) {
		snprintf(why, whylen, "is not a P_Key: more than 16 bits");
		return r;
	}
	if (r) {
		snprintf(why, whylen,
			 "is not a P_Key (hex like 0x8101, or decimal)");
		return r;
	}
	if (pkey_base(pk) == 0) {
		snprintf(why, whylen, "is partition 0, which is invalid");
		return -EINVAL;
	}
	if (pkey_base(pk) == PKEY_DEFAULT) {
		snprintf(why, whylen,
			 "is the default partition, never a tenant's");
		return -EINVAL;
	}
	if (!pkey_is_full(pk)) {
		snprintf(why, whylen,
			 "is a limited-member key (write 0x%04x: a tenant "
			 "network's VFs are full members)",
			 pk.raw | PKEY_MEMBER_FULL);
		return -EINVAL;
	}
	*out = pk;
	return 0;
}

/* A decimal number within lo..hi ("07" is 7: OpenNebula keeps text). */
static int parse_range(const char *v, int lo, int hi, int *out)
{
	int x;

	if (dec_parse_int(v, &x) || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

/*
 * "0x0002c903000a0001, 0x0002c903000b0001" (commas and/or blanks between
 * GUIDs in any of guid_parse's forms): every one a port of the fabric
 * that one-ib does not hand out, each once.
 */
static int parse_guids(const char *v, struct ib_attrs *t, char *why,
		       size_t whylen)
{
	const char *s = v;

	t->nsvc = 0;
	while (*s) {
		char one[GUID_STRLEN + 8];
		size_t len = strcspn(s, ", \t"), i;
		uint64_t g;

		if (!len) {
			s++;
			continue;
		}
		if (len >= sizeof(one) || t->nsvc == IB_SERVICE_GUIDS_MAX) {
			snprintf(why, whylen,
				 len >= sizeof(one) ? "is not a list of port "
						      "GUIDs"
						    : "lists more than %d "
						      "GUIDs (name a "
						      "partition of the static "
						      "file with "
						      "IB_SERVICE_PARTITION "
						      "instead)",
				 IB_SERVICE_GUIDS_MAX);
			return -EINVAL;
		}
		memcpy(one, s, len);
		one[len] = '\0';
		s += len;
		if (guid_parse(one, &g) || !g || g == UINT64_MAX) {
			snprintf(why, whylen,
				 "has '%s', which is not a port GUID",
				 str_sanitize(one).s);
			return -EINVAL;
		}
		if (guid_assignable(g)) {
			char desc[GUID_DESC_LEN];

			guid_describe(g, desc);
			snprintf(why, whylen,
				 "has %s (%s), a tenant VF's GUID: never a "
				 "service endpoint",
				 one, desc);
			return -EINVAL;
		}
		for (i = 0; i < t->nsvc; i++)
			if (t->svc[i] == g) {
				snprintf(why, whylen, "has %s twice", one);
				return -EINVAL;
			}
		t->svc[t->nsvc++] = g;
	}
	if (!t->nsvc) {
		snprintf(why, whylen, "lists no port GUID");
		return -EINVAL;
	}
	return 0;
}

/* A partition name as opensm keeps it: 1..31 of [A-Za-z0-9_-], no digit
 * first (opensm would read a P_Key). */
static int parse_partition_name(const char *v, char *out)
{
	size_t i, len = strlen(v);

	if (!len || len > IB_PARTITION_NAME_MAX || (v[0] >= '0' && v[0] <= '9'))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') ||
		      (v[i] >= 'A' && v[i] <= 'Z') ||
		      (v[i] >= '0' && v[i] <= '9') || v[i] == '-' ||
		      v[i] == '_'))
			return -EINVAL;
	memcpy(out, v, len + 1);
	return 0;
}

int ibattr_mtu_enum(int bytes)
{
	int e;

	for (e = 1; e <= 5; e++)
		if (bytes == 128 << e)
			return e;
	return 0;
}

int ibattr_parse(enum ib_attr a, const char *v, struct ib_attrs *out,
		 const char *who, char *err, size_t errlen)
{
	char why[192] = "";
	struct ib_attrs t = *out;
	int r = 0;

	if (!v)
		v = "";
	switch (a) {
	case IBA_PKEY:
		r = parse_pkey(v, &t.pkey, why, sizeof(why));
		break;
	case IBA_MTU:
		/* "4096" exactly: the renderer turns it into opensm's enum */
		r = parse_range(v, 256, 4096, &t.mtu);
		if (r || !ibattr_mtu_enum(t.mtu) || v[0] == '0') {
			snprintf(why, sizeof(why),
				 "is not 256, 512, 1024, 2048 or 4096");
			r = -EINVAL;
		}
		break;
	case IBA_RATE:
		r = parse_range(v, IB_RATE_MIN, IB_RATE_MAX, &t.rate);
		if (r)
			snprintf(why, sizeof(why),
				 "is not a rate code %d..%d (IBTA: 3 = 10 "
				 "Gb/s, 7 = 40, 16 = 100, 17 = 200)",
				 IB_RATE_MIN, IB_RATE_MAX);
		break;
	case IBA_SL:
		r = parse_range(v, 0, IB_SL_MAX, &t.sl);
		if (r)
			snprintf(why, sizeof(why),
				 "is not a service level 0..%d", IB_SL_MAX);
		break;
	case IBA_MODE:
		if (!strcmp(v, "datagram")) {
			t.mode = IB_MODE_DATAGRAM;
		} else if (!strcmp(v, "connected")) {
			t.mode = IB_MODE_CONNECTED;
		} else {
			snprintf(why, sizeof(why),
				 "is not datagram or connected");
			r = -EINVAL;
		}
		break;
	case IBA_PF:
		r = pci_addr_parse(v, &t.pf);
		if (r)
			snprintf(why, sizeof(why),
				 "is not a PCI address like 0000:3b:00.0");
		break;
	case IBA_PORT:
		/* "1".."9": an HCA has one or two ports, never ten. */
		if (v[0] >= '1' && v[0] <= '9' && !v[1]) {
			t.port = v[0] - '0';
		} else {
			snprintf(why, sizeof(why), "is not a port number 1..9");
			r = -EINVAL;
		}
		break;
	case IBA_MEMBERSHIP:
		if (!strcmp(v, "full") || !strcmp(v, "limited")) {
			t.limited = v[0] == 'l';
		} else {
			snprintf(why, sizeof(why), "is not full or limited");
			r = -EINVAL;
		}
		break;
	case IBA_SERVICE_GUIDS:
		r = parse_guids(v, &t, why, sizeof(why));
		break;
	case IBA_SERVICE_PARTITION:
		r = parse_partition_name(v, t.svc_part);
		if (r)
			snprintf(why, sizeof(why),
				 "is not a partition name (1 to %d letters, "
				 "digits, '-' or '_', no digit first)",
				 IB_PARTITION_NAME_MAX);
		break;
	case IBA_PLACEMENT:
		if (!strcmp(v, "pack")) {
			t.placement = IB_PLACE_PACK;
		} else if (!strcmp(v, "spread")) {
			t.placement = IB_PLACE_SPREAD;
		} else if (!strcmp(v, "none")) {
			t.placement = IB_PLACE_NONE;
		} else {
			snprintf(why, sizeof(why),
				 "is not pack, spread or none");
			r = -EINVAL;
		}
		break;
	case IBA_RAILS:
		if (!strcmp(v, "spread")) {
			t.rails = IB_RAILS_SPREAD;
		} else if (!strcmp(v, "pack")) {
			t.rails = IB_RAILS_PACK;
		} else {
			snprintf(why, sizeof(why), "is not spread or pack");
			r = -EINVAL;
		}
		break;
	case IBA_AFFINITY:
		if (!strcmp(v, "preferred")) {
			t.affinity = IB_AFFINITY_PREFERRED;
		} else if (!strcmp(v, "required")) {
			t.affinity = IB_AFFINITY_REQUIRED;
		} else if (!strcmp(v, "none")) {
			t.affinity = IB_AFFINITY_NONE;
		} else {
			snprintf(why, sizeof(why),
				 "is not preferred, required or none");
			r = -EINVAL;
		}
		break;
	default:
		err_set(err, errlen, "%s: unknown attribute", who);
		return -EINVAL;
	}
	if (r)
		return refuse(a, v, why, who, err, errlen);
	t.has |= IBA_BIT(a);
	*out = t;
	return 0;
}

void ibattr_err_twice(enum ib_attr a, const char *who, char *err, size_t errlen)
{
	err_set(err, errlen, "%s: %s given twice", who, ib_attr_name[a]);
}

void ibattr_err_not_value(enum ib_attr a, const char *who, const char *raw,
			  char *err, size_t errlen)
{
	err_set(err, errlen, "%s: %s '%s' is not a single value", who,
		ib_attr_name[a], str_sanitize(raw).s);
}

int ibattr_by_name(const char *name)
{
	int a;

	for (a = 0; a < IBA_COUNT; a++)
		if (name && !strcmp(name, ib_attr_name[a]))
			return a;
	return -1;
}
