#!/bin/bash
# The deployment file kvm-ib hands to the stock deploy (IB NICs rewritten
# into PCI hostdevs) is accepted by libvirt's real QEMU driver: `virsh -c
# qemu:///system define` succeeds, dumpxml shows the leased VFs as hostdevs
# and the bridge NIC untouched, undefine cleans up.  Negative controls: a
# hostdev with an impossible PCI function, and two hostdevs of the same VF,
# are refused by the same define, so the validation really validates.
#
# The QEMU driver runs in a private libvirtd of its own (tests/lib/qemu.sh:
# nested mount namespace, private /etc/libvirt and state dirs); the deploy
# itself goes to sim_libvirtd's test driver as in the other t02xx tests.
#
# Domain type: OpenNebula writes <domain type='kvm'>.  Without a usable
# /dev/kvm (e.g. in a VM or container) the QEMU driver has no capabilities
# for type kvm and refuses any such domain ("could not get preferred machine
# for ... type=kvm"), whatever its devices.  Then the file is validated with
# only the root element's type switched to 'qemu' (TCG): same parser,
# post-parse and device/hostdev validation against the same emulator.
# Where KVM is usable, the file is validated exactly as deployed.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/qemu.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

# addr_xml VF [FUNCTION]: the <address/> of PCI address VF (0000:3b:00.1) as
# libvirt writes it in a hostdev's <source>, optionally another function.
addr_xml() {
	local d=${1%%:*} r=${1#*:} b s f
	b=${r%%:*} r=${r#*:} s=${r%.*} f=${2:-${r#*.}}
	printf "<address domain='0x%s' bus='0x%s' slot='0x%s' function='0x%s'/>" "$d" "$b" "$s" "${f#0x}"
}
# addr_re VF: an ERE for that <address/> with either quote style.
addr_re() {
	addr_xml "$1" | sed "s/'/[\"']/g"
}
# xpath DOMAIN EXPR: virsh dumpxml --xpath, one node per line, quotes as '.
xpath() {
	qemu_virsh dumpxml "$1" --xpath "$2" | sed -E '/^[[:space:]]*$/d; s/^[[:space:]]+//' | tr '"' "'"
}

uuid=$(one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101 bridge/1/02:00:c0:a8:01:06 \
	ib/2/02:00:c0:a8:01:07/0x8102 2>"$TEST_TMP/deploy.err")
assert_eq 0 $? "deploy of 2 IB NICs and a bridge NIC succeeds"
assert_match '^[0-9a-f-]{36}$' "$uuid" "deploy prints the domain UUID"
dep=$DS/42/deployment.0
assert_ok "the stock deploy wrote the deployment file" -- test -s "$dep"
assert_eq 2 "$(grep -Ec "<hostdev mode=[\"']subsystem[\"'] type=[\"']pci[\"'] managed=[\"']yes[\"']>" "$dep")" \
	"the deployment file has two managed PCI hostdevs"

"$IBBIN/oneib-vf" list --format=json >"$TEST_TMP/leases.json"
mapfile -t vfs < <(jq -r '.leases | sort_by(.nic)[] | select(.vm == 42) | .vf' "$TEST_TMP/leases.json")
assert_eq 2 "${#vfs[@]}" "two VFs leased to VM 42 (NIC 0 and NIC 2)"
[ "${#vfs[@]}" = 2 ] || die "no leases to check against: $(cat "$TEST_TMP/leases.json")"
for vf in "${vfs[@]}"; do
	assert_eq 1 "$(grep -Ec "$(addr_re "$vf")" "$dep")" "the deployment file holds VF $vf once"
done

sim_qemu_libvirtd
assert_ok "qemu:///system is libvirt's QEMU driver with a real emulator" -- qemu_virsh version
assert_match '^Running hypervisor: QEMU [0-9]' "$(cat "$LAST_OUT")" "virsh version names QEMU"

# what would go to `virsh create`, validated as a persistent definition
xml=$TEST_TMP/one-42.xml
if qemu_virsh domcapabilities --virttype kvm >/dev/null 2>&1; then
	say "KVM is usable: validating the deployment file as deployed (type kvm)"
	cp "$dep" "$xml"
else
	say "no usable KVM here: validating the deployment file with type 'qemu' (TCG)"
	assert_ok "switch the domain type kvm -> qemu" -- qemu_kvm_to_qemu "$dep" "$xml"
	assert_eq 2 "$(diff "$dep" "$xml" | grep -c '^[<>]')" "only the <domain> line changed"
	assert_match "^<domain[[:space:]].*type='qemu'" "$(grep '<domain' "$xml")" "the copy has type 'qemu'"
fi

# the checks of the defined domain only make sense if define worked
if assert_ok "virsh -c qemu:///system define accepts the deployment file" -- qemu_virsh define "$xml"; then
	assert_ok "the domain is defined" -- qemu_virsh domstate one-42
	assert_eq "shut off" "$(sed '/^$/d' "$LAST_OUT")" "defined, not started"

	mgd="//devices/hostdev[@mode='subsystem'][@type='pci'][@managed='yes']"
	assert_eq "$(addr_xml "${vfs[0]}")
$(addr_xml "${vfs[1]}")" "$(xpath one-42 "$mgd/source/address" 2>&1)" \
		"dumpxml: both managed PCI hostdevs, with the leased VFs in NIC order"
	assert_eq 2 "$(xpath one-42 "$mgd/address[@type='pci']" | wc -l)" \
		"the QEMU driver gave both hostdevs a guest PCI address"
	assert_eq "type='bridge'
address='02:00:c0:a8:01:06'
bridge='br0'
dev='one-42-1'" "$(xpath one-42 "//devices/interface/@type | //devices/interface/mac/@address |
		//devices/interface/source/@bridge | //devices/interface/target/@dev" 2>&1)" \
		"dumpxml: the bridge NIC is the only interface, unchanged"
	assert_ok "undefine" -- qemu_virsh undefine one-42
	assert_fail "the domain is gone" -- qemu_virsh domstate one-42
fi

# negative controls: the same file, broken in ways only libvirt checks
fn_re=$(addr_re "${vfs[0]}")
sed -E "s#$fn_re#$(addr_xml "${vfs[0]}" 0x9)#" "$xml" >"$TEST_TMP/bad-function.xml"
assert_eq 1 "$(grep -c "function='0x9'" "$TEST_TMP/bad-function.xml")" "control 1: one hostdev has PCI function 0x9"
assert_fail "control 1: define refuses a hostdev with PCI function 0x9" -- \
	qemu_virsh define "$TEST_TMP/bad-function.xml"
assert_match 'Invalid PCI address function=0x9' "$(cat "$LAST_ERR")" "control 1: for that reason"

sed -E "s#$(addr_re "${vfs[1]}")#$(addr_xml "${vfs[0]}")#" "$xml" >"$TEST_TMP/bad-dup.xml"
assert_eq 2 "$(grep -Ec "$fn_re" "$TEST_TMP/bad-dup.xml")" \
	"control 2: both hostdevs are VF ${vfs[0]}"
assert_fail "control 2: define refuses the same VF twice" -- \
	qemu_virsh define "$TEST_TMP/bad-dup.xml"
assert_match 'Hostdev already exists' "$(cat "$LAST_ERR")" "control 2: for that reason"

assert_ok "no domain is left defined" -- qemu_virsh list --all --name
assert_eq "" "$(sed '/^$/d' "$LAST_OUT")" "the QEMU driver has no domains"
test_done
