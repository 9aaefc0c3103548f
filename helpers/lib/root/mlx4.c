// SPDX-License-Identifier: Apache-2.0
/*
 * mlx4 (ConnectX-3): a tenant's GUID and partition on one VF, programmed in
 * the PF's paravirtualized tables (reference §3). For VF index 1 of PF
 * 0000:03:00.0 (mlx4 slave 2), port 1:
 *
 *   /sys/class/infiniband/mlx4_0/iov/
 *     ports/1/pkeys/<n>                    physical table, "0x8101"
 *     ports/1/admin_guids/2                alias GUID, "200c0fffea80105"
 *     0000:03:00.2/ports/1/gid_idx/0       "2": the GUID index above
 *     0000:03:00.2/ports/1/pkey_idx/<v>    virtual v -> physical, "1"/"none"
 *     0000:03:00.2/ports/1/smi_enabled     "0": no SMI (QP0) now
 *     0000:03:00.2/ports/1/enable_smi_admin "0": none after its next reset
 *
 * map 0x0200c0fffea80105 0x8101 on a port whose table is
 * [0]=0xffff [1]=0x8101 [5]=0x7fff leaves the VF with:
 *   admin_guids/2 = 200c0fffea80105, pkey_idx/0 = 1, pkey_idx/1 = 5,
 *   pkey_idx/2..126 = none
 * Virtual index 0 carries the tenant partition because IPoIB's parent
 * interface uses it; index 1 is the default partition as a limited member
 * (enough to reach the SA), and only when the port has 0x7fff: a VF is
 * never a full member of the default partition.
 *
 * A VF never gets SMI: map refuses one that has it (smi_enabled 1) and
 * turns a pending request off (enable_smi_admin 1 -> 0) before anything
 * else, for good (linux drivers/infiniband/hw/mlx4/sysfs.c: smi_enabled is
 * the VF's operational state, enable_smi_admin what the PF's driver grants
 * at the VF's next reset; both exist only for VFs on InfiniBand ports).
 *
 * Every write goes through one ordered transition (apply): first every
 * mapping that changes is dropped to none, then the GUID, then the new
 * mappings, index 0 last. So a new tenant's GUID never meets the previous
 * tenant's partitions, and the VF's own partition appears only when
 * everything else is in place. Each write is read back; a failed map is
 * undone by the same transition towards the saved state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/guid.h"
#include "core/log.h"
#include "core/sysfs.h"
#include "root/vfmap.h"

/* Table indices are 0..126 on ConnectX-3 (128 minus the reserved slot). */
#define MLX4_TBL_MAX 128
/* mlx4 has at most 126 VFs (slaves 1..126); slave 0 is the PF. */
#define MLX4_MAX_SLAVE 126
#define IDX_NONE (-1)
/* A value that could not be read back: differs from every wanted one. */
#define IDX_UNKNOWN (-2)
#define GUID_NONE UINT64_MAX

struct mlx4_vf {
	const struct vf_target *t;
	int slave; /* VF index + 1 */
	int gid_idx; /* == slave, read from gid_idx/0 */
	char sdir[PCI_ADDR_STRLEN]; /* slave dir name, "0000:03:00.2" */
	char port_dir[PATH_MAX]; /* iov/<sdir>/ports/<p> */
	char guid_path[PATH_MAX]; /* iov/ports/<p>/admin_guids/<gid_idx> */
	char idx_dir[PATH_MAX]; /* iov/<sdir>/ports/<p>/pkey_idx */
};

/* What the VF is programmed with: GUID and the virtual -> physical map. */
struct mlx4_state {
	uint64_t guid;
	bool guid_unknown;
	int nidx; /* number of pkey_idx files */
	int idx[MLX4_TBL_MAX]; /* physical index, IDX_NONE or IDX_UNKNOWN */
};

/* The port's physical P_Key table, iov/ports/<p>/pkeys/0..len-1. */
struct phys_table {
	int len;
	uint16_t pkey[MLX4_TBL_MAX];
};

