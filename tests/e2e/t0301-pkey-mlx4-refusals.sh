#!/bin/bash
# oneib-pkey refuses every argument it must not trust (not a VF of an
# InfiniBand PF on this host, a GUID or P_Key a tenant may not have, a bad
# port, a slave directory that does not check out) with one line on stderr
# and no file changed. A P_Key missing from the port's table leaves the VF
# blocked (every pkey_idx none, GUID untouched). A write that fails midway
# is rolled back: the tree is exactly as before.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/mlx4.sh"
sim_host cx3
mlx4_pkey_vf
S=$SIM_HOST_DIR/sys
GUID=0x0200c0fffea80105

# refuse REGEX ARGS...: oneib-pkey ARGS refused (assert_refused), and the
# whole tree exactly as before.
sys_state() { snap "$S"; }
state=sys_state
refuse() {
	local re=$1
	shift
	assert_refused --state $state "$*" "^oneib-pkey: $re" -- "$PKEY" "$@"
}

# --- extra devices, made before any snapshot --------------------------------
# A VF of an Intel igb PF (not InfiniBand), as the kernel lays it out.
rp=devices/pci0000:00/0000:00:03.0
mkdir -p "$S/$rp/0000:05:00.0" "$S/$rp/0000:05:00.1" "$S/bus/pci/drivers/igb"
printf '0x8086\n' >"$S/$rp/0000:05:00.0/vendor"
printf '0x8086\n' >"$S/$rp/0000:05:00.1/vendor"
ln -s ../../../../bus/pci/drivers/igb "$S/$rp/0000:05:00.0/driver"
ln -s ../0000:05:00.1 "$S/$rp/0000:05:00.0/virtfn0"
ln -s ../0000:05:00.0 "$S/$rp/0000:05:00.1/physfn"
ln -s "../../../$rp/0000:05:00.0" "$S/bus/pci/devices/0000:05:00.0"
ln -s "../../../$rp/0000:05:00.1" "$S/bus/pci/devices/0000:05:00.1"
# Slave directories that do not check out: VF index 2 (slave 3) has none for
# port 1, VF index 3 (slave 4) says it is slave 9.
mv "$IOV/0000:03:00.3/ports/1" "$IOV/0000:03:00.3/ports/1.gone"
printf '9\n' >"$IOV/0000:03:00.4/ports/1/gid_idx/0"

# --- the address -----------------------------------------------------------------
refuse "VF '03:00.2': not a PCI address" map 03:00.2 $GUID 0x8101
refuse "VF '0000:03:00.2/\.\./\.\./x': not a PCI address" map "0000:03:00.2/../../x" $GUID 0x8101
refuse "VF 'garbage': not a PCI address" unmap garbage
refuse "VF '0000:3:00.2': not a PCI address" show 0000:3:00.2
refuse "0000:03:00.0: not a VF on this host" map 0000:03:00.0 $GUID 0x8101
refuse "0000:03:00.0: not a VF on this host" unmap 0000:03:00.0
refuse "0000:03:07.0: not a VF on this host" map 0000:03:07.0 $GUID 0x8101
refuse "0000:03:07.0: not a VF on this host" unmap 0000:03:07.0
refuse "0000:00:02.0: not a VF on this host" map 0000:00:02.0 $GUID 0x8101
refuse "0000:05:00.1: its PF 0000:05:00.0 is not driven by mlx4_core or mlx5_core" \
	map 0000:05:00.1 $GUID 0x8101
refuse "0000:05:00.1: its PF 0000:05:00.0 is not driven" unmap 0000:05:00.1

# --- the GUID ------------------------------------------------------------------------
refuse "GUID '0': zero and all-ones are not port GUIDs" map $VF 0 0x8101
refuse "GUID '0x0000000000000000': zero and all-ones" map $VF 0x0000000000000000 0x8101
refuse "GUID '0xffffffffffffffff': zero and all-ones" map $VF 0xffffffffffffffff 0x8101
refuse "GUID 'ff:ff:ff:ff:ff:ff:ff:ff': zero and all-ones" map $VF ff:ff:ff:ff:ff:ff:ff:ff 0x8101
refuse "GUID '0xzz00c0fffea80105': not a GUID" map $VF 0xzz00c0fffea80105 0x8101
refuse "GUID '0x10200c0fffea80105': not a GUID" map $VF 0x10200c0fffea80105 0x8101
refuse "GUID '02:00:c0:ff:fe:a8:01': not a GUID" map $VF 02:00:c0:ff:fe:a8:01 0x8101
refuse "GUID '': not a GUID" map $VF "" 0x8101

