#!/bin/bash
# The Debian packages (make deb) installed, upgraded, removed and purged in
# a clean Debian 12 root (mmdebstrap, minbase plus the packages' runtime
# dependencies; chroot in this test's mount namespace):
#   one-ib-node  before OpenNebula (no oneadmin yet) and after; oneib-pkey
#                and the sudoers rule root-owned with their modes; the rule
#                gives oneadmin exactly map/unmap/show; a sudoers file that
#                breaks sudo is moved aside and configure fails, sudo keeps
#                working; purge keeps a ledger that holds leases.
#   one-ib-sm    the partitions installer (root, libc only), oneib-partitions
#                for verify, their rule; beside one-ib-node on the same host.
#   one-ib-frontend  before and after a stand-in OpenNebula package: the
#                links to its stock remotes follow it through a dpkg trigger
#                (install, upgrade that drops and adds probes); its files and
#                oned.conf are never touched; the admin's settings survive an
#                upgrade; remove and purge leave OpenNebula's tree as it was.
#   one-ib-guest depends on nothing a guest lacks (libc6, libibverbs1); its
#                files, modes; purge leaves nothing.
# The root is cached (ONEIB_PKGTEST_CACHE, /var/cache/one-ib by default, so
# a fresh clone on the same machine reuses it): the first run downloads it.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host none

command -v mmdebstrap >/dev/null || skip_all "mmdebstrap not installed (make deps)"
debs=$TOP/build/deb
if ! ls "$debs"/one-ib-node_*.deb >/dev/null 2>&1; then
	make -s -C "$TOP" deb >"$TEST_TMP/deb.log" 2>&1 || { _tl_show "$TEST_TMP/deb.log" 30 "make deb"; die "make deb failed"; }
fi

# --- the clean root ---------------------------------------------------------
include=sudo,libc6,libibumad3,libpci3,libxml2,libvirt0,libibverbs1,curl
cache=${ONEIB_PKGTEST_CACHE:-/var/cache/one-ib}
base=$cache/bookworm-minbase-$(echo "$include" | md5sum | cut -c1-8).tar
mkdir -p "$cache"
(
	flock 9
	[ -s "$base" ] && exit 0
	mmdebstrap --quiet --format=tar --variant=minbase --include="$include" bookworm "$base.tmp" \
		>"$TEST_TMP/mmdebstrap.log" 2>&1 && mv "$base.tmp" "$base"
) 9>"$cache/.lock"
if [ ! -s "$base" ]; then
	rm -f "$base.tmp"
	_tl_show "$TEST_TMP/mmdebstrap.log" 10 mmdebstrap
	skip_all "cannot make a Debian 12 root with mmdebstrap (no Debian mirror reachable?)"
fi
root=$TEST_TMP/root
mkdir -p "$root"
tar -C "$root" -xf "$base" || die "cannot unpack $base"
mount -t proc proc "$root/proc" || die "cannot mount proc"
mount --rbind /dev "$root/dev" || die "cannot bind /dev"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
deb() { ls "$debs"/"$1"_*.deb; }
mkdir -p "$root/debs"

# bumped PKG VERSION: the package again with another version, for upgrades
# (what a new release is to dpkg: same files, new version, scripts run).
bumped() {
	local d=$TEST_TMP/bump-$1
	rm -rf "$d"
	dpkg-deb -R "$(deb "$1")" "$d"
	sed -i "s/^Version: .*/Version: $2/" "$d/DEBIAN/control"
	dpkg-deb -b "$d" "$root/debs/$1_$2.deb" >/dev/null
}
cp "$debs"/one-ib-{node,sm,frontend,guest}_*.deb "$root/debs/"
node=/debs/$(basename "$(deb one-ib-node)")
sm=/debs/$(basename "$(deb one-ib-sm)")
fe=/debs/$(basename "$(deb one-ib-frontend)")
guest=/debs/$(basename "$(deb one-ib-guest)")

# --- one-ib-node, before OpenNebula -------------------------------------------
assert_ok "node: installs without oneadmin" -- in_root dpkg -i "$node"
assert_match "no oneadmin user yet" "$(cat "$LAST_OUT")" "node: says the ledger waits for oneadmin"
assert_ok "node: no /var/lib/one of ours under OpenNebula's feet" -- test ! -e "$root/var/lib/one"
assert_eq "root root 755" "$(in_root stat -c '%U %G %a' /usr/sbin/oneib-pkey)" "oneib-pkey root-owned, 0755"
assert_eq "root root 755" "$(in_root stat -c '%U %G %a' /usr/sbin/oneib-peer)" "oneib-peer root-owned, 0755"
assert_eq "root root 440" "$(in_root stat -c '%U %G %a' /etc/sudoers.d/one-ib-node)" "sudoers rule root-owned, 0440"
assert_ok "visudo accepts the installed configuration" -- in_root visudo -c
assert_ok "oneib-discover runs on the host (pre-flight)" -- in_root oneib-discover
assert_ok "oneib-pkey's man page" -- test -f "$root/usr/share/man/man8/oneib-pkey.8.gz"
assert_ok "oneib-peer's man page" -- test -f "$root/usr/share/man/man8/oneib-peer.8.gz"

