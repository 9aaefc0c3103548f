#!/bin/bash
# Installing partitions.conf is durable in the right order, read from the
# system calls of a real install (strace): the previous file is first kept
# whole as the backup, then the new text is written to a temporary file
# beside partitions.conf, fsync'ed, renamed over it, and the directory
# fsync'ed. Without the fsync before the rename, a power loss can leave
# opensm an empty or partial partitions.conf, i.e. every tenant partition
# gone and every port in the default one (issue 14, item 3). With a
# reload, the mark that makes the next run retry it is made durable before
# the file changes and removed only after opensm was told.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
. "$TOP/tests/lib/durable.sh"

# The command that installs partitions (run by sh -c, $1 = the file to
# install, $2 how to tell opensm, the cloud's listing on stdin): the unprivileged renderer piped
# into the root installer, as the hook runs them. Only the calls on the
# file's directory are checked, so the renderer in the pipeline does not
# matter; change this one line if the install moves again.
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install
[ -x "$PART" ] && [ -x "$INST" ] || die "oneib-partitions(-install) not built"
export PART INST
# shellcheck disable=SC2016 # expanded by sh -c, not here
PARTITIONS_INSTALL=${PARTITIONS_INSTALL:-'"$PART" render - | "$INST" "$2" --output "$1" -'}

D=$TEST_TMP/opensm
mkdir "$D"
install_traced() { # LOG LISTING [RELOAD-OPTION]
	durable_trace "$1" sh -c "$PARTITIONS_INSTALL" sh "$D/partitions.conf" "${3:---no-reload}" \
		<"$2" >"$1.out" 2>&1
}

cloud_listing "$CLOUD_VM10" "$CLOUD_VM11" >"$TEST_TMP/c1.xml"
cloud_listing "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" >"$TEST_TMP/c2.xml"

# --- first install: no file yet -----------------------------------------------
install_traced "$TEST_TMP/first" "$TEST_TMP/c1.xml"
assert_eq 0 $? "first install succeeds"
assert_eq "$(durable_replace partitions.conf)" "$(durable_steps "$TEST_TMP/first" "$D")" \
	"first install: write, fsync(file), rename, fsync(directory)"
assert_match '=0x0102, ipoib' "$(cat "$D/partitions.conf")" "the file is the cloud's (tenant b's partition)"

# --- a changed cloud: the backup first, then the new file ------------------------
cp "$D/partitions.conf" "$TEST_TMP/c1.conf"
install_traced "$TEST_TMP/second" "$TEST_TMP/c2.xml"
assert_eq 0 $? "second install succeeds"
assert_eq "$(durable_replace partitions.conf.bak; durable_replace partitions.conf)" \
	"$(durable_steps "$TEST_TMP/second" "$D")" \
	"second install: the backup, then the file, each write, fsync(file), rename, fsync(directory)"
assert_file_eq "$TEST_TMP/c1.conf" "$D/partitions.conf.bak" "the backup is the previous file"
assert_fail "the file has changed (VM 12's port)" -- cmp -s "$TEST_TMP/c1.conf" "$D/partitions.conf"

# --- with opensm told: the pending mark is durable before the file changes,
# and removed (durably) only after the reload ------------------------------------
cp "$D/partitions.conf" "$TEST_TMP/c2.conf"
# (the reload command writes a line beside the file, so it shows in order)
install_traced "$TEST_TMP/reload" "$TEST_TMP/c1.xml" --reload-cmd="echo told >>$D/reloaded"
assert_eq 0 $? "install with a reload succeeds"
assert_eq "$(durable_replace partitions.conf.reload-pending
	durable_replace partitions.conf.bak
	durable_replace partitions.conf
	echo "write reloaded"
	echo "unlink partitions.conf.reload-pending"
	echo "fsync .")" "$(durable_steps "$TEST_TMP/reload" "$D")" \
	"with a reload: the mark, the backup, the file, the reload, then the mark removed"
assert_eq told "$(cat "$D/reloaded")" "opensm was told once"
rm "$D/reloaded"
assert_file_eq "$TEST_TMP/c2.conf" "$D/partitions.conf.bak" "the backup is the previous file"

# --- the same cloud again: nothing written at all ---------------------------------
install_traced "$TEST_TMP/third" "$TEST_TMP/c1.xml"
assert_eq 0 $? "third install succeeds"
assert_eq "" "$(durable_steps "$TEST_TMP/third" "$D")" "an unchanged file: no write, no rename"
assert_eq "partitions.conf partitions.conf.bak" "$(ls "$D" | tr '\n' ' ' | sed 's/ $//')" "no temporary file left"
test_done
