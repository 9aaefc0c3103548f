#!/bin/bash
# Every action that leases a VF prefers the NUMA node of the VM's pinned
# vCPUs, by the one placement rule deploy uses (host/placement.h): NIC
# hot-plug, restore (here on the other host, a save-based migration) and
# the destination's reservation of a live migration, run as one_vmm_exec
# runs them on two cx5 hosts (PF A 0000:3b:00.0 on node 0, CPUs 0-3; PF B
# 0000:af:00.0 on node 1, CPUs 4-7). VM 42 is pinned to CPUs 4,5 (oned's
# NUMA_NODE in the VM XML, <vcpupin> in its deployment): every VF it gets
# is PF B's. VM 43, not pinned, gets PF A's (the first PF) every time, so
# the checks could fail.
# VM 44 is a q35 VM with two guest NUMA nodes as OpenNebula 7.0 writes it
# (one PCIe expander bus per guest node, guest node 0's memory on host node
# 1): every VF hot-attached to it, by NIC hot-plug or after the migration,
# goes on a port of the expander of the guest node on the VF's host node,
# as deploy puts it there (t0223); the QEMU driver validates each attach
# (the virsh stand-in), so a port taken twice would be refused.
# PF B gets MLNX_OFED's sriov files on both hosts, as PF A has them, so
# its VFs are programmed for real too (rtnetlink needs an IPoIB netdev the
# simulated hosts do not have).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5

numa_host() { # HOST: two nodes, and PF B's VFs programmable like PF A's
	local i d
	on "$1" bash -c numa_two_nodes || die "NUMA nodes on $1"
	for i in 0 1 2 3 4 5 6 7; do
		d=$SIM_HOSTS/$1/host/sys/bus/pci/devices/0000:af:00.0/sriov/$i
		mkdir -p "$d"
		echo 00:00:00:00:00:00:00:00 >"$d/node"
		echo 00:00:00:00:00:00:00:00 >"$d/port"
		echo Follow >"$d/policy"
	done
}
export -f numa_two_nodes
numa_host hv1
numa_host hv2
# The PF of each lease of VM on HOST, by NIC: "0 0000:af:00.0 1 0000:af:00.0"
pfs() { # HOST VM
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r "[.leases[] | select(.vm == $2)] | sort_by(.nic) | map(\"\(.nic) \(.pf)\") | join(\" \")"
}
B=0000:af:00.0 A=0000:3b:00.0

one_vm_new 42 0/02:00:c0:a8:01:05/5
vm_pin 42 1 4,5
one_vm_new 43 0/02:00:c0:a8:01:06/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42, pinned to node 1"
assert_eq "0 $B" "$(pfs hv1 42)" "deploy: VF of node 1's PF"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 43 hv1)" "deploy of VM 43, not pinned"
assert_eq "0 $A" "$(pfs hv1 43)" "deploy, unpinned: the first PF"

# NIC hot-plug
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:05/7)" "attach a NIC to VM 42"
assert_eq "0 $B 1 $B" "$(pfs hv1 42)" "attach_nic: the new NIC's VF on node 1 too"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 43 1/02:00:c0:a8:02:06/7)" "attach a NIC to VM 43"
assert_eq "0 $A 1 $A" "$(pfs hv1 43)" "attach_nic, unpinned: the first PF"

# save here, restore on hv2 (suspend/resume elsewhere, a save-based migration)
for vm in 42 43; do
	assert_eq "SAVE SUCCESS" "$(one_save "$vm")" "save VM $vm"
	assert_eq "RESTORE SUCCESS" "$(one_restore "$vm" hv2)" "restore VM $vm on hv2"
done
assert_eq "0 $B 1 $B" "$(pfs hv2 42)" "restore: both VFs on node 1"
assert_eq "0 $A 1 $A" "$(pfs hv2 43)" "restore, unpinned: the first PF"
assert_eq "" "$(pfs hv1 42)" "nothing left on hv1"

# live migration back to hv1: the destination reserves by the same rule
# (its reservation is what the VM is attached with there)
for vm in 42 43; do
	assert_eq "MIGRATE SUCCESS" "$(one_migrate "$vm" hv1)" "live migration of VM $vm to hv1"
done
assert_eq "0 $B 1 $B" "$(pfs hv1 42)" "migration: the reservation on node 1"
assert_eq "0 $A 1 $A" "$(pfs hv1 43)" "migration, unpinned: the first PF"
hosts_consistent "after the migrations"