# --- the P_Key -----------------------------------------------------------------------
# (IB_PKEY's own rule, ibattr.h: a full member of a tenant partition)
for pk in 0x0000 0 0x7fff 0xffff 0x8000 32767; do
	refuse "map: IB_PKEY '$pk' is (partition 0|the default partition)" map $VF $GUID $pk
done
# the limited form is refused, never mapped to a full member entry
for pk in 0x0101 257 0x0001; do
	refuse "map: IB_PKEY '$pk' is a limited-member key" map $VF $GUID $pk
done
for pk in 0x10000 65536 abc 0x "" " 0x8101" 0x8101x; do
	refuse "map: IB_PKEY '$pk' is not a P_Key" map $VF $GUID "$pk"
done

# --- the port ------------------------------------------------------------------------
refuse "$VF: port 3 of its PF 0000:03:00.0 is not an InfiniBand port" map $VF $GUID 0x8101 --port 3
refuse "--port '0': not a port number" map $VF $GUID 0x8101 --port 0
refuse "--port '10': not a port number" unmap $VF --port 10
refuse "--port 'x': not a port number" map $VF $GUID 0x8101 --port x
printf 'Ethernet\n' >/sys/class/infiniband/mlx4_0/ports/2/link_layer
refuse "$VF: port 2 of its PF 0000:03:00.0 is not an InfiniBand port" map $VF $GUID 0x8101 --port 2
printf 'InfiniBand\n' >/sys/class/infiniband/mlx4_0/ports/2/link_layer

# --- the slave directory ----------------------------------------------------------
refuse "0000:03:00.3: .*/iov/0000:03:00.3/ports/1 missing" map 0000:03:00.3 $GUID 0x8101
refuse "0000:03:00.3: .*/iov/0000:03:00.3/ports/1 missing" unmap 0000:03:00.3
refuse "0000:03:00.4: .*/iov/0000:03:00.4/ports/1/gid_idx/0: '9', expected slave 4" \
	map 0000:03:00.4 $GUID 0x8101
refuse "0000:03:00.4: .*gid_idx/0: '9', expected slave 4" show 0000:03:00.4

# --- the command line --------------------------------------------------------------
refuse "unknown command 'frob'" frob $VF
# A wrong number of arguments, or a value getopt takes for an option ("-1"):
# one line pointing at --help, exit 2.
for args in "map $VF $GUID" "map $VF $GUID 0x8101 extra" "unmap" "show $VF extra" \
	"map $VF -1 0x8101" "map $VF $GUID -1"; do
	# shellcheck disable=SC2086 # split on purpose
	assert_refused --rc 2 --state sys_state "usage: $args" '^oneib-pkey: .*\(usage: oneib-pkey --help\)$' -- "$PKEY" $args
done

# --- P_Key not in the port's table: refused, the VF blocked ----------------------
assert_ok "map $VF to 0x8101 first" -- "$PKEY" map $VF $GUID 0x8101
mlx4_file_is 1 "$PI1/0" "mapped to physical 1"
target="/iov/$VF/ports/1/pkey_idx/[0-9]+\$"
snap "$S" "$target" >"$TEST_TMP/before"
assert_fail "map 0x8123 (absent)" -- "$PKEY" map $VF 0x0200c0fffea80199 0x8123
assert_eq "oneib-pkey: $VF: P_Key 0x8123 is not in the table of mlx4_0 port 1: VF blocked" \
	"$(cat "$LAST_ERR")" "one line naming VF, P_Key, device and port"
assert_eq 127 "$(mlx4_count_none "$PI1" 0)" "every pkey_idx none: the VF is blocked"
mlx4_file_is 200c0fffea80105 "$IOV/ports/1/admin_guids/2" "GUID file unchanged"
snap "$S" "$target" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "nothing else changed (other VFs untouched)"
assert_ok "show the blocked VF" -- "$PKEY" show $VF
assert_match '^blocked: yes$' "$(cat "$LAST_OUT")" "show: blocked"
# Fresh VF (kernel default: index 0 -> 0xffff, a full default member): blocked too.
assert_fail "map 0x8123 on a fresh VF" -- "$PKEY" map 0000:03:00.5 0x0200c0fffea80155 0x8123
assert_eq 127 "$(mlx4_count_none "$IOV/0000:03:00.5/ports/1/pkey_idx" 0)" "fresh VF blocked, out of 0xffff"
mlx4_file_is 0 "$IOV/ports/1/admin_guids/5" "its GUID file unchanged"

