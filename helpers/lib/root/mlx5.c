// SPDX-License-Identifier: Apache-2.0
/*
 * mlx5 (ConnectX-4 and later): a VF's identity is its own vport's node GUID,
 * port GUID and link policy, set on the host through one of two interfaces.
 *
 *   ofed     MLNX_OFED's files, used whenever <pf>/sriov/<index>/ exists;
 *            in /sys/bus/pci/devices/0000:3b:00.0/sriov/2/ for VF 2:
 *              node    "02:00:c0:ff:fe:a8:01:05\n"
 *              port    same form
 *              policy  "Follow\n" | "Up\n" | "Down\n"
 *   netlink  upstream: rtnetlink on the PF's IPoIB netdev (netlink.h), what
 *              ip link set dev ib0 vf 2 node_guid 02:00:c0:ff:fe:a8:01:05
 *              ip link set dev ib0 vf 2 port_guid 02:00:c0:ff:fe:a8:01:05
 *              ip link set dev ib0 vf 2 state auto
 *            sends. Policy and state are the same three values under two
 *            names: Follow = auto, Up = enable, Down = disable.
 *
 * map   node = port = GUID, then policy Follow / state auto;
 * unmap policy Down / state disable, then node = port = all ones
 *       (ff:ff:ff:ff:ff:ff:ff:ff).
 * Only VFs held by vfio-pci or by no driver get here (vf_map, vf_unmap):
 * the guest's driver reads the GUIDs when it starts, so nothing is unbound
 * or bound. (A VF the host's own mlx5_core holds would take a new GUID
 * into its netdev and ibdev only when probed again; such a VF is the
 * host's, and oneib-pkey refuses it.)
 *
 * Reading back. OFED's `port` reads GID 0 of the VF's vport, which is what
 * the subnet manager keys the partition on; it is compared once all three
 * are written. OFED's `node` and `policy` are written but not compared: in the
 * OFED versions read their show() queries vport <index> while store()
 * modifies vport <index>+1, so a read may be the neighbour's. For the same
 * reason a failed map does not write back what node and policy read before:
 * it restores port to the saved port GUID, node to the same value (every
 * writer we know keeps node = port: this file, ib-sriov-cni,
 * networking-mlnx), and policy to Follow when that GUID is a usable one,
 * Down when it is zero or all ones.
 * Over netlink, RTM_GETLINK gives the link state the HCA reports and the
 * GUIDs mlx5_ib cached (0 until set); kernels before late 2019 leave the
 * GUIDs out, and then only the state is compared. A zero GUID is restored
 * as all ones (as ib-sriov-cni does): zero means "never set", not a value.
 *
 * unmap does not roll back: it tries every write, so a failure leaves the
 * VF as far towards "no identity, link down" as the hardware allowed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/guid.h"
#include "core/log.h"
#include "root/netlink.h"
#include "core/sysfs.h"
#include "root/vfmap.h"

#define ARPHRD_IB 32 /* ARPHRD_INFINIBAND: an IPoIB netdev */
#define ERRMAX 512

enum field { F_NODE, F_PORT, F_POLICY };

/* What a vport carries; state is NL_VF_STATE_* in both interfaces. */
struct vport {
	uint64_t node, port;
	uint32_t state;
	bool guids; /* netlink: the kernel reported node and port */
};

static const char *const field_file[] = { "node", "port", "policy" };
static const char *const field_nl[] = { "node_guid", "port_guid", "state" };
/* NL_VF_STATE_AUTO, _ENABLE, _DISABLE as OFED's policy file spells them */
static const char *const policy_name[] = { "Follow", "Up", "Down" };

static bool guid_usable(uint64_t g)
{
	return g != 0 && g != UINT64_MAX;
}

/* Appends "; <what>" to a message already in err, cut to fit. */
static void err_append(char *err, size_t errlen, const char *fmt, ...)
	ONEIB_PRINTF(3, 4);
static void err_append(char *err, size_t errlen, const char *fmt, ...)
{
	size_t n = err ? strnlen(err, errlen) : 0;
	va_list ap;

	if (!err || n + 3 >= errlen)
		return;
	memcpy(err + n, "; ", 3);
	va_start(ap, fmt);
	vsnprintf(err + n + 2, errlen - n - 2, fmt, ap);
	va_end(ap);
}

