// SPDX-License-Identifier: Apache-2.0
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "guest/ibport.h"
#include "core/log.h"
#include "core/pkey.h"
#include "core/sysfs.h"

/* Larger than any P_Key table (the field is 16 bits). */
#define PKEYS_MAX 65536

const char *ibport_state_name(int state)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"
	};

	return state >= 0 && state < 6 ? names[state] : "?";
}

int gid_parse_guid(const char *s, uint64_t *guid)
{
	uint64_t g = 0;
	int group, i, d;

	for (group = 0; group < 8; group++) {
		unsigned v = 0;

		for (i = 0; i < 4; i++) {
			d = hex_digit(*s++);
			if (d < 0)
				return -EINVAL;
			v = v << 4 | (unsigned)d;
		}
		if (*s != (group < 7 ? ':' : '\0'))
			return -EINVAL;
		s++;
		if (group >= 4)
			g = g << 16 | v;
	}
	*guid = g;
	return 0;
}

void ibport_facts_free(struct ib_port_facts *f)
{
	free(f->pkeys);
	f->pkeys = NULL;
	f->npkeys = 0;
}

static int from_verbs(const char *ibdev, int port, struct ib_port_facts *f,
		      char *why, size_t whylen)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int n = 0, i, r = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		r = errno ? -errno : -ENODEV;
		err_set(why, whylen, "libibverbs: %s", strerror(-r));
		return r;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ibdev))
			break;
	if (i == n) {
		err_set(why, whylen, "libibverbs: no device %s", ibdev);
		r = -ENODEV;
		goto out;
	}
	ctx = ibv_open_device(list[i]);
	if (!ctx) {
		r = errno ? -errno : -ENODEV;
		err_set(why, whylen, "libibverbs: cannot open %s: %s", ibdev,
			strerror(-r));
		goto out;
	}
	if ((r = ibv_query_port(ctx, (uint8_t)port, &pa))) {
		r = r > 0 ? -r : -EIO;
		err_set(why, whylen, "libibverbs: %s port %d: %s", ibdev, port,
			strerror(-r));
		goto out;
	}
	f->state = pa.state;
	/* enum ibv_mtu: IBV_MTU_256 = 1 ... IBV_MTU_4096 = 5 */
	f->active_mtu = pa.active_mtu >= IBV_MTU_256 &&
					pa.active_mtu <= IBV_MTU_4096
				? 128 << pa.active_mtu
				: 0;
	f->pkeys = calloc(pa.pkey_tbl_len ? pa.pkey_tbl_len : 1,
			  sizeof(*f->pkeys));
	if (!f->pkeys) {
		r = -ENOMEM;
		err_set(why, whylen, "out of memory");
		goto out;
	}
	for (i = 0; i < pa.pkey_tbl_len; i++) {
		__be16 pk;

		if (ibv_query_pkey(ctx, (uint8_t)port, i, &pk)) {
			r = -EIO;
			err_set(why, whylen, "libibverbs: %s port %d P_Key %d",
				ibdev, port, i);
			goto out;
		}
		f->pkeys[i] = be16toh(pk);
	}
	f->npkeys = (size_t)pa.pkey_tbl_len;
	if (ibv_query_gid(ctx, (uint8_t)port, 0, &gid)) {
		r = -EIO;
		err_set(why, whylen, "libibverbs: %s port %d GID 0", ibdev,
			port);
		goto out;
	}
	f->guid = be64toh(gid.global.interface_id);
	f->source = "libibverbs";
out:
	if (r)
		ibport_facts_free(f);
	if (ctx)
		ibv_close_device(ctx);
	ibv_free_device_list(list);
	return r;
}

static int port_file(char *path, size_t len, const char *ibdev, int port,
		     const char *file)
{
	return path_fmt(path, len, SYS_IB "/%s/ports/%d/%s", ibdev, port, file);
}

static int from_sysfs(const char *ibdev, int port, struct ib_port_facts *f,
		      char *err, size_t errlen)
{
	char path[512], buf[SYSFS_VALUE_MAX], file[32];
	size_t n = 0, cap = 0;
	int r;

	/* "4: ACTIVE" -> 4 */
	if ((r = port_file(path, sizeof(path), ibdev, port, "state")) ||
	    (r = sysfs_read_str(path, buf, sizeof(buf)))) {
		err_set(err, errlen, "%s: %s", path, strerror(-r));
		return r;
	}
	f->state = buf[0] >= '0' && buf[0] <= '9' && buf[1] == ':'
			   ? buf[0] - '0'
			   : -1;
	if ((r = port_file(path, sizeof(path), ibdev, port, "gids/0")) ||
	    (r = sysfs_read_str(path, buf, sizeof(buf))) ||
	    (r = gid_parse_guid(buf, &f->guid))) {
		err_set(err, errlen, "%s: %s", path,
			r == -EINVAL ? "not a GID" : strerror(-r));
		return r;
	}
	/* pkeys/0 .. pkeys/<len-1>, every one there */
	for (;; n++) {
		struct pkey pk;

		snprintf(file, sizeof(file), "pkeys/%zu", n);
		if ((r = port_file(path, sizeof(path), ibdev, port, file)))
			break;
		r = sysfs_read_str(path, buf, sizeof(buf));
		if (r == -ENOENT || n == PKEYS_MAX) {
			r = 0;
			break;
		}
		if (!r && pkey_parse(buf, &pk))
			r = -EINVAL;
		if (r)
			break;
		if (ALLOC_GROW(f->pkeys, n + 1, cap)) {
			r = -ENOMEM;
			break;
		}
		f->pkeys[n] = pk.raw;
	}
	if (r) {
		err_set(err, errlen, "%s: %s", path,
			r == -EINVAL ? "not a P_Key" : strerror(-r));
		ibport_facts_free(f);
		return r;
	}
	f->npkeys = n;
	f->active_mtu = 0; /* not in sysfs */
	f->source = "sysfs";
	return 0;
}

int ibport_query(const char *ibdev, int port, struct ib_port_facts *f,
		 char *note, size_t notelen, char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->state = -1;
	if (note && notelen)
		note[0] = '\0';
	if (!ibdev[0] || port < 1 || port > 255) {
		err_set(err, errlen, "no RDMA device and port for it in sysfs");
		return -ENODEV;
	}
	if (!from_verbs(ibdev, port, f, note, notelen))
		return 0;
	return from_sysfs(ibdev, port, f, err, errlen);
}
