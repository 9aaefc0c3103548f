#!/bin/bash
# What a failure in the middle of a resume or a live migration leaves,
# looked at while it happens and after, on two simulated hosts:
#   - a live migration keeps the source's VFs leased and programmed until
#     the migration has succeeded: while it is in flight the source still
#     holds both leases (a VF released before could be handed to another
#     VM, and a failed migration would bring the VM back to other VFs, or
#     none); the destination holds reservations only, unprogrammed;
#   - the stock restore failing (libvirt refuses the image): the VFs the
#     restore had just leased and programmed are released and unmapped,
#     the checkpoint untouched;
#   - the destination's attach failing after the migration itself
#     succeeded: the VM runs there (oned must know where), without its
#     InfiniBand, and the destination's VFs are released and unmapped;
#   - a live migration to the host the VM runs on: oned refuses it; where
#     it lets it through to the driver (a live move to another system
#     datastore of that host, DS_LIVE_MIGRATION), kvm-ib refuses it before
#     touching anything: libvirt would refuse it, and the stock migrate's
#     cleanup after that destroys the domain on the "destination", the VM.
# The test driver lacks restore --xml and migration: tests/lib/standin/virsh
# stands in (restore-fails, migrate-fails, attach-fails and a hook while a
# migration is in flight, run-in-migration).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
SIM_IB_PF=0000:3b:00.0 # programmable here (MLNX_OFED files)
CKPT=$TEST_TMP/shared-ds/0/42/checkpoint

# The hook: VM 42's leases on each host, and the VFs programmed there with
# its GUIDs, as "HOST leased N reserved N programmed N".
cat >"$SIM_HOSTS/inject/look" <<'EOF'
#!/bin/bash
for h in hv1 hv2; do
	n=$("$SIM_BIN/ssh" "$h" 'cat /sys/bus/pci/devices/*/sriov/*/port 2>/dev/null | tr -d : | grep -c "^02000000002a000[01]$"')
	"$SIM_BIN/ssh" "$h" '/var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib' |
		jq -r --arg h "$h" --arg n "$n" '[.leases[] | select(.vm == 42)] |
			"\($h) leased \([.[] | select(.reserved | not)] | length) reserved \([.[] | select(.reserved)] | length) programmed \($n)"'
done >>"$SIM_HOSTS/inject/look.out"
EOF
chmod +x "$SIM_HOSTS/inject/look"
looked() { tail -n 2 "$SIM_HOSTS/inject/look.out" | paste -sd ';'; }
vfs_of() { # HOST VMID: the VFs its domain holds
	on "$1" /var/tmp/one/ib/bin/oneib-vf hostdevs --vm "$2" --held | cut -d' ' -f1 | sort | paste -sd ' '
}

one_vm_new 42 0/02:00:c0:a8:01:05/5 1/02:00:c0:a8:02:05/7
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (two IB NICs) on hv1"
sh "$SIM_HOSTS/inject/look"
assert_eq "hv1 leased 2 reserved 0 programmed 2;hv2 leased 0 reserved 0 programmed 0" "$(looked)" \
	"the hook sees what runs"

# --- in flight, the source keeps its VFs; a failure brings the same back
cp "$SIM_HOSTS/inject/look" "$SIM_HOSTS/inject/run-in-migration"
before=$(vfs_of hv1 42)
inject migrate-fails
assert_match "^MIGRATE FAILURE" "$(one_migrate 42 hv2)" "a migration to hv2 that libvirt fails"
uninject migrate-fails
assert_eq "hv1 leased 2 reserved 0 programmed 2;hv2 leased 0 reserved 2 programmed 0" "$(looked)" \
	"while it was in flight: the source's VFs leased and programmed, reservations on hv2"
assert_eq "$before" "$(vfs_of hv1 42)" "the VM runs on hv1 with the VFs it had"
cloud_agrees "failed migration"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "the migration to hv2"
assert_eq "hv1 leased 2 reserved 0 programmed 2;hv2 leased 0 reserved 2 programmed 0" "$(looked)" \
	"in flight: the same"
rm -f "$SIM_HOSTS/inject/run-in-migration"
cloud_agrees "migrated to hv2"

# --- the stock restore fails: what it leased and programmed goes again
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend on hv2"
sum=$(md5sum <"$CKPT")
inject restore-fails
assert_match "^RESTORE FAILURE: Could not restore" "$(one_restore 42 hv1)" "resume on hv1, libvirt refuses the image"
uninject restore-fails
sh "$SIM_HOSTS/inject/look"
assert_eq "hv1 leased 0 reserved 0 programmed 0;hv2 leased 0 reserved 0 programmed 0" "$(looked)" \
	"no VF leased or programmed for VM 42 anywhere"
assert_eq "$sum" "$(md5sum <"$CKPT")" "the checkpoint is untouched"
cloud_agrees "failed restore"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
cloud_agrees "resumed on hv1"

# --- the destination's attach fails after the migration
inject attach-fails
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv2)" "migration to hv2, attaching there refused"
uninject attach-fails
assert_eq "" "$(vfs_of hv2 42)" "the VM runs on hv2 without VFs"
sh "$SIM_HOSTS/inject/look"
assert_eq "hv1 leased 0 reserved 0 programmed 0;hv2 leased 0 reserved 0 programmed 0" "$(looked)" \
	"no VF leased, reserved or programmed for it on either host"
hosts_consistent "attach refused after the migration"

# --- back to a VM with its VFs, then a live migration to its own host
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv1)" "resume on hv1"
cloud_agrees "resumed on hv1 with VFs"
before=$(vfs_of hv1 42)
n=$(grep -c '' "$TEST_TMP/steps.log")
assert_eq "MIGRATE FAILURE: VM is already running on Host [1]" "$(one_migrate 42 hv1)" \
	"oned refuses a live migration to the VM's own host"
assert_eq "$n" "$(grep -c '' "$TEST_TMP/steps.log")" "no driver step ran"
detaches=$(grep -c 'detach-device' "$SIM_HOSTS/standin.log")
for local in "" 1; do
	out=$(SIM_DS_LIVE_MIGRATION=1 one_migrate 42 hv1 $local)
	assert_eq "MIGRATE FAILURE: VM 42: cannot migrate live to hv1, the host it runs on (libvirt refuses it); nothing changed" \
		"$out" "let through to the driver${local:+ (migrate_local)}: refused, one line"
	assert_eq "$before" "$(vfs_of hv1 42)" "the VM runs on with its VFs"
	assert_eq "$detaches" "$(grep -c 'detach-device' "$SIM_HOSTS/standin.log")" "none was detached"
	assert_eq "" "$(grep 'refused migrate' "$SIM_HOSTS/standin.log")" "the stock migrate was not run"
	cloud_agrees "same-host migration${local:+ (migrate_local)}"
done
test_done