/* "1" -> 1, "none" -> IDX_NONE (the kernel's reserved invalid slot). */
static int parse_idx(const char *s, int *out)
{
	int v = 0;
	size_t i, n = strlen(s);

	if (!strcmp(s, "none")) {
		*out = IDX_NONE;
		return 0;
	}
	if (n == 0 || n > 3)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v >= MLX4_TBL_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "0x8101" exactly, the kernel's "0x%04x". */
static int parse_phys_pkey(const char *s, uint16_t *out)
{
	struct pkey p;

	if (strlen(s) != 6 || s[0] != '0' || s[1] != 'x' || pkey_parse(s, &p))
		return -EINVAL;
	*out = p.raw;
	return 0;
}

static void fmt_idx(int idx, char *buf, size_t len)
{
	if (idx == IDX_NONE)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%d", idx);
}

/*
 * Finds the VF's slave directory and GUID index. The kernel names the dir
 * from the PF's BDF and the slave number, "%.8s%.2d.%d": PF 0000:03:00.0,
 * VF index 1 = slave 2 -> "0000:03:00.2"; VF index 7 = slave 8 ->
 * "0000:03:01.0". It is only trusted when it exists and its gid_idx/0 says
 * the same slave.
 */
static int vf_open(const struct vf_target *t, struct mlx4_vf *v, char *err,
		   size_t errlen)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	struct stat st;
	char *base;
	int r;

	memset(v, 0, sizeof(*v));
	base = v->port_dir;
	v->t = t;
	if (t->kind != VF_MLX4 || t->index < 0 || t->index >= MLX4_MAX_SLAVE) {
		err_set(err, errlen, "%s: not an mlx4 VF (index %d)", t->vf_bdf,
			t->index);
		return -EINVAL;
	}
	v->slave = t->index + 1;
	snprintf(v->sdir, sizeof(v->sdir), "%.8s%.2d.%d", t->pf_bdf,
		 v->slave / 8, v->slave % 8);
	if (path_fmt(base, sizeof(v->port_dir), SYS_IB "/%s/iov/%s/ports/%d",
		     t->ibdev, v->sdir, t->port) ||
	    path_fmt(path, sizeof(path), "%s/gid_idx/0", base) ||
	    path_fmt(v->idx_dir, sizeof(v->idx_dir), "%s/pkey_idx", base)) {
		err_set(err, errlen, "%s: path too long", t->vf_bdf);
		return -ENAMETOOLONG;
	}
	if (stat(base, &st) || !S_ISDIR(st.st_mode)) {
		err_set(err, errlen,
			"%s: %s missing: %s has no iov/ tables for slave %d",
			t->vf_bdf, base, t->ibdev, v->slave);
		return -ENODEV;
	}
	r = sysfs_read_str(path, buf, sizeof(buf));
	if (r || parse_idx(buf, &v->gid_idx) || v->gid_idx != v->slave) {
		err_set(err, errlen, "%s: %s: '%.20s', expected slave %d",
			t->vf_bdf, path, r ? strerror(-r) : buf, v->slave);
		return r ? r : -EINVAL;
	}
	/* GUID index 0 is the PF's own port GUID (read-only to writes). */
	if (v->gid_idx == 0) {
		err_set(err, errlen, "%s: GUID index 0 belongs to the PF",
			t->vf_bdf);
		return -EINVAL;
	}
	if (path_fmt(v->guid_path, sizeof(v->guid_path),
		     SYS_IB "/%s/iov/ports/%d/admin_guids/%d", t->ibdev,
		     t->port, v->gid_idx)) {
		err_set(err, errlen, "%s: path too long", t->vf_bdf);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int read_guid(const struct mlx4_vf *v, uint64_t *g, char *err,
		     size_t errlen)
{
	char buf[SYSFS_VALUE_MAX];
	int r;

	/* "200c0fffea80105": %llx, no 0x, no padding */
	r = sysfs_read_str(v->guid_path, buf, sizeof(buf));
	if (!r && guid_parse_hex(buf, g))
		r = -EINVAL;
	if (r)
		err_set(err, errlen, "%s: %s: %s", v->t->vf_bdf, v->guid_path,
			r == -EINVAL ? "not a GUID" : strerror(-r));
	return r;
}

static int read_one_idx(const struct mlx4_vf *v, int n, int *out, char *err,
			size_t errlen)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	int r;

	if (path_fmt(path, sizeof(path), "%s/%d", v->idx_dir, n))
		return -ENAMETOOLONG;
	r = sysfs_read_str(path, buf, sizeof(buf));
	if (!r && parse_idx(buf, out))
		r = -EINVAL;
	if (r && r != -ENOENT)
		err_set(err, errlen, "%s: %s: %s", v->t->vf_bdf, path,
			r == -EINVAL ? "not an index or none" : strerror(-r));
	return r;
}

/* The VF's whole state: GUID and pkey_idx/0.. up to the first missing one. */
static int read_state(const struct mlx4_vf *v, struct mlx4_state *s, char *err,
		      size_t errlen)
{
	int n, r;

	memset(s, 0, sizeof(*s));
	r = read_guid(v, &s->guid, err, errlen);
	if (r)
		return r;
	for (n = 0; n < MLX4_TBL_MAX; n++) {
		r = read_one_idx(v, n, &s->idx[n], err, errlen);
		if (r == -ENOENT)
			break;
		if (r)
			return r;
	}
	if (n == 0) {
		err_set(err, errlen, "%s: %s/0 missing", v->t->vf_bdf,
			v->idx_dir);
		return -ENOENT;
	}
	s->nidx = n;
	return 0;
}

static int read_phys(const struct mlx4_vf *v, struct phys_table *pt, char *err,
		     size_t errlen)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	int n;

	memset(pt, 0, sizeof(*pt));
	for (n = 0; n < MLX4_TBL_MAX; n++) {
		int r;

		if (path_fmt(path, sizeof(path),
			     SYS_IB "/%s/iov/ports/%d/pkeys/%d", v->t->ibdev,
			     v->t->port, n))
			return -ENAMETOOLONG;
		r = sysfs_read_str(path, buf, sizeof(buf));
		if (r == -ENOENT)
			break;
		if (!r && parse_phys_pkey(buf, &pt->pkey[n]))
			r = -EINVAL;
		if (r) {
			err_set(err, errlen, "%s: %s: %s", v->t->vf_bdf, path,
				r == -EINVAL ? "not a P_Key" : strerror(-r));
			return r;
		}
	}
	if (n == 0) {
		err_set(err, errlen,
			"%s: %s port %d has no physical P_Key table in iov/",
			v->t->vf_bdf, v->t->ibdev, v->t->port);
		return -ENOENT;
	}
	pt->len = n;
	return 0;
}

