#!/bin/bash
# make install lays out the remotes tree on top of OpenNebula's own (every
# stock kvm probe reused through a relative symlink, the IM client reused,
# pci.conf kept, the partitions hook beside the stock hooks, the hook
# templates in DATADIR), honours DESTDIR and REMOTES_DIR, and make uninstall
# puts the tree back exactly as it was, stock hooks/ included.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

d=$TEST_TMP/dest
stock_remotes "$d"
# OpenNebula's own hooks/ (shared: uninstall removes only our file from it)
mkdir -p "$d/var/lib/one/remotes/hooks/ft"
echo stock >"$d/var/lib/one/remotes/hooks/ft/host_error.rb"
(cd "$d" && find . -printf '%p %y %l\n' | sort) >"$TEST_TMP/before"

make -s -C "$TOP" install DESTDIR="$d" >/dev/null
assert_eq 0 $? "make install"
r=$d/var/lib/one/remotes
assert_ok "helper installed executable" -- test -x "$r/ib/bin/oneib-discover"
assert_ok "system probe" -- test -x "$r/im/kvm-ib-probes.d/host/system/oneib-inventory.sh"
assert_ok "monitor probe" -- test -x "$r/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh"
assert_eq "../../../kvm-probes.d/host/system/linux_host.sh" "$(readlink "$r/im/kvm-ib-probes.d/host/system/linux_host.sh")" "stock probe linked at the same depth"
assert_eq "../../../kvm-probes.d/vm/status/state.sh" "$(readlink "$r/im/kvm-ib-probes.d/vm/status/state.sh")" "every stock class mirrored"
assert_eq "client" "$("$r/im/kvm-ib.d/monitord-client_control.sh")" "IM client reused from kvm.d"
assert_ok "pci.conf for the kvm-ib probe dir" -- test -f "$r/etc/im/kvm-ib-probes.d/pci.conf"
assert_ok "oned.conf fragment" -- test -f "$d/usr/share/one-ib/drivers/oned.conf.kvm-ib"
for f in one-ib-node one-ib-sm; do
	assert_eq "440" "$(stat -c %a "$d/etc/sudoers.d/$f")" "sudoers rule $f installed, mode 0440"
done
assert_ok "oneib-discover for the host's pre-flight check" -- test -x "$d/usr/bin/oneib-discover"
assert_ok "partitions hook installed executable" -- test -x "$r/hooks/oneib-partitions"
assert_eq stock "$(cat "$r/hooks/ft/host_error.rb")" "stock hooks untouched"
assert_eq "$(cd "$TOP/templates/hooks" && ls ./*.tmpl)" \
	"$(cd "$d/usr/share/one-ib/hooks" && ls ./*.tmpl)" "every hook template in DATADIR/hooks"
assert_match '^ONEIB_PARTITIONS_CMD=' "$(cat "$r/etc/vnm/ib/ibrc")" "ibrc names the renderer command"
for h in oneib-pkey oneib-peer oneib-partitions-install oneib-partitions; do
	[ -x "$TOP/build/bin/$h" ] || continue
	assert_eq "root root 755" "$(stat -c '%U %G %a' "$d/usr/sbin/$h")" "$h root-owned in /usr/sbin"
done
assert_eq "" "$(find "$r/ib/bin" -name oneib-pkey -o -name oneib-peer -o -name oneib-partitions-install)" \
	"no root helper in the remotes oneadmin can replace"
assert_ok "the renderer in the remotes, for the front-end hook" -- test -x "$r/ib/bin/oneib-partitions"
# The root installer of partitions.conf links libc only: no libxml2, no
# cloud XML parser in what runs as root on the SM's host (decision 6).
if [ -x "$TOP/build/bin/oneib-partitions-install" ]; then
	assert_eq "libc.so.6" "$(readelf -d "$d/usr/sbin/oneib-partitions-install" |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ' | sed 's/ $//')" \
		"oneib-partitions-install needs libc only"
	assert_eq "" "$(nm -D "$d/usr/sbin/oneib-partitions-install" | grep -i xml)" \
		"and no XML symbol"
fi
assert_eq "" "$(find "$r" -xtype l)" "no dangling symlink"

echo "# operator's edit" >>"$r/etc/im/kvm-ib-probes.d/pci.conf"
make -s -C "$TOP" install DESTDIR="$d" >/dev/null
assert_match "operator's edit" "$(cat "$r/etc/im/kvm-ib-probes.d/pci.conf")" "reinstall keeps pci.conf"

# An OpenNebula upgrade drops a stock probe and adds one: link-stock.sh
# (the package's dpkg trigger) follows, and leaves nothing dangling.
rm "$d/var/lib/one/remotes/im/kvm-probes.d/host/system/linux_host.sh"
printf '#!/bin/sh\necho NEW=1\n' >"$d/var/lib/one/remotes/im/kvm-probes.d/host/system/new.sh"
sh "$TOP/drivers/link-stock.sh" "$r" 2>/dev/null
assert_eq 0 $? "link-stock.sh after an OpenNebula upgrade"
assert_eq "" "$(find "$r" -xtype l)" "the link to the dropped probe is gone"
assert_eq "NEW=1" "$(sh "$r/im/kvm-ib-probes.d/host/system/new.sh")" "the new probe is linked"
rm "$d/var/lib/one/remotes/im/kvm-probes.d/host/system/new.sh"
printf '#!/bin/sh\necho HYPERVISOR=kvm\n' >"$d/var/lib/one/remotes/im/kvm-probes.d/host/system/linux_host.sh"
chmod +x "$d/var/lib/one/remotes/im/kvm-probes.d/host/system/linux_host.sh"
sh "$TOP/drivers/link-stock.sh" "$r" 2>/dev/null

# Staging into an empty DESTDIR (tests, demo, packaging) is expected to
# find no OpenNebula: quiet. A real install without it warns (link-stock.sh).
assert_ok "make install into an empty DESTDIR" -- \
	make -s -C "$TOP" install DESTDIR="$TEST_TMP/alt" REMOTES_DIR=/srv/one/remotes
assert_eq "" "$(cat "$LAST_ERR")" "staging says nothing on stderr"
assert_ok "REMOTES_DIR honoured" -- test -x "$TEST_TMP/alt/srv/one/remotes/ib/bin/oneib-discover"
assert_ok "without OpenNebula's remotes, link-stock.sh warns, naming them" -- \
	sh -c 'sh "$1" "$2" 2>&1 >/dev/null | grep -q "kvm-probes.d not found"' \
	sh "$TOP/drivers/link-stock.sh" "$TEST_TMP/alt/srv/one/remotes"

# One list for make install and the packages: every file of remotes/ is in it.
for f in $(cd "$TOP" && find remotes -type f | sort); do
	assert_match "^[a-z]+ +[0-7conf]+ +$f " "$(grep -v '^#' "$TOP/drivers/files.list")" "$f is in drivers/files.list"
done

make -s -C "$TOP" uninstall DESTDIR="$d" >/dev/null
(cd "$d" && find . -printf '%p %y %l\n' | sort) >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "uninstall restores the tree"
test_done
