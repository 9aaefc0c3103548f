#!/bin/bash
# The hook as one-context really runs it: one-apps' own one-contextd (tag
# v7.0.0, pinned by its sha256 below), in a private root built from this
# machine's /usr and /etc with the guest image's files (make install-guest)
# over them, a context directory /context standing in for the CONTEXT CD
# (one-contextd reads /context/* when no CD is there), the guest fixture's
# sysfs and a network namespace of its own. It proves:
#   stage and order: in the local stage loc-11-oneib runs after
#     loc-10-network and before loc-12-*: a stand-in named loc-10-network
#     (one-apps' real one would rewrite the image's network files) records
#     ib0 without its address, a loc-12-after stand-in records it with;
#   arguments: every loc- script gets "STAGE COMMAND" and $CONTEXT_FILE
#     (the stand-ins record what they got, ours acts on it);
#   one-context runs the scripts again only when the context changes (so a
#     VF that comes back with the same context needs the udev rule), and
#     "all reconfigure" after a change reconfigures;
#   the unit the udev rule starts for a VF that comes back (its ExecStart as
#     the installed unit file has it, with one-context's exported copy of
#     the context) configures it again.
# one-apps' code is not part of one-ib: the test reads it from
# ../shared/third-party/one-apps-7.0.0.tar.xz, unpacked once per machine
# into the cache (tests/lib/thirdparty.sh), or from $ONEIB_ONE_APPS (a
# checkout of the tag, e.g. `make one-apps`), and skips when neither is
# there. Either way one-contextd must be v7.0.0's, byte for byte (its
# sha256 is pinned below): a changed tarball or checkout fails the test.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
. "$TOP/tests/lib/thirdparty.sh"
PIN=ce144ea8117b4ec4dc798aba603089e7f33d4a5b09b8d60c0a35d8abbca9daca # v7.0.0
if [ -n "${ONEIB_ONE_APPS:-}" ]; then
	ONE_APPS=$ONEIB_ONE_APPS
elif tp_tarball one-apps-7.0.0 >/dev/null 2>"$TEST_TMP/tp.err"; then
	ONE_APPS=$(tp_extract one-apps-7.0.0)/one-apps-7.0.0 || die "cannot unpack one-apps-7.0.0"
else
	skip_all "one-apps v7.0.0: $(cat "$TEST_TMP/tp.err") (or set ONEIB_ONE_APPS to a checkout of the tag)"
fi
contextd=$ONE_APPS/context-linux/src/usr/sbin/one-contextd
[ -f "$contextd" ] || die "no context-linux/src/usr/sbin/one-contextd in $ONE_APPS"
[ "$(sha256sum <"$contextd" | cut -d' ' -f1)" = "$PIN" ] ||
	die "$contextd is not one-apps v7.0.0's one-contextd (sha256 differs)"
sim_guest guest-mlx4

R=$TEST_TMP/root
mkdir -p "$R" "$TEST_TMP/extra/etc/one-context.d" "$TEST_TMP/extra/usr/sbin"
mount -t tmpfs -o mode=0755 tmpfs "$R" || die "tmpfs root"
# the merged-/usr symlinks (or directories) of this machine's root
for e in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$e" ]; then
		cp -P "/$e" "$R/$e"
	elif [ -d "/$e" ]; then
		mkdir "$R/$e" && mount --rbind "/$e" "$R/$e" || die "/$e"
	fi
done
cp "$contextd" "$TEST_TMP/extra/usr/sbin/one-contextd"
chmod 0755 "$TEST_TMP/extra/usr/sbin/one-contextd"
record=/run/record # inside the root
cat >"$TEST_TMP/extra/etc/one-context.d/loc-10-network" <<EOF
#!/bin/sh
echo "loc-10-network \$1 \$2 \$CONTEXT_FILE ib0=\$(ip -br -4 addr show dev ib0 | awk '{print \$3}')" >>$record
EOF
cat >"$TEST_TMP/extra/etc/one-context.d/loc-12-after" <<EOF
#!/bin/sh
echo "loc-12-after \$1 \$2 \$CONTEXT_FILE ib0=\$(ip -br -4 addr show dev ib0 | awk '{print \$3}')" >>$record
EOF
chmod 0755 "$TEST_TMP/extra/etc/one-context.d/"*
# /usr and /etc: the image's files over this machine's, read-only
for d in usr etc; do
	mkdir "$R/$d"
	mount -t overlay overlay \
		-o "lowerdir=$TEST_TMP/extra/$d:$ONEIB_DESTDIR/$d:/$d" "$R/$d" ||
		die "overlay on /$d"