# --- VM 44: q35, guest NUMA nodes (7.0's layout)
# The guest bus of the hostdev of VF in domain one-VM on HOST, and the
# chain of controllers up from it: "23:pcie-root-port 20:pcie-expander-bus/0"
ctl() { # HOST VM INDEX XPATH-TAIL
	on "$1" virsh dumpxml "one-$2" --xpath "//devices/controller[@type='pci'][@index='$3']$4" 2>/dev/null |
		sed -E '/^[[:space:]]*$/d; s/^[[:space:]]+//' |
		sed -E "s/^[a-zA-Z]+=[\"'](.*)[\"']\$/\1/; s/^<[^>]*>([^<]*)<.*/\1/" | head -n 1
}
guest_node_of() { # HOST VM VF: the guest NUMA node its port hangs off, or "-"
	local b=${3#*:} s f bus m n=0
	s=${b#*:} b=${b%%:*} f=${s#*.} s=${s%.*}
	bus=$(on "$1" virsh dumpxml "one-$2" --xpath \
		"//devices/hostdev[source/address[@bus='0x$b'][@slot='0x$s'][@function='0x$f']]/address/@bus" 2>/dev/null |
		sed -n "s/.*bus=[\"']\(0x[0-9a-f]*\)[\"'].*/\1/p")
	[ -n "$bus" ] || { echo -; return; }
	bus=$((bus))
	while [ $n -lt 6 ] && [ "$bus" != 0 ]; do
		m=$(ctl "$1" "$2" "$bus" /@model)
		[ "$m" = pcie-expander-bus ] && { ctl "$1" "$2" "$bus" /target/node; return; }
		bus=$(($(ctl "$1" "$2" "$bus" /address/@bus)))
		n=$((n + 1))
	done
	echo -
}
vfs_of() { # HOST VM: its leased VFs, by NIC
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r "[.leases[] | select(.vm == $2)] | sort_by(.nic) | .[].vf"
}
one_vm_new 44 0/02:00:c0:a8:01:07/5
vm_pin 44 1 4,5
vm_q35 44
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 44 hv1)" "deploy of VM 44 (q35, two guest NUMA nodes)"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 44 1/02:00:c0:a8:02:07/7)" "attach a NIC to VM 44"
mapfile -t v44 < <(vfs_of hv1 44)
assert_match "^0000:af:" "${v44[1]}" "the hot-plugged NIC's VF is node 1's"
assert_eq 0 "$(guest_node_of hv1 44 "${v44[1]}")" \
	"hot-plugged: on guest NUMA node 0, whose memory is on host node 1"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 44 hv2)" "live migration of VM 44 to hv2"
mapfile -t v44 < <(vfs_of hv2 44)
# Its deployment pins the vCPUs to both host nodes (4,5,0,1), so deploy
# gave NIC 0 the first PF's VF (rail 0); a migration keeps each NIC on the
# rail it had where the destination has it (design decision 15), before
# the NUMA preference: NIC 0 stays on rail 0 (PF A, host node 0, guest
# node 1), NIC 1 on rail 1 (PF B, host node 1, guest node 0).
assert_eq "0 $A 1 $B" "$(pfs hv2 44)" "after the migration: each NIC on the rail it had"
assert_eq "1 0" "$(guest_node_of hv2 44 "${v44[0]}") $(guest_node_of hv2 44 "${v44[1]}")" \
	"each VF attached on the guest NUMA node of its host node"
assert_eq 3 "$(grep -c 'validated attach-device .*<address type="pci" domain="0x0000" bus="0x\(1[78]\|2[3-6]\)"' "$SIM_HOSTS/standin.log")" \
	"each of those attaches, with its guest slot, validated by the QEMU driver"

# The destination's reservation itself, as migrate asks it over ssh: VFs
# of node 1, set aside (not programmed) until the VM comes.
action_xml 42 hv2 >"$TEST_TMP/migr.xml"
reserve() { on hv2 /var/tmp/one/vmm/kvm-ib/vfs reserve 42 <"$TEST_TMP/migr.xml"; }
assert_ok "reserve on hv2 for VM 42" -- reserve
assert_eq "0 $B 1 $B" "$(pfs hv2 42)" "the reservation: node 1's VFs"
assert_eq "true true" "$(on hv2 /var/tmp/one/ib/bin/oneib-vf list --format=json |
	jq -r '[.leases[] | select(.vm == 42) | .reserved] | map(tostring) | join(" ")')" "held as reservations"
assert_ok "and released" -- on hv2 /var/tmp/one/vmm/kvm-ib/vfs release 42
assert_eq "" "$(pfs hv2 42)" "nothing left on hv2"
test_done
