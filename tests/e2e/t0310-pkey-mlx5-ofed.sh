#!/bin/bash
# oneib-pkey on mlx5 VFs (cx5 fixture). PF A 0000:3b:00.0 has MLNX_OFED's
# sriov/<vf>/{node,port,policy}: map and unmap write them and never unbind
# or bind anything, the VF the host's mlx5_core holds (VF 7, 0000:3b:01.0)
# is refused, as is a GUID not of one-ib's form or one the host already
# carries (PF port/node GUIDs, host RDMA devices, other VFs), no other VF's
# files change, and a failure half-way puts back what was there. PF B 0000:af:00.0 has no OFED files, so it goes
# through rtnetlink, and the tool runs in a private network namespace where
# no IPoIB netdev exists: a one-line refusal that writes nothing.
. "$(dirname "$0")/../lib/test-lib.sh"
ONEIB_PKEY=${ONEIB_PKEY:-$TOP/build/bin/oneib-pkey}
[ -x "$ONEIB_PKEY" ] || skip_all "$ONEIB_PKEY not built"
sim_host cx5

A=/sys/bus/pci/devices/0000:3b:00.0
B=/sys/bus/pci/devices/0000:af:00.0
DRV=/sys/bus/pci/drivers
G=02:00:c0:ff:fe:a8:01:05
G2=02:00:c0:ff:fe:a8:02:07
FF=ff:ff:ff:ff:ff:ff:ff:ff
ZERO=00:00:00:00:00:00:00:00

# The tool in its own network namespace: only lo, so the fixture's
# ifindexes name nothing there, and no real link can ever be touched.
pkey() { unshare -n -- "$ONEIB_PKEY" "$@"; }

# FILE holds exactly the bytes printf '%s' ARG makes ("" = empty).
holds() { # FILE TEXT MSG
	assert_eq "$(printf '%s' "$2" | od -An -c)" "$(od -An -c <"$1")" "$3"
}
# The three files of VF N of PF A.
vf_is() { # N NODE PORT POLICY MSG
	holds "$A/sriov/$1/node" "$2"$'\n' "$5: node"
	holds "$A/sriov/$1/port" "$3"$'\n' "$5: port"
	holds "$A/sriov/$1/policy" "$4"$'\n' "$5: policy"
}
binds_empty() { # MSG
	local f
	for f in vfio-pci/unbind vfio-pci/bind mlx5_core/unbind mlx5_core/bind; do
		holds "$DRV/$f" "" "$1: $f empty"
	done
}
clear_binds() {
	: >"$DRV/mlx5_core/unbind"
	: >"$DRV/mlx5_core/bind"
}
# Checksums of PF A's sriov files except those of the VFs named.
others_sum() { # VF-INDEX...
	local d keep
	for d in "$A"/sriov/*/; do
		d=${d%/}
		keep=1
		for i in "$@"; do [ "${d##*/}" = "$i" ] && keep=; done
		[ -n "$keep" ] && md5sum "$d"/node "$d"/port "$d"/policy
	done
}
# Every file of the fixture, for "nothing written". The fixture directory,
# not /sys: the real parts the harness grafts onto /sys are not in it.
tree_sum() {
	find "$SIM_HOST_DIR/sys" -type f -print0 | sort -z | xargs -0 md5sum | md5sum
}

untouched=$(others_sum 2 3 4 7)
vf_is 2 $ZERO $ZERO Follow "fixture, VF 2"

# --- a VF vfio-pci holds ----------------------------------------------------
assert_ok "map 0000:3b:00.3 (VF 2, vfio-pci)" -- pkey map 0000:3b:00.3 0x0200c0fffea80105 0x8101
vf_is 2 $G $G Follow "after map"
binds_empty "vfio-pci VF: no rebind"
assert_eq "" "$(cat "$LAST_OUT" "$LAST_ERR")" "map prints nothing"

assert_ok "unmap 0000:3b:00.3" -- pkey unmap 0000:3b:00.3
vf_is 2 $FF $FF Down "after unmap"
binds_empty "unmap of a vfio-pci VF: no rebind"
assert_ok "unmap again (idempotent)" -- pkey unmap 0000:3b:00.3
vf_is 2 $FF $FF Down "after a second unmap"

