#!/bin/bash
# The host-side actions of the ib network driver, called exactly as one_vnm
# does (the reduced VM XML Base64-encoded on stdin through a heredoc, the
# quoted arguments of each action): pre, post, update_sg and update_nic
# succeed and print nothing; clean releases the VM's leases that no domain
# holds, keeps those a running domain holds, succeeds with nothing to do,
# and fails with one line when the ledger cannot be opened.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
vf=$R/ib/bin/oneib-vf

# reduced_vm VMID NIC...: what one_vmm_exec's get_vnm_drivers sends: ID,
# DEPLOY_ID, the NICs with a VN_MAD, the history's host.
reduced_vm() {
	local vmid=$1
	printf '<VM><ID>%s</ID><DEPLOY_ID>%s</DEPLOY_ID><TEMPLATE>' "$vmid" "$(virsh domuuid "one-$vmid" 2>/dev/null | sed '/^$/d')"
	vm_xml "$@" | sed -n '/^<NIC>/p'
	printf '<CONTEXT><NETWORK><![CDATA[YES]]></NETWORK></CONTEXT></TEMPLATE>'
	printf '<USER_TEMPLATE><IB_PKEY><![CDATA[0x7fff]]></IB_PKEY></USER_TEMPLATE>'
	printf '<HISTORY_RECORDS><HISTORY><HOSTNAME>node1</HOSTNAME><HID>0</HID><DS_ID>0</DS_ID><VM_MAD><![CDATA[kvm-ib]]></VM_MAD></HISTORY></HISTORY_RECORDS></VM>\n'
}

# vnm ACTION XMLFILE ARGS...: one_vnm's
#   cat << 'EOT' | /var/tmp/one/vnm/ib/<action> '<arg>' ...
# with stdout and stderr in $TEST_TMP/out and $TEST_TMP/err, status in $rc.
vnm() {
	local action=$1 xml=$2 q='' a
	shift 2
	for a in "$@"; do
		q="$q '$a'"
	done
	bash -c "cat << 'EOT' | \"$R/vnm/ib/$action\"$q
$(base64 -w0 "$xml")
EOT
" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	rc=$?
}

# VM 42: a VF leased by deploy, no domain started (a deploy that died
# between lease and virsh create).
mkdir -p "$DS/42"
vm_xml 42 ib/0/02:00:c0:a8:01:05/0x8101 >"$DS/42/vm.xml"
domain_xml 42 02:00:c0:a8:01:05 | "$vf" deploy --vm 42 --vm-xml "$DS/42/vm.xml" >/dev/null
assert_eq 1 "$(vm_lease_count 42)" "VM 42 holds a lease"
reduced_vm 42 ib/0/02:00:c0:a8:01:05/0x8101 >"$TEST_TMP/vm42.xml"

for step in "pre" "post f0c1d2e3-0000-4000-8000-00000000002a node1" \
	"update_sg f0c1d2e3-0000-4000-8000-00000000002a" \
	"update_nic f0c1d2e3-0000-4000-8000-00000000002a 3"; do
	read -r -a argv <<<"$step"
	vnm "${argv[0]}" "$TEST_TMP/vm42.xml" "${argv[@]:1}"
	assert_eq 0 "$rc" "${argv[0]}: exit 0"
	assert_eq "" "$(cat "$TEST_TMP/out" "$TEST_TMP/err")" "${argv[0]}: prints nothing"
done
assert_eq 1 "$(vm_lease_count 42)" "pre, post, update_sg, update_nic leave the lease alone"

vnm clean "$TEST_TMP/vm42.xml" node1
assert_eq 0 "$rc" "clean: exit 0"
assert_eq "" "$(cat "$TEST_TMP/out")" "clean: nothing on stdout"
assert_match "^INFO: .*VM 42: released 1 VF" "$(cat "$TEST_TMP/err")" "clean: logs what it released"
assert_eq 0 "$("$vf" list --format=json | jq '.leases | length')" "clean: ledger empty"

vnm clean "$TEST_TMP/vm42.xml" node1
assert_eq 0 "$rc" "clean again: exit 0 (nothing to do)"
assert_match "VM 42: no VF leased, nothing to release" "$(cat "$TEST_TMP/err")" "clean again: says so"

# VM 43 runs: its domain holds the VF, clean keeps the lease.
uuid=$(one_deploy 43 ib/0/02:00:c0:a8:01:06/0x8102)
assert_ok "VM 43 running" -- virsh domuuid one-43
reduced_vm 43 ib/0/02:00:c0:a8:01:06/0x8102 >"$TEST_TMP/vm43.xml"
cp /var/lib/one/ib/leases "$TEST_TMP/leases.before"
vnm clean "$TEST_TMP/vm43.xml" node1
assert_eq 0 "$rc" "clean of a running VM: exit 0"
assert_match "keeping VF 0000:3b:00.1, domain one-43 still holds it" "$(cat "$TEST_TMP/err")" "clean of a running VM: says why"
assert_eq 1 "$(vm_lease_count 43)" "clean of a running VM: lease kept"
assert_file_eq "$TEST_TMP/leases.before" /var/lib/one/ib/leases "clean of a running VM: ledger unchanged"
assert_eq "$uuid" "$(virsh domuuid one-43 | sed '/^$/d')" "clean of a running VM: domain untouched"

# After the stock shutdown (what kvm-ib's shutdown would release too).
virsh destroy one-43 >/dev/null
vnm clean "$TEST_TMP/vm43.xml" node1
assert_eq 0 "$rc" "clean after the domain is gone: exit 0"
assert_eq 0 "$(vm_lease_count 43)" "clean after the domain is gone: released"

# Refusals: one line, exit 1 (never 42).
printf 'not xml' >"$TEST_TMP/bad.xml"
vnm clean "$TEST_TMP/bad.xml" node1
assert_eq 1 "$rc" "clean of a VM XML that does not parse: exit 1"
assert_eq 1 "$(grep -c . "$TEST_TMP/err")" "clean of a VM XML that does not parse: one line"
assert_match "VM XML: not well-formed" "$(cat "$TEST_TMP/err")" "clean of a VM XML that does not parse: reason"

sed -i 's|^ONEIB_LEDGER_DIR=.*|ONEIB_LEDGER_DIR=/dev/null/ib|' "$R/etc/vmm/kvm-ib/kvm-ibrc"
vnm clean "$TEST_TMP/vm42.xml" node1
assert_eq 1 "$rc" "clean with an unusable ledger: exit 1"
assert_eq "" "$(cat "$TEST_TMP/out")" "clean with an unusable ledger: nothing on stdout"
assert_eq 1 "$(grep -c . "$TEST_TMP/err")" "clean with an unusable ledger: one line"
assert_match "^VM 42: mkdir /dev/null/ib" "$(cat "$TEST_TMP/err")" "clean with an unusable ledger: names the VM and the reason"
test_done