# OpenNebula's node package arrives: oneadmin, home /var/lib/one.
in_root useradd --system -u 9869 -U -d /var/lib/one -m -s /bin/bash oneadmin 2>/dev/null
bumped one-ib-node 0.1.0+1
assert_ok "node: upgrade once oneadmin exists" -- in_root dpkg -i /debs/one-ib-node_0.1.0+1.deb
assert_eq "oneadmin oneadmin 750" "$(in_root stat -c '%U %G %a' /var/lib/one/ib)" "ledger directory oneadmin's, 0750"
assert_ok "sudo: oneadmin may map" -- in_root sudo -n -l -U oneadmin /usr/sbin/oneib-pkey map 0000:3b:00.2 0x0200000000000001 0x8101
assert_ok "sudo: oneadmin may ask a port's peer" -- in_root sudo -n -l -U oneadmin /usr/sbin/oneib-peer 0000:3b:00.0 1
assert_fail "sudo: oneadmin may not run a shell" -- in_root sudo -n -l -U oneadmin /bin/sh
assert_fail "sudo: the partitions installer is one-ib-sm's" -- in_root sudo -n -l -U oneadmin /usr/sbin/oneib-partitions-install --output /etc/opensm/partitions.conf -

# A sudoers file that breaks sudo never stays: the admin's broken edit of
# the rule, kept by dpkg over an upgrade, is moved aside and configure fails.
cp "$root/etc/sudoers.d/one-ib-node" "$TEST_TMP/rule.good"
echo 'oneadmin ALL=(root NOPASSWD: /usr/sbin/oneib-pkey' >>"$root/etc/sudoers.d/one-ib-node"
bumped one-ib-node 0.1.0+2
assert_fail "node: configure fails with a broken rule" -- in_root dpkg -i /debs/one-ib-node_0.1.0+2.deb
assert_match "one-ib-node: visudo refuses /etc/sudoers.d/one-ib-node; moved to .*dpkg-broken" \
	"$(cat "$LAST_ERR")" "node: says which file and where it went"
assert_ok "sudo still works" -- in_root visudo -c
assert_ok "the broken rule kept for the admin" -- test -f "$root/etc/sudoers.d/one-ib-node.dpkg-broken"
cp "$TEST_TMP/rule.good" "$root/etc/sudoers.d/one-ib-node"
rm "$root/etc/sudoers.d/one-ib-node.dpkg-broken"
assert_ok "node: configures once fixed" -- in_root dpkg --configure -a

# remove keeps the conffile (Debian policy) and the ledger; purge drops the
# rule, and the ledger only when it holds no lease.
echo 'vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=42 nic=0 mac=02:00:c0:a8:01:05 guid=0x02000000002a0000 pkey=0x8101 since=1763784000' \
	>"$root/var/lib/one/ib/leases"
assert_ok "node: remove" -- in_root dpkg -r one-ib-node
assert_ok "remove: oneib-pkey gone" -- test ! -e "$root/usr/sbin/oneib-pkey"
assert_ok "remove: oneib-peer gone" -- test ! -e "$root/usr/sbin/oneib-peer"
assert_ok "remove: ledger kept" -- test -f "$root/var/lib/one/ib/leases"
assert_ok "node: purge" -- in_root dpkg -P one-ib-node
assert_match "/var/lib/one/ib kept: it holds 1 VF lease" "$(cat "$LAST_OUT")" "purge: says why the ledger stays"
assert_ok "purge: the leases stay" -- test -s "$root/var/lib/one/ib/leases"
assert_ok "purge: the rule is gone" -- test ! -e "$root/etc/sudoers.d/one-ib-node"
assert_ok "node: reinstall" -- in_root dpkg -i "$node"
: >"$root/var/lib/one/ib/leases"
: >"$root/var/lib/one/ib/leases.lock"
assert_ok "node: purge with an empty ledger" -- in_root dpkg -P one-ib-node
assert_ok "purge: empty ledger removed" -- test ! -e "$root/var/lib/one/ib"
assert_ok "purge: oneadmin's home untouched" -- test -d "$root/var/lib/one"
assert_eq "" "$(in_root dpkg -S /usr/sbin/oneib-pkey 2>/dev/null)" "purge: nothing of the package left in dpkg"

