#!/bin/bash
# kvm-ib deploy on a ConnectX-3 host programs the leased VF before the
# domain starts (alias GUID from the NIC's MAC, virtual P_Key index 0 on the
# network's partition, nothing else) through oneib-pkey as configured in
# kvm-ibrc; shutdown clears it. A P_Key the port does not carry fails the
# deploy: no lease, no domain, and the VF blocked, never in the default
# partition.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
kvm_ib_pkey
iov=/sys/class/infiniband/mlx4_0/iov

uuid=$(one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101)
assert_eq 0 $? "deploy succeeds"
vf=$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[0].vf')
assert_eq 0000:03:00.1 "$vf" "first VF leased"
slave=$(cat "$iov/$vf/ports/1/gid_idx/0")
assert_eq 2000000002a0000 "$(cat "$iov/ports/1/admin_guids/$slave")" "alias GUID = VM 42 NIC 0"
assert_eq 1 "$(cat "$iov/$vf/ports/1/pkey_idx/0")" "virtual index 0 -> the physical index of 0x8101"
assert_eq "" "$(grep -lv '^none$' "$iov/$vf"/ports/1/pkey_idx/* | grep -v '/pkey_idx/0$')" "every other index none"
"$PKEY_BIN" show "$vf" >"$TEST_TMP/show"
assert_match "0x02000000002a0000" "$(cat "$TEST_TMP/show")" "oneib-pkey show reads it back"

"$R/vmm/kvm-ib/shutdown" "$uuid" node1 42 node1
assert_eq 0 $? "shutdown succeeds"
assert_eq ffffffffffffffff "$(cat "$iov/ports/1/admin_guids/$slave")" "GUID invalidated"
assert_eq "" "$(grep -Lx none "$iov/$vf"/ports/1/pkey_idx/*)" "every index none"

(cd /sys && find class/infiniband/mlx4_0/iov/ -type f -exec md5sum {} + | sort) >"$TEST_TMP/before"
one_deploy 43 ib/0/02:00:c0:a8:01:06/0x8123 >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "deploy with a P_Key the port does not carry fails"
assert_eq 1 "$(grep -c . "$TEST_TMP/err")" "one line"
assert_match "0x8123" "$(cat "$TEST_TMP/err")" "naming the P_Key"
assert_fail "no domain" -- virsh domuuid one-43
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "no lease left"
assert_eq "" "$(grep -Lx none "$iov/$vf"/ports/1/pkey_idx/*)" "the VF stays blocked"
test_done