/*
 * pkey_idx/<n> := idx, read back. cur follows what the kernel holds: it
 * changes once a write was accepted, even when the read-back then fails,
 * so that a rollback rewrites exactly what was touched.
 */
static int set_idx(const struct mlx4_vf *v, struct mlx4_state *cur, int n,
		   int idx, char *err, size_t errlen)
{
	char path[PATH_MAX], val[16], line[sizeof(val) + 1];
	int r, back = IDX_UNKNOWN;

	if (path_fmt(path, sizeof(path), "%s/%d", v->idx_dir, n))
		return -ENAMETOOLONG;
	/* "5\n" or "none\n": decimal, since the kernel's "%i" reads "010" as 8 */
	fmt_idx(idx, val, sizeof(val));
	snprintf(line, sizeof(line), "%s\n", val);
	r = sysfs_write_str(path, line);
	if (r) {
		err_set(err, errlen, "%s: %s: cannot write '%s': %s",
			v->t->vf_bdf, path, val, strerror(-r));
		return r;
	}
	r = read_one_idx(v, n, &back, err, errlen);
	cur->idx[n] = r ? IDX_UNKNOWN : back;
	if (r)
		return r == -ENOENT ? -EIO : r;
	if (back != idx) {
		char got[16];

		fmt_idx(back, got, sizeof(got));
		err_set(err, errlen, "%s: %s: wrote '%s', reads back '%s'",
			v->t->vf_bdf, path, val, got);
		return -EIO;
	}
	return 0;
}

