#!/bin/bash
# A cloud listing that would give a wrong or unreadable partitions.conf is
# refused with one line naming the object and the reason, and nothing is
# installed: the file opensm reads, its backup and the directory are as
# they were, nobody is signalled, and the running opensm keeps the last
# good partitions (a broken file would put every port in the default
# partition, reference §5.3).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PK=$TOP/build/bin/oneib-pkey

cloud_start_vms >"$TEST_TMP/vms.xml"
cloud_hosts >"$TEST_TMP/hosts.xml"
cloud_vnets >"$TEST_TMP/vnets.xml"
cat "$TEST_TMP/vms.xml" "$TEST_TMP/hosts.xml" "$TEST_TMP/vnets.xml" >"$TEST_TMP/good.xml"
"$PK" partitions "$TEST_TMP/good.xml" >"$TEST_TMP/good.conf" || die "cannot render"
cloud_fabric "$TEST_TMP/good.conf"
cp "$TEST_TMP/good.conf" "$SIM_PARTITIONS.bak"
dir=$(dirname "$SIM_PARTITIONS")

state() { # what must not change
	(cd "$dir" && ls -i partitions.conf* && sha256sum partitions.conf*)
}
before=$(state)
sweeps=$(sim_opensm_sweeps)

# refused WHY REGEX FILE [ARGS...]: one line on stderr matching REGEX, exit 1
refused() {
	local why=$1 re=$2 in=$3
	shift 3
	assert_fail "$why: refused" -- "$PK" partitions --output "$SIM_PARTITIONS" \
		--reload-cmd "touch $TEST_TMP/reloaded" "$@" "$in"
	assert_eq 1 "$(wc -l <"$LAST_ERR")" "$why: one line"
	assert_match "^oneib-pkey: partitions: $re" "$(cat "$LAST_ERR")" "$why: names the object and the reason"
	assert_eq "$before" "$(state)" "$why: file, backup and directory untouched"
	assert_ok "$why: nobody signalled" -- test ! -e "$TEST_TMP/reloaded"
}

bad() { # NAME SED-SCRIPT -> $TEST_TMP/NAME.xml from the good listing
	sed "$2" "$TEST_TMP/good.xml" >"$TEST_TMP/$1.xml"
	cmp -s "$TEST_TMP/good.xml" "$TEST_TMP/$1.xml" && die "bad $1: sed changed nothing"
}

bad collision 's/0x8102/0x8101/'
refused "P_Key collision" "VNET 7 \(tenant-b\): IB_PKEY is partition 0x0101, already used by VNET 5 \(tenant-a\)$" \
	"$TEST_TMP/collision.xml"
bad default 's/0x8102/0x7fff/'
refused "default P_Key" "VNET 7 \(tenant-b\): IB_PKEY '0x7fff' is the default partition$" "$TEST_TMP/default.xml"
bad fullkey 's/0x8102/0xffff/'
refused "default P_Key, full form" "VNET 7 \(tenant-b\): IB_PKEY '0xffff' is the default partition$" "$TEST_TMP/fullkey.xml"
bad mac 's/02:00:c0:a8:01:0c/02:00:c0:a8:01:zz/'
refused "malformed MAC" "VM 12 NIC 0: malformed MAC '02:00:c0:a8:01:zz'$" "$TEST_TMP/mac.xml"
bad guid 's/0x0002c90300001001/0x0002c9030000100g/'
refused "malformed host GUID" "HOST 1 \(node01\): IB_PF PORT_GUID '0x0002c9030000100g' is not a GUID$" "$TEST_TMP/guid.xml"
bad nohosts '/<HOST_POOL>/,/<\/HOST_POOL>/d'
refused "no host listing" "no <HOST_POOL> in the input" "$TEST_TMP/nohosts.xml"
bad truncated '/<\/VNET_POOL>/d'
refused "truncated listing" ".*<VNET_POOL> has no end tag$" "$TEST_TMP/truncated.xml"
bad garbage '/<HOST_POOL>/i oneadmin@fe:~$ onehost list -x'
refused "text between the listings" ".*: byte [0-9]+: expected <VM_POOL>, <HOST_POOL> or <VNET_POOL>$" "$TEST_TMP/garbage.xml"
bad doctype '1i <!DOCTYPE VM_POOL [<!ENTITY x SYSTEM "file:///etc/shadow">]>'
refused "a DOCTYPE" ".*: byte 1: expected <VM_POOL>" "$TEST_TMP/doctype.xml"

# the target and backup must be plain files
mv "$SIM_PARTITIONS.bak" "$TEST_TMP/bak.saved"
ln -s /etc/passwd "$SIM_PARTITIONS.bak"
cloud_listing "$CLOUD_VM10" >"$TEST_TMP/small.xml"
before=$(state)
refused "backup is a symlink" ".*partitions.conf.bak: not a regular file; nothing installed$" "$TEST_TMP/small.xml"
rm "$SIM_PARTITIONS.bak"
mv "$TEST_TMP/bak.saved" "$SIM_PARTITIONS.bak"
ln -s "$SIM_PARTITIONS" "$TEST_TMP/link.conf"
assert_fail "an --output symlink is refused" -- "$PK" partitions --output "$TEST_TMP/link.conf" --no-reload "$TEST_TMP/small.xml"
assert_match "link.conf: is a symbolic link, not a file; nothing installed$" "$(cat "$LAST_ERR")" "saying so"

# a directory where the new file cannot be written: old file stays whole
before=$(state)
mount --bind -o ro "$dir" "$dir"
refused "read-only directory" ".*partitions.conf.bak: cannot create a file beside it: Read-only file system; nothing installed$" \
	"$TEST_TMP/small.xml"
umount "$dir"

# opensm kept the last good partitions all along
assert_eq "$sweeps" "$(sim_opensm_sweeps)" "opensm was never made to sweep"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm never saw a broken file"
assert_ok "the fabric is still in the last good state" -- sim_client sm "$PK" verify --conf "$TEST_TMP/good.conf"
test_done