# the policy goes from Down to Follow: map writes it, not only the GUIDs
assert_ok "map 0000:3b:00.3 again" -- pkey map 0000:3b:00.3 $G 0x8101
vf_is 2 $G $G Follow "after the second map"
assert_ok "show 0000:3b:00.3" -- pkey show 0000:3b:00.3
assert_eq "kind: mlx5
vf: 0000:3b:00.3
pf: 0000:3b:00.0
index: 2
via: ofed
node_guid: $G
port_guid: $G
nic: MAC 02:00:c0:a8:01:05 (old GUID)
policy: Follow
driver: vfio-pci" "$(cat "$LAST_OUT")" "show reads the files back"

# --- the VF the host's mlx5_core holds: refused, nothing changed -----------
# VF 7 (0000:3b:01.0) has the host's RDMA device mlx5_2 and netdev ib2.
before=$(tree_sum)
assert_fail "map 0000:3b:01.0 (VF 7, mlx5_core)" -- pkey map 0000:3b:01.0 $G2 0x8102
assert_eq "oneib-pkey: 0000:3b:01.0: held by the host's mlx5_core driver; only a VF bound to vfio-pci or to no driver is programmed" \
	"$(cat "$LAST_ERR")" "one line naming the VF and its driver"
assert_fail "unmap 0000:3b:01.0" -- pkey unmap 0000:3b:01.0
assert_match "^oneib-pkey: 0000:3b:01.0: held by the host's mlx5_core driver" "$(cat "$LAST_ERR")" "unmap: same reason"
assert_eq "$before" "$(tree_sum)" "host-bound VF: nothing written"
vf_is 7 $ZERO $ZERO Follow "VF 7 as it was"
binds_empty "VF 7 neither unbound nor bound"
assert_ok "show 0000:3b:01.0" -- pkey show 0000:3b:01.0
assert_match '^driver: mlx5_core$' "$(cat "$LAST_OUT")" "show still reads it, naming the host driver"

# --- GUIDs the host already carries: refused, nothing changed ---------------
# Vendors' GUIDs are not one-ib's at all: PF A's port, PF B's port and node.
for g in 0x0c42a10300001001 0x0c42a10300002001 0x0c42a10300002000; do
	before=$(tree_sum)
	assert_fail "map VF 2 with $g" -- pkey map 0000:3b:00.3 $g 0x8101
	assert_eq "oneib-pkey: GUID '$g': not one one-ib gives a VF (02:CC:VV:VV:VV:VV:NN:NN: cloud, VM ID, NIC ID)" \
		"$(cat "$LAST_ERR")" "$g: not a NIC GUID"
	assert_eq "$before" "$(tree_sum)" "$g: nothing written"
done
# Locally administered GUIDs on the hardware (an administrator's flint
# -guid, another VF's): PF A's port GUID, PF B's node GUID, the port and
# node GUID of VF 7's host RDMA device, VF 3's OFED port GUID.
IBC=/sys/class/infiniband
printf 'fe80:0000:0000:0000:0200:0000:0000:0a01\n' >$IBC/mlx5_0/ports/1/gids/0
printf '0200:0000:0000:0b00\n' >$IBC/mlx5_1/node_guid
printf 'fe80:0000:0000:0000:0200:0000:0000:0701\n' >$IBC/mlx5_2/ports/1/gids/0
printf '0200:0000:0000:0700\n' >$IBC/mlx5_2/node_guid
assert_ok "map VF 4 (0000:3b:00.5)" -- pkey map 0000:3b:00.5 0x0200000000040001 0x8101
while read -r g owner; do
	before=$(tree_sum)
	assert_fail "map VF 2 with $g" -- pkey map 0000:3b:00.3 $g 0x8101
	assert_eq "oneib-pkey: 0000:3b:00.3: GUID $g is already in use on this host: $owner" \
		"$(cat "$LAST_ERR")" "$g: names its holder"
	assert_eq "$before" "$(tree_sum)" "$g: nothing written"
done <<'EOF_GUIDS'
0x0200000000000a01 port 1 of mlx5_0 (0000:3b:00.0)
0x0200000000000b00 node GUID of mlx5_1 (0000:af:00.0)
0x0200000000000701 port 1 of mlx5_2 (0000:3b:01.0)
0x0200000000000700 node GUID of mlx5_2 (0000:3b:01.0)
0x0200000000040001 VF 0000:3b:00.5 (PF 0000:3b:00.0 sriov/4/port)
EOF_GUIDS
vf_is 2 $G $G Follow "VF 2 kept its GUID through the refusals"
# VF 2's own GUID is no conflict: mapping it again is fine.
assert_ok "map VF 2 again with its GUID" -- pkey map 0000:3b:00.3 $G 0x8101
assert_ok "show VF 4" -- pkey show 0000:3b:00.5
assert_match '^nic: VM 4 NIC 1$' "$(cat "$LAST_OUT")" "show decodes the GUID"
assert_ok "unmap VF 4" -- pkey unmap 0000:3b:00.5