# --- a GUID the host already carries or asks for ------------------------------
refuse "0000:03:00.6: GUID 0x0200c0fffea80105 is already in use on this host: VF 0000:03:00.2 \(mlx4_0 port 1 admin_guids/2\)$" \
	map 0000:03:00.6 $GUID 0x8101
# both ports may be on one subnet: port 1's GUIDs count for port 2 too
refuse "0000:03:00.6: GUID 0x0200c0fffea80105 is already in use on this host: VF 0000:03:00.2 \(mlx4_0 port 1 admin_guids/2\)$" \
	map 0000:03:00.6 $GUID 0x8101 --port 2
refuse "$VF: GUID 0x0200c0fffea80105 is already in use on this host: VF 0000:03:00.2 \(mlx4_0 port 1 admin_guids/2\)$" \
	map $VF $GUID 0x8101 --port 2
# A vendor's GUID (the PF's own) is not one one-ib hands out at all.
refuse "GUID '0x0002c90300a1b2c1': not one one-ib gives a VF" map 0000:03:00.6 0x0002c90300a1b2c1 0x8101
refuse "GUID '0x0002c90300a1b2c0': not one one-ib gives a VF" map 0000:03:00.6 0x0002c90300a1b2c0 0x8101
refuse "GUID '0x0a00000000000001': not one one-ib gives a VF" map 0000:03:00.6 0x0a00000000000001 0x8101
# A PF whose port GUID an administrator set to a locally administered one
# (flint -guid), and an alias GUID the SM granted another VF (gids/<n>).
printf 'fe80:0000:0000:0000:0200:0000:0000:00ff\n' >/sys/class/infiniband/mlx4_0/ports/2/gids/0
printf 'fe80:0000:0000:0000:0200:0000:0000:00ff\n' >"$IOV/ports/2/gids/0"
printf '2000000000000ff\n' >"$IOV/ports/2/admin_guids/0"
refuse "0000:03:00.6: GUID 0x02000000000000ff is already in use on this host: port 2 of mlx4_0 \(0000:03:00.0\)$" \
	map 0000:03:00.6 0x02000000000000ff 0x8101
printf 'fe80:0000:0000:0000:0200:0000:0063:0002\n' >"$IOV/ports/1/gids/5"
refuse "0000:03:00.6: GUID 0x0200000000630002 is already in use on this host: VF 0000:03:00.5 \(mlx4_0 port 1 gids/5\)$" \
	map 0000:03:00.6 0x0200000000630002 0x8101
# The VF's own slot is no conflict: mapping it again with its GUID is fine.
assert_ok "map $VF again with the GUID it holds" -- "$PKEY" map $VF $GUID 0x8101

# --- a VF the host uses ----------------------------------------------------------
# Bound to mlx4_core (probe_vf): the host holds it. map and unmap refuse it
# and change nothing; show still reads it.
ln -sfn ../../../../bus/pci/drivers/mlx4_core "$S/devices/pci0000:00/0000:00:02.0/0000:03:00.7/driver"
refuse "0000:03:00.7: held by the host's mlx4_core driver; only a VF bound to vfio-pci or to no driver is programmed$" \
	map 0000:03:00.7 0x0200000000070001 0x8101
refuse "0000:03:00.7: held by the host's mlx4_core driver" unmap 0000:03:00.7
assert_ok "show a host-bound VF" -- "$PKEY" show 0000:03:00.7
# no driver at all: free for a guest
rm "$S/devices/pci0000:00/0000:00:02.0/0000:03:00.7/driver"
assert_ok "map a VF bound to no driver" -- "$PKEY" map 0000:03:00.7 0x0200000000070001 0x8101
assert_ok "unmap it" -- "$PKEY" unmap 0000:03:00.7

# --- SMI (QP0): a VF never has it ---------------------------------------------
V8=$IOV/0000:03:01.0/ports/1 # VF 0000:03:01.0 = slave 8
printf '1\n' >"$V8/smi_enabled"
refuse "0000:03:01.0: the VF has SMI \(QP0\) access \(.*/iov/0000:03:01.0/ports/1/smi_enabled is 1\)" \
	map 0000:03:01.0 0x0200000000080001 0x8101
