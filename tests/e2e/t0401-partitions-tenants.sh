#!/bin/bash
# Two tenants on a fabric of four hosts and two switches (data/fabric-
# tenants.net; node02 runs VMs of both): `oneib-pkey partitions` renders
# the cloud's XML, installs the file opensm reads and signals opensm; after
# the sweep every port holds exactly the P_Keys the rules give it, the SA
# has paths inside a tenant and none across, and `verify` finds no drift.
# Rendering again changes nothing and signals nobody.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
sim_host none
PK=$TOP/build/bin/oneib-pkey

cloud_fabric # a cloud without tenants yet: the default partition only
cp "$SIM_PARTITIONS" "$TEST_TMP/before.conf"
assert_eq "0x7fff" "$(cloud_pkeys node02-vf0)" "before: a VF holds only the default partition"

cloud_listing "$CLOUD_VM10" "$CLOUD_VM11" "$CLOUD_VM12" "$CLOUD_VM13" \
	"$CLOUD_VM14" "$CLOUD_VM15" >"$TEST_TMP/cloud.xml"
n=$(sim_opensm_sweeps)
assert_ok "partitions installs the rendered file (pools on standard input)" -- \
	sh -c '"$1" partitions --output "$2" - <"$3"' sh "$PK" "$SIM_PARTITIONS" "$TEST_TMP/cloud.xml"
assert_match "^$SIM_PARTITIONS: installed \(2 partitions, 8 members\), previous file kept as $SIM_PARTITIONS.bak$" \
	"$(cat "$LAST_OUT")" "it says what it installed"
assert_match "^opensm: SIGHUP to 1 process, re-reading" "$(cat "$LAST_OUT")" "and that it signalled the running opensm"
assert_file_eq "$TEST_TMP/before.conf" "$SIM_PARTITIONS.bak" "the previous file is kept as the backup"
sim_opensm_wait_sweep "$n"
assert_eq "" "$(grep 'Partition configuration in error' "$SIM_OPENSM_LOG")" "opensm parsed the file"

# What each port must hold: the default partition (full on the SM's port),
# and as a full member the partition of every network it is a member of.
declare -A want=(
	[sm]="0xffff"
	[node01]="0x7fff 0x8101 0x8102" # ConnectX-3: every network of its cluster
	[node02]="0x7fff" [node03]="0x7fff" [node04]="0x7fff"
	[node02-vf0]="0x7fff 0x8101" # VM 10, tenant a
	[node02-vf1]="0x7fff 0x8102" # VM 11, tenant b, same host
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
# None across tenants, even on one host, nor between ports sharing only the
# limited default partition.
for pair in node02-vf0:node02-vf1 node02-vf0:node04-vf0 node03-vf0:node04-vf0 \
	node04-vf1:node02-vf1 node02:node03 node02:node02-vf0 node03:node04-vf1; do
	IFS=: read -r a b <<<"$pair"
	assert_eq "" "$(cloud_path_pkey "$a" "$b")" "no path $a -> $b"
done

assert_ok "verify finds what the file says" -- sim_client sm "$PK" verify --conf "$SIM_PARTITIONS"
assert_match "^verify: 10 end ports, 2 switches, 2 partitions; 6 member ports in the fabric, 1 not; 0 ports differ$" \
	"$(cat "$LAST_OUT")" "10 end ports checked; VM 15's alias GUID is not a port"
assert_ok "verify against the cloud's XML" -- sim_client sm "$PK" verify "$TEST_TMP/cloud.xml"

# Unchanged cloud: nothing written, nobody signalled.
ino=$(stat -c %i:%Y.%y "$SIM_PARTITIONS")
cp "$SIM_PARTITIONS.bak" "$TEST_TMP/bak"
assert_ok "rendering the same cloud again" -- "$PK" partitions --output "$SIM_PARTITIONS" \
	--reload-cmd "touch $TEST_TMP/reloaded" "$TEST_TMP/cloud.xml"
assert_eq "$SIM_PARTITIONS: unchanged (2 partitions, 8 members)" "$(cat "$LAST_OUT")" "it says unchanged"
assert_eq "$ino" "$(stat -c %i:%Y.%y "$SIM_PARTITIONS")" "the file was not rewritten"
assert_file_eq "$TEST_TMP/bak" "$SIM_PARTITIONS.bak" "the backup is still the previous file"
assert_ok "no reload command ran" -- test ! -e "$TEST_TMP/reloaded"
assert_eq "" "$(ls "$(dirname "$SIM_PARTITIONS")" | grep 'partitions.conf\.' | grep -v '\.bak$')" "no temporary file left"
test_done
