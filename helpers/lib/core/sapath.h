/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Records from the subnet administrator (opensm's SA): path records, one
 * pair at a time, the way `saquery PR --sgid-to-dgid ... --pkey 0x8101` asks: a
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
 *
 * And the MCMemberRecord of one multicast group by its MGID (IBA
 * 15.2.5.17: MGID at +0, MLID +36, P_Key +40, SL the high 4 bits of +44),
 * which the SA answers to a port that holds the group's P_Key: the IPoIB
 * broadcast group of a partition, ff12:401b:<P_Key>::ffff:ffff, keeps the
 * SL it was created with until opensm makes it anew (opensm-facts §1).
 *
 * Used by verify on the SM's host (fabric/partverify.h) and by the guest
 * (guest/guestsl.h), from its VF's own port: what the SA answers there is
 * the SL its partition has, whatever its context says.
 */
#ifndef ONEIB_SAPATH_H
#define ONEIB_SAPATH_H

#include <stddef.h>
#include <stdint.h>

#include "core/madport.h"

struct sa_conn {
	struct mad_port mp;
	uint16_t pkey_index; /* of the local port's table, for the MADs sent:
				the default partition's (the SA is in it) */
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

/* The IPoIB broadcast group's MGID of partition pkey (either form). */
void sa_ipoib_mgid(uint16_t pkey, uint8_t mgid[16]);

struct sa_mcmember {
	uint16_t mlid, pkey;
	uint8_t sl;
};

/* The group mgid's record: 1 with *out, 0 none, -errno no answer. */
int sa_mcmember_get(struct sa_conn *c, const uint8_t mgid[16],
		    struct sa_mcmember *out, char *err, size_t errlen);

void sa_close(struct sa_conn *c);

#endif
