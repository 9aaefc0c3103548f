#!/bin/bash
# A save or a live migration that outlasts the grace period: the
# monitoring probe's reconcile runs in the middle of it, with every lease
# older than the grace on both clocks (the ledger written so, grace 1 s),
# and must not release the leases the action has detached from the domain
# (the VM's domain is still on the host: design decision 5), nor the
# destination's reservations while the incoming domain waits paused. At
# the end the cloud agrees with oned, and a migration that fails after such
# a reconcile puts the same VFs back in the domain.
#
# The probe runs from hooks at the point of the stock action: before the
# stock save's virsh save (run-in-save, the VFs already out of the
# domain), and in the stand-in virsh's migration while the domain is
# paused on the destination (run-in-migration; libvirt 9.0's test driver
# has no migration, tests/lib/standin/virsh stands in for it).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)

for h in hv1 hv2; do
	on "$h" sed -i "s/^ONEIB_RECONCILE_GRACE=.*/ONEIB_RECONCILE_GRACE=1/" /var/tmp/one/etc/vmm/kvm-ib/kvm-ibrc
done
# The hook: on each host, the grace long over for every lease, the probe
# (reconcile), then VM 42's leases there, "HOST leased N reserved N".
cat >"$TEST_TMP/midway" <<'EOF'
#!/bin/bash
for h in hv1 hv2; do
	"$SIM_BIN/ssh" "$h" '
		[ ! -e /var/lib/one/ib/leases ] ||
			flock /var/lib/one/ib/leases.lock sed -i -E "s/ since=[0-9]+/ since=0/; s/ up=[0-9]+/ up=0/" /var/lib/one/ib/leases
		sh /var/tmp/one/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh kvm-ib 1 host </dev/null >/dev/null
		/var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib' |
		jq -r --arg h "$h" '[.leases[] | select(.vm == 42)] |
			"\($h) leased \([.[] | select(.reserved | not)] | length) reserved \([.[] | select(.reserved)] | length)"'
done >>"$(dirname "$0")/midway.out"
EOF
chmod +x "$TEST_TMP/midway"
midway() { # the hook's last two lines, one
	tail -n 2 "$SIM_HOSTS/inject/midway.out" | paste -sd ';'
}
vfs_of() { # HOST VMID: the VFs its domain holds
	on "$1" /var/tmp/one/ib/bin/oneib-vf hostdevs --vm "$2" --held | cut -d' ' -f1 | sort | paste -sd ' '
}

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (two IB NICs) on hv1"

# --- a save outlasting the grace
cp "$TEST_TMP/midway" "$SIM_HOSTS/inject/run-in-save"
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend, reconcile in the middle of it"
rm -f "$SIM_HOSTS/inject/run-in-save"
assert_eq "hv1 leased 2 reserved 0;hv2 leased 0 reserved 0" "$(midway)" \
	"reconcile kept the two leases the save had detached"
cloud_agrees "suspended"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
cloud_agrees "resumed"

# --- a live migration outlasting the grace
cp "$TEST_TMP/midway" "$SIM_HOSTS/inject/run-in-migration"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "live migration to hv2, reconcile in the middle of it"
assert_eq "hv1 leased 2 reserved 0;hv2 leased 0 reserved 2" "$(midway)" \
	"reconcile kept the source's detached leases and the destination's reservations"
cloud_agrees "migrated to hv2"

# --- the same, and the migration fails after it: the same VFs go back in
before=$(vfs_of hv2 42)
inject migrate-fails
assert_match "^MIGRATE FAILURE" "$(one_migrate 42 hv1)" "a failing migration back to hv1, reconcile in the middle of it"
uninject migrate-fails
rm -f "$SIM_HOSTS/inject/run-in-migration"
assert_eq "hv1 leased 0 reserved 2;hv2 leased 2 reserved 0" "$(midway)" "reconcile kept both sides"
assert_eq "$before" "$(vfs_of hv2 42)" "the VM runs on hv2 with the VFs it had"
cloud_agrees "failed migration"
test_done
