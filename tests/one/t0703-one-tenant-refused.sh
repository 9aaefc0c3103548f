#!/bin/bash
# Tenants against the real OpenNebula front-end (tests/lib/one.sh), with
# one-ib's oned.conf fragment as one-ib-frontend(7) adds it: what decides a
# VF's partition and its share of the fabric is oneadmin's alone.
#   - a user's VM, template or NIC hot-attach that sets IB_PKEY, IB_PF,
#     IB_PORT, IB_SL or IB_RATE in a NIC is refused by oned ("restricted
#     attribute", VM_RESTRICTED_ATTR; IB_SL and IB_RATE were let through
#     before), nothing created or attached;
#   - a user may neither create an ib network nor change one (IB_PKEY and
#     IB_SL are VNET_RESTRICTED_ATTR, and the networks are oneadmin's);
#   - one-ib-frontend(7): by default every group of the default VDC may use
#     every network ("@1 NET/* USE"); a group given a VDC of its own with
#     the page's onevdc lines (read from it) may use its network, and VMs there
#     run, but not another tenant's ("Not authorized to perform USE NET").
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
one_host hv1 cx5
one_host_create hv1
na=$(one_ib_network ib-tenant-a)
nb=$(one_ib_network ib-tenant-b)
V=$ONE_VM0 # alice's first VM's ID (0 on a front-end of its own)
one_user alice

# vm_tmpl NAME NETWORK [NIC ATTRIBUTES]: a small VM template for a user
vm_tmpl() {
	printf 'NAME = "%s"\nCPU = "0.1"\nMEMORY = "64"\nSCHED_REQUIREMENTS = "IB_SRIOV = \\"YES\\""\n' "$1"
	printf 'NIC = [ NETWORK = "%s", NETWORK_UNAME = "oneadmin"%s ]\n' "$2" "${3:+, $3}"
}
# refused MSG REGEX cmd...: the CLI fails (its exit status, 255) and its
# error matches REGEX
refused() {
	local msg=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && _tl_pass "$msg: refused" || _tl_fail "$msg: refused" "exit status 0: $out"
	assert_match "$re" "$out" "$msg: says why"
}
# what oned holds: VMs with their NICs, templates, networks
pool() {
	as_oneadmin onevm list -x --extended --no-pager all | grep -E '<(ID|NIC_ID|NETWORK_ID)>'
	as_oneadmin onetemplate list -x --no-pager all | grep -E '<(ID|NAME)>'
	as_oneadmin onevnet list -x --no-pager all | grep -E '<(ID|IB_[A-Z]*)>'
}

# --- IB_* in a user's NIC
before=$(pool)
for a in 'IB_PKEY = "0x8101"' 'IB_PF = "0000:3b:00.0"' 'IB_PORT = "1"' 'IB_SL = "3"' 'IB_RATE = "16"'; do
	name=${a%% *}
	vm_tmpl "x-$name" ib-tenant-a "$a" >"$TEST_TMP/x-$name.tmpl"
	chmod 0644 "$TEST_TMP/x-$name.tmpl"
	refused "alice: a VM whose NIC sets $name" "restricted attribute $name" \
		as_user alice onevm create "$TEST_TMP/x-$name.tmpl"
	refused "alice: a template whose NIC sets $name" "restricted attribute $name" \
		as_user alice onetemplate create "$TEST_TMP/x-$name.tmpl"
done
assert_eq "$before" "$(pool)" "no VM or template created"
vm_tmpl plain ib-tenant-a >"$TEST_TMP/plain.tmpl"
chmod 0644 "$TEST_TMP/plain.tmpl"
assert_ok "alice: a VM without IB_* in its NIC" -- as_user alice onevm create "$TEST_TMP/plain.tmpl"
one_wait_vm "$V" "^ACTIVE RUNNING$"
before=$(pool)
for a in 'IB_PKEY = "0x8101"' 'IB_SL = "3"'; do
	name=${a%% *}
	printf 'NIC = [ NETWORK = "ib-tenant-a", NETWORK_UNAME = "oneadmin", %s ]\n' "$a" >"$TEST_TMP/nic-$name"
	chmod 0644 "$TEST_TMP/nic-$name"
	refused "alice: nic-attach of a NIC that sets $name" "restricted attribute $name" \
		as_user alice onevm nic-attach "$V" --file "$TEST_TMP/nic-$name"
