/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service level of a guest's InfiniBand NIC (design decision 13), and
 * the environment file that hands it to the MPI stacks.
 *
 * On SR-IOV the guest chooses the SL of its own queue pairs: the plan is
 * enforced for what asks the subnet administrator (rdma_cm's and IPoIB's
 * path records, the IPoIB broadcast group) and cooperative for raw verbs,
 * whose SL is whatever the application puts in its address vector. So the
 * SL a NIC should use is what the SA answers for a path inside its
 * partition, asked from the VF's own port (a PathRecord of the port to
 * itself with the tenant P_Key, sent through the default partition's
 * index, where the SA is): the subnet manager's, which the VM's owner
 * cannot forge. ETH<n>_IB_SL of the context is used only when the SA
 * cannot be asked (no umad device in the image, a limited member: a
 * service network's NIC has no path to itself), since the owner writes
 * the context; when both are there and differ, the SA wins and a note
 * says so. The IPoIB broadcast group's SL (ff12:401b:<P_Key>::ffff:ffff,
 * an MCMemberRecord) is read too: opensm keeps the SL a group was made
 * with until it makes it anew.
 *
 * The environment file (GUEST_ENV_FILE in the state directory,
 * /run/oneib-context/environment), KEY=value lines a shell sources with
 * `set -a` and systemd reads as an EnvironmentFile, rewritten whole at
 * every run:
 *
 *   # oneib-context: the service levels of this VM's InfiniBand NICs
 *   # ETH1 ib0.8101 (partition 0x8101): SL 3, the SA's answer
 *   ONEIB_ETH1_IB_SL=3
 *   ONEIB_ETH1_IPOIB_SL=3
 *   UCX_IB_SL=3
 *   NCCL_IB_SL=3
 *
 * UCX_IB_SL and NCCL_IB_SL are one per process: the lowest-numbered NIC
 * that is a full member of its partition (the cluster's, not a storage
 * network's) and has an SL; a note names the others that differ.
 */
#ifndef ONEIB_GUESTSL_H
#define ONEIB_GUESTSL_H

#include <stddef.h>

#include "core/strbuf.h"
#include "guest/guestplan.h"

#define GUEST_ENV_FILE "environment"

/*
 * The SL of a NIC planned PLAN_CONFIGURE (p->dev, p->pkey,
 * p->sa_pkey_index, p->conf): into p->sl, p->sl_source, p->ipoib_sl, with
 * a note when the context is used or disagrees. Each SA query waits at
 * most timeout_ms (twice).
 */
void guest_sl(struct nic_plan *p, int timeout_ms);

/* The environment file's text for the plans. 0 or -ENOMEM. */
int guest_sl_environment(struct nic_plan *plans, size_t n, struct strbuf *out);

#endif