/* admin_guids/<gid_idx> := g as "%llx" ("ffffffffffffffff" deletes it). */
static int set_guid(const struct mlx4_vf *v, struct mlx4_state *cur, uint64_t g,
		    char *err, size_t errlen)
{
	char val[24];
	uint64_t back;
	int r;

	snprintf(val, sizeof(val), "%llx\n", (unsigned long long)g);
	r = sysfs_write_str(v->guid_path, val);
	if (r) {
		err_set(err, errlen, "%s: %s: cannot write '%llx': %s",
			v->t->vf_bdf, v->guid_path, (unsigned long long)g,
			strerror(-r));
		return r;
	}
	cur->guid_unknown = true;
	r = read_guid(v, &back, err, errlen);
	if (r)
		return r == -ENOENT ? -EIO : r;
	cur->guid = back;
	cur->guid_unknown = false;
	if (back != g) {
		err_set(err, errlen, "%s: %s: wrote '%llx', reads back '%llx'",
			v->t->vf_bdf, v->guid_path, (unsigned long long)g,
			(unsigned long long)back);
		return -EIO;
	}
	return 0;
}

/*
 * cur -> want in the safe order (top of file). Writes only what differs,
 * so applying a state the VF already has writes nothing.
 */
static int apply(const struct mlx4_vf *v, struct mlx4_state *cur,
		 const struct mlx4_state *want, char *err, size_t errlen)
{
	int n, r;

	/* idx 0: 1 (previous tenant's 0x8101) -> none, before any new GUID */
	for (n = 0; n < cur->nidx; n++) {
		if (cur->idx[n] == want->idx[n] || cur->idx[n] == IDX_NONE)
			continue;
		r = set_idx(v, cur, n, IDX_NONE, err, errlen);
		if (r)
			return r;
	}
	if (cur->guid_unknown || cur->guid != want->guid) {
		r = set_guid(v, cur, want->guid, err, errlen);
		if (r)
			return r;
	}
	for (n = cur->nidx - 1; n >= 0; n--) {
		if (cur->idx[n] == want->idx[n])
			continue;
		r = set_idx(v, cur, n, want->idx[n], err, errlen);
		if (r)
			return r;
	}
	return 0;
}

/* Same VF, nothing mapped: every virtual index none. */
static void state_blocked(const struct mlx4_state *from, uint64_t guid,
			  struct mlx4_state *out)
{
	int n;

	memset(out, 0, sizeof(*out));
	out->guid = guid;
	out->nidx = from->nidx;
	for (n = 0; n < out->nidx; n++)
		out->idx[n] = IDX_NONE;
}

/*
 * The physical index of partition pk (its low 15 bits), preferring a full
 * member entry as the kernel's ib_find_pkey does: 0x0101 at 3 and 0x8101
 * at 7 -> 7. IDX_NONE when the port is not in the partition.
 */
static int find_partition(const struct phys_table *pt, uint16_t base)
{
	int n, limited = IDX_NONE;

	for (n = 0; n < pt->len; n++) {
		if ((pt->pkey[n] & 0x7fff) != base)
			continue;
		if (pt->pkey[n] & PKEY_MEMBER_FULL)
			return n;
		if (limited == IDX_NONE)
			limited = n;
	}
	return limited;
}

/* Only 0x7fff exactly: 0xffff would make the VF a full default member. */
static int find_default_limited(const struct phys_table *pt)
{
	int n;

	for (n = 0; n < pt->len; n++)
		if (pt->pkey[n] == PKEY_DEFAULT)
			return n;
	return IDX_NONE;
}

/*
 * SMI (QP0) of a VF on an InfiniBand port, in its slave directory:
 *   smi_enabled        "0"/"1" read-only: what the VF has now (set from the
 *                      admin value when the VF last reset)
 *   enable_smi_admin   "0"/"1": what it gets at its next reset
 * Kernels without them (before SMI for VFs existed) give VFs no SMI.
 * *val is -1 when the file is absent.
 */
static int read_smi(const struct mlx4_vf *v, const char *name, int *val,
		    char *err, size_t errlen)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	int r;

	*val = -1;
	if (path_fmt(path, sizeof(path), "%s/%s", v->port_dir, name))
		return -ENAMETOOLONG;
	r = sysfs_read_str(path, buf, sizeof(buf));
	if (r == -ENOENT)
		return 0;
	if (!r && strcmp(buf, "0") && strcmp(buf, "1"))
		r = -EINVAL;
	if (r) {
		err_set(err, errlen, "%s: %s: %s", v->t->vf_bdf, path,
			r == -EINVAL ? "not 0 or 1" : strerror(-r));
		return r;
	}
	*val = buf[0] - '0';
	return 0;
}

