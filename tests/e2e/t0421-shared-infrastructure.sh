#!/bin/bash
# Infrastructure keeps its fabric; tenants reach only what the operator
# exposes (design decision 11), on the real opensm over an ibsim fabric of
# hypervisor PF ports, tenant VFs (mlx5 GUIDs 02:CC:VM:NIC), two storage
# servers and a login node (data/fabric-shared.net). The operator's static
# file puts the storage servers and the login node in infra (0x0105);
# ONEIB_HOSTS_PARTITION=infra adds every cloud host's PF port. Checked on
# the SA's path records and the P_Key tables opensm programmed:
# - a path between two hypervisor PF ports, and between the login node and
#   a storage server, in infra;
# - none between a tenant VF and a hypervisor PF port or a storage server
#   in any partition the tenant did not get on purpose, and none between
#   two tenants' VFs in the default partition (tenant VFs are limited
#   members there, and only the SM is full);
# - a host added to the cloud joins infra at the next render;
# - with a partition one-ib did not write installed and no static file,
#   the hook installs nothing and fails with one line naming it and the
#   page to read (one-ib-fabric(7)); once the static file holds it, the hook installs.
# (P_Key enforcement on traffic cannot be checked without a data path: the
# SA's answers are what a port can ask for. opensm-facts §9, §10.)
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

shared_start
assert_match "^# from: the static file, with the cloud's hosts$" "$(cat "$SIM_PARTITIONS")" \
	"infra is marked as the operator's, with the hosts added"

# the P_Keys opensm programmed: infra on the hosts, servers and login node
declare -A want=(
	[sm]="0xffff" [node01]="0x0109 0x7fff 0x8101 0x8102 0x8105"
	[node02]="0x7fff 0x8105" [node03]="0x7fff 0x8105" [node04]="0x7fff"
	[stor1]="0x7fff 0x8105 0x8109 0x8200" [stor2]="0x7fff 0x8105 0x8109 0x8200"
	[login]="0x7fff 0x8105"
	[vm10-nic0]="0x7fff 0x8101" [vm10-nic1]="0x0109 0x7fff"
	[vm13-nic0]="0x7fff 0x8102"
)
for node in "${!want[@]}"; do
	assert_eq "${want[$node]}" "$(shared_pkeys "$node")" "$node holds ${want[$node]}"
done

# infrastructure reaches itself
assert_eq 0x8105 "$(shared_path node02 node03)" "PF port -> PF port: in infra"
assert_eq 0x8105 "$(shared_path node01 node02 0x8105)" "the ConnectX-3 PF port too"
assert_eq 0x8105 "$(shared_path login stor1)" "login node -> storage server: in infra"
assert_eq 0x8105 "$(shared_path stor2 login 0x8105)" "storage server -> login node, asked in infra"

# tenants reach none of it, in no partition; a ConnectX-3 PF port is a
# member of its cluster's tenant partitions on purpose (its VFs share its
# table: design decision 7), and of nothing else with them
for vf in vm10-nic0 vm11-nic0 vm12-nic0 vm13-nic0; do
	for infra in node02 node03 stor1 stor2 login; do
		assert_eq "" "$(shared_path "$vf" "$infra")" "no path $vf -> $infra"
	done
	assert_eq "" "$(shared_path "$vf" node01 0x8105)" "no path $vf -> node01 in infra"
	assert_eq "" "$(shared_path "$vf" node01 0xffff)" "nor in the default partition"
done
assert_eq 0x8101 "$(shared_path vm10-nic0 node01)" "node01 and tenant a: in tenant a's partition"
assert_eq "" "$(shared_path vm10-nic1 node02)" "the storage NIC reaches no PF port"
assert_eq "" "$(shared_path vm10-nic1 login)" "nor the login node"
assert_eq "" "$(shared_path vm10-nic1 stor1 0x8105)" "nor a storage server in infra"
assert_eq "" "$(shared_path vm10-nic1 stor1 0xffff)" "nor in the default partition"
# nor each other over the default partition
for pk in 0xffff 0x7fff; do
	assert_eq "" "$(shared_path vm10-nic0 vm11-nic0 "$pk")" "no path between two tenants' VFs in $pk"
	assert_eq "" "$(shared_path vm10-nic0 vm12-nic0 "$pk")" "nor between one tenant's two VFs in $pk"