static int ofed_path(const struct vf_target *t, enum field f, char *buf,
		     size_t len)
{
	return path_fmt(buf, len, SYS_PCI "/%s/sriov/%d/%s", t->pf_bdf,
			t->index, field_file[f]);
}

/* One OFED file's value; path is kept for the caller's messages. */
static int ofed_read(const struct vf_target *t, enum field f,
		     char path[PATH_MAX], char val[SYSFS_VALUE_MAX], char *err,
		     size_t errlen)
{
	int r = ofed_path(t, f, path, PATH_MAX);

	if (!r)
		r = sysfs_read_str(path, val, SYSFS_VALUE_MAX);
	if (r)
		err_set(err, errlen, "%s: cannot read %s: %s", t->vf_bdf, path,
			strerror(-r));
	return r;
}

/* "02:00:c0:ff:fe:a8:01:05" -> 0x0200c0fffea80105 from one OFED file. */
static int ofed_read_guid(const struct vf_target *t, enum field f, uint64_t *g,
			  char *err, size_t errlen)
{
	char path[PATH_MAX], val[SYSFS_VALUE_MAX];
	int r = ofed_read(t, f, path, val, err, errlen);

	if (r)
		return r;
	if (guid_parse_bytes(val, g)) {
		err_set(err, errlen, "%s: %s: not a GUID: '%.40s'", t->vf_bdf,
			path, val);
		return -EINVAL;
	}
	return 0;
}

static int ofed_read_policy(const struct vf_target *t, uint32_t *state,
			    char *err, size_t errlen)
{
	char path[PATH_MAX], val[SYSFS_VALUE_MAX];
	uint32_t s;
	int r = ofed_read(t, F_POLICY, path, val, err, errlen);

	if (r)
		return r;
	for (s = 0; s <= NL_VF_STATE_DISABLE; s++)
		if (!strcmp(val, policy_name[s])) {
			*state = s;
			return 0;
		}
	err_set(err, errlen, "%s: %s: not a policy: '%.40s'", t->vf_bdf, path,
		val);
	return -EINVAL;
}

/*
 * The PF netdev as the kernel sees it, checked against what sysfs said:
 * the same name at that ifindex, an IPoIB netdev, listing our VF. Nothing
 * is ever sent to an ifindex that fails this.
 */
static int nl_target(const struct vf_target *t, struct nl_link *l, char *err,
		     size_t errlen)
{
	char why[ERRMAX];
	int r;

	if (!t->pf_ifindex) {
		err_set(err, errlen, "%s: no IPoIB netdev on PF %s port %d",
			t->vf_bdf, t->pf_bdf, t->port);
		return -ENODEV;
	}
	r = nl_link_get(t->pf_ifindex, t->index, l, why, sizeof(why));
	if (r) {
		err_set(err, errlen,
			"%s: IPoIB netdev %s (ifindex %d) of PF %s: %s",
			t->vf_bdf, t->pf_netdev, t->pf_ifindex, t->pf_bdf, why);
		return r;
	}
	if (l->ifindex != t->pf_ifindex || strcmp(l->name, t->pf_netdev)) {
		err_set(err, errlen, "%s: ifindex %d is '%s', not %s of PF %s",
			t->vf_bdf, t->pf_ifindex, l->name, t->pf_netdev,
			t->pf_bdf);
		return -ENODEV;
	}
	if (l->type != ARPHRD_IB) {
		err_set(err, errlen,
			"%s: %s (ifindex %d) is not an IPoIB netdev (type %u)",
			t->vf_bdf, l->name, l->ifindex, l->type);
		return -ENODEV;
	}
	if (!l->vf_found) {
		err_set(err, errlen, "%s: %s of PF %s lists no VF %d (%d VFs)",
			t->vf_bdf, l->name, t->pf_bdf, t->index, l->num_vf);
		return -ENODEV;
	}
	return 0;
}

/* Everything readable now; OFED node/policy as read (see the top). */
static int read_vport(const struct vf_target *t, struct vport *v, char *err,
		      size_t errlen)
{
	struct nl_link l;
	int r;

	memset(v, 0, sizeof(*v));
	if (t->ofed) {
		v->guids = true;
		r = ofed_read_guid(t, F_NODE, &v->node, err, errlen);
		if (!r)
			r = ofed_read_guid(t, F_PORT, &v->port, err, errlen);
		if (!r)
			r = ofed_read_policy(t, &v->state, err, errlen);
		return r;
	}
	r = nl_target(t, &l, err, errlen);
	if (r)
		return r;
	v->guids = l.has_guids;
	v->node = l.node_guid;
	v->port = l.port_guid;
	v->state = l.link_state;
	return 0;
}