# --- one-ib-sm -----------------------------------------------------------------
assert_ok "sm: installs alone" -- in_root dpkg -i "$sm"
for f in oneib-partitions-install oneib-partitions; do
	assert_eq "root root 755" "$(in_root stat -c '%U %G %a' /usr/sbin/$f)" "$f root-owned in /usr/sbin"
done
assert_eq "root root 440" "$(in_root stat -c '%U %G %a' /etc/sudoers.d/one-ib-sm)" "sm rule root-owned, 0440"
assert_eq "" "$(in_root ldd /usr/sbin/oneib-partitions-install | grep -v -e libc.so -e linux-vdso -e ld-linux)" \
	"the root installer links libc only"
assert_ok "sudo: oneadmin may install opensm's partitions" -- \
	in_root sudo -n -l -U oneadmin /usr/sbin/oneib-partitions-install --output /etc/opensm/partitions.conf -
assert_fail "sudo: ... into no other file" -- \
	in_root sudo -n -l -U oneadmin /usr/sbin/oneib-partitions-install --output /etc/shadow -
assert_ok "sudo: oneadmin may verify that file" -- \
	in_root sudo -n -l -U oneadmin /usr/sbin/oneib-partitions verify --conf /etc/opensm/partitions.conf
assert_ok "sm beside node on one host" -- in_root dpkg -i "$node"
assert_ok "visudo accepts node and sm rules together" -- in_root visudo -c
assert_ok "sm, node: purge" -- in_root dpkg -P one-ib-sm one-ib-node
assert_eq "" "$(find "$root/etc/sudoers.d" -name '*one-ib*')" "no rule left"

# --- one-ib-frontend -------------------------------------------------------------
# A stand-in for OpenNebula's package: stock remotes and oned.conf.
onepkg() { # VERSION PROBE...
	local d=$TEST_TMP/opennebula-$1 v=$1 p
	shift
	rm -rf "$d"
	mkdir -p "$d/DEBIAN" "$d/etc/one" "$d/var/lib/one/remotes/im/kvm.d" \
		"$d/var/lib/one/remotes/vmm/kvm" "$d/var/lib/one/remotes/hooks"
	printf 'Package: opennebula\nVersion: %s\nArchitecture: all\nMaintainer: test <t@t>\nDescription: stand-in\n' "$v" >"$d/DEBIAN/control"
	echo 'VM_MAD = [ NAME = "kvm" ]' >"$d/etc/one/oned.conf"
	printf '#!/bin/sh\necho client\n' >"$d/var/lib/one/remotes/im/kvm.d/monitord-client_control.sh"
	printf '#!/bin/sh\necho stock deploy\n' >"$d/var/lib/one/remotes/vmm/kvm/deploy"
	printf '#!/bin/sh\necho stock save\n' >"$d/var/lib/one/remotes/vmm/kvm/save"
	printf '#!/bin/sh\necho stock reboot\n' >"$d/var/lib/one/remotes/vmm/kvm/reboot"
	printf '#!/bin/sh\n' >"$d/var/lib/one/remotes/hooks/stock_hook"
	for p in "$@"; do
		mkdir -p "$d/var/lib/one/remotes/im/kvm-probes.d/$(dirname "$p")"
		printf '#!/bin/sh\necho %s\n' "$(basename "$p")" >"$d/var/lib/one/remotes/im/kvm-probes.d/$p"
	done
	chmod -R a+rX,u+w "$d" && find "$d/var" -type f -exec chmod 755 {} +
	dpkg-deb -b --root-owner-group "$d" "$root/debs/opennebula_$v.deb" >/dev/null
}
stock_state() { (cd "$root" && find etc/one var/lib/one/remotes/im/kvm-probes.d var/lib/one/remotes/im/kvm.d \
	var/lib/one/remotes/vmm/kvm var/lib/one/remotes/hooks -type f ! -name 'oneib-*' -exec md5sum {} + | sort); }
R=$root/var/lib/one/remotes

assert_ok "frontend: installs before OpenNebula" -- in_root dpkg -i "$fe"
assert_match "OpenNebula's remotes are not installed yet" "$(cat "$LAST_OUT")" "frontend: says the links wait"
assert_match "does not edit OpenNebula's configuration" "$(cat "$LAST_OUT")" "frontend: prints the manual steps"
assert_match "/etc/one/oned.conf: add /usr/share/one-ib/drivers/oned.conf.kvm-ib" "$(cat "$LAST_OUT")" "... oned.conf among them"
assert_ok "frontend: kvm-ibrc default copied" -- test -f "$R/etc/vmm/kvm-ib/kvm-ibrc"
assert_ok "frontend: helpers in the remotes" -- test -x "$R/ib/bin/oneib-vf"

