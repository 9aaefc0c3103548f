#!/bin/bash
# A domain started outside OpenNebula holding a VF: that VF is never leased
# (whatever the ledger says), and reconcile records it as adopted.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host

cat >"$TEST_TMP/foreign.xml" <<'X'
<domain type='kvm'><name>legacy db</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os>
<devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' bus='0x03' slot='0x00' function='0x1'/></source></hostdev></devices></domain>
X
virsh create "$TEST_TMP/foreign.xml" >/dev/null
assert_ok "foreign domain runs" -- virsh domuuid "legacy db"

for i in $(seq 1 15); do
	one_deploy "$i" "ib/0/02:00:0a:02:00:$(printf %02x "$i")/0x8101" >/dev/null 2>&1 || break
done
assert_eq 15 "$("$R/ib/bin/oneib-vf" list --format=json | jq '[.leases[] | select(.vm != null)] | length')" "15 VMs got a VF"
assert_eq "" "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.vf == "0000:03:00.1") | .vm')" "the foreign VF was never leased"
one_deploy 16 ib/0/02:00:0a:02:00:10/0x8101 >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "16th VM refused"
assert_match "no free VF on 0000:03:00.0 for VM 16 \\(16 of 16 leased\\)" "$(cat "$TEST_TMP/err")" "with the reason"

"$R/ib/bin/oneib-vf" reconcile >"$TEST_TMP/rec"
assert_match "VF 0000:03:00.1: held by domain legacy db without a lease, adopted" "$(cat "$TEST_TMP/rec")" "reconcile adopts it"
assert_eq "legacy db" "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[] | select(.vf == "0000:03:00.1") | .domain')" "recorded with its domain"

virsh destroy "legacy db" >/dev/null
"$R/ib/bin/oneib-vf" reconcile >"$TEST_TMP/rec2"
assert_match "VF 0000:03:00.1: domain legacy db no longer holds it, released" "$(cat "$TEST_TMP/rec2")" "released when the domain goes"
one_deploy 16 ib/0/02:00:0a:02:00:10/0x8101 >/dev/null
assert_eq 0 $? "then VM 16 gets it"
test_done