/* A VF that has SMI now is refused before anything is written. */
static int smi_refuse(const struct mlx4_vf *v, char *err, size_t errlen)
{
	int on, r = read_smi(v, "smi_enabled", &on, err, errlen);

	if (r || on != 1)
		return r;
	err_set(err, errlen,
		"%s: the VF has SMI (QP0) access (%s/smi_enabled is 1); a "
		"VF never gets it: set enable_smi_admin to 0 and reset the VF",
		v->t->vf_bdf, v->port_dir);
	return -EPERM;
}

/* enable_smi_admin 1 -> 0, read back; never the other way. */
static int smi_admin_off(const struct mlx4_vf *v, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int on, r = read_smi(v, "enable_smi_admin", &on, err, errlen);

	if (r || on != 1)
		return r;
	if (path_fmt(path, sizeof(path), "%s/enable_smi_admin", v->port_dir))
		return -ENAMETOOLONG;
	r = sysfs_write_str(path, "0\n");
	if (!r)
		r = read_smi(v, "enable_smi_admin", &on, err, errlen);
	else
		err_set(err, errlen, "%s: %s: cannot write '0': %s",
			v->t->vf_bdf, path, strerror(-r));
	if (!r && on != 0) {
		err_set(err, errlen, "%s: %s: wrote '0', reads back '%d'",
			v->t->vf_bdf, path, on);
		r = -EIO;
	}
	return r;
}

int mlx4_map(const struct vf_target *t, uint64_t guid, struct pkey pk,
	     char *err, size_t errlen)
{
	struct mlx4_state saved, cur, want;
	struct phys_table pt;
	char rb[256];
	struct mlx4_vf v;
	int tenant, r, rr;

	/* checked by the caller too; this is the part that runs as root */
	if (guid == 0 || guid == GUID_NONE || !pkey_tenant_ok(pk)) {
		err_set(err, errlen, "%s: GUID or P_Key not allowed for a VF",
			t->vf_bdf);
		return -EINVAL;
	}
	r = vf_open(t, &v, err, errlen);
	if (!r)
		r = smi_refuse(&v, err, errlen);
	if (!r)
		r = read_phys(&v, &pt, err, errlen);
	if (!r)
		r = read_state(&v, &saved, err, errlen);
	/* first of all writes, and kept whatever happens next */
	if (!r)
		r = smi_admin_off(&v, err, errlen);
	if (r)
		return r;
	cur = saved;

	tenant = find_partition(&pt, pkey_base(pk));
	if (tenant == IDX_NONE) {
		char pks[PKEY_STRLEN];

		/* The GUID stays: with no partition it reaches no one. */
		state_blocked(&saved, saved.guid, &want);
		r = apply(&v, &cur, &want, err, errlen);
		if (r)
			return r;
		pkey_fmt(pk, pks);
		err_set(err, errlen,
			"%s: P_Key %s is not in the table of %s port %d: VF "
			"blocked",
			t->vf_bdf, pks, t->ibdev, t->port);
		return -ENOENT;
	}
	state_blocked(&saved, guid, &want);
	want.idx[0] = tenant;
	if (want.nidx > 1)
		want.idx[1] = find_default_limited(&pt);

	r = apply(&v, &cur, &want, err, errlen);
	if (!r)
		return 0;
	/* Put back what was there; report the first failure, and a second. */
	rr = apply(&v, &cur, &saved, rb, sizeof(rb));
	if (err && errlen) {
		size_t l = strnlen(err, errlen - 1);

		if (rr)
			err_set(err + l, errlen - l,
				"; restoring failed too: %s", rb);
		else
			err_set(err + l, errlen - l, " (restored)");
	}
	return r;
}

/*
 * Blocking is never rolled back: a half-done unmap leaves the VF with
 * fewer partitions than before, which is safer than restoring them.
 */
