#!/bin/bash
# The shipped sudoers rules parse, and give oneadmin exactly oneib-pkey
# map, unmap and show and oneib-peer on one PF address and port
# (one-ib-node), and the partitions' and QoS policy's install and verify
# with their pinned arguments (one-ib-sm), as root: no other command, no
# other helper, no other file, and no cloud XML (oneib-pkey partitions,
# which parsed it as root, is gone from the rules).
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host none
command -v visudo >/dev/null || die "sudo not installed"
# A private /etc/sudoers.d with only our rules, and a oneadmin user.
mkdir -p "$TEST_TMP/sudoers.d"
for rule in "$TOP"/drivers/sudoers.d/one-ib-*; do
	assert_ok "visudo accepts $(basename "$rule")" -- visudo -c -f "$rule"
	install -m 0440 "$rule" "$TEST_TMP/sudoers.d/"
done
mount --bind "$TEST_TMP/sudoers.d" /etc/sudoers.d

# make install without DESTDIR (install.sh) puts a rule live only once
# visudo accepts it, by rename: a broken one never reaches sudo.
src=$TEST_TMP/src
mkdir -p "$src/build/bin"
cp -r "$TOP/drivers" "$TOP/doc" "$src/"
cp "$TOP/build/bin/oneib-pkey" "$TOP/build/bin/oneib-peer" "$TOP/build/bin/oneib-discover" "$src/build/bin/"
node_install() {
	sh "$src/drivers/install.sh" --role node --sbindir "$TEST_TMP/sbin" \
		--bindir "$TEST_TMP/bin" --mandir "$TEST_TMP/man"
}
rm /etc/sudoers.d/one-ib-node
assert_ok "install.sh --role node, live" -- node_install
assert_eq "root root 440" "$(stat -c '%U %G %a' /etc/sudoers.d/one-ib-node)" "rule installed root-owned, 0440"
assert_file_eq "$TOP/drivers/sudoers.d/one-ib-node" /etc/sudoers.d/one-ib-node "the shipped rule"
echo 'oneadmin ALL=(root NOPASSWD: /bin/sh' >>"$src/drivers/sudoers.d/one-ib-node"
rules() { snap --content /etc/sudoers.d; }
assert_refused --state rules "a broken rule" "^install.sh: .*one-ib-node: visudo refuses it; /etc/sudoers.d/one-ib-node left as it was$" \
	-- node_install
if ! id oneadmin >/dev/null 2>&1; then
	cp /etc/passwd "$TEST_TMP/passwd"
	echo 'oneadmin:x:9869:9869::/var/lib/one:/bin/bash' >>"$TEST_TMP/passwd"
	mount --bind "$TEST_TMP/passwd" /etc/passwd
	cp /etc/group "$TEST_TMP/group"
	echo 'oneadmin:x:9869:' >>"$TEST_TMP/group"
	mount --bind "$TEST_TMP/group" /etc/group
fi
# sudo -l checks that the command exists: /usr/sbin as an installed host
# has it (private tmpfs, with stand-in files where the helpers go).
mount -t tmpfs none /usr/sbin
for h in oneib-pkey oneib-peer oneib-partitions-install oneib-partitions; do
	printf '#!/bin/sh\nexit 0\n' >"/usr/sbin/$h"
	chmod 755 "/usr/sbin/$h"
done
allowed() { sudo -l -U oneadmin "$@" >/dev/null 2>&1; }
assert_ok "map allowed" -- allowed /usr/sbin/oneib-pkey map 0000:3b:00.2 0x0200c0fffea80105 0x8101 --port 1
assert_ok "unmap allowed" -- allowed /usr/sbin/oneib-pkey unmap 0000:3b:00.2 --port 1
assert_ok "show allowed" -- allowed /usr/sbin/oneib-pkey show 0000:3b:00.2
assert_ok "a port's peer allowed" -- allowed /usr/sbin/oneib-peer 0000:3b:00.0 1
assert_fail "the peer with a second port is not" -- allowed /usr/sbin/oneib-peer 0000:3b:00.0 1 2
assert_fail "the peer of something not a PCI address is not" -- allowed /usr/sbin/oneib-peer /dev/sda 1
assert_fail "the peer with an option is not" -- allowed /usr/sbin/oneib-peer --help
assert_fail "the peer without arguments is not" -- allowed /usr/sbin/oneib-peer
assert_fail "a shell is not" -- allowed /bin/sh
assert_fail "oneib-pkey without a subcommand is not" -- allowed /usr/sbin/oneib-pkey
assert_fail "the old partitions command (cloud XML as root) is not" -- \
	allowed /usr/sbin/oneib-pkey partitions --output /etc/opensm/partitions.conf -
assert_fail "the old verify is not" -- \
	allowed /usr/sbin/oneib-pkey verify --conf /etc/opensm/partitions.conf
I=/usr/sbin/oneib-partitions-install
assert_ok "installing opensm's file from stdin allowed" -- \
	allowed $I --output /etc/opensm/partitions.conf -
assert_ok "installing opensm's QoS policy from stdin allowed" -- \
	allowed $I --qos-policy /etc/opensm/qos-policy.conf -
assert_fail "the policy into another file is not" -- \
	allowed $I --qos-policy /etc/opensm/partitions.conf -
assert_fail "the policy with a reload command of oneadmin's choice is not" -- \
	allowed $I --qos-policy /etc/opensm/qos-policy.conf --reload-cmd /bin/sh -
assert_fail "the policy from a file of oneadmin's choice is not" -- \
	allowed $I --qos-policy /etc/opensm/qos-policy.conf /root/x
assert_ok "verify of that file allowed" -- \
	allowed /usr/sbin/oneib-partitions verify --conf /etc/opensm/partitions.conf
assert_fail "verify from cloud XML (parsed as root) is not" -- \
	allowed /usr/sbin/oneib-partitions verify /tmp/cloud.xml
assert_fail "render as root is not" -- allowed /usr/sbin/oneib-partitions render -
assert_fail "installing into another file is not" -- allowed $I --output /etc/shadow -
assert_fail "a reload command of oneadmin's choice is not" -- \
	allowed $I --output /etc/opensm/partitions.conf --reload-cmd /bin/sh -
assert_fail "a pid file of oneadmin's choice is not" -- \
	allowed $I --output /etc/opensm/partitions.conf --pid-file /tmp/pid -
assert_fail "a backup of oneadmin's choice is not" -- \
	allowed $I --output /etc/opensm/partitions.conf --backup /etc/shadow -
assert_fail "reading a file of oneadmin's choice is not" -- \
	allowed $I --output /etc/opensm/partitions.conf /root/x
assert_fail "the installer without arguments is not" -- allowed $I
assert_fail "a copy under the synced remotes is not" -- allowed /var/tmp/one/ib/bin/oneib-pkey map 0000:3b:00.2 0x1 0x8101
assert_fail "the renderer under the synced remotes is not" -- \
	allowed /var/tmp/one/ib/bin/oneib-partitions verify --conf /etc/opensm/partitions.conf
test_done
