#!/bin/bash
# A lease ledger that does not parse makes every deploy fail, so the host
# must not advertise free VFs: both probe classes report IB_VFS_FREE=0 (and
# 0 per PF port) and IB_ERROR naming the ledger, line and reason, in one
# attribute OpenNebula reads back whatever the damaged line holds (quotes,
# "]]>"). host/system is the class whose attributes reach the host's
# template (`onehost show`, SCHED_REQUIREMENTS). Once the ledger is
# repaired, the counts come back and IB_ERROR is reported empty, which
# clears the old value in the host's template.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
probes=$R/im/kvm-ib-probes.d
ledger=/var/lib/one/ib/leases

# OpenNebula's reading of NAME="..." on its own line (template_parser.l:
# the value ends at the first quote no backslash precedes; \" is a quote).
one_value() { # FILE NAME
	sed -n "s/^$2=\"\(\([^\"\\\\]\|\\\\.\)*\)\"\$/\1/p" "$1" | sed 's/\\"/"/g'
}

uuid=$(one_deploy 5 ib/0/02:00:0a:07:00:05/0x8101)
assert_eq 0 $? "deploy VM 5"
run_probes "$probes/host/system" kvm-ib 0 node1 >"$TEST_TMP/sys"
assert_eq 0 $? "system class succeeds"
assert_eq 14 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_FREE)" "healthy: 14 free in host/system"
assert_eq 15 "$(tmpl_value "$TEST_TMP/sys" IB_VFS_USABLE)" "healthy: 15 usable (14 free, VM 5's leased)"
assert_eq 'IB_ERROR=""' "$(grep '^IB_ERROR=' "$TEST_TMP/sys")" "healthy: IB_ERROR reported empty"

# --- a damaged ledger: a line that is no lease, with a quote and "]]>" ------
cp "$ledger" "$TEST_TMP/leases.good"
printf 'vf=0000:3b:00.5 pf=0000:3b:00.0 port=1 vm=7 nic=0 since=1 mac=02:"]]>\n' >>"$ledger"
line=$(grep -c '' "$ledger")
assert_fail "oneib-vf list on the damaged ledger" -- "$R/ib/bin/oneib-vf" list
why=$(sed 's/^oneib-vf: //' "$LAST_ERR")
assert_match "^ledger $ledger line $line: " "$why" "the tools name ledger, line and reason"
one_deploy 6 ib/0/02:00:0a:07:00:06/0x8101 >/dev/null 2>&1
assert_eq 1 $? "every deploy fails on it"

for class in system monitor; do
	run_probes "$probes/host/$class" kvm-ib 0 node1 >"$TEST_TMP/$class" 2>/dev/null
	assert_eq 0 $? "$class class still succeeds"
	assert_eq 0 "$(tmpl_value "$TEST_TMP/$class" IB_VFS_FREE)" "$class: IB_VFS_FREE=0"
	assert_eq 0 "$(tmpl_value "$TEST_TMP/$class" IB_VFS_USABLE)" "$class: IB_VFS_USABLE=0"
	assert_eq "ADDRESS=0000:3b:00.0|PORT=1|IB_VFS_FREE=0
ADDRESS=0000:af:00.0|PORT=1|IB_VFS_FREE=0" "$(tmpl_vectors "$TEST_TMP/$class" IB_PF_FREE)" "$class: 0 per PF port"
	assert_eq 1 "$(grep -c '^IB_ERROR=' "$TEST_TMP/$class")" "$class: one IB_ERROR line"
	assert_eq "${why/]]>/]] >}" "$(one_value "$TEST_TMP/$class" IB_ERROR)" "$class: IB_ERROR reads back as the ledger error"
	assert_eq "" "$(grep -v '^[A-Z_]*=' "$TEST_TMP/$class")" "$class: every line still an attribute"
done
assert_eq YES "$(tmpl_value "$TEST_TMP/system" IB_SRIOV)" "the inventory is still reported"

# --- repaired ----------------------------------------------------------------
cp "$TEST_TMP/leases.good" "$ledger"
run_probes "$probes/host/system" kvm-ib 0 node1 >"$TEST_TMP/sys2"
assert_eq 14 "$(tmpl_value "$TEST_TMP/sys2" IB_VFS_FREE)" "repaired: 14 free again"
assert_eq 'IB_ERROR=""' "$(grep '^IB_ERROR=' "$TEST_TMP/sys2")" "repaired: IB_ERROR empty, clearing the old one"
"$R/vmm/kvm-ib/shutdown" "$uuid" node1 5 node1 >/dev/null
test_done
