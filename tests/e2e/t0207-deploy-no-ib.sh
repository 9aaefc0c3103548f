#!/bin/bash
# A VM without InfiniBand NICs deploys exactly as with the stock driver: the
# deployment file is byte for byte what OpenNebula sent, no lease.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

mkdir -p "$DS/3"
vm_xml 3 bridge/0/02:00:c0:a8:05:01 >"$DS/3/vm.xml"
domain_xml 3 02:00:c0:a8:05:01 >"$TEST_TMP/sent.xml"
uuid=$("$R/vmm/kvm-ib/deploy" "$DS/3/deployment.0" node1 3 node1 <"$TEST_TMP/sent.xml")
assert_eq 0 $? "deploy succeeds"
assert_file_eq "$TEST_TMP/sent.xml" "$DS/3/deployment.0" "deployment file untouched"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "no lease"
assert_eq "stock resize $uuid 3 node1" "$("$R/vmm/kvm-ib/resize" "$uuid" 3 node1)" "other actions are the stock scripts"
test_done
