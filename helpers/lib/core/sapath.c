// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mad.h"
#include "core/sapath.h"

#define CLASS_SA 0x03
#define SA_CLASS_VERSION 2
#define METHOD_GET 0x01
#define ATTR_PATH_RECORD 0x0035
#define ATTR_MCMEMBER_RECORD 0x0038
#define QP1_QKEY 0x80010000u
#define SA_DATA 56

/* PathRecord component mask bits (IBA 15.2.5.16) */
#define PR_DGID (1ull << 2)
#define PR_SGID (1ull << 3)
#define PR_REVERSIBLE (1ull << 11)
#define PR_NUMBPATH (1ull << 12)
#define PR_PKEY (1ull << 13)
/* MCMemberRecord component mask bits (IBA 15.2.5.17) */
#define MCR_MGID (1ull << 0)

int sa_open(struct sa_conn *c, const char *ca, int port, int timeout_ms,
	    char *err, size_t errlen)
{
	umad_port_t up;
	int r;

	memset(c, 0, sizeof(*c));
	c->mp.fd = c->mp.agent = -1;
	if (umad_init() < 0) {
		err_set(err, errlen,
			"libibumad: cannot initialise (no ib_umad module?)");
		return -ENODEV;
	}
	r = umad_get_port(ca, port, &up);
	if (r < 0) {
		err_set(err, errlen, "%s port %d: cannot read it: %s",
			ca ? ca : "first InfiniBand device", port,
			strerror(-r));
		umad_done();
		return r;
	}
	c->sm_lid = (uint16_t)up.sm_lid;
	c->sm_sl = (uint8_t)up.sm_sl;
	c->prefix = be64((const uint8_t *)&up.gid_prefix);
	umad_release_port(&up);
	umad_done();
	if (!c->sm_lid) {
		err_set(err, errlen, "%s port %d: no subnet manager known",
			ca ? ca : "first InfiniBand device", port);
		return -EHOSTUNREACH;
	}
	return mad_port_open(&c->mp, ca, port, CLASS_SA, SA_CLASS_VERSION, 1,
			     "SA", timeout_ms, err, errlen);
}

/*
 * One SubnAdmGet of attr with the record rec (SA_RECORD bytes) and mask,
 * the answer's record back into rec. 1 with it; 0 when the SA has none
 * (err says its MAD status); -errno when it does not answer.
 */
#define SA_RECORD 64
static int sa_get(struct sa_conn *c, uint16_t attr, uint64_t mask,
		  uint8_t rec[SA_RECORD], char *err, size_t errlen)
{
	uint8_t *mad = umad_get_mad(c->mp.umad);
	uint32_t tid = c->mp.tid + 1;
	char label[32];
	int r;

	memset(c->mp.umad, 0, umad_size() + MAD_LEN);
	mad[0] = 1; /* base version */
	mad[1] = CLASS_SA;
	mad[2] = SA_CLASS_VERSION;
	mad[3] = METHOD_GET;
	put32(mad + 12, tid);
	put16(mad + 16, attr);
	put64(mad + 48, mask);
	memcpy(mad + SA_DATA, rec, SA_RECORD);
	umad_set_addr(c->mp.umad, c->sm_lid, 1, c->sm_sl, (int)QP1_QKEY);
	umad_set_pkey(c->mp.umad, c->pkey_index);
	snprintf(label, sizeof(label), "SA query to LID %u", c->sm_lid);
	r = mad_port_call(&c->mp, tid, label, err, errlen);
	if (r)
		return r;
	if (be16(mad + 4)) {
		err_set(err, errlen, "the SA answers MAD status 0x%04x",
			be16(mad + 4));
		return 0;
	}
	memcpy(rec, mad + SA_DATA, SA_RECORD);
	return 1;
}

int sa_path_get(struct sa_conn *c, uint64_t sguid, uint64_t dguid,
		uint16_t pkey, struct sa_path *out, char *err, size_t errlen)
{
	uint8_t rec[SA_RECORD] = { 0 };
	uint64_t mask = PR_DGID | PR_SGID | PR_REVERSIBLE | PR_NUMBPATH;
	int r;

	put64(rec + 8, c->prefix);
	put64(rec + 16, dguid);
	put64(rec + 24, c->prefix);
	put64(rec + 32, sguid);
	rec[49] = 0x80 | 1; /* reversible, one path */
	if (pkey) {
		put16(rec + 50, pkey);
		mask |= PR_PKEY;
	}
	r = sa_get(c, ATTR_PATH_RECORD, mask, rec, err, errlen);
	if (r <= 0)
		return r;
	out->dlid = be16(rec + 40);
	out->slid = be16(rec + 42);
	out->pkey = be16(rec + 50);
	out->sl = rec[53] & 0x0f;
	return 1;
}

void sa_ipoib_mgid(uint16_t pkey, uint8_t mgid[16])
{
	memset(mgid, 0, 16);
	mgid[0] = 0xff;
	mgid[1] = 0x12; /* link-local scope, as IPoIB's default broadcast */
	mgid[2] = 0x40;
	mgid[3] = 0x1b;
	put16(mgid + 4, (uint16_t)(pkey | 0x8000));
	memset(mgid + 12, 0xff, 4);
}

int sa_mcmember_get(struct sa_conn *c, const uint8_t mgid[16],
		    struct sa_mcmember *out, char *err, size_t errlen)
{
	uint8_t rec[SA_RECORD] = { 0 };
	int r;

	memcpy(rec, mgid, 16);
	r = sa_get(c, ATTR_MCMEMBER_RECORD, MCR_MGID, rec, err, errlen);
	if (r <= 0)
		return r;
	out->mlid = be16(rec + 36);
	out->pkey = be16(rec + 40);
	out->sl = rec[44] >> 4;
	return 1;
}

void sa_close(struct sa_conn *c)
{
	mad_port_close(&c->mp);
}
