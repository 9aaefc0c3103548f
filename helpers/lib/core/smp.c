// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/guid.h"
#include "core/log.h"
#include "core/mad.h"
#include "core/smp.h"

#define CLASS_SMI_DR 0x81
#define METHOD_GET 0x01
#define DATA 64
#define INITIAL_PATH 128

/* {2, [1] = 1, [2] = 3} -> "0,1,3" */
static void path_str(const struct smp_path *path, char *out, size_t len)
{
	size_t at;
	int i;

	at = (size_t)snprintf(out, len, "0");
	for (i = 1; i <= path->hops && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, ",%d",
				       path->port[i]);
}

int smp_open(struct smp_port *s, const char *ca, int port, int timeout_ms,
	     char *err, size_t errlen)
{
	s->mkey = 0;
	return mad_port_open(&s->mp, ca, port, CLASS_SMI_DR, 1, 0, "SMP",
			     timeout_ms, err, errlen);
}

void smp_close(struct smp_port *s)
{
	mad_port_close(&s->mp);
}

void smp_build_get(uint8_t mad[MAD_LEN], const struct smp_path *path,
		   uint16_t attr, uint32_t mod, uint32_t tid, uint64_t mkey)
{
	int i;

	memset(mad, 0, MAD_LEN);
	mad[0] = 1; /* base version */
	mad[1] = CLASS_SMI_DR;
	mad[2] = 1; /* class version */
	mad[3] = METHOD_GET; /* the only method one-ib sends */
	mad[7] = (uint8_t)path->hops; /* hop pointer 0, hop count */
	put32(mad + 12, tid);
	put16(mad + 16, attr);
	put32(mad + 20, mod);
	put64(mad + 24, mkey);
	put16(mad + 32, 0xffff); /* DrSLID, DrDLID: permissive */
	put16(mad + 34, 0xffff);
	for (i = 1; i <= path->hops && i <= SMP_MAX_HOPS; i++)
		mad[INITIAL_PATH + i] = path->port[i];
}

int smp_get(struct smp_port *s, const struct smp_path *path, uint16_t attr,
	    uint32_t mod, uint8_t data[SMP_DATA_LEN], char *err, size_t errlen)
{
	uint8_t *mad = umad_get_mad(s->mp.umad);
	char where[3 * SMP_MAX_HOPS + 4], label[3 * SMP_MAX_HOPS + 16];
	uint32_t tid = s->mp.tid + 1;
	int r;

	memset(s->mp.umad, 0, umad_size());
	smp_build_get(mad, path, attr, mod, tid, s->mkey);
	umad_set_addr(s->mp.umad, 0xffff, 0, 0, 0);
	path_str(path, where, sizeof(where));
	snprintf(label, sizeof(label), "SMP to %s", where);
	r = mad_port_call(&s->mp, tid, label, err, errlen);
	if (r)
		return r;
	if (be16(mad + 4) & 0x7fff) {
		err_set(err, errlen,
			"SMP attribute 0x%04x to %s: MAD status 0x%04x", attr,
			where, be16(mad + 4) & 0x7fff);
		return -EPROTO;
	}
	memcpy(data, mad + DATA, SMP_DATA_LEN);
	return 0;
}

int smp_node_info(struct smp_port *s, const struct smp_path *path,
		  struct smp_node_info *ni, char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	int r = smp_get(s, path, SMP_ATTR_NODE_INFO, 0, d, err, errlen);

	if (r)
		return r;
	ni->type = d[2];
	ni->nports = d[3];
	ni->node_guid = be64(d + 12);
	ni->port_guid = be64(d + 20);
	ni->pcap = be16(d + 28);
	ni->local_port = d[36];
	return 0;
}

int smp_node_desc(struct smp_port *s, const struct smp_path *path,
		  char desc[SMP_DESC_MAX + 1], char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	int r = smp_get(s, path, SMP_ATTR_NODE_DESC, 0, d, err, errlen);
	int i;

	if (r)
		return r;
	for (i = 0; i < SMP_DESC_MAX && d[i]; i++)
		desc[i] = d[i] >= 0x20 && d[i] < 0x7f ? (char)d[i] : '?';
	while (i > 0 && desc[i - 1] == ' ')
		i--;
	desc[i] = '\0';
	return 0;
}

