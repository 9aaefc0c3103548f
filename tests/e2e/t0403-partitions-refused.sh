#!/bin/bash
# What nothing gets past. A cloud listing that is not what oned prints (no
# host pool, cut short, text between the documents, a DOCTYPE, a host whose
# PF GUID is none) makes the renderer refuse with one line and render
# nothing. A file that is not exactly what the renderer writes (edited by
# hand, '\r', a name opensm would cut, bytes after a NUL, two copies of a
# partition, a tenant VF made a full member of the default partition,
# ALL=full) makes the root installer refuse with one line, and nothing is
# installed: the file opensm reads, its backup and the directory are as
# they were, nobody is signalled, and the running opensm keeps the last
# good partitions (a broken file would put every port in the default
# partition, reference §5.3).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

cloud_start_vms >"$TEST_TMP/vms.xml"
cloud_hosts >"$TEST_TMP/hosts.xml"
cloud_vnets >"$TEST_TMP/vnets.xml"
cat "$TEST_TMP/vms.xml" "$TEST_TMP/hosts.xml" "$TEST_TMP/vnets.xml" >"$TEST_TMP/good.xml"
"$PART" render "$TEST_TMP/good.xml" >"$TEST_TMP/good.conf" || die "cannot render"
cloud_fabric "$TEST_TMP/good.conf"
cp "$TEST_TMP/good.conf" "$SIM_PARTITIONS.bak"
dir=$(dirname "$SIM_PARTITIONS")

# What must not change: the file opensm reads, its backup (names, inodes,
# times, sizes), and nobody signalled.
state() {
	snap "$dir" | grep 'partitions\.conf'
	[ ! -e "$TEST_TMP/reloaded" ] || echo "signalled"
}
before=$(state)
sweeps=$(sim_opensm_sweeps)

# --- the renderer: listings that are not what oned prints

# unrendered WHY REGEX FILE: refused, exit 1, no file rendered
unrendered() {
	assert_refused --rc 1 "$1" "^oneib-partitions: render: $2" -- "$PART" render "$3"
}

bad() { # NAME SED-SCRIPT -> $TEST_TMP/NAME.xml from the good listing
	sed "$2" "$TEST_TMP/good.xml" >"$TEST_TMP/$1.xml"
	cmp -s "$TEST_TMP/good.xml" "$TEST_TMP/$1.xml" && die "bad $1: sed changed nothing"
}

bad guid 's/0x0002c90300001001/0x0002c9030000100g/'
unrendered "malformed host GUID" "HOST 1 \(node01\): IB_PF PORT_GUID '0x0002c9030000100g' is not a GUID$" "$TEST_TMP/guid.xml"
bad nohosts '/<HOST_POOL>/,/<\/HOST_POOL>/d'
unrendered "no host listing" "no <HOST_POOL> in the input" "$TEST_TMP/nohosts.xml"
bad truncated '/<\/VNET_POOL>/d'
unrendered "truncated listing" ".*<VNET_POOL> has no end tag$" "$TEST_TMP/truncated.xml"
bad garbage '/<HOST_POOL>/i oneadmin@fe:~$ onehost list -x'
unrendered "text between the listings" ".*: byte [0-9]+: expected <VM_POOL>, <HOST_POOL> or <VNET_POOL>$" "$TEST_TMP/garbage.xml"
bad doctype '1i <!DOCTYPE VM_POOL [<!ENTITY x SYSTEM "file:///etc/shadow">]>'
unrendered "a DOCTYPE" ".*: byte 1: expected <VM_POOL>" "$TEST_TMP/doctype.xml"
bad twice 's|<VNET><ID>7</ID>|<VNET><ID>5</ID>|'
unrendered "a network listed twice" "VNET pool: VNET 5 listed twice$" "$TEST_TMP/twice.xml"

# --- the root installer: only the renderer's exact text

# refused WHY REGEX FILE [ARGS...]: refused, nothing installed or signalled
refused() {
	local why=$1 re=$2 in=$3
	shift 3
	assert_refused --state state "$why" "^oneib-partitions-install: $re" -- "$INST" \
		--output "$SIM_PARTITIONS" --reload-cmd "touch $TEST_TMP/reloaded" "$@" "$in"
}

cloud_listing "$CLOUD_VM10" >"$TEST_TMP/small.xml"
"$PART" render "$TEST_TMP/small.xml" >"$TEST_TMP/small.conf" || die "cannot render small"
edit() { # NAME SED-SCRIPT -> $TEST_TMP/NAME.conf from small.conf
	sed "$2" "$TEST_TMP/small.conf" >"$TEST_TMP/$1.conf"
	cmp -s "$TEST_TMP/small.conf" "$TEST_TMP/$1.conf" && die "edit $1: sed changed nothing"
}
edit hand '/^Default/a # added by hand'
refused "a comment added by hand" ".*: partitions.conf line 4: not as oneib-partitions writes it .*; nothing installed$" \
	"$TEST_TMP/hand.conf"
edit crlf 's/$/\r/'
refused "CRLF line ends" ".*: partitions.conf line 3: byte 0x0d is not printable ASCII \(a carriage return: opensm reads it as part of a word\); nothing installed$" "$TEST_TMP/crlf.conf"
edit longname 's/^vnet5_tenant-a=/vnet5_tenant-a-and-a-much-longer-name=/'
refused "a name opensm would cut" ".*: partitions.conf line 5: partition vnet5_tenant-a-and-a-much-longe \(0x0101\), marked one-ib's, is not as oneib-partitions writes it: its name is longer than the 31 characters opensm keeps; nothing installed$" \
	"$TEST_TMP/longname.conf"
