#!/bin/bash
# Two tenants on a fabric of four hosts and two switches (data/fabric-
# tenants.net; node02 runs VMs of both), whose networks hand out the same
# addresses: VM 10 (tenant a) and VM 11 (tenant b) have one MAC. The
# renderer, unprivileged, gives every NIC its own GUID from its VM and NIC
# ID (decision 2), the root installer takes the file and signals opensm;
# after the sweep every port holds exactly the P_Keys the rules give it
# (each VF only its own tenant's), the SA has paths inside a tenant and
# none across, and `verify` finds no drift. Rendering again changes
# nothing and signals nobody. With --legacy-guids the old MAC GUID both
# NICs share would be one port in two partitions: both are left out and
# named, the other tenants' NICs keep both GUIDs.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PART=$TOP/build/bin/oneib-partitions
INST=$TOP/build/bin/oneib-partitions-install

cloud_fabric # a cloud without tenants yet: the default partition only
cp "$SIM_PARTITIONS" "$TEST_TMP/before.conf"
assert_eq "0x7fff" "$(cloud_pkeys node02-vf0)" "before: a VF holds only the default partition"

cloud_listing "${CLOUD_START[@]}" >"$TEST_TMP/cloud.xml"
assert_eq "$(cut -d/ -f5 <<<"$CLOUD_VM10")" "$(cut -d/ -f5 <<<"$CLOUD_VM11")" \
	"VMs 10 and 11, of two tenants, have the same MAC"
assert_ok "render, unprivileged" -- sh -c 'setpriv --reuid=nobody --regid=nogroup \
	--clear-groups "$1" render <"$2"' sh "$PART" "$TEST_TMP/cloud.xml"
cp "$LAST_OUT" "$TEST_TMP/rendered.conf"
assert_eq "" "$(cat "$LAST_ERR")" "nothing left out, no warning"
n=$(sim_opensm_sweeps)
assert_ok "the root installer takes the rendered file on standard input" -- \
	sh -c '"$1" --output "$2" --pid-file "$3" - <"$4"' sh "$INST" "$SIM_PARTITIONS" \
	"$SIM_OPENSM_PID_FILE" "$TEST_TMP/rendered.conf"
assert_match "^$SIM_PARTITIONS: installed \(2 partitions, 8 members\), previous file kept as $SIM_PARTITIONS.bak$" \
	"$(cat "$LAST_OUT")" "it says what it installed"
assert_match "^opensm $(cat "$SIM_OPENSM_PID_FILE"): SIGHUP, re-reading $SIM_PARTITIONS$" "$(cat "$LAST_OUT")" \
	"and that it signalled the running opensm"
assert_file_eq "$TEST_TMP/before.conf" "$SIM_PARTITIONS.bak" "the previous file is kept as the backup"
assert_file_eq "$TEST_TMP/rendered.conf" "$SIM_PARTITIONS" "the file is the rendered one, byte for byte"
sim_opensm_wait_sweep "$n"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm parsed the file"

# Decoded members: each VM's NIC in its own tenant's partition only.
assert_ok "list the installed file" -- "$PART" list "$SIM_PARTITIONS"
list=$(cat "$LAST_OUT")
assert_match "^vnet5_tenant-a 0x8101 \(ipoib, mtu 2048\): 4 members$" "$list" "tenant a: named with its ID first"
assert_eq "1" "$(grep -c 'VM 10 NIC 0$' <<<"$list")" "VM 10 NIC 0 is in one partition"
assert_eq "1" "$(grep -c 'VM 11 NIC 0$' <<<"$list")" "VM 11 NIC 0 is in one partition"
assert_eq "0x02000000000a0000  VM 10 NIC 0" \
	"$(sed -n '/^vnet5_/,/^vnet7_/p' <<<"$list" | grep 'VM 10' | sed 's/^ *//')" "VM 10's GUID is in tenant a"
assert_eq "0x02000000000b0000  VM 11 NIC 0" \
	"$(sed -n '/^vnet7_/,$p' <<<"$list" | grep 'VM 11' | sed 's/^ *//')" "VM 11's GUID is in tenant b"

# What each port must hold: the default partition (full on the SM's port),
# and as a full member the partition of every network it is a member of.
declare -A want=(
	[sm]="0xffff"
	[node01]="0x7fff 0x8101 0x8102" # ConnectX-3: every network of its cluster
	[node02]="0x7fff" [node03]="0x7fff" [node04]="0x7fff"
	[node02-vf0]="0x7fff 0x8101" # VM 10, tenant a
	[node02-vf1]="0x7fff 0x8102" # VM 11, tenant b, same host, same MAC
	[node03-vf0]="0x7fff 0x8101" # VM 12, tenant a
	[node04-vf0]="0x7fff 0x8102" # VM 13, tenant b
	[node04-vf1]="0x7fff 0x8101" # VM 14, tenant a
)
for node in "${!want[@]}"; do
	assert_eq "${want[$node]}" "$(cloud_pkeys "$node")" "$node holds exactly ${want[$node]}"
