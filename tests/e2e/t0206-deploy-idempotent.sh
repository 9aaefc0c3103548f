#!/bin/bash
# Every action is idempotent: acquiring for a NIC that holds a lease returns
# the same VF, releasing what is not leased succeeds and says so; reboot and
# reset keep the VF.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
vf=$R/ib/bin/oneib-vf

mkdir -p "$DS/9"
vm_xml 9 ib/0/02:00:c0:a8:04:01/0x8101 >"$DS/9/vm.xml"
domain_xml 9 02:00:c0:a8:04:01 | "$vf" deploy --vm 9 --vm-xml "$DS/9/vm.xml" >"$TEST_TMP/a.xml"
domain_xml 9 02:00:c0:a8:04:01 | "$vf" deploy --vm 9 --vm-xml "$DS/9/vm.xml" >"$TEST_TMP/b.xml"
assert_file_eq "$TEST_TMP/a.xml" "$TEST_TMP/b.xml" "second acquire returns the same VF"
assert_eq 1 "$("$vf" list --format=json | jq '.leases | length')" "one lease"
assert_eq "VM 9: released 1 VF(s)" "$("$vf" release --vm 9)" "release"
assert_eq "VM 9: no VF leased, nothing to release" "$("$vf" release --vm 9)" "release again succeeds and says so"

uuid=$(one_deploy 9 ib/0/02:00:c0:a8:04:01/0x8101)
before=$("$vf" list --format=json | jq -r '.leases[0].vf')
"$R/vmm/kvm-ib/reboot" "$uuid" node1 9 node1
"$R/vmm/kvm-ib/reset" "$uuid" node1 9 node1
assert_eq "$before" "$("$vf" list --format=json | jq -r '.leases[0].vf')" "reboot and reset keep the VF"
assert_eq "$before" "$(virsh dumpxml one-9 | sed -n "s/.*<address domain='0x0000' bus='0x\(..\)' slot='0x\(..\)' function='0x\(.\)'.*/0000:\1:\2.\3/p")" "domain still holds it"
"$vf" release --vm 9 >"$TEST_TMP/rel" 2>&1
assert_match "keeping VF $before, domain one-9 still holds it" "$(cat "$TEST_TMP/rel")" "release never frees a VF a domain holds"
test_done
