#!/bin/bash
# reconcile leaves a lease without a domain alone during the grace period (a
# deploy between lease and virsh create), counted on the boot clock, and
# releases it after; a grace of 0 would make every lease on its way to its
# domain fair game, and is refused with one line.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
vf=$R/ib/bin/oneib-vf
ledger() { cat /var/lib/one/ib/leases; }

mkdir -p "$DS/5"
vm_xml 5 ib/0/02:00:0a:06:00:05/0x8101 >"$DS/5/vm.xml"
domain_xml 5 02:00:0a:06:00:05 | "$vf" deploy --vm 5 --vm-xml "$DS/5/vm.xml" >/dev/null
one_deploy 6 ib/0/02:00:0a:06:00:06/0x8101 >/dev/null
assert_eq "reconcile: 2 kept, 0 released, 0 adopted" "$("$vf" reconcile | tail -n 1)" "in flight: kept"
assert_refused --rc 2 --state ledger "a grace of 0" \
	"^oneib-vf: --grace 0: a lease needs time to reach its domain; at least 1 second \(default 600\)$" -- \
	"$vf" reconcile --grace 0
ledger_age
assert_eq "VF 0000:3b:00.1: VM 5 has no domain holding it, released
reconcile: 1 kept, 1 released, 0 adopted" "$("$vf" reconcile --grace 1)" "after the grace period: released"
assert_eq 6 "$("$vf" list --format=json | jq '.leases[].vm')" "the running VM keeps its VF"
assert_eq "reconcile: 1 kept, 0 released, 0 adopted" "$("$vf" reconcile --grace 1)" "reconcile is idempotent"
test_done
