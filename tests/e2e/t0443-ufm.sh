#!/bin/bash
# NVIDIA UFM as the subnet manager (issue 32, item 5). UFM cannot run here:
# this tests the install target against the contract the UFM Enterprise
# User Manual documents ("Appendix - Partitioning"): UFM generates
# partitions.conf itself (it cannot be edited), puts every HCA port in the
# default partition as a FULL member by default, and merges
# /opt/ufm/files/conf/partitions.conf.user_ext (opensm's grammar) into it
# when /opt/ufm/scripts/sync_partitions_conf.sh runs, which validates,
# merges and starts a heavy sweep. The stand-in script below does exactly
# that much (UFM's own validation is not reproduced) for the real opensm of
# an ibsim fabric, which reads the merged file as UFM's SM would.
# - oneib-partitions-install --ufm takes the rendered file as for opensm
#   (strict re-parse) and writes its partitions but the default one into
#   the user extension, atomically, then runs the sync script; unchanged,
#   nothing runs; a sync that fails is retried by the next run;
# - with UFM's default (HCA ports full in the default partition) every
#   tenant VF reaches every other: verify reports each tenant VF that is a
#   full member of the default partition, whatever the file says; made
#   limited, as one-ib-sm(7) tells a UFM operator, verify is clean;
# - the user extension read back is what the front-end's run adopts
#   (design decision 11): an operator's own partition in it is refused.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

shared_fabric
UFM=$TEST_TMP/opt/ufm
EXT=$UFM/files/conf/partitions.conf.user_ext
SYNC=$UFM/scripts/sync_partitions_conf.sh
mkdir -p "$UFM/files/conf/opensm" "$UFM/scripts"
# what UFM generates by default: every port a full member of the default
# partition
echo 'Default=0x7fff, ipoib, defmember=full : ALL, SELF=full ;' >"$UFM/files/conf/generated"
cat >"$SYNC" <<EOF
#!/bin/sh
# stand-in for UFM's sync_partitions_conf.sh (see the test's header): the
# user extension merged into the partitions.conf UFM's SM reads, and a
# heavy sweep
echo run >>"$TEST_TMP/sync.calls"
[ ! -e "$TEST_TMP/sync.fail" ] || { echo "sync_partitions_conf.sh: UFM is not running" >&2; exit 1; }
cat "$UFM/files/conf/generated" "$EXT" >"$SIM_PARTITIONS.new" && mv "$SIM_PARTITIONS.new" "$SIM_PARTITIONS" &&
	kill -HUP "\$(cat "$SIM_OPENSM_PID_FILE")"
EOF
chmod +x "$SYNC"
syncs() { cat "$TEST_TMP/sync.calls" 2>/dev/null | wc -l; }
install() { "$INST" --ufm "$EXT" --reload-cmd "$SYNC" "$@"; }
verify() { sim_client node01 "$PART" verify --conf "$SIM_PARTITIONS" "$@"; }

shared_listing "$TEST_TMP/cloud.xml"
"$PART" render --static "$TEST_TMP/static.conf" --hosts-partition infra "$TEST_TMP/cloud.xml" \
	>"$TEST_TMP/r1.conf" || die "cannot render"
n=$(sim_opensm_sweeps)
assert_ok "the UFM install target" -- install "$TEST_TMP/r1.conf"
assert_eq "$EXT: installed (5 partitions, 20 members)
reload command done: $SYNC" "$(cat "$LAST_OUT")" "installed, UFM's sync script run"
# the rendered file without its default partition (and that one's mark)
awk '/^# from: / { mark = $0; next } /^Default=/ { mark = ""; next }
	{ if (mark != "") print mark; mark = ""; print }' "$TEST_TMP/r1.conf" >"$TEST_TMP/ext.expected"
assert_file_eq "$TEST_TMP/ext.expected" "$EXT" "the user extension: every partition but the default one"
assert_eq "" "$(grep -i '^default' "$EXT")" "no default partition of one-ib's over UFM's"
sim_opensm_wait_sweep "$n"
assert_eq "" "$(grep 'Partition configuration in error\|PARSE ERROR' "$SIM_OPENSM_LOG")" \
	"UFM's SM read the merged file"
assert_eq "0x8101 0xffff" "$(shared_pkeys vm10-nic0)" "VM 10's VF in tenant a, and full in UFM's default partition"

