#!/bin/bash
# NIC hot-plug of InfiniBand NICs (onevm nic-attach / nic-detach) through
# kvm-ib, run as one_vmm_exec runs it (vnm pre, attach_nic, vnm post,
# prereconfigure, reconfigure; detach_nic, vnm clean, ...) on a two-host
# simulated cloud. After every step the domain's hostdevs, both ledgers,
# the VFs' GUID state and the partitions model agree with oned's view:
#   attach: a VF leased, programmed with VM/NIC's GUID, hot-attached as a
#           plain PCI <hostdev>; again: nothing more; no VF free: one line,
#           nothing changed; libvirt refusing: nothing left; a failing
#           prereconfigure: one_vmm_exec's detach_nic takes it back;
#   detach: the VF out of the domain, then unmapped and released; again:
#           nothing to do; the VF already gone: just released; a detach the
#           guest does not complete: FAILURE, lease and VF kept, the leases'
#           time (when they were leased) unchanged;
#   a NIC on another network: the stock scripts.
# libvirt's test driver has no hot-plug: tests/lib/standin/virsh stands in
# for attach-device / detach-device, validating each device XML with the
# QEMU driver (attach-device / detach-device --config on a copy of the
# domain in qemu:///system).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5
# PF A (MLNX_OFED files) can be programmed here; PF B needs an IPoIB netdev
SIM_IB_PF=0000:3b:00.0

held_by() { on "$1" virsh dumpxml "one-$2" | grep -c '<hostdev'; }

one_vm_new 42 0/02:00:c0:a8:01:05/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 (one IB NIC) on hv1"
cloud_agrees "deploy"

# --- attach
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)" "nic-attach of an IB NIC"
cloud_agrees "attach"
assert_eq 2 "$(held_by hv1 42)" "the domain holds two VFs"
dev=$(grep 'validated attach-device' "$SIM_HOSTS/standin.log" | tail -n 1)
assert_match '<hostdev mode="subsystem" type="pci" managed="yes"><source><address [^>]*/></source></hostdev>' \
	"$dev" "a plain managed PCI hostdev, validated by the QEMU driver"
assert_eq 0 "$(on hv1 virsh dumpxml one-42 | grep -c "<interface type='hostdev'")" "never <interface type='hostdev'>"
assert_ok "attach_nic again (a retry)" -- again
cloud_agrees "attach again"
assert_eq 2 "$(held_by hv1 42)" "still two VFs"

# --- detach
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "nic-detach of the IB NIC"
cloud_agrees "detach"
assert_eq 1 "$(held_by hv1 42)" "the domain holds one VF"
assert_ok "detach_nic again (a retry)" -- again
cloud_agrees "detach again"

# --- no VF free on PF A: a domain outside OpenNebula holds the other six
occupy hv1 legacy-db 0000:3b:00.2 0000:3b:00.3 0000:3b:00.4 0000:3b:00.5 0000:3b:00.6 0000:3b:00.7
out=$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)
assert_match "^ATTACHNIC FAILURE: no free VF on 0000:3b:00.0 port 1 for VM 42 \(7 of 7 leased\)$" "$out" \
	"attach with no VF free: one line"
assert_eq 1 "$(held_by hv1 42)" "nothing attached"
on hv1 virsh destroy legacy-db >/dev/null
cloud_agrees "attach with no VF free"

# --- libvirt refuses the device (VFIO): nothing left behind
inject attach-fails
out=$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)
uninject attach-fails
assert_match "^ATTACHNIC FAILURE: VM 42: cannot attach VF 0000:3b:00.2 \(.*\): .*vfio" "$out" "attach refused by libvirt"
cloud_agrees "attach refused by libvirt"

# --- prereconfigure fails after the attach: one_vmm_exec runs detach_nic
inject prereconfigure-fails
out=$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)
uninject prereconfigure-fails
assert_match "^ATTACHNIC FAILURE: Could not prereconfigure" "$out" "prereconfigure failed"
assert_match "detach_nic .* -> 0" "$(tail -n 1 "$TEST_TMP/steps.log")" "and one_vmm_exec's detach_nic took the NIC back"
cloud_agrees "attach undone after prereconfigure"

# --- the VF already gone from the domain (removed behind OpenNebula's back)
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)" "attach"
vf=$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 --nic 1)
printf '%s\n' "${vf#* }" >"$TEST_TMP/gone.xml"
on hv1 virsh detach-device one-42 "$TEST_TMP/gone.xml" >/dev/null
assert_eq 1 "$(held_by hv1 42)" "the VF is gone from the domain"
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "detach when the VF was already gone"
cloud_agrees "detach of a VF already gone"

# --- a detach the guest does not complete: FAILURE, lease kept
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:06/7)" "attach"
on hv1 sed -i 's/^ONEIB_DETACH_TIMEOUT=.*/ONEIB_DETACH_TIMEOUT=1/' /var/tmp/one/etc/vmm/kvm-ib/kvm-ibrc
since_of() { # NIC: the time of VM 42's lease for it
	on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json |
		jq -r ".leases[] | select(.vm == 42 and .nic == $1) | .since"
}
before="$(since_of 0) $(since_of 1)"
# the clock past the leases' time, so that rewriting it would show
later() { [ "$(date +%s)" -gt "$1" ]; }
wait_for 3 later "$(since_of 1)" || die "the clock does not move"
inject detach-stuck
out=$(one_detach_nic 42 1)
uninject detach-stuck
assert_match "^DETACHNIC FAILURE: VM 42: VF 0000:3b:00.2 is still in domain .* 1 s after the detach request" "$out" \
	"a detach that does not complete fails"
assert_eq 2 "$(held_by hv1 42)" "the VF is still in the domain"
cloud_agrees "stuck detach: NIC, VF and lease kept"
assert_eq "$before" "$(since_of 0) $(since_of 1)" \
	"stuck detach: both leases keep their time (when they were leased)"
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "detach once the guest lets go"
cloud_agrees "detach after the stuck one"

# --- a NIC of another network: the stock scripts
ib_leases() { on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json | jq '.leases | length'; }
n=$(ib_leases)
assert_ok "stock attach_nic for a bridge NIC" -- on hv1 bash -c \
	"echo '<VMM_DRIVER_ACTION_DATA/>' | /var/tmp/one/vmm/kvm-ib/attach_nic one-42 02:00:c0:a8:00:09 br0 virtio bridge one-42-3 42 hv1"
assert_match "<mac address='02:00:c0:a8:00:09'/>" "$(on hv1 virsh dumpxml one-42)" "an <interface> was hot-plugged"
assert_eq "$n" "$(ib_leases)" "no VF leased for it"
action_xml 42 | sed 's|</TEMPLATE>|<NIC><NIC_ID>3</NIC_ID><MAC>02:00:c0:a8:00:09</MAC><VN_MAD>bridge</VN_MAD><ATTACH>YES</ATTACH></NIC></TEMPLATE>|' \
	>"$TEST_TMP/br.xml"
assert_ok "stock detach_nic for it" -- on hv1 bash -c \
	"/var/tmp/one/vmm/kvm-ib/detach_nic one-42 02:00:c0:a8:00:09 42 hv1 <'$TEST_TMP/br.xml'"
assert_eq "" "$(on hv1 virsh dumpxml one-42 | grep "02:00:c0:a8:00:09")" "the interface is gone"
cloud_agrees "bridge NIC attached and detached"
test_done