/* What map puts back when it fails (see the top of this file). */
static int save_vport(const struct vf_target *t, struct vport *v, char *err,
		      size_t errlen)
{
	int r;

	if (!t->ofed) {
		r = read_vport(t, v, err, errlen);
		if (r)
			return r;
		if (!v->guids || !v->node)
			v->node = UINT64_MAX;
		if (!v->guids || !v->port)
			v->port = UINT64_MAX;
		return 0;
	}
	memset(v, 0, sizeof(*v));
	r = ofed_read_guid(t, F_PORT, &v->port, err, errlen);
	if (r)
		return r;
	v->node = v->port;
	v->state = guid_usable(v->port) ? NL_VF_STATE_AUTO
					: NL_VF_STATE_DISABLE;
	v->guids = true;
	return 0;
}

/* "02:00:c0:ff:fe:a8:01:05" or "Follow": a field as OFED's files spell it. */
static void ofed_value(enum field f, const struct vport *v, char *buf,
		       size_t len)
{
	char g[GUID_STRLEN];

	if (f == F_POLICY) {
		snprintf(buf, len, "%s",
			 v->state <= NL_VF_STATE_DISABLE ? policy_name[v->state]
							 : "?");
		return;
	}
	guid_fmt_bytes(f == F_NODE ? v->node : v->port, g);
	snprintf(buf, len, "%s", g);
}

static int write_field(const struct vf_target *t, enum field f,
		       const struct vport *v, char *err, size_t errlen)
{
	char val[GUID_STRLEN + 1];
	int r;

	if (t->ofed) {
		char path[PATH_MAX], line[GUID_STRLEN + 2];

		ofed_value(f, v, val, sizeof(val));
		snprintf(line, sizeof(line), "%s\n", val);
		r = ofed_path(t, f, path, sizeof(path));
		if (!r)
			r = sysfs_write_str(path, line);
		if (r)
			err_set(err, errlen, "%s: cannot write '%s' to %s: %s",
				t->vf_bdf, val, path, strerror(-r));
	} else {
		char why[ERRMAX];

		if (f == F_POLICY)
			r = nl_vf_set(t->pf_ifindex, t->index, NL_VF_LINK_STATE,
				      v->state, why, sizeof(why));
		else
			r = nl_vf_set(t->pf_ifindex, t->index,
				      f == F_NODE ? NL_VF_NODE_GUID
						  : NL_VF_PORT_GUID,
				      f == F_NODE ? v->node : v->port, why,
				      sizeof(why));
		if (f == F_POLICY)
			snprintf(val, sizeof(val), "%s",
				 nl_vf_state_name(v->state));
		else
			ofed_value(f, v, val, sizeof(val));
		if (r)
			err_set(err, errlen, "%s: %s vf %d %s %s: %s",
				t->vf_bdf, t->pf_netdev, t->index, field_nl[f],
				val, why);
	}
	return r;
}

/* Read back what was written: OFED port only, netlink all it reports. */
static int verify(const struct vf_target *t, const struct vport *want,
		  char *err, size_t errlen)
{
	const char *what = NULL;
	uint64_t got = 0, wanted = 0;
	struct vport now;
	int r;

	if (t->ofed) {
		r = ofed_read_guid(t, F_PORT, &now.port, err, errlen);
		if (r)
			return r;
		now.guids = true;
		now.node = want->node; /* not comparable, see the top */
		now.state = want->state;
	} else {
		r = read_vport(t, &now, err, errlen);
		if (r)
			return r;
	}
	if (now.guids && now.node != want->node) {
		what = "node_guid";
		got = now.node;
		wanted = want->node;
	} else if (now.guids && now.port != want->port) {
		what = "port_guid";
		got = now.port;
		wanted = want->port;
	}
	if (what) {
		char a[GUID_STRLEN], b[GUID_STRLEN];

		guid_fmt_bytes(got, a);
		guid_fmt_bytes(wanted, b);
		err_set(err, errlen,
			"%s: %s%s vf %d %s reads %s after writing %s",
			t->vf_bdf, t->ofed ? "PF " : "",
			t->ofed ? t->pf_bdf : t->pf_netdev, t->index, what, a,
			b);
		return -EIO;
	}
	if (now.state != want->state) {
		err_set(err, errlen,
			"%s: %s vf %d state reads %s after writing %s",
			t->vf_bdf, t->pf_netdev, t->index,
			nl_vf_state_name(now.state),
			nl_vf_state_name(want->state));
		return -EIO;
	}
	return 0;
}