# --- failures half-way put back what was there ------------------------------
# VF 3's policy cannot be written (a directory): node and port were, and
# must read as before.
mv "$A/sriov/3/policy" "$TEST_TMP/policy3"
mkdir "$A/sriov/3/policy"
assert_fail "map with an unwritable policy fails" -- pkey map 0000:3b:00.4 $G2 0x8101
assert_match "^oneib-pkey: 0000:3b:00.4: cannot write 'Follow' to $A/sriov/3/policy: Is a directory\$" \
	"$(cat "$LAST_ERR")" "names the VF, the file and the reason"
assert_eq 1 "$(wc -l <"$LAST_ERR")" "one line"
holds "$A/sriov/3/node" $ZERO$'\n' "VF 3 node put back"
holds "$A/sriov/3/port" $ZERO$'\n' "VF 3 port put back"
rmdir "$A/sriov/3/policy"
mv "$TEST_TMP/policy3" "$A/sriov/3/policy"
binds_empty "failed map of a vfio-pci VF: no rebind"

assert_eq "$untouched" "$(others_sum 2 3 4 7)" "no other VF's sriov files changed"

# --- PF B: no OFED files, rtnetlink, and no IPoIB netdev here ---------------
ifindex=$(cat "$B/net/ib1/ifindex")
before=$(tree_sum)
assert_fail "map on PF B without an IPoIB netdev" -- pkey map 0000:af:00.1 $G2 0x8101
assert_eq "oneib-pkey: 0000:af:00.1: IPoIB netdev ib1 (ifindex $ifindex) of PF 0000:af:00.0: No such device" \
	"$(cat "$LAST_ERR")" "one line naming the VF and the reason"
assert_fail "unmap on PF B" -- pkey unmap 0000:af:00.1
assert_match '^oneib-pkey: 0000:af:00.1: IPoIB netdev ib1 .*No such device$' "$(cat "$LAST_ERR")" "unmap: same reason"
assert_fail "show on PF B" -- pkey show 0000:af:00.1
assert_match '^oneib-pkey: 0000:af:00.1: IPoIB netdev ib1 .*No such device$' "$(cat "$LAST_ERR")" "show: same reason"

# A link at that ifindex that is not IPoIB (a veth named ib1) gets nothing.
if ! unshare -n -- ip link add x type veth peer name y 2>/dev/null; then
	say "no veth driver: links at the fixture's ifindex not tried"
else
	assert_fail "map when ib1 is not an IPoIB netdev" -- unshare -n -- sh -c \
		'ip link add ib1 index "$1" type veth peer name p1 && shift && exec "$@"' \
		sh "$ifindex" "$ONEIB_PKEY" map 0000:af:00.1 $G2 0x8101
	assert_eq "oneib-pkey: 0000:af:00.1: ib1 (ifindex $ifindex) is not an IPoIB netdev (type 1)" \
		"$(cat "$LAST_ERR")" "refuses a netdev of the wrong type"
	assert_fail "map when ifindex names another link" -- unshare -n -- sh -c \
		'ip link add eth9 index "$1" type veth peer name p1 && shift && exec "$@"' \
		sh "$ifindex" "$ONEIB_PKEY" map 0000:af:00.1 $G2 0x8101
	assert_eq "oneib-pkey: 0000:af:00.1: ifindex $ifindex is 'eth9', not ib1 of PF 0000:af:00.0" \
		"$(cat "$LAST_ERR")" "refuses a netdev of another name"
fi

# No netdev at all on PF B's port.
mv "$SIM_HOST_DIR/sys/class/net/ib1" "$TEST_TMP/ib1-link" 2>/dev/null
mv "$(readlink -f "$B/net/ib1")" "$TEST_TMP/ib1"
assert_fail "map on PF B with no netdev in sysfs" -- pkey map 0000:af:00.1 $G2 0x8101
assert_eq "oneib-pkey: 0000:af:00.1: no IPoIB netdev on PF 0000:af:00.0 port 1" \
	"$(cat "$LAST_ERR")" "says there is no IPoIB netdev"
mv "$TEST_TMP/ib1" "$B/net/ib1"
[ -e "$TEST_TMP/ib1-link" ] && mv "$TEST_TMP/ib1-link" "$SIM_HOST_DIR/sys/class/net/ib1"
assert_eq "$before" "$(tree_sum)" "PF B refusals wrote nothing"

test_done
