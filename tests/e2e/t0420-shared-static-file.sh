#!/bin/bash
# The operator's partitions are kept (design decision 11), through the
# front-end hook, the root installer and the real opensm:
# - a static file with a site partition (storage) and infrastructure
#   members (infra, the hosts added by ONEIB_HOSTS_PARTITION) survives any
#   number of renders in meaning (same keys, members, flags), whatever the
#   cloud does meanwhile, and each rendered file says where each partition
#   came from;
# - a network that asks for a key of the static file (set by oneadmin
#   after vnet_create refused it, t0320) is left out with one warning, and
#   the operator's partition is not touched;
# - a hostile or broken static file (a tenant VF full, or a member of the
#   hosts' partition at all, ALL=full, a key a tenant network holds, a file
#   opensm refuses or reads past its text, a partition without a key) makes
#   the hook fail with one line naming the line and why, and nothing is
#   installed: the file opensm reads, its backup, and opensm all as they
#   were;
# - the upgrade: a cloud whose installed file one-ib wrote before the
#   origin marks, with no static file, keeps working: installed, same
#   partitions.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

shared_fabric
shared_hook
shared_vms >"$TEST_TMP/vms.xml"
shared_hosts >"$TEST_TMP/hosts.xml"
shared_vnets >"$TEST_TMP/vnets.xml"

# the operator's partitions as the installed file has them, for comparing
static_meaning() {
	"$PART" list "$SIM_PARTITIONS" |
		awk '/^refused:/ { next } /^[A-Za-z]/ { keep = $0 ~ /the static file/ } keep'
}
"$PART" list "$TEST_TMP/static.conf" >"$TEST_TMP/static.list" || die "cannot list the static file"

n=$(sim_opensm_sweeps)
assert_ok "first run" -- run_hook
assert_match "^$SIM_PARTITIONS: installed \(5 partitions, " "$(cat "$LAST_OUT")" "installed"
assert_eq "" "$(cat "$LAST_ERR")" "no warning"
sim_opensm_wait_sweep "$n"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm parsed it"
static_meaning >"$TEST_TMP/first.list"
assert_match "^storage 0x8200 \(ipoib; the static file's\): 2 members$" "$(cat "$TEST_TMP/first.list")" "storage carried"
assert_match "^infra 0x8105 \(ipoib; the static file's, with the hosts\): 6 members$" \
	"$(cat "$TEST_TMP/first.list")" "infra carried, with the 3 hosts' PF ports"
assert_eq "$(sed -n '/^storage /,$p' "$TEST_TMP/static.list")" \
	"$(sed -n '/^storage /,$p' "$TEST_TMP/first.list" | sed 's/; the static file.s//')" \
	"storage is the static file's, member for member"
for origin in "one-ib" "the static file" "the static file, with the cloud's hosts"; do
	assert_match "^# from: $origin$" "$(cat "$SIM_PARTITIONS")" "a partition marked: from $origin"
done
assert_eq "$(grep -c '^[A-Za-z]' "$SIM_PARTITIONS")" "$(grep -c '^# from: ' "$SIM_PARTITIONS")" \
	"every partition says where it came from"

# the cloud changes, again and again: the operator's partitions do not
for vms in "10/node02/5,9" "10/node02/5,9 12/node03/5 13/node03/7" "14/node03/7,9" ""; do
	# shellcheck disable=SC2086
	shared_vms $vms >"$TEST_TMP/vms.xml"
	[ -n "$vms" ] || echo '<VM_POOL/>' >"$TEST_TMP/vms.xml"
	assert_ok "run with VMs '$vms'" -- run_hook
	static_meaning >"$TEST_TMP/again.list"
	assert_file_eq "$TEST_TMP/first.list" "$TEST_TMP/again.list" \
		"VMs '$vms': the static partitions, same keys, members and flags"
done
shared_vms >"$TEST_TMP/vms.xml"
assert_ok "back to the start" -- run_hook
cp "$SIM_PARTITIONS" "$TEST_TMP/good.conf"

# a network oneadmin gave a key of the static file: left out, one warning
sed 's|<IB_PKEY><!\[CDATA\[0x8102\]\]></IB_PKEY>|<IB_PKEY><![CDATA[0x8200]]></IB_PKEY>|' \
	"$TEST_TMP/vnets.xml" >"$TEST_TMP/vnets.new" && mv "$TEST_TMP/vnets.new" "$TEST_TMP/vnets.xml"
assert_ok "a network asking for storage's key: the hook still installs" -- run_hook
assert_eq "oneib-partitions: warning: VNET 7 (tenant-b): IB_PKEY 0x8200 is partition 0x0200, the static file's (storage); left out, its installed partition 0x0102 kept" \
	"$(cat "$LAST_ERR")" "one warning naming the network and the reason"