int smp_switch_info(struct smp_port *s, const struct smp_path *path,
		    struct smp_switch_info *si, char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	int r = smp_get(s, path, SMP_ATTR_SWITCH_INFO, 0, d, err, errlen);

	if (r)
		return r;
	si->enf_cap = be16(d + 14); /* PartitionEnforcementCap */
	return 0;
}

int smp_sm_info(struct smp_port *s, const struct smp_path *path,
		struct smp_sm_info *out, char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	int r = smp_get(s, path, SMP_ATTR_SM_INFO, 0, d, err, errlen);

	if (r)
		return r;
	out->guid = be64(d);
	out->act_count = be32(d + 16);
	out->priority = d[20] >> 4;
	out->state = d[20] & 0x0f;
	return 0;
}

const char *smp_sm_state_name(uint8_t state)
{
	static const char *const names[] = { "NOT ACTIVE", "DISCOVERING",
					     "STANDBY", "MASTER" };

	return state < 4 ? names[state] : "unknown";
}

void smp_port_vls(const uint8_t d[SMP_DATA_LEN], struct smp_port_vls *out)
{
	out->vl_cap = d[37] >> 4;
	out->high_limit = d[38];
	out->arb_high_cap = d[39];
	out->arb_low_cap = d[40];
	out->oper_vls = d[43] >> 4;
}