int mlx4_unmap(const struct vf_target *t, char *err, size_t errlen)
{
	struct mlx4_state cur, want;
	struct mlx4_vf v;
	int r;

	r = vf_open(t, &v, err, errlen);
	if (!r)
		r = read_state(&v, &cur, err, errlen);
	if (r)
		return r;
	state_blocked(&cur, GUID_NONE, &want);
	return apply(&v, &cur, &want, err, errlen);
}

/*
 * The GUID the SM granted: low 64 bits of iov/ports/<p>/gids/<gid_idx>,
 * "fe80:0000:0000:0000:0200:c0ff:fea8:0105" -> 0x0200c0fffea80105.
 */
static int read_oper_guid(const struct mlx4_vf *v, uint64_t *g)
{
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];

	if (path_fmt(path, sizeof(path), SYS_IB "/%s/iov/ports/%d/gids/%d",
		     v->t->ibdev, v->t->port, v->gid_idx) ||
	    sysfs_read_str(path, buf, sizeof(buf)) || strlen(buf) != 39 ||
	    guid_parse_sysfs(buf + 20, g))
		return -EINVAL;
	return 0;
}

static int add_guid_line(struct strbuf *out, const char *key, uint64_t g)
{
	char s[GUID_STRLEN];

	/* 0 = "ask the SM to assign", all ones = deleted: neither is a GUID */
	if (g == 0 || g == GUID_NONE)
		return sb_addf(out, "%s: none\n", key);
	guid_fmt_hex(g, s);
	return sb_addf(out, "%s: %s\n", key, s);
}

/* "nic: VM 42 NIC 1" under a GUID that is set. */
static int add_nic_line(struct strbuf *out, uint64_t g)
{
	char d[GUID_DESC_LEN];

	if (g == 0 || g == GUID_NONE)
		return 0;
	guid_describe(g, d);
	return sb_addf(out, "nic: %s\n", d);
}

int mlx4_show(const struct vf_target *t, struct strbuf *out, char *err,
	      size_t errlen)
{
	struct mlx4_state s;
	struct phys_table pt;
	struct mlx4_vf v;
	bool blocked = true;
	uint64_t oper;
	int n, r, oom, smi;

	r = vf_open(t, &v, err, errlen);
	if (!r)
		r = read_phys(&v, &pt, err, errlen);
	if (!r)
		r = read_state(&v, &s, err, errlen);
	if (r)
		return r;
	oom = sb_addf(out, "kind: mlx4\nvf: %s\nibdev: %s\nport: %d\n",
		      t->vf_bdf, t->ibdev, t->port);
	oom |= sb_addf(out, "slave: %d\n", v.slave);
	oom |= add_guid_line(out, "guid", s.guid);
	oom |= add_nic_line(out, s.guid);
	if (!read_oper_guid(&v, &oper))
		oom |= add_guid_line(out, "oper_guid", oper);
	if (!read_smi(&v, "smi_enabled", &smi, NULL, 0) && smi >= 0)
		oom |= sb_addf(out, "smi_enabled: %d\n", smi);
	if (!read_smi(&v, "enable_smi_admin", &smi, NULL, 0) && smi >= 0)
		oom |= sb_addf(out, "enable_smi_admin: %d\n", smi);
	/* 0 (tenant) and 1 (default) always; any other only when mapped */
	for (n = 0; n < s.nidx; n++) {
		int p = s.idx[n];

		if (p == IDX_NONE) {
			if (n < 2)
				oom |= sb_addf(out, "pkey_idx %d: none\n", n);
			continue;
		}
		if (p < pt.len) {
			oom |= sb_addf(out, "pkey_idx %d: %d (0x%04x)\n", n, p,
				       pt.pkey[p]);
			/* a slot holding 0x0000 reaches no partition */
			if (pt.pkey[p] != 0)
				blocked = false;
		} else {
			oom |= sb_addf(out, "pkey_idx %d: %d (not in table)\n",
				       n, p);
		}
	}
	oom |= sb_addf(out, "blocked: %s\n", blocked ? "yes" : "no");
	if (oom) {
		err_set(err, errlen, "%s: out of memory", t->vf_bdf);
		return -ENOMEM;
	}
	return 0;
}