done
for d in run tmp var; do
	mkdir "$R/$d" && mount -t tmpfs tmpfs "$R/$d" || die "tmpfs /$d"
done
mkdir "$R/proc" "$R/sys" "$R/dev" "$R/context"
mount --rbind /proc "$R/proc" && mount --rbind /sys "$R/sys" || die "proc, sys"
# a /dev without block devices: blkid finds no CD, one-contextd uses /context
mount -t tmpfs -o mode=0755 tmpfs "$R/dev" || die "tmpfs /dev"
for n in null zero random urandom; do
	touch "$R/dev/$n" && mount --bind "/dev/$n" "$R/dev/$n" || die "/dev/$n"
done
ctx() { ctx_write "$R/context/context.sh" VMID=42 NETWORK=YES \
	ETH1_MAC=02:00:0a:0b:00:05 ETH1_MASK=255.255.255.0 "$@"; }
contextd() {
	chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBUG=1 \
		/usr/sbin/one-contextd "$@"
}

ctx ETH1_IP=10.11.0.5
assert_ok "one-contextd local" -- contextd local
assert_eq "loc-10-network local  /var/run/one-context/context.sh.local ib0=
loc-12-after local  /var/run/one-context/context.sh.local ib0=10.11.0.5/24" \
	"$(cat "$R$record")" "local stage: loc-10-network, then ours, then loc-12"
assert_eq "10.11.0.5/24" "$(g_addrs ib0)" "ib0 configured from /context/context.sh"
assert_match '^Script loc-11-oneib output: ' "$(cat "$LAST_OUT")" \
	"its output lands in one-context's log"
assert_match '^ETH1 ib0: configured \(P_Key 0x8011, datagram, 10.11.0.5/24\)$' \
	"$(cat "$LAST_OUT")" "its line there"
assert_match 'Script loc-11-oneib: Finished with exit code 0' "$(cat "$LAST_OUT")" "exit 0"

: >"$R$record"
assert_ok "one-contextd local, context unchanged" -- contextd local
assert_match 'No changes in context, skipping' "$(cat "$LAST_OUT")" \
	"no script runs again (hence the udev rule for a VF that comes back)"
assert_eq "" "$(cat "$R$record")" "none did"

ctx ETH1_IP=10.11.0.6
assert_ok "one-contextd all reconfigure, context changed" -- contextd all reconfigure
assert_eq "loc-10-network local reconfigure /var/run/one-context/context.sh.local ib0=10.11.0.5/24
loc-12-after local reconfigure /var/run/one-context/context.sh.local ib0=10.11.0.6/24
loc-10-network online reconfigure /var/run/one-context/context.sh.online ib0=10.11.0.6/24
loc-12-after online reconfigure /var/run/one-context/context.sh.online ib0=10.11.0.6/24" \
	"$(cat "$R$record")" "reconfigured in the local stage; online and network stages leave it"
assert_eq "10.11.0.6/24" "$(g_addrs ib0)" "the new address, the old one gone"
assert_eq 1 "$(grep -c 'Script loc-11-oneib output' "$LAST_OUT")" \
	"it worked once: in the online stage it only looked at its arguments"

# The VF comes back (restore, migration): a new netdev, nothing on it, the
# context unchanged. What the udev rule starts: the unit's ExecStart.
unit=$ONEIB_DESTDIR/usr/lib/systemd/system/oneib-context@.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
cond=$(sed -n 's/^ConditionPathExists=//p' "$unit")
ip link del ib0 && ip link add ib0 type veth peer name ib0p && ip link set ib0p up ||
	die "cannot replace ib0"
assert_eq "" "$(g_addrs ib0)" "the new ib0 has no address"
assert_ok "the unit's condition holds once one-context has run" -- test -f "$R$cond"
# shellcheck disable=SC2086 # ExecStart is words, as systemd splits them
assert_ok "the unit's command" -- chroot "$R" $exec_start
assert_eq "10.11.0.6/24" "$(g_addrs ib0)" "configured again from the exported context"
test_done