/*
 * Keeps the first failure in err (and its code in *first), appends the
 * later ones: "0000:3b:00.3: cannot write ...; cannot unbind ...".
 */
static void keep(int r, int *first, const char *why, char *err, size_t errlen)
{
	if (!r)
		return;
	if (*first) {
		err_append(err, errlen, "%s", why);
		return;
	}
	*first = r;
	err_set(err, errlen, "%s", why);
}

int mlx5_map(const struct vf_target *t, uint64_t guid, char *err, size_t errlen)
{
	static const enum field order[] = { F_NODE, F_PORT, F_POLICY };
	const struct vport want = { guid, guid, NL_VF_STATE_AUTO, true };
	char why[ERRMAX];
	struct vport old;
	int done, first = 0, i;

	keep(save_vport(t, &old, why, sizeof(why)), &first, why, err, errlen);
	if (first)
		return first;
	for (done = 0; done < 3; done++) {
		int r = write_field(t, order[done], &want, why, sizeof(why));

		keep(r, &first, why, err, errlen);
		if (r)
			break;
	}
	if (!first)
		keep(verify(t, &want, why, sizeof(why)), &first, why, err,
		     errlen);
	if (!first)
		return 0;
	/* the writes that went through, newest first */
	for (i = done - 1; i >= 0; i--)
		if (write_field(t, order[i], &old, why, sizeof(why)))
			err_append(err, errlen, "undo: %s", why);
	return first;
}

int mlx5_unmap(const struct vf_target *t, char *err, size_t errlen)
{
	static const enum field order[] = { F_POLICY, F_NODE, F_PORT };
	const struct vport want = { UINT64_MAX, UINT64_MAX, NL_VF_STATE_DISABLE,
				    true };
	char why[ERRMAX];
	struct nl_link l;
	int first = 0, i;

	/* never send anything to a netdev that is not the PF's IPoIB one */
	if (!t->ofed)
		keep(nl_target(t, &l, why, sizeof(why)), &first, why, err,
		     errlen);
	if (first)
		return first;
	for (i = 0; i < 3; i++) {
		int r = write_field(t, order[i], &want, why, sizeof(why));

		keep(r, &first, why, err, errlen);
	}
	if (!first)
		keep(verify(t, &want, why, sizeof(why)), &first, why, err,
		     errlen);
	return first;
}

int mlx5_show(const struct vf_target *t, struct strbuf *out, char *err,
	      size_t errlen)
{
	/* "unknown" stays for a kernel that does not report VF GUIDs */
	char node[GUID_STRLEN] = "unknown", port[GUID_STRLEN] = "unknown";
	struct vport v;
	int r;

	r = read_vport(t, &v, err, errlen);
	if (r)
		return r;
	if (v.guids) {
		guid_fmt_bytes(v.node, node);
		guid_fmt_bytes(v.port, port);
	}
	r = sb_addf(out, "kind: mlx5\nvf: %s\npf: %s\nindex: %d\n", t->vf_bdf,
		    t->pf_bdf, t->index);
	if (!r && t->ofed)
		r = sb_adds(out, "via: ofed\n");
	else if (!r)
		r = sb_addf(out, "via: netlink\nnetdev: %s\n", t->pf_netdev);
	if (!r)
		r = sb_addf(out, "node_guid: %s\nport_guid: %s\n", node, port);
	if (!r && v.guids && guid_usable(v.port)) {
		char d[GUID_DESC_LEN];

		guid_describe(v.port, d);
		r = sb_addf(out, "nic: %s\n", d);
	}
	if (!r && t->ofed)
		r = sb_addf(out, "policy: %s\n",
			    v.state <= NL_VF_STATE_DISABLE
				    ? policy_name[v.state]
				    : "?");
	else if (!r)
		r = sb_addf(out, "state: %s\n", nl_vf_state_name(v.state));
	if (!r)
		r = sb_addf(out, "driver: %s\n",
			    t->vf_driver[0] ? t->vf_driver : "none");
	if (r)
		err_set(err, errlen, "%s: out of memory", t->vf_bdf);
	return r;
}
