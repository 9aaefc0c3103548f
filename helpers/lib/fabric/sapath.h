/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Path records from the subnet administrator (opensm's SA), one pair at a
 * time, the way `saquery PR --sgid-to-dgid ... --pkey 0x8101` asks: a
 * SubnAdmGet(PathRecord) from a local port to the SM's LID (QP1, Q_Key
 * 0x80010000), SGID, DGID, Reversible, NumbPath 1 and (when given) the
 * P_Key in the component mask. A Get answers one record, which fits one
 * MAD: ibsim passes no more than 256 bytes (no RMPP), so a GetTable would
 * be cut short there. Example:
 *   vf 0x02000000000a0000 -> 0x02000000000c0000 in 0x8101
 *   -> { .slid = 14, .dlid = 16, .pkey = 0x8101, .sl = 3 }
 * opensm answers no record when the two share no partition with a full
 * member among them (limited-limited, or not in the partition asked), and
 * when either port is unknown to it.
 *
 * Layout (IBA vol. 1, 15.2.1.1 and 15.2.5.16): 24-byte MAD header, RMPP
 * header, SM_Key at 36, AttributeOffset at 44, ComponentMask at 48, the
 * record at 56: DGID at +8, SGID at +24, DLID +40, SLID +42, P_Key +50,
 * SL the low 4 bits of +53.
 */
#ifndef ONEIB_SAPATH_H
#define ONEIB_SAPATH_H

#include <stddef.h>
#include <stdint.h>

struct sa_conn {
	int fd, agent, timeout;
	uint32_t tid;
	void *umad;
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint64_t prefix; /* the local port's GID prefix: fe80::/64 */
};

struct sa_path {
	uint16_t slid, dlid;
	uint16_t pkey; /* as the SA answers it, membership bit and all */
	uint8_t sl;
};

/*
 * A local port (ca NULL / port 0: the first active one) to ask from.
 * 0, or -errno with one line in err.
 */
int sa_open(struct sa_conn *c, const char *ca, int port, int timeout_ms,
	    char *err, size_t errlen);

/*
 * The path from port GUID sguid to dguid in partition pkey (0: any, the
 * SA picks one). 1 with *out; 0 when the SA has none (err says its MAD
 * status); -errno when it does not answer.
 */
int sa_path_get(struct sa_conn *c, uint64_t sguid, uint64_t dguid,
		uint16_t pkey, struct sa_path *out, char *err, size_t errlen);

void sa_close(struct sa_conn *c);

#endif
