#!/bin/bash
# The front-end run's lock files are its owner's alone (issue 35, item 4):
# they were created with oned's umask (0644), so in a self-contained
# OpenNebula any local user could open ".next", hold it, and make every
# later run leave at once ("a run is already waiting", exit 0): the
# partitions then never followed the cloud again. Now:
#   - the lock files are created 0600, and one left 0644 by an earlier
#     release is closed to others at the next run;
#   - another user can no longer open them, so holds nothing;
#   - a run as root by hand gives the files it creates to the lock
#     directory's owner (oneadmin's runs still open them);
#   - a lock directory every user may write is refused, one line, nothing
#     done (anyone could put a lock file of their own there).
# The runs are oneadmin's (here: nobody) against the stand-in oned.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host none

hook_sandbox
W=$TEST_TMP/w # oneadmin's (nobody's) OpenNebula var directory
mkdir -p "$W" && chown nobody "$W" && chmod 0750 "$W"
chmod 0755 "$TEST_TMP"
chmod -R a+rX "$TEST_TMP/inst" "$TEST_TMP/etc"
chmod 0777 "$TEST_TMP/etc"
chmod 0644 "$ONE_AUTH"
LOCK=$W/lock
hook() { # as nobody (oneadmin), with ONEIB_PARTITIONS_LOCK=LOCK
	setpriv --reuid=nobody --regid=nogroup --clear-groups env \
		ONEIB_PARTITIONS_LOCK="$LOCK" ONE_XMLRPC="$ONE_XMLRPC" ONE_AUTH="$ONE_AUTH" \
		HOME="$W" PATH=/usr/bin:/bin "$HOOK" "$@"
}
modes() { stat -c '%a %U' "$LOCK" "$LOCK.next" | tr '\n' ' ' | sed 's/ $//'; }

assert_ok "the first run" -- hook
assert_eq "600 nobody 600 nobody" "$(modes)" "the lock files: 0600, oneadmin's"

# an earlier release's 0644 files: closed to others at the next run
chmod 0644 "$LOCK" "$LOCK.next"
assert_ok "a run over 0644 lock files" -- hook
assert_eq "600 nobody 600 nobody" "$(modes)" "closed to others"

# another local user can open neither: holds nothing, silences nothing
id -u daemon >/dev/null || die "no user daemon to play another local user"
assert_fail "another user cannot open .next" -- \
	setpriv --reuid=daemon --regid=daemon --clear-groups sh -c "exec 8<'$LOCK.next'"
sed -i 's|<STATE>3</STATE><LCM_STATE>18</LCM_STATE>|<STATE>8</STATE><LCM_STATE>0</LCM_STATE>|' \
	"$TEST_TMP/vms.xml" # VM 44 powered off
assert_ok "the next event" -- hook
assert_match ": installed " "$(cat "$LAST_OUT")" "runs and installs (VM 44 left its partition)"

# root by hand: what it creates is the directory owner's
rm -f "$LOCK" "$LOCK.next"
assert_ok "root by hand" -- env ONEIB_PARTITIONS_LOCK="$LOCK" "$HOOK"
assert_eq "600 nobody 600 nobody" "$(modes)" "root's lock files given to the directory's owner"
assert_ok "oneadmin's run after it" -- hook

# a lock directory every user may write: refused, nothing done
mkdir -p "$TEST_TMP/open" && chmod 1777 "$TEST_TMP/open"
state() { snap "$TEST_TMP/etc"; ls -la "$TEST_TMP/open"; }
assert_refused --state state "a lock directory every user may write" \
	"^oneib-partitions: the lock directory $TEST_TMP/open is writable by every user \(mode 1777\): anyone could hold its lock and silence every run; make it oneadmin's alone or set ONEIB_PARTITIONS_LOCK$" -- \
	env ONEIB_PARTITIONS_LOCK="$TEST_TMP/open/lock" "$HOOK"
test_done
