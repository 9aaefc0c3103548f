#!/bin/bash
# The partitions hook takes every setting from etc/vnm/ib/ibrc or, where
# ibrc leaves it unset, from the environment, as its header says, its lock
# file too: ONEIB_PARTITIONS_LOCK set in ibrc is the lock (it wins over the
# environment's), one set only in the environment is used, and without
# either the lock is in OpenNebula's var directory: $ONE_LOCATION/var on a
# self-contained front-end, where /var/lib/one is not oneadmin's (issue 20:
# every run there failed, "cannot open the lock file
# /var/lib/one/.oneib-partitions.lock.next"). The hook runs as an
# unprivileged user (nobody, as oneadmin would be), against a stand-in of
# oned's XML-RPC API (tests/lib/standin/oned-rpc) that answers with an
# empty cloud, found as the CLI finds oned (~/.one/one_endpoint,
# ~/.one/one_auth), and install commands that record their input.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host none

install_tree "$TEST_TMP/inst" 2>/dev/null
R=$TEST_TMP/inst/var/lib/one/remotes
IBRC=$R/etc/vnm/ib/ibrc
W=$TEST_TMP/w # nobody's
mkdir -p "$W/bin" "$W/one/var" "$W/env" "$W/ibrc" "$W/.one" "$TEST_TMP/oned"
for p in vms:VM_POOL hosts:HOST_POOL vnets:VNET_POOL; do
	echo "<${p#*:}/>" >"$TEST_TMP/oned/${p%%:*}.xml"
done
standin_oned "$TEST_TMP/oned"
echo "$ONE_XMLRPC" >"$W/.one/one_endpoint"
cp "$ONE_AUTH" "$W/.one/one_auth"
chown -R nobody "$W"
chmod 0711 "$TEST_TMP"
sed -i -e "s|^ONEIB_PARTITIONS_CMD=.*|ONEIB_PARTITIONS_CMD=\"cat >$W/installed\"|" \
	-e "s|^#\?ONEIB_QOS_POLICY_CMD=.*|ONEIB_QOS_POLICY_CMD=\"cat >$W/policy\"|" \
	-e "s|^ONEIB_PARTITIONS_READ_CMD=.*|ONEIB_PARTITIONS_READ_CMD=true|" "$IBRC"
assert_match '^#ONEIB_PARTITIONS_LOCK=' "$(cat "$IBRC")" "ibrc leaves the lock unset by default"

# hook [VAR=VALUE...]: the hook as nobody, in a clean environment plus VARs.
hook() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -i \
		PATH="$W/bin:/usr/bin:/bin" HOME="$W" "$@" "$R/hooks/oneib-partitions"
}
# the lock files a run left, and the VM listing it kept, under DIR
locks() { (cd "$1" && find . -type f | sort | tr '\n' ' '); }

assert_ok "ONE_LOCATION, no lock set: runs" -- hook ONE_LOCATION="$W/one"
assert_eq "./.oneib-partitions.lock ./.oneib-partitions.lock.next ./.oneib-partitions.lock.vms " "$(locks "$W/one/var")" \
	"the lock is in \$ONE_LOCATION/var"
assert_match "^# oneib-partitions: generated" "$(cat "$W/installed")" "it rendered and installed"
assert_match "^qos-ulps$" "$(cat "$W/policy")" "the QoS policy too (ONEIB_SLS's default plan)"
assert_eq "oneadmin:stand-in" "$(sort -u "$TEST_TMP/oned/secrets")" \
	"oned found as the CLI finds it: ~/.one/one_endpoint, the secret of ~/.one/one_auth"
rm -f "$W/installed" "$W/policy"

assert_ok "ONEIB_PARTITIONS_LOCK in the environment: runs" -- \
	hook ONE_LOCATION="$W/one" ONEIB_PARTITIONS_LOCK="$W/env/l"
assert_eq "./l ./l.next ./l.vms " "$(locks "$W/env")" "the environment's lock"

echo "ONEIB_PARTITIONS_LOCK=$W/ibrc/l" >>"$IBRC"
assert_ok "ONEIB_PARTITIONS_LOCK in ibrc and the environment: runs" -- \
	hook ONE_LOCATION="$W/one" ONEIB_PARTITIONS_LOCK="$W/env/other"
assert_eq "./l ./l.next ./l.vms " "$(locks "$W/ibrc")" "ibrc's lock"
assert_eq "./l ./l.next ./l.vms " "$(locks "$W/env")" "not the environment's"

# Held by another run, the lock serialises: this run waits its turn and
# says so when it cannot get it in time (seven commands' time:
# 7 * ONEIB_PARTITIONS_TIMEOUT + 60 s).
exec 7<"$W/ibrc/l"
flock 7
exec 8<"$W/ibrc/l.next"
flock 8
assert_eq "oneib-partitions: a run is already waiting for $W/ibrc/l; it will see this change" \
	"$(hook ONE_LOCATION="$W/one")" "the lock ibrc names is the one taken"
exec 7<&- 8<&-

# Without ONE_LOCATION the default is /var/lib/one's (a packaged
# OpenNebula), here a tmpfs of this test's mount namespace: where oneadmin
# (nobody) cannot write, the run fails saying where; where it can, the lock
# is there.
sed -i '$d' "$IBRC"
mkdir -p /var/lib/one && mount -t tmpfs -o mode=0755 tmpfs /var/lib/one || die "tmpfs on /var/lib/one"
assert_refused --state "locks /var/lib/one" "no ONE_LOCATION, /var/lib/one not oneadmin's" \
	'^oneib-partitions: cannot open the lock file /var/lib/one/\.oneib-partitions\.lock\.next$' -- hook
chown nobody /var/lib/one
assert_ok "no ONE_LOCATION, /var/lib/one oneadmin's: runs" -- hook
assert_eq "./.oneib-partitions.lock ./.oneib-partitions.lock.next ./.oneib-partitions.lock.vms " "$(locks /var/lib/one)" \
	"the lock is in /var/lib/one"
test_done
