#!/bin/bash
# Every ledger commit is durable in the right order, read from the system
# calls of real kvm-ib actions (strace): the new ledger is written to
# leases.tmp.<pid>, fsync'ed, renamed over leases, and the directory
# fsync'ed (design decision 5). Without the fsync before the rename a power
# loss can leave an empty ledger: every VF free while VMs hold them. Checked
# for the commit of a deploy into a new ledger, of a deploy into an existing
# one, and of the release at shutdown (issue 14, item 3).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/durable.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
L=/var/lib/one/ib
commit=$(durable_replace leases leases.tmp.PID)

deploy_traced() { # LOG VMID MAC: one_deploy, its commands under strace
	mkdir -p "$DS/$2"
	vm_xml "$2" "ib/0/$3/0x8101" >"$DS/$2/vm.xml"
	domain_xml "$2" "$3" | durable_trace "$1" \
		"$R/vmm/kvm-ib/deploy" "$DS/$2/deployment.0" node1 "$2" node1
}

# --- deploy, the ledger made on the way ---------------------------------------------
assert_ok "no ledger yet" -- test ! -e "$L"
uuid=$(deploy_traced "$TEST_TMP/d1" 42 02:00:c0:a8:01:05)
assert_eq 0 $? "first deploy succeeds"
assert_eq "$commit" "$(durable_steps "$TEST_TMP/d1" "$L")" \
	"first deploy: write, fsync(file), rename, fsync(directory)"
assert_eq 1 "$(vm_lease_count 42)" "VM 42 leased"

# --- deploy into an existing ledger ------------------------------------------------
deploy_traced "$TEST_TMP/d2" 43 02:00:c0:a8:01:06 >/dev/null
assert_eq 0 $? "second deploy succeeds"
assert_eq "$commit" "$(durable_steps "$TEST_TMP/d2" "$L")" \
	"second deploy: write, fsync(file), rename, fsync(directory)"
assert_eq 1 "$(vm_lease_count 43)" "VM 43 leased"

# --- release at shutdown -------------------------------------------------------------
durable_trace "$TEST_TMP/s1" "$R/vmm/kvm-ib/shutdown" "$uuid" node1 42 node1
assert_eq 0 $? "shutdown succeeds"
assert_eq "$commit" "$(durable_steps "$TEST_TMP/s1" "$L")" \
	"release: write, fsync(file), rename, fsync(directory)"
assert_eq 0 "$(vm_lease_count 42)" "VM 42 released"
assert_eq "leases leases.lock" "$(ls "$L" | tr '\n' ' ' | sed 's/ $//')" "no temporary file left"
test_done
