/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One management agent on a local port's umad device, what the SMP client
 * (core/smp.h) and the SA client (core/sapath.h) share: the port opened
 * and an agent registered for one management class, a buffer of
 * umad_size() + MAD_LEN, and one request at a time sent (up to three
 * times, each waited for timeout ms) and its answer, the one with the
 * request's transaction ID, received into the same buffer.
 */
#ifndef ONEIB_MADPORT_H
#define ONEIB_MADPORT_H

#include <stddef.h>
#include <stdint.h>

struct mad_port {
	int fd, agent, timeout; /* -1, -1 when not open */
	uint32_t tid; /* of the last request */
	void *umad;
};

/*
 * Port `port` of RDMA device `ca` (NULL / 0: the first active one
 * libibumad finds) with an agent of mgmt_class/class_version (rmpp: the
 * class uses RMPP) registered; `what` names the agent in an error
 * ("SMP": "libibumad: cannot register an SMP agent"). 0, or -errno with
 * one line in err; mad_port_close is safe after a failed open.
 */
int mad_port_open(struct mad_port *p, const char *ca, int port, int mgmt_class,
		  int class_version, int rmpp, const char *what, int timeout_ms,
		  char *err, size_t errlen);

/*
 * The MAD the caller built in p->umad (address set) sent, and the answer
 * with transaction ID tid received in its place. 0 (the answer's MAD
 * status is the caller's to judge), or -errno with one line in err that
 * starts with label ("SMP to 0,1: no answer").
 */
int mad_port_call(struct mad_port *p, uint32_t tid, const char *label,
		  char *err, size_t errlen);

void mad_port_close(struct mad_port *p);

#endif