edit semicolon 's/=full ;$/=full/'
refused "a missing ';'" ".*: partitions.conf line [0-9]+: '[^']*' is no port GUID .* \(a ';' missing before it\?\); nothing installed$" "$TEST_TMP/semicolon.conf"
{ cat "$TEST_TMP/small.conf"; printf '\0'; echo 'x=0x0999 : ALL=full ;'; } >"$TEST_TMP/nul.conf"
refused "bytes after a NUL" ".*: partitions.conf line [0-9]+: byte 0x00 is not printable ASCII; nothing installed$" "$TEST_TMP/nul.conf"
cat "$TEST_TMP/small.conf" "$TEST_TMP/small.conf" >"$TEST_TMP/double.conf"
refused "a file twice" ".*: partitions.conf line 13: the default partition given twice \(line 3, one-ib's, and here, one-ib's\); nothing installed$" "$TEST_TMP/double.conf"
: >"$TEST_TMP/empty.conf"
refused "an empty file" ".*: partitions.conf line 1: not as oneib-partitions writes it .*; nothing installed$" "$TEST_TMP/empty.conf"
# a tenant VF made a full member of what is not its network's partition
# (the default one, or one marked as the operator's): refused by root too
edit tenantfull 's/^Default=0x7fff, ipoib : ALL=limited, SELF=full ;$/Default=0x7fff, ipoib : ALL=limited, SELF=full, 0x02000000000a0000=full ;/'
refused "a tenant VF full in the default partition" ".*: partitions.conf line 3: 0x02000000000a0000 \(VM 10 NIC 0\) is a tenant VF's port GUID: never a full member of Default \(0x7fff\); nothing installed$" \
	"$TEST_TMP/tenantfull.conf"
edit allfull 's/ALL=limited/ALL=full/'
refused "ALL=full" ".*: partitions.conf line 3: ALL=full would make every tenant VF a full member of Default \(0x7fff\); nothing installed$" \
	"$TEST_TMP/allfull.conf"

# the target and backup must be plain files
mv "$SIM_PARTITIONS.bak" "$TEST_TMP/bak.saved"
ln -s /etc/passwd "$SIM_PARTITIONS.bak"
before=$(state)
refused "backup is a symlink" ".*partitions.conf.bak: not a regular file; nothing installed$" "$TEST_TMP/small.conf"
rm "$SIM_PARTITIONS.bak"
mv "$TEST_TMP/bak.saved" "$SIM_PARTITIONS.bak"
ln -s "$SIM_PARTITIONS" "$TEST_TMP/link.conf"
assert_fail "an --output symlink is refused" -- "$INST" --output "$TEST_TMP/link.conf" --no-reload "$TEST_TMP/small.conf"
assert_match "link.conf: is a symbolic link, not a file; nothing installed$" "$(cat "$LAST_ERR")" "saying so"

# a directory where the new file cannot be written: old file stays whole
before=$(state)
mount --bind -o ro "$dir" "$dir"
refused "read-only directory" ".*partitions.conf.reload-pending: cannot create a file beside it: Read-only file system; nothing installed$" \
	"$TEST_TMP/small.conf"
assert_fail "read-only directory, no reload" -- "$INST" --output "$SIM_PARTITIONS" --no-reload "$TEST_TMP/small.conf"
assert_match "partitions.conf.bak: cannot create a file beside it: Read-only file system; nothing installed$" \
	"$(cat "$LAST_ERR")" "read-only directory, no reload: the backup is where it stops"
assert_eq "$before" "$(state)" "read-only directory, no reload: untouched"
umount "$dir"

# usage mistakes: exit 2, before anything is read or written
assert_fail "two ways to reload" -- "$INST" --output "$SIM_PARTITIONS" --no-reload --pid-file x "$TEST_TMP/small.conf"
assert_eq 2 "$LAST_RC" "usage error: exit 2"
assert_fail "no --output" -- "$INST" "$TEST_TMP/small.conf"
assert_eq 2 "$LAST_RC" "no --output: exit 2"
assert_fail "--output equal to --backup" -- "$INST" --output "$SIM_PARTITIONS" --backup "$SIM_PARTITIONS" "$TEST_TMP/small.conf"
assert_eq 2 "$LAST_RC" "--backup = --output: exit 2"
assert_fail "no input" -- "$INST" --output "$SIM_PARTITIONS"
assert_eq 2 "$LAST_RC" "no input: exit 2"
assert_eq "$before" "$(state)" "usage errors changed nothing"

# verify's numbers
assert_refused --rc 2 "verify --port 0" "^oneib-partitions: --port '0': not a port number \(1-254\)$" -- \
	"$PART" verify --port 0 --conf "$TEST_TMP/good.conf"
assert_refused --rc 2 "verify --timeout +5" "^oneib-partitions: --timeout '\+5': not a timeout in ms \(1-60000\)$" -- \
	"$PART" verify --timeout +5 --conf "$TEST_TMP/good.conf"

# opensm kept the last good partitions all along
assert_eq "$sweeps" "$(sim_opensm_sweeps)" "opensm was never made to sweep"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm never saw a broken file"
assert_ok "the fabric is still in the last good state" -- sim_client sm "$PART" verify --conf "$TEST_TMP/good.conf"
test_done