done
one_wait_vm "$V" "^ACTIVE RUNNING$"
assert_eq "$before" "$(pool)" "no NIC attached"
assert_eq 1 "$(one_xml vm "$V" | one_xpath 'count(/VM/TEMPLATE/NIC)')" "the VM kept its one NIC"
assert_eq 1 "$(one_leases hv1 | wc -l)" "and its one lease"

# --- the networks are oneadmin's
before=$(pool)
refused "alice: create an ib network" "Not authorized to perform CREATE NET" \
	as_user alice onevnet create "$TEST_TMP/net-ib-tenant-a.tmpl" # one_ib_network's
echo 'IB_PKEY = "0x8105"' >"$TEST_TMP/upd" && chmod 0644 "$TEST_TMP/upd"
refused "alice: change a network's IB_PKEY" "Not authorized to perform MANAGE NET \[$na\]" \
	as_user alice onevnet update "$na" "$TEST_TMP/upd" --append
assert_eq "$before" "$(pool)" "no network created or changed"
assert_eq 0x8100 "$(one_xml vnet "$na" | one_xpath /VNET/TEMPLATE/IB_PKEY)" "its IB_PKEY as vnet_create gave it"

# --- one-ib-frontend(7): the default ACLs, and a tenant's own VDC
assert_match '^ *[0-9]+ +@1 +--N-* +\* +u--- +#0$' "$(as_oneadmin oneacl list)" \
	"the default rule @1 NET/* USE #0"
vm_tmpl alice-b ib-tenant-b >"$TEST_TMP/alice-b.tmpl"
chmod 0644 "$TEST_TMP/alice-b.tmpl"
assert_ok "alice (group users): a VM on ib-tenant-b too, by default" -- \
	as_user alice onevm create "$TEST_TMP/alice-b.tmpl"
as_oneadmin onegroup create teamb >/dev/null || die "onegroup create"
one_user bob
as_oneadmin oneuser chgrp bob teamb || die "oneuser chgrp"
lines=$(sed -n '/^ *onevdc delgroup default <group>$/,/^ *onevdc addvnet <tenant> 0 <network>$/p' "$TOP/doc/one-ib-frontend.7")
assert_eq 6 "$(printf '%s\n' "$lines" | grep -c '^ *onevdc ')" "one-ib-frontend(7) gives the onevdc lines for a tenant"
while read -r line; do
	line=${line//<tenant>/teamb-vdc}
	line=${line//<group>/teamb}
	line=${line//<network>/ib-tenant-b}
	# shellcheck disable=SC2086 # the page's words
	assert_ok "oneadmin: $line" -- as_oneadmin $line
done <<<"$lines"
vm_tmpl bob-a ib-tenant-a >"$TEST_TMP/bob-a.tmpl"
vm_tmpl bob-b ib-tenant-b >"$TEST_TMP/bob-b.tmpl"
chmod 0644 "$TEST_TMP/bob-a.tmpl" "$TEST_TMP/bob-b.tmpl"
refused "bob (teamb, its own VDC): a VM on ib-tenant-a" "Not authorized to perform USE NET \[$na\]" \
	as_user bob onevm create "$TEST_TMP/bob-a.tmpl"
assert_ok "bob: a VM on ib-tenant-b" -- as_user bob onevm create "$TEST_TMP/bob-b.tmpl"
id=$(sed -n 's/^ID: //p' "$LAST_OUT")
one_wait_vm "$id" "^ACTIVE RUNNING$"
assert_eq "bob $nb" "$(one_xml vm "$id" | one_xpath 'concat(/VM/UNAME, " ", /VM/TEMPLATE/NIC/NETWORK_ID)')" \
	"bob's VM runs, on its network"
test_done
