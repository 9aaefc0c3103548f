#!/bin/bash
# A crash in the middle of save, restore or a live migration (the kvm-ib
# script killed while the stock script runs) leaves leases whose VFs no
# domain holds, or a reservation on the destination; the monitoring probe's
# reconcile (after the grace period) heals each host: a lease whose VM has
# no domain here, and whose action is dead, goes (unmapped); a lease whose
# VM's domain is still here stays, whatever the clocks say (the VM runs
# without it after a crashed save or migration, and its next action takes
# it: the save or migration again). A reservation stays while the
# migration may still be coming: within the grace period, or while the
# VM's domain on the destination is paused; then it goes. After the heal
# the actions work again. The grace is over when the ledger says so
# (ledger_age: both clocks say taken long ago) and the grace is 1 s.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)

probe() { # HOST: the host/monitor probe, as monitord runs it
	on "$1" sh /var/tmp/one/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh kvm-ib 1 "$1" </dev/null
}
grace() { # HOST SECONDS: ONEIB_RECONCILE_GRACE on HOST
	on "$1" sed -i "s/^ONEIB_RECONCILE_GRACE=.*/ONEIB_RECONCILE_GRACE=$2/" \
		/var/tmp/one/etc/vmm/kvm-ib/kvm-ibrc
}
age() { # HOST: every lease there taken long ago (ledger_age)
	on "$1" bash -c "$(declare -f ledger_age); ledger_age"
}
leases() { # HOST VMID: "VF state" of the VM's leases there
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r ".leases[] | select(.vm == $2) | \"\(.vf) \(if .reserved then \"reserved\" else \"leased\" end)\""
}

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 on hv1"
hosts_consistent "deployed"

# --- crash in the middle of a save: the VFs are out of the domain, leased
inject crash-in-save
assert_match "^SAVE FAILURE" "$(one_save 42)" "save, killed half-way"
uninject crash-in-save
assert_eq 2 "$(leases hv1 42 | grep -c leased)" "the leases are still there"
assert_eq 0 "$(on hv1 virsh dumpxml one-42 | grep -c '<hostdev')" "the domain runs without its VFs"
probe hv1 >/dev/null
assert_eq 2 "$(leases hv1 42 | grep -c leased)" "within the grace period reconcile keeps them"
grace hv1 1
age hv1
probe hv1 >/dev/null
assert_eq 2 "$(leases hv1 42 | grep -c leased)" \
	"after it too: the VM's domain is here (it runs without them until its next action)"
assert_eq "SAVE SUCCESS" "$(one_save 42)" "the save again works"
hosts_consistent "saved"

# --- crash in the middle of a restore: VFs leased and programmed, no domain
grace hv1 600
inject crash-in-restore
assert_match "^RESTORE FAILURE" "$(one_restore 42 hv1)" "restore, killed half-way"
uninject crash-in-restore
assert_eq 2 "$(leases hv1 42 | grep -c leased)" "leases without a domain"
probe hv1 >/dev/null
assert_eq 2 "$(leases hv1 42 | grep -c leased)" "kept within the grace period"
grace hv1 1
age hv1
probe hv1 >/dev/null
hosts_consistent "after the crashed restore, reconcile"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "the restore again works"
cloud_agrees "restored"

# --- crash in the middle of a live migration: the source's VFs out of the
# domain, a reservation on the destination
grace hv1 600
inject crash-in-migrate
assert_match "^MIGRATE FAILURE" "$(one_migrate 42 hv2)" "migration, killed half-way"
uninject crash-in-migrate
assert_eq 2 "$(leases hv2 42 | grep -c reserved)" "hv2 holds two reservations"
probe hv2 >/dev/null
assert_eq 2 "$(leases hv2 42 | grep -c reserved)" "kept within the grace period"
grace hv1 1
grace hv2 1
age hv1
age hv2
probe hv1 >/dev/null
probe hv2 >/dev/null
assert_eq 2 "$(leases hv1 42 | grep -c leased)" "the source's leases stay: the VM's domain is there"
assert_eq "" "$(leases hv2 42)" "the reservations went"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "the migration again works"
cloud_agrees "migrated"

# --- a reservation stays while the VM's domain is paused on its way in
one_vm_new 44 0/02:00:c0:a8:01:0a/5
action_xml 44 >"$TEST_TMP/a44.xml"
assert_ok "a reservation for VM 44 on hv1" -- on hv1 bash -c \
	"/var/tmp/one/vmm/kvm-ib/vfs reserve 44 <'$TEST_TMP/a44.xml'"
domain_xml 44 >"$TEST_TMP/d44.xml"
on hv1 virsh create "$TEST_TMP/d44.xml" >/dev/null && on hv1 virsh suspend one-44 >/dev/null
age hv1
probe hv1 >/dev/null
assert_eq reserved "$(leases hv1 44 | cut -d' ' -f2)" "kept while the incoming domain is paused, grace or not"
on hv1 virsh resume one-44 >/dev/null
probe hv1 >/dev/null
assert_eq "" "$(leases hv1 44)" "released once the domain runs without it"
on hv1 virsh destroy one-44 >/dev/null
hosts_consistent "the end of VM 44"

# --- a reservation left behind, then the VM deployed there: an ordinary lease
one_vm_new 45 0/02:00:c0:a8:01:0b/5
action_xml 45 >"$TEST_TMP/a45.xml"
on hv1 bash -c "/var/tmp/one/vmm/kvm-ib/vfs reserve 45 <'$TEST_TMP/a45.xml'"
assert_eq reserved "$(leases hv1 45 | cut -d' ' -f2)" "VM 45 has a reservation on hv1"
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 45 hv1)" "deploy of VM 45 on hv1"
assert_eq leased "$(leases hv1 45 | cut -d' ' -f2)" "the reservation became its lease"
cloud_agrees "the end"
test_done
