#!/bin/bash
# make install-guest lays out what a guest image needs (binary, one-context
# hook, udev rule, unit) and nothing of the host side; the binary needs only
# what a guest with rdma-core has, libc, libibverbs and libibumad (the SA's
# answer of its partition's SL; no libvirt, libxml2, libpci); the
# front-end's make install leaves it out of the synced remotes; the unit
# passes systemd's own checks.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host none
d=$TEST_TMP/image
assert_ok "make install-guest" -- make -C "$TOP" --no-print-directory -s install-guest DESTDIR="$d"
assert_eq "/etc/one-context.d/loc-11-oneib
/usr/lib/systemd/system/oneib-context@.service
/usr/lib/udev/rules.d/66-oneib-context.rules
/usr/sbin/oneib-context
/usr/share/man/man8/oneib-context.8" "$(cd "$d" && find . -type f | sed 's/^\.//' | LC_ALL=C sort)" \
	"exactly the four guest files and the man page"
assert_eq 755 "$(stat -c %a "$d/usr/sbin/oneib-context")" "binary 0755"
assert_eq 755 "$(stat -c %a "$d/etc/one-context.d/loc-11-oneib")" "hook 0755 (one-contextd runs it)"
assert_eq "libc.so.6 libibumad.so.3 libibverbs.so.1" \
	"$(readelf -d "$d/usr/sbin/oneib-context" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" \
	"NEEDED: libc, libibverbs and libibumad only"
libs=$(ldd "$d/usr/sbin/oneib-context")
assert_eq "" "$(printf '%s\n' "$libs" | grep -E 'libvirt|libxml2|libpci')" \
	"no libvirt, libxml2, libpci even indirectly"
# systemd-analyze checks that ExecStart exists: /usr/sbin of this private
# mount namespace holds the installed binary, as a guest's would.
mount -t tmpfs none /usr/sbin || die "cannot mount a tmpfs on /usr/sbin"
cp "$d/usr/sbin/oneib-context" /usr/sbin/
mkdir "$TEST_TMP/units"
cp "$d/usr/lib/systemd/system/oneib-context@.service" "$TEST_TMP/units/oneib-context@ib0.service"
assert_ok "the unit passes systemd-analyze verify" -- \
	systemd-analyze verify --man=no "$TEST_TMP/units/oneib-context@ib0.service"
assert_match '^ACTION=="add", SUBSYSTEM=="net", ATTR\{type\}=="32"' \
	"$(grep -v '^#' "$d/usr/lib/udev/rules.d/66-oneib-context.rules")" \
	"the rule matches IPoIB netdevs being added"
assert_ok "sh -n on the hook" -- sh -n "$d/etc/one-context.d/loc-11-oneib"
assert_fail "the front-end's remotes do not carry it" -- \
	test -e "$ONEIB_DESTDIR/var/lib/one/remotes/ib/bin/oneib-context"
assert_ok "but carry the host helpers" -- \
	test -x "$ONEIB_DESTDIR/var/lib/one/remotes/ib/bin/oneib-vf"
test_done
