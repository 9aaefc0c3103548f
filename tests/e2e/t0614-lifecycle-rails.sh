#!/bin/bash
# A NIC keeps its rail (design decision 15) through every action that
# moves its VM or leases a VF again, run as one_vmm_exec runs them on two
# hosts of two rails each (gpu2: rail 0 PF 0000:18:00.0, rail 1 PF
# 0000:98:00.0, 8 VFs each):
# - VM 42's NIC 0 gets rail 1 on hv1 (rail 0 full); the live migration to
#   hv2, where rail 0 is free, keeps it on rail 1 (the source tells the
#   destination's reservation each NIC's rail);
# - a save there and the restore on hv1 (rail 0 free again) keep it too:
#   the save leaves the rails beside the checkpoint, the restore takes them
#   and removes the file;
# - a NIC hot-plugged on the same network as a NIC on rail 0 takes rail 1,
#   one on another network rail 0;
# - migrations of those VMs keep each NIC on its rail.
# Without the rails each of these would have given NIC 0 rail 0, so the
# checks could fail.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs gpu2

# Both PFs programmable (MLNX_OFED's sriov files: rtnetlink needs an IPoIB
# netdev the simulated hosts do not have).
ofed() { # HOST
	local pf i d
	for pf in 0000:18:00.0 0000:98:00.0; do
		for i in 0 1 2 3 4 5 6 7; do
			d=$SIM_HOSTS/$1/host/sys/bus/pci/devices/$pf/sriov/$i
			mkdir -p "$d"
			echo 00:00:00:00:00:00:00:00 >"$d/node"
			echo 00:00:00:00:00:00:00:00 >"$d/port"
			echo Follow >"$d/policy"
		done
	done
}
ofed hv1
ofed hv2
# The rail of each lease of VM on HOST, by NIC: "0:1 1:0"
rails() { # HOST VM
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r "[.leases[] | select(.vm == $2)] | sort_by(.nic) |
			map(\"\(.nic):\(if .pf == \"0000:18:00.0\" then 0 else 1 end)\") | join(\" \")"
}

# rail 0 of hv1 full
for vm in 1 2 3 4 5 6 7 8; do
	one_vm_new $vm "0/02:00:c0:a8:09:0$vm/9"
	assert_eq "DEPLOY SUCCESS" "$(SIM_IB_PF=0000:18:00.0 one_deploy_vm $vm hv1)" "filler VM $vm on rail 0 of hv1"
done
one_vm_new 42 0/02:00:c0:a8:01:05/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 on hv1"
assert_eq "0:1" "$(rails hv1 42)" "NIC 0 on rail 1 (rail 0 full)"
for vm in 1 2 3 4 5 6 7 8; do
	assert_eq "CANCEL SUCCESS" "$(one_cancel $vm)" "filler VM $vm gone"
done

# --- live migration to hv2, every rail free there
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "live migration of VM 42 to hv2"
assert_eq "0:1" "$(rails hv2 42)" "NIC 0 still on rail 1"
assert_match "vfs reserve 42 0=1 " "$(grep 'vfs reserve 42' "$SIM_HOSTS/ssh.log" | tail -n 1)" \
	"the destination was told the rail"
cloud_agrees "migrated"

# --- save on hv2, restore on hv1 (rail 0 free there too)
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend on hv2"
assert_eq "0=1" "$(cat "$TEST_TMP/shared-ds/0/42/oneib-rails")" "the rails beside the checkpoint"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
assert_eq "0:1" "$(rails hv1 42)" "NIC 0 still on rail 1"
assert_fail "the rails file is gone with the checkpoint" -- test -e "$TEST_TMP/shared-ds/0/42/oneib-rails"
cloud_agrees "restored"

# --- hot-plug: a sibling on the same network takes the other rail
one_vm_new 43 0/02:00:c0:a8:01:06/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 43 hv1)" "deploy of VM 43 on hv1"
assert_eq "0:0" "$(rails hv1 43)" "its NIC 0 on rail 0"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 43 1/02:00:c0:a8:02:06/5)" "attach NIC 1 on network 5"
assert_eq "0:0 1:1" "$(rails hv1 43)" "NIC 1 on rail 1: distinct from NIC 0's"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 43 2/02:00:c0:a8:03:06/6)" "attach NIC 2 on network 6"
assert_eq "0:0 1:1 2:0" "$(rails hv1 43)" "NIC 2, another network: the first rail"
cloud_agrees "hot-plugged"

# --- the three migrate, each on its rail; and VM 42's two NICs back
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:05/5)" "attach NIC 1 to VM 42"
assert_eq "0:1 1:0" "$(rails hv1 42)" "VM 42's NIC 1: rail 0"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 43 hv2)" "live migration of VM 43 to hv2"
assert_eq "0:0 1:1 2:0" "$(rails hv2 43)" "each NIC on the rail it had"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "live migration of VM 42 to hv2"
assert_eq "0:1 1:0" "$(rails hv2 42)" "each NIC on the rail it had, NIC 0 on rail 1 still"
cloud_agrees "migrated again"
test_done