printf 'banana\n' >"$V8/smi_enabled"
refuse "0000:03:01.0: .*/smi_enabled: not 0 or 1$" map 0000:03:01.0 0x0200000000080001 0x8101
# Asked for at the next reset, not yet granted: map turns the request off.
printf '0\n' >"$V8/smi_enabled"
printf '1\n' >"$V8/enable_smi_admin"
assert_ok "map with enable_smi_admin 1" -- "$PKEY" map 0000:03:01.0 0x0200000000080001 0x8101
mlx4_file_is 0 "$V8/enable_smi_admin" "enable_smi_admin turned off"
mlx4_file_is 1 "$IOV/0000:03:01.0/ports/1/pkey_idx/0" "and the VF mapped"
assert_ok "show it" -- "$PKEY" show 0000:03:01.0
assert_eq "smi_enabled: 0
enable_smi_admin: 0" "$(grep smi "$LAST_OUT")" "show reads both"
# ... and it stays off when map fails later (here: a P_Key not in the table).
printf '1\n' >"$V8/enable_smi_admin"
assert_fail "map 0x8123" -- "$PKEY" map 0000:03:01.0 0x0200000000080001 0x8123
mlx4_file_is 0 "$V8/enable_smi_admin" "enable_smi_admin off after a failed map too"
# A kernel without SMI for VFs has neither file: nothing to check.
rm "$V8/smi_enabled" "$V8/enable_smi_admin"
assert_ok "map without the SMI files" -- "$PKEY" map 0000:03:01.0 0x0200000000080001 0x8101
assert_eq "" "$(grep smi <("$PKEY" show 0000:03:01.0))" "show prints no SMI lines then"

# --- rollback: a write that fails midway --------------------------------------------
# Root ignores file modes, so a read-only bind mount makes one file refuse
# writes (EROFS) while it still reads. What was written is written back:
# the same bytes, not the same mtimes.
ro() { mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"; }
sys_content() { snap --content "$S"; }
state=sys_content

assert_ok "unmap $VF" -- "$PKEY" unmap $VF
assert_ok "map $VF to 0x8102" -- "$PKEY" map $VF 0x0200c0fffea80142 0x8102
# GUID index 2 unwritable: map has already dropped pkey_idx/0 to none.
ro "$IOV/ports/1/admin_guids/2" || die "cannot bind-mount read-only"
refuse "$VF: .*/iov/ports/1/admin_guids/2: cannot write '200c0fffea80105': Read-only file system \(restored\)$" \
	map $VF $GUID 0x8101
mlx4_file_is 2 "$PI1/0" "pkey_idx/0 back to 2"
umount "$IOV/ports/1/admin_guids/2"

# pkey_idx/1 unwritable, with a 0x7fff at physical 5 so map wants 1 -> 5:
# pkey_idx/0 none and the GUID are written first, then restored.
printf '0x7fff\n' >"$IOV/ports/1/pkeys/5"
ro "$PI1/1" || die "cannot bind-mount read-only"
refuse "$VF: .*/iov/$VF/ports/1/pkey_idx/1: cannot write '5': Read-only file system \(restored\)$" \
	map $VF $GUID 0x8101
mlx4_file_is 200c0fffea80142 "$IOV/ports/1/admin_guids/2" "GUID back to the previous tenant's"
mlx4_file_is 2 "$PI1/0" "pkey_idx/0 back to 2"
umount "$PI1/1"
state=sys_state

# A pkey_idx that cannot be read (a directory): refused before any write.
rm "$PI1/7" && mkdir "$PI1/7"
refuse "$VF: .*/iov/$VF/ports/1/pkey_idx/7: Is a directory" map $VF $GUID 0x8101
refuse "$VF: .*/iov/$VF/ports/1/pkey_idx/7: Is a directory" unmap $VF
rmdir "$PI1/7" && printf 'none\n' >"$PI1/7"

# A physical table entry that is not "0x%04x": refused, nothing written.
printf 'banana\n' >"$IOV/ports/1/pkeys/9"
refuse "$VF: .*/iov/ports/1/pkeys/9: not a P_Key" map $VF $GUID 0x8101
test_done
