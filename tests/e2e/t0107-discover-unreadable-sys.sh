#!/bin/bash
# /sys that cannot be read at all is the one fatal case: non-zero exit and a
# single line naming /sys and the reason.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host noib

# An unprivileged user must reach the binary wherever the checkout lives.
chmod 711 "$TEST_TMP"
install -d -m 755 "$TEST_TMP/nobody"
install -m 755 "$IBBIN/oneib-discover" "$TEST_TMP/nobody/"
mount -t tmpfs -o mode=000 none /sys
setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$TEST_TMP/nobody/oneib-discover" --format=json >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
umount /sys
assert_eq 1 "$rc" "exit status"
assert_eq "oneib-discover: cannot read /sys: Permission denied" "$(cat "$TEST_TMP/err")" "one line"
assert_eq "" "$(cat "$TEST_TMP/out")" "nothing on stdout"
test_done