static_meaning >"$TEST_TMP/again.list"
assert_file_eq "$TEST_TMP/first.list" "$TEST_TMP/again.list" "storage untouched"
assert_eq "" "$(shared_path vm11-nic0 stor1 0x8200)" "tenant b's VM is no member of storage"
shared_vnets >"$TEST_TMP/vnets.xml"
assert_ok "fixed again" -- run_hook
sim_opensm_settle # every sweep asked for so far over before the refusals count them

# hostile or broken static files: one line, nothing installed
state() {
	snap "$(dirname "$SIM_PARTITIONS")" | grep 'partitions\.conf'
	sim_opensm_sweeps
}
shared_static >"$TEST_TMP/static.good"
hostile() { # WHY REGEX SED-SCRIPT
	sed "$3" "$TEST_TMP/static.good" >"$TEST_TMP/static.conf"
	cmp -s "$TEST_TMP/static.good" "$TEST_TMP/static.conf" && die "hostile $1: sed changed nothing"
	assert_refused --rc 1 --state state "$1" \
		"^oneib-partitions: render: $TEST_TMP/static.conf line $2$" \
		-- run_hook
}
hostile "a tenant VF full in infra" "9: 0x02000000000b0000 \(VM 11 NIC 0\) is a tenant VF's port GUID: never a full member of the operator's infra \(0x0105\)" \
	's/# login$/# login\n    , 0x02000000000b0000 ;/; s/^\(    0x0002C903000C0001\) ;/\1/'
hostile "a tenant VF limited in the hosts' partition" "9: 0x02000000000b0000 \(VM 11 NIC 0\) is a tenant VF's port GUID: no member of ONEIB_HOSTS_PARTITION infra, whose hypervisors it would reach" \
	's/# login$/# login\n    , 0x02000000000b0000=limited ;/; s/^\(    0x0002C903000C0001\) ;/\1/'
hostile "ALL=full" "3: ALL=full would make every tenant VF a full member of Default \(0x7fff\)" \
	's/^Default=0x7fff, ipoib : ALL=limited/Default=0x7fff, ipoib : ALL=full/'
hostile "ALL_CAS with defmember=full" "10: ALL_CAS=full would make every tenant VF a full member of storage \(0x0200\)" \
	's/^storage=0x0200, ipoib :/storage=0x0200, ipoib, defmember=full : ALL_CAS,/'
hostile "a tenant network's key" "10: partition storage takes P_Key 0x0101, the installed partition of VNET 5 \(tenant-a\): give the operator's partition another key" \
	's/^storage=0x0200/storage=0x0101/'
hostile "a ';' missing" "6: 'infra' is no port GUID \(0x..., or decimal\) and no member keyword: opensm refuses the file \(a ';' missing before it\?\)" \
	's/=full ;$/=full/'
hostile "a lone ';' (opensm reads past it)" "9: ';' with nothing before it: .*" \
	's/^\(    0x0002C903000C0001\) ;/\1\n;/'
hostile "a partition without a key (opensm makes one up)" "10: partition storage has no P_Key: .*" \
	's/^storage=0x0200, ipoib :/storage, ipoib :/'
assert_file_eq "$TEST_TMP/good.conf" "$SIM_PARTITIONS" "the last good file is still installed"
assert_eq 0x8105 "$(shared_path node02 stor1)" "and in force"
cp "$TEST_TMP/static.good" "$TEST_TMP/static.conf"

# the upgrade: the file one-ib wrote before the origin marks (what
# render writes, less them), installed; no static file, two tenants
sed -i '/^ONEIB_PARTITIONS_STATIC=/d; /^ONEIB_HOSTS_PARTITION=/d' "$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc"
shared_vms 10/node02/5 11/node02/7 12/node03/5 13/node03/7 >"$TEST_TMP/vms.xml"
shared_vnets | grep -v '<ID>9</ID>' >"$TEST_TMP/vnets.xml"
cat "$TEST_TMP/vms.xml" "$TEST_TMP/hosts.xml" "$TEST_TMP/vnets.xml" >"$TEST_TMP/old.xml"
"$PART" render "$TEST_TMP/old.xml" | grep -v '^# from: ' >"$SIM_PARTITIONS"
sim_opensm_reread
"$PART" list "$SIM_PARTITIONS" >"$TEST_TMP/before.list"
assert_ok "upgraded, no static file: the hook installs" -- run_hook
assert_match "^$SIM_PARTITIONS: installed \(2 partitions, 6 members\)" "$(cat "$LAST_OUT")" "rewritten with the marks"
"$PART" list "$SIM_PARTITIONS" >"$TEST_TMP/after.list"
assert_file_eq "$TEST_TMP/before.list" "$TEST_TMP/after.list" "the same partitions, members and flags"
assert_eq 0x8101 "$(shared_path vm10-nic0 vm12-nic0)" "tenant a as before"
test_done
