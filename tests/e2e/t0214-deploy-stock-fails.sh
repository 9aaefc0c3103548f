#!/bin/bash
# kvm-ib deploy whose stock deploy fails after oneib-vf has leased and
# programmed the VFs (here: a domain of that name already runs, so
# `virsh create` refuses): the deploy fails with the stock reason, the VM
# holds no lease, and its VFs are unmapped again (GUID deleted, every
# pkey_idx none), at once, not after reconcile's grace period. The domain
# that was there is left alone, and the VFs are free for the next deploy
# (issue 14, item 2; design decision 9).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/mlx4.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
kvm_ib_pkey
iov=/sys/class/infiniband/mlx4_0/iov

# A domain named one-42 is already running (a leftover of an earlier
# deploy of this VM, or anyone's): the stock deploy cannot create another.
domain_xml 42 02:00:c0:a8:09:09 >"$TEST_TMP/squatter.xml"
assert_ok "a domain one-42 already runs" -- virsh create "$TEST_TMP/squatter.xml"
squatter=$(virsh domuuid one-42)

one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101 ib/1/02:00:c0:a8:02:06/0x8102 \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 1 $? "deploy fails"
assert_eq "" "$(cat "$TEST_TMP/out")" "no UUID printed"
assert_match "one-42.*already exists" "$(cat "$TEST_TMP/err")" "the stock deploy's reason"

# oneib-vf leased and mapped two VFs before the stock deploy ran...
mapped=$(awk '$1 == "map" { print $2 }' "$PKEY_CALLS" | sort -u)
assert_eq 2 "$(grep -c . <<<"$mapped")" "two VFs were mapped before the stock deploy: $(tr '\n' ' ' <<<"$mapped")"
# ...and nothing of that is left.
assert_eq 0 "$(vm_lease_count 42)" "VM 42 holds no lease"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "the ledger holds no lease at all"
for vf in $mapped; do
	assert_match "^unmap $vf( |\$)" "$(cat "$PKEY_CALLS")" "$vf unmapped"
	slave=$(cat "$iov/$vf/ports/1/gid_idx/0")
	mlx4_file_is ffffffffffffffff "$iov/ports/1/admin_guids/$slave" "$vf: GUID deleted"
	assert_eq 127 "$(mlx4_count_none "$iov/$vf/ports/1/pkey_idx" 0)" "$vf: every pkey_idx none"
done
assert_eq "$squatter" "$(virsh domuuid one-42)" "the domain that was there is untouched"
assert_eq "one-42 test" "$(virsh list --name | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//')" \
	"no other domain (test is the test driver's own)"

# The VFs are free: once the name is, the same deploy gets them again.
virsh destroy one-42 >/dev/null
: >"$PKEY_CALLS"
uuid=$(one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101 ib/1/02:00:c0:a8:02:06/0x8102)
assert_eq 0 $? "deploy succeeds once the name is free"
assert_eq "$uuid" "$(virsh domuuid one-42)" "prints the new domain's UUID"
assert_eq 2 "$(vm_lease_count 42)" "two leases"
assert_eq "$mapped" "$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[].vf' | sort)" \
	"on the VFs the failed deploy released"
test_done