# --- UFM's default: every tenant VF full in the default partition --------------
assert_fail "verify: tenant VFs full in the default partition" -- verify
out=$(cat "$LAST_OUT")
assert_match '^default: port 0x02000000000a0000 \(VM 10 NIC 0; lid [0-9]+, "vm10-nic0"\) is a full member of the default partition \(0xffff\): it reaches every port of the fabric, every other tenant.s VFs too; tenant VFs must be limited members \(UFM: one-ib-sm\(7\)\)$' \
	"$out" "VM 10 NIC 0 named"
assert_eq 7 "$(grep -c '^default: port 0x0200' "$LAST_OUT")" "every tenant VF of the fabric"
assert_match "; 0 ports differ; 0 left out; 7 tenant VFs full in the default partition$" "$out" \
	"no drift (the SM does what UFM's file says), but 7 tenant VFs full"
assert_match "^0xffff$" "$(shared_path vm10-nic0 vm11-nic0)" "and so tenant a reaches tenant b"

# --- made limited in UFM, as one-ib-sm(7) says --------------------------------
echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$UFM/files/conf/generated"
n=$(sim_opensm_sweeps)
"$SYNC" || die "the sync script failed"
sim_opensm_wait_sweep "$n"
assert_ok "verify: no tenant VF full in the default partition" -- verify
assert_eq "" "$(grep '^default:' "$LAST_OUT")" "none named"
assert_eq "" "$(shared_path vm10-nic0 vm11-nic0)" "tenants apart again"

# --- unchanged: nothing runs; a sync that fails is retried ----------------------
s=$(syncs)
assert_ok "the same file again" -- install "$TEST_TMP/r1.conf"
assert_eq "$EXT: unchanged (5 partitions, 20 members)" "$(cat "$LAST_OUT")" "unchanged"
assert_eq "$s" "$(syncs)" "UFM not told again"
shared_listing "$TEST_TMP/cloud.xml" 10/node02/5,9 11/node02/7,9 12/node03/5,9
"$PART" render --static "$TEST_TMP/static.conf" --hosts-partition infra --installed "$EXT" \
	"$TEST_TMP/cloud.xml" >"$TEST_TMP/r2.conf" || die "cannot render with the user extension as the installed file"
touch "$TEST_TMP/sync.fail"
assert_fail "UFM's sync fails" -- install "$TEST_TMP/r2.conf"
assert_eq "oneib-partitions-install: $EXT installed, but UFM was not told: reload command '$SYNC' exited with 1; the next run retries" \
	"$(grep -v '^sync_partitions_conf.sh:' "$LAST_ERR")" "one line: installed, UFM not told"
assert_ok "pending" -- test -e "$EXT.reload-pending"
rm "$TEST_TMP/sync.fail"
n=$(sim_opensm_sweeps)
assert_ok "the next run" -- install "$TEST_TMP/r2.conf"
assert_match "^$EXT: unchanged .*; UFM was not told after the last install: telling it now$" \
	"$(cat "$LAST_OUT")" "retries the sync"
sim_opensm_wait_sweep "$n"
assert_eq "0x7fff" "$(shared_pkeys vm13-nic0)" "VM 13 gone from tenant b"
assert_fail "the default sync script, where UFM is not installed" -- \
	"$INST" --ufm "$EXT" "$TEST_TMP/r1.conf"
assert_match "not told: reload command '/opt/ufm/scripts/sync_partitions_conf.sh' exited with 127; the next run retries$" \
	"$(cat "$LAST_ERR")" "UFM's own script by default"

# --- refusals -------------------------------------------------------------------
cp "$EXT" "$TEST_TMP/ext.before"
sed 's/=full ;$/=full/' "$TEST_TMP/r1.conf" >"$TEST_TMP/broken.conf"
assert_refused --rc 1 "a file the renderer did not write" "^oneib-partitions-install: $EXT: .*; nothing installed$" \
	-- install "$TEST_TMP/broken.conf"
assert_file_eq "$TEST_TMP/ext.before" "$EXT" "the user extension untouched"
assert_refused --rc 2 "--ufm told through a pid file" "^oneib-partitions-install: --ufm: UFM is told by its sync script" \
	-- "$INST" --ufm "$EXT" --pid-file "$SIM_OPENSM_PID_FILE" "$TEST_TMP/r1.conf"
echo 'lab=0x0300, ipoib : 0x0002c903000c0001=full ;' >>"$EXT"
assert_refused --rc 1 "an operator's own partition in the user extension" \
	"the installed partitions.conf holds partitions one-ib did not write: lab \(0x0300\)" \
	-- "$PART" render --static "$TEST_TMP/static.conf" --installed "$EXT" "$TEST_TMP/cloud.xml"
test_done