int smp_data_vls(uint8_t code)
{
	static const int vls[] = { 0, 1, 2, 4, 8, 15 };

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

int smp_sl2vl(struct smp_port *s, const struct smp_path *path, uint32_t mod,
	      uint8_t vl[16], char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	int r = smp_get(s, path, SMP_ATTR_SL2VL_TABLE, mod, d, err, errlen);
	int i;

	if (r)
		return r;
	/* "0x01 0x23 ..." -> SL 0 VL 0, SL 1 VL 1, SL 2 VL 2 ... */
	for (i = 0; i < 8; i++) {
		vl[2 * i] = d[i] >> 4;
		vl[2 * i + 1] = d[i] & 0x0f;
	}
	return 0;
}

void smp_vlarb_sum(const uint8_t block[SMP_DATA_LEN], unsigned w[16])
{
	int i;

	memset(w, 0, 16 * sizeof(*w));
	for (i = 0; i < 32; i++)
		w[block[2 * i] & 0x0f] += block[2 * i + 1];
}

int smp_vlarb(struct smp_port *s, const struct smp_path *path, uint8_t port,
	      struct smp_vlarb *out, char *err, size_t errlen)
{
	uint8_t d[SMP_DATA_LEN];
	/* block 1: the low table's first 32 entries, block 3: the high's */
	int r = smp_get(s, path, SMP_ATTR_VLARB_TABLE, 1u << 16 | port, d, err,
			errlen);

	if (r)
		return r;
	smp_vlarb_sum(d, out->low);
	r = smp_get(s, path, SMP_ATTR_VLARB_TABLE, 3u << 16 | port, d, err,
		    errlen);
	if (!r)
		smp_vlarb_sum(d, out->high);
	return r;
}

int smp_peer(const char *ca, int port, int timeout_ms, struct smp_peer *out,
	     char *err, size_t errlen)
{
	struct smp_path path = { .hops = 1 };
	struct smp_node_info ni;
	struct smp_port s;
	int r;

	memset(out, 0, sizeof(*out));
	if (port < 1 || port > 254) {
		err_set(err, errlen, "port %d: not a port number", port);
		return -EINVAL;
	}
	path.port[1] = (uint8_t)port;
	r = smp_open(&s, ca, port, timeout_ms, err, errlen);
	if (r == -ENODEV)
		return r;
	if (r) {
		/* the caller names the device and the port */
		err_set(err, errlen, "cannot open its umad device: %s",
			strerror(-r));
		return r;
	}
	r = smp_node_info(&s, &path, &ni, err, errlen);
	if (!r)
		r = smp_node_desc(&s, &path, out->desc, err, errlen);
	smp_close(&s);
	if (r)
		return r;
	out->type = ni.type;
	out->node_guid = ni.node_guid;
	out->port = ni.local_port;
	return 0;
}

static const char *const type_names[] = {
	[SMP_NODE_CA] = "CA",
	[SMP_NODE_SWITCH] = "switch",
	[SMP_NODE_ROUTER] = "router",
};

const char *smp_node_type_name(uint8_t type)
{
	return type < sizeof(type_names) / sizeof(type_names[0])
		       ? type_names[type]
		       : NULL;
}

const char *smp_node_type_str(uint8_t type, char buf[SMP_TYPE_STRLEN])
{
	const char *t = smp_node_type_name(type);

	if (t)
		return t;
	snprintf(buf, SMP_TYPE_STRLEN, "%u", type);
	return buf;
}

int smp_peer_fmt(const struct smp_peer *p, struct strbuf *out)
{
	char g[GUID_STRLEN], t[SMP_TYPE_STRLEN];

	guid_fmt_hex(p->node_guid, g);
	return sb_addf(out, "type %s\nnode_guid %s\nport %u\ndesc %s\n",
		       smp_node_type_str(p->type, t), g, p->port, p->desc);
}

/* The value of line "key value" at *at, which then moves past it. */
static int take_line(const char **at, const char *key, char *val, size_t len,
		     char *err, size_t errlen)
{
	size_t klen = strlen(key), n;
	const char *s = *at, *nl = strchr(s, '\n');

	n = nl ? (size_t)(nl - s) : strlen(s);
	if (strncmp(s, key, klen) || s[klen] != ' ' || n - klen - 1 >= len) {
		char line[SANITIZE_MAX];

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		err_set(err, errlen, "peer: expected '%s ...', got '%s'", key,
			str_sanitize(line).s);
		return -EINVAL;
	}
	memcpy(val, s + klen + 1, n - klen - 1);
	val[n - klen - 1] = '\0';
	*at = nl ? nl + 1 : s + n;
	return 0;
}

int smp_peer_parse(const char *text, struct smp_peer *out, char *err,
		   size_t errlen)
{
	char v[SMP_DESC_MAX + 2];
	const char *at = text;
	int n, r, t;
	size_t i;

	memset(out, 0, sizeof(*out));
	r = take_line(&at, "type", v, sizeof(v), err, errlen);
	if (r)
		return r;
	for (t = 0; t < 256; t++)
		if (smp_node_type_name((uint8_t)t) &&
		    !strcmp(v, smp_node_type_name((uint8_t)t)))
			break;
	if (t == 256 && (dec_parse_int(v, &t) || t > 255 ||
			 smp_node_type_name((uint8_t)t))) {
		err_set(err, errlen, "peer: type '%s' is no node type",
			str_sanitize(v).s);
		return -EINVAL;
	}
	out->type = (uint8_t)t;
	r = take_line(&at, "node_guid", v, sizeof(v), err, errlen);
	if (!r && guid_parse_hex(v, &out->node_guid)) {
		err_set(err, errlen, "peer: node_guid '%s' is no GUID",
			str_sanitize(v).s);
		r = -EINVAL;
	}
	if (!r)
		r = take_line(&at, "port", v, sizeof(v), err, errlen);
	if (!r && (dec_parse_int(v, &n) || n > 255)) {
		err_set(err, errlen, "peer: port '%s' is no port number",
			str_sanitize(v).s);
		r = -EINVAL;
	}
	if (r)
		return r;
	out->port = (uint8_t)n;
	r = take_line(&at, "desc", out->desc, sizeof(out->desc), err, errlen);
	for (i = 0; !r && out->desc[i]; i++)
		if (out->desc[i] < 0x20 || out->desc[i] >= 0x7f) {
			err_set(err, errlen, "peer: desc is not printable");
			r = -EINVAL;
		}
	if (!r && *at) {
		err_set(err, errlen, "peer: more than four lines");
		r = -EINVAL;
	}
	return r;
}
