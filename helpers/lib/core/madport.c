// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <infiniband/umad.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/mad.h"
#include "core/madport.h"

int mad_port_open(struct mad_port *p, const char *ca, int port, int mgmt_class,
		  int class_version, int rmpp, const char *what, int timeout_ms,
		  char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->fd = p->agent = -1;
	p->timeout = timeout_ms;
	if (umad_init() < 0) {
		err_set(err, errlen,
			"libibumad: cannot initialise (no ib_umad module?)");
		return -ENODEV;
	}
	p->fd = umad_open_port(ca, port);
	if (p->fd < 0) {
		int r = p->fd;

		err_set(err, errlen,
			"%s port %d: cannot open its umad device: %s",
			ca ? ca : "first InfiniBand device", port,
			strerror(-r));
		p->fd = -1;
		umad_done();
		return r;
	}
	p->agent = umad_register(p->fd, mgmt_class, class_version,
				 (uint8_t)rmpp, NULL);
	p->umad = calloc(1, umad_size() + MAD_LEN);
	if (p->agent < 0 || !p->umad) {
		err_set(err, errlen, "libibumad: cannot register an %s agent",
			what);
		mad_port_close(p);
		return -EIO;
	}
	return 0;
}

int mad_port_call(struct mad_port *p, uint32_t tid, const char *label,
		  char *err, size_t errlen)
{
	uint8_t *mad = umad_get_mad(p->umad);
	int len, st;

	p->tid = tid;
	if (umad_send(p->fd, p->agent, p->umad, MAD_LEN, p->timeout, 2) < 0) {
		err_set(err, errlen, "%s: send failed", label);
		return -EIO;
	}
	for (;;) {
		len = MAD_LEN;
		if (umad_recv(p->fd, p->umad, &len, p->timeout * 4) < 0) {
			err_set(err, errlen, "%s: no answer", label);
			return -ETIMEDOUT;
		}
		if ((uint32_t)be64(mad + 8) == tid)
			break; /* the kernel put our agent in the high half */
	}
	st = umad_status(p->umad);
	if (st) {
		err_set(err, errlen, "%s: %s", label,
			st == ETIMEDOUT ? "timed out" : strerror(st));
		return -(st > 0 ? st : EIO);
	}
	return 0;
}

void mad_port_close(struct mad_port *p)
{
	free(p->umad);
	p->umad = NULL;
	if (p->agent >= 0)
		umad_unregister(p->fd, p->agent);
	if (p->fd >= 0) {
		umad_close_port(p->fd);
		umad_done();
	}
	p->fd = p->agent = -1;
}
