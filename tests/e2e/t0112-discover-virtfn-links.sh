#!/bin/bash
# The forms a virtfnN link can take. The kernel writes "../0000:3b:00.2"
# (a VF sits beside its PF), which oneib-discover reads relative to the
# PF's parent directory; any other form is followed through
# /sys/bus/pci/devices, and must give the same answer. A VF that is not
# there is left out with one warning whatever the link's form, and the
# probe's formats (which read only each VF's driver) still tell an unbound
# VF that is there from one that is not.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx5

pf=/sys/bus/pci/devices/0000:3b:00.0
"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/kernel.json" 2>"$TEST_TMP/kernel.err"
assert_json_eq "$SIM_HOST_DIR/expect.json" "$TEST_TMP/kernel.json" "the kernel's links: the fixture's answer"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/kernel.one" 2>&1

# The same VFs through links of other forms: absolute through SYS_PCI, and
# relative by a longer way round.
ln -sfn /sys/bus/pci/devices/0000:3b:00.2 "$pf/virtfn1"
ln -sfn ../../0000:3a:00.0/0000:3b:00.3 "$pf/virtfn2"
"$IBBIN/oneib-discover" --format=json >"$TEST_TMP/other.json" 2>"$TEST_TMP/other.err"
assert_json_eq "$TEST_TMP/kernel.json" "$TEST_TMP/other.json" "other link forms: the same VFs, drivers, groups and NUMA nodes"
assert_eq "" "$(cat "$TEST_TMP/other.err")" "other link forms: no warning"
"$IBBIN/oneib-discover" --format=one >"$TEST_TMP/other.one" 2>&1
assert_file_eq "$TEST_TMP/kernel.one" "$TEST_TMP/other.one" "other link forms: the same probe answer"

# An unbound VF is there; a link to a function that is not is dangling, in
# either form.
rm "/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.4/driver"
ln -sfn /sys/bus/pci/devices/0000:3b:0f.7 "$pf/virtfn5"
ln -sfn ../0000:3b:0f.6 "$pf/virtfn6"
for f in json one; do
	"$IBBIN/oneib-discover" --format=$f >"$TEST_TMP/gone.$f" 2>"$TEST_TMP/gone.$f.err"
	assert_eq 0 $? "--format=$f, two links dangling: exit status"
	assert_eq 2 "$(grep -c . "$TEST_TMP/gone.$f.err")" "--format=$f: one warning per dangling link"
	assert_match "virtfn5: dangling link to '0000:3b:0f.7'" "$(cat "$TEST_TMP/gone.$f.err")" "--format=$f: the absolute link named"
	assert_match "virtfn6: dangling link to '0000:3b:0f.6'" "$(cat "$TEST_TMP/gone.$f.err")" "--format=$f: the sibling link named"
done
assert_eq "0 1 2 3 4 7" "$(jq -r '[.hcas[0].vfs[].index] | join(" ")' "$TEST_TMP/gone.json")" "the dangling VFs left out, the unbound one kept"
assert_eq "null" "$(jq -r '.hcas[0].vfs[] | select(.index == 3) | .driver' "$TEST_TMP/gone.json")" "the unbound VF: no driver"
# Left: VFs 0-4 (3 unbound) free, 7 the host's own.
assert_match '^IB_PF_FREE=\[ ADDRESS="0000:3b:00.0", PORT="1", IB_VFS_FREE="5" \]$' "$(cat "$TEST_TMP/gone.one")" "--format=one: five VFs free, the unbound one counted"
test_done