onepkg 6.10.0 host/system/linux_host.sh host/monitor/linux_usage.sh vm/status/state.sh
assert_ok "OpenNebula installs after one-ib-frontend" -- in_root dpkg -i /debs/opennebula_6.10.0.deb
assert_eq "../../../kvm-probes.d/host/system/linux_host.sh" \
	"$(readlink "$R/im/kvm-ib-probes.d/host/system/linux_host.sh")" "trigger: stock probe linked"
assert_eq "../kvm/reboot" "$(readlink "$R/vmm/kvm-ib/reboot")" "trigger: stock VMM action linked"
assert_eq "client" "$(in_root sh /var/lib/one/remotes/im/kvm-ib.d/monitord-client_control.sh)" "trigger: IM client linked"
assert_ok "our deploy is ours, not a link" -- test ! -L "$R/vmm/kvm-ib/deploy"
assert_ok "our save too, though the stock driver has one" -- test ! -L "$R/vmm/kvm-ib/save"
stock=$(stock_state)

echo "ONEIB_CLOUD_ID=7 # admin" >>"$R/etc/vmm/kvm-ib/kvm-ibrc"
bumped one-ib-frontend 0.1.0+1
assert_ok "frontend: upgrade" -- in_root dpkg -i /debs/one-ib-frontend_0.1.0+1.deb
assert_match "onehost sync --force" "$(cat "$LAST_OUT")" "upgrade: says to push the remotes"
assert_match "ONEIB_CLOUD_ID=7 # admin" "$(cat "$R/etc/vmm/kvm-ib/kvm-ibrc")" "upgrade: the admin's settings kept"
assert_eq "$stock" "$(stock_state)" "upgrade: OpenNebula's files and oned.conf untouched"

onepkg 7.0.0 host/system/linux_host.sh host/system/new_probe.sh vm/status/state.sh
assert_ok "OpenNebula upgrade: drops a probe, adds one" -- in_root dpkg -i /debs/opennebula_7.0.0.deb
assert_ok "trigger: the new probe linked" -- test -L "$R/im/kvm-ib-probes.d/host/system/new_probe.sh"
assert_eq "" "$(cd "$R" && find . -xtype l)" "trigger: no link to the dropped probe left"
stock=$(stock_state)

assert_ok "frontend: remove" -- in_root dpkg -r one-ib-frontend
assert_eq "" "$(cd "$R" && find . -path '*kvm-ib*' ! -path './etc/*')" "remove: our files and links gone"
assert_ok "remove: settings kept until purge" -- test -f "$R/etc/vmm/kvm-ib/kvm-ibrc"
assert_ok "frontend: purge" -- in_root dpkg -P one-ib-frontend
assert_eq "" "$(cd "$R" && find . -path '*kvm-ib*' -o -path '*/ib/*' -o -name ibrc)" "purge: nothing of one-ib left"
assert_eq "$stock" "$(stock_state)" "purge: OpenNebula's tree exactly as it was"

# --- one-ib-guest ------------------------------------------------------------------
assert_eq "libc6 libibumad3 libibverbs1" "$(dpkg-deb -f "$root$guest" Depends | sed 's/ ([^)]*)//g; s/,//g')" \
	"guest: depends on libc6, libibumad3 (the SA's SL) and libibverbs1 only"
assert_ok "guest: installs" -- in_root dpkg -i "$guest"
assert_eq "root root 755" "$(in_root stat -c '%U %G %a' /usr/sbin/oneib-context)" "oneib-context in /usr/sbin"
assert_eq "root root 755" "$(in_root stat -c '%U %G %a' /etc/one-context.d/loc-11-oneib)" "one-context's hook, executable"
assert_ok "the udev rule" -- test -f "$root/usr/lib/udev/rules.d/66-oneib-context.rules"
assert_ok "the unit it starts" -- test -f "$root/usr/lib/systemd/system/oneib-context@.service"
assert_ok "oneib-context runs in the clean root (its libraries are there)" -- in_root oneib-context --help
assert_ok "guest: purge" -- in_root dpkg -P one-ib-guest
assert_eq "" "$(cd "$root" && find etc/one-context.d usr/lib/udev usr/lib/systemd usr/sbin -name '*oneib*' 2>/dev/null)" \
	"purge: nothing left"
test_done
