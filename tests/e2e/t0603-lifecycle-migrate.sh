#!/bin/bash
# Live migration (onevm migrate --live, resched) of a VM with two
# InfiniBand NICs between two simulated hosts through kvm-ib, run as
# one_vmm_exec runs it (vnm pre on the destination, migrate on the source
# - or migrate_local on the front-end -, vnm clean on the source, vnm post
# on the destination). After every step the domains' hostdevs, both
# ledgers, the VFs' GUID state and the partitions model agree with oned's
# view:
#   success: the VFs, the GUIDs (the NICs' own) and the partition follow
#            the VM; the source's VFs are unmapped and free; the domain
#            held no VF while it moved; again (a retry): succeeds, no change;
#   no VF free on the destination: fails before anything is touched;
#   the migration fails inside libvirt: the VM runs on the source with its
#            VFs attached again, the destination's reservation freed;
# and the other ways a VM changes host: cold migration (poweroff, then
# resume elsewhere: shutdown + deploy) and the save-based migration of a
# running VM (save + restore elsewhere, also what resched does without
# LIVE_RESCHEDS).
# The test driver has no migration: tests/lib/standin/virsh stands in for
# `virsh migrate`, refusing a domain that holds a PCI hostdev as libvirt
# does and validating the domain XML it moves with the QEMU driver.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
detaches() { grep -c 'validated detach-device' "$SIM_HOSTS/standin.log"; }

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
one_vm_new 43 0/02:00:c0:a8:01:06/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (two IB NICs) on hv1"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 43 hv2)" "deploy of VM 43 on hv2"
cloud_agrees "deployed"
members5=$(partition_vm_members 5)

# --- live migration hv1 -> hv2
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "live migration of VM 42 to hv2"
cloud_agrees "migrated to hv2"
assert_match "^validated migrate .* to hv2$" "$(grep 'migrate' "$SIM_HOSTS/standin.log" | tail -n 1)" \
	"the domain moved without a hostdev (libvirt refuses one)"
assert_eq "$members5" "$(partition_vm_members 5)" "the partition of VNET 5 has the same members"
assert_ok "migrate again (a retry): there already, succeeds" -- again
cloud_agrees "migrate again"

# --- back, with migrate_local (from the front-end)
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv1 local)" "migrate_local of VM 42 back to hv1"
cloud_agrees "migrated back to hv1"

# --- no VF free on the destination: nothing is touched
occupy hv2 legacy-db 0000:3b:00.2 0000:3b:00.3 0000:3b:00.4 0000:3b:00.5 0000:3b:00.6 0000:3b:00.7
n=$(detaches)
out=$(one_migrate 42 hv2)
assert_match "^MIGRATE FAILURE: hv2: no free VF on 0000:3b:00.0 port 1 for VM 42 \(7 of 7 leased\)$" "$out" \
	"no VF free on the destination: one line naming it"
assert_eq "$n" "$(detaches)" "nothing was detached on the source"
on hv2 virsh destroy legacy-db >/dev/null
cloud_agrees "migration refused"

# --- the migration itself fails: the VM stays, its VFs attached again
before=$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 | sort)
inject migrate-fails
out=$(one_migrate 42 hv2)
uninject migrate-fails
assert_match "^MIGRATE FAILURE: Error mirgating VM .* to host hv2: .*Broken pipe" "$out" \
	"a migration failing inside libvirt"
assert_eq "$before" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 --held | sort)" \
	"the same VFs are in the domain on hv1 again"
assert_eq "" "$(on hv2 /var/tmp/one/ib/bin/oneib-vf list --format=json | jq -r '.leases[] | select(.vm == 42) | .vf')" \
	"the reservation on hv2 is freed"
cloud_agrees "failed migration"

# --- cold migration: poweroff on hv1, resume on hv2
assert_eq "SHUTDOWN SUCCESS" "$(one_shutdown 42)" "poweroff"
cloud_agrees "powered off"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv2)" "resume on hv2 after migrate --poweroff"
cloud_agrees "cold-migrated to hv2"

# --- save-based migration of a running VM: save on hv2, restore on hv1
assert_eq "SAVE SUCCESS" "$(one_save 42 "3 8")" "save (SAVE_MIGRATE)"
# PROLOG_MIGRATE: the partitions keep the VM's GUIDs for the coming boot
hosts_consistent "saved for the migration"
assert_eq "" "$(grep "VM 42 " "$TEST_TMP/real.view")" "no VF held, leased or programmed for it anywhere"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "restore on hv1 (BOOT_MIGRATE)"
cloud_agrees "save-migrated to hv1"
test_done