done
assert_eq 0x8101 "$(shared_path vm10-nic0 vm12-nic0)" "a tenant reaches itself in its own partition"
assert_eq 0xffff "$(shared_path sm vm13-nic0 0xffff)" "the SM, full in the default partition, reaches every port"

assert_ok "verify: the fabric is as rendered" -- sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" \
	--opensm-conf "$TEST_TMP/fabric/opensm.conf"
assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "no drift, nothing left out"

# a host joins the cloud: its PF port joins infra at the next render
assert_eq "" "$(shared_path node04 node02)" "before: node04 reaches no hypervisor"
SH_HOSTS="node01 node02 node03 node04" shared_listing "$TEST_TMP/cloud.xml"
shared_render_install "$TEST_TMP/cloud.xml"
assert_eq "0x7fff 0x8105" "$(shared_pkeys node04)" "node04's port joined infra"
assert_eq 0x8105 "$(shared_path node04 node02)" "and reaches the other hypervisors"
assert_eq "" "$(shared_path node04 vm10-nic0)" "and no tenant"

# --- adoption: what one-ib did not write is never dropped
shared_hook
cp "$TEST_TMP/cloud.xml" "$TEST_TMP/all.xml"
SH_HOSTS="node01 node02 node03 node04" shared_vms >"$TEST_TMP/vms.xml"
SH_HOSTS="node01 node02 node03 node04" shared_hosts node01 node02 node03 node04 >"$TEST_TMP/hosts.xml"
shared_vnets >"$TEST_TMP/vnets.xml"
cat >"$TEST_TMP/hand.conf" <<'EOS'
Default=0x7fff, ipoib : ALL=full ;
lab=0x0300, ipoib : 0x0002c903000c0001=full, 0x248a070300002001=full ;
EOS
n=$(sim_opensm_sweeps)
cp "$TEST_TMP/hand.conf" "$SIM_PARTITIONS"
sim_opensm_reread
assert_eq 0x8300 "$(shared_path login node02)" "a site running a partition of its own: lab"
sed -i '/^ONEIB_PARTITIONS_STATIC=/d' "$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc"
sed -i '/^ONEIB_HOSTS_PARTITION=/d' "$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc"
state() { snap "$(dirname "$SIM_PARTITIONS")" | grep 'partitions\.conf'; }
n=$(sim_opensm_sweeps)
assert_refused --rc 1 --state state "no static file, a partition one-ib did not write" \
	"^oneib-partitions: render: the installed partitions.conf holds partitions one-ib did not write: lab \(0x0300\), Default \(0x7fff\); move them into the static file \(ONEIB_PARTITIONS_STATIC\), then run again \(one-ib-fabric\(7\)\)$" \
	-- run_hook
assert_eq "$n" "$(sim_opensm_sweeps)" "opensm was not told anything"
assert_eq 0x8300 "$(shared_path login node02)" "lab still works"

# the operator moves them into the static file: adopted, kept, installed
{
	echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;'
	echo 'lab=0x0300, ipoib : 0x0002c903000c0001=full, 0x248a070300002001=full ;'
	shared_static | grep -v '^Default='
} >"$TEST_TMP/static.conf"
printf 'ONEIB_PARTITIONS_STATIC=%s\nONEIB_HOSTS_PARTITION=infra\n' "$TEST_TMP/static.conf" \
	>>"$TEST_TMP/inst/var/lib/one/remotes/etc/vnm/ib/ibrc"
n=$(sim_opensm_sweeps)
assert_ok "with the static file holding them: installed" -- run_hook
assert_match "^$SIM_PARTITIONS: installed \(6 partitions, " "$(cat "$LAST_OUT")" "says so"
sim_opensm_wait_sweep "$n"
assert_eq 0x8300 "$(shared_path login node02)" "lab kept"
assert_eq "" "$(shared_path vm10-nic0 vm11-nic0 0xffff)" "and tenants no longer share a full default partition"
assert_eq 0x8105 "$(shared_path node04 node03)" "infra as before"
test_done