done

# Paths inside a tenant, across switches and on one host.
for pair in node02-vf0:node03-vf0:0x8101 node02-vf0:node04-vf1:0x8101 \
	node03-vf0:node04-vf1:0x8101 node02-vf1:node04-vf0:0x8102 \
	node01:node02-vf0:0x8101 node01:node04-vf0:0x8102; do
	IFS=: read -r a b k <<<"$pair"
	assert_eq "$k" "$(cloud_path_pkey "$a" "$b")" "path $a -> $b in partition $k"
done
# None across tenants, even on one host with one MAC, nor between ports
# sharing only the limited default partition.
for pair in node02-vf0:node02-vf1 node02-vf0:node04-vf0 node03-vf0:node04-vf0 \
	node04-vf1:node02-vf1 node02:node03 node02:node02-vf0 node03:node04-vf1; do
	IFS=: read -r a b <<<"$pair"
	assert_eq "" "$(cloud_path_pkey "$a" "$b")" "no path $a -> $b"
done

assert_ok "verify finds what the file says" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS"
assert_match "^verify: 10 end ports, 2 switches, 2 partitions; 6 member ports in the fabric, 1 not; 0 ports differ; 0 left out$" \
	"$(cat "$LAST_OUT")" "10 end ports checked; VM 15's alias GUID is not a port"
assert_ok "verify against the cloud's XML" -- sim_client sm "$PART" verify "$TEST_TMP/cloud.xml"

# Unchanged cloud: nothing written, nobody signalled.
ino=$(stat -c %i:%Y.%y "$SIM_PARTITIONS")
cp "$SIM_PARTITIONS.bak" "$TEST_TMP/bak"
"$PART" render "$TEST_TMP/cloud.xml" >"$TEST_TMP/again.conf" || die "cannot render"
assert_ok "installing the same cloud again" -- "$INST" --output "$SIM_PARTITIONS" \
	--reload-cmd "touch $TEST_TMP/reloaded" "$TEST_TMP/again.conf"
assert_eq "$SIM_PARTITIONS: unchanged (2 partitions, 8 members)" "$(cat "$LAST_OUT")" "it says unchanged"
assert_eq "$ino" "$(stat -c %i:%Y.%y "$SIM_PARTITIONS")" "the file was not rewritten"
assert_file_eq "$TEST_TMP/bak" "$SIM_PARTITIONS.bak" "the backup is still the previous file"
assert_ok "no reload command ran" -- test ! -e "$TEST_TMP/reloaded"
assert_eq "" "$(find "$(dirname "$SIM_PARTITIONS")" -maxdepth 1 -name 'partitions.conf.*' ! -name '*.bak')" "no temporary file left"

# The upgrade bridge: old MAC-derived GUIDs too. VMs 10 and 11 share one,
# so neither gets it, nor its new one: named, left out, not joined.
assert_ok "render --legacy-guids" -- "$PART" render --legacy-guids "$TEST_TMP/cloud.xml"
cp "$LAST_OUT" "$TEST_TMP/legacy.conf"
assert_eq 2 "$(grep -c '^oneib-partitions: warning: ' "$LAST_ERR")" "two warnings"
assert_match "warning: VM 10 NIC 0: GUID 0x0200c0fffea8010a \(MAC 02:00:c0:a8:01:0a \(old GUID\)\) is also VM 11 NIC 0's, on VNET 7 \(tenant-b\); left out of VNET 5 \(tenant-a\)" \
	"$(cat "$LAST_ERR")" "VM 10 named, with the GUID and the other NIC"
assert_match "warning: VM 11 NIC 0: .* is also VM 10 NIC 0's, on VNET 5 \(tenant-a\); left out of VNET 7 \(tenant-b\)" \
	"$(cat "$LAST_ERR")" "VM 11 named too"
assert_eq "" "$(grep -E '^\s*(0x0200c0fffea8010a|0x02000000000[ab]0000)=' "$TEST_TMP/legacy.conf")" \
	"neither their old nor their new GUID is a member"
assert_match "0x0200c0fffea8010b=full" "$(cat "$TEST_TMP/legacy.conf")" "VM 12's old GUID is"
assert_match "0x02000000000c0000=full" "$(cat "$TEST_TMP/legacy.conf")" "besides its new one"
assert_eq 2 "$(grep -c '^# refused: ' "$TEST_TMP/legacy.conf")" "the file names both, for verify"
test_done
