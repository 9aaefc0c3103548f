#!/bin/bash
# QoS that takes effect, or says it does not (design decision 11), and what
# else verify reads of opensm: tenant a's network asks for IB_SL 3.
# - opensm.conf without "qos TRUE": opensm forces every partition's SL to 0
#   (logging it only at debug level); verify reads the file, asks the SA
#   for a path inside the partition, and says the SL is not in force
#   (exit 1);
# - "qos TRUE" and SIGHUP: the SA answers SL 3, verify says it is in force;
# - the line removed and SIGHUP: opensm keeps a value the file no longer
#   says (it applies an option only when it changes: opensm-facts §1), so
#   the SA still answers 3: the SA is the truth, and verify says in force
#   while showing the file's qos FALSE;
# - M_Key: unset is a warning; set, verify shows the settings and sends
#   them with its SMPs (ibsim ignores M_Key, opensm-facts §6: only the
#   configuration can be checked here, not the protection);
# - a VM's VF GUID the SA does not know (on hardware: a ConnectX-4+ VF
#   under an SM without virtualization support) is named, with which SM is
#   needed.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/shared.sh"
sim_host none

SH_VNETS_A='<IB_SL><![CDATA[3]]></IB_SL>' shared_start
OSMCONF=$TEST_TMP/fabric/opensm.conf
verify() { sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" --opensm-conf "$OSMCONF"; }
assert_match "^vnet5_tenant-a=0x0101, ipoib, sl=3 :$" "$(cat "$SIM_PARTITIONS")" "rendered sl=3"
assert_eq "" "$(grep -E '^[[:space:]]*qos[[:space:]]' "$OSMCONF")" "opensm.conf says nothing of qos"

assert_fail "verify: the SL is not in force" -- verify
out=$(cat "$LAST_OUT")
assert_match "^opensm: $OSMCONF: qos FALSE, no M_Key$" "$out" "reads opensm's configuration"
assert_match "^sl: vnet5_tenant-a \(0x0101\) sl=3: the SA answers SL 0 \(0x[0-9a-f]{16} -> 0x[0-9a-f]{16}\): NOT in force: qos is not TRUE in opensm's configuration, and opensm then gives every path SL 0 \(one-ib-qos\(7\)\)$" \
	"$out" "says the SL is not in force, and why"
assert_match "^warning: opensm: m_key is not set: .* \(one-ib-qos\(7\)\)$" "$out" "M_Key unset: a warning"
assert_match "; 0 ports differ; 0 left out; 1 SL not in force$" "$out" "counted"
assert_eq "" "$(sim_client sm saquery PR --sgid-to-dgid fe80::200:0:a:0-fe80::200:0:c:0 --pkey 0x8101 |
	sed -n 's/^[[:space:]]*sl\.*0x\([1-9a-f]\)$/\1/p')" "the SA itself: SL 0"

echo "qos TRUE" >>"$OSMCONF"
sim_opensm_reread
assert_ok "verify with qos TRUE" -- verify
out=$(cat "$LAST_OUT")
assert_match "^opensm: $OSMCONF: qos TRUE, no M_Key$" "$out" "qos TRUE read"
assert_match "^sl: vnet5_tenant-a \(0x0101\) sl=3: the SA answers SL 3 \(0x[0-9a-f]{16} -> 0x[0-9a-f]{16}\): in force$" \
	"$out" "the SA answers SL 3: in force"
assert_match "; 0 ports differ; 0 left out$" "$out" "nothing not in force"

sed -i '/^qos TRUE$/d' "$OSMCONF"
sim_opensm_reread
assert_ok "the line removed: opensm keeps qos" -- verify
assert_match "^opensm: $OSMCONF: qos FALSE, no M_Key$" "$(cat "$LAST_OUT")" "the file says FALSE"
assert_match "sl=3: the SA answers SL 3 .*: in force$" "$(cat "$LAST_OUT")" "the SA says 3: in force"
echo "qos FALSE" >>"$OSMCONF"
sim_opensm_reread
assert_fail "qos FALSE written: opensm takes it" -- verify
assert_match "sl=3: the SA answers SL 0 .*: NOT in force" "$(cat "$LAST_OUT")" "not in force again"
# the configuration says TRUE, but opensm was not told
sed -i 's/^qos FALSE$/qos TRUE/' "$OSMCONF"
assert_fail "qos TRUE, opensm not told" -- verify
assert_match "sl=3: the SA answers SL 0 .*: NOT in force: the configuration says qos TRUE, so opensm has not re-read it \(SIGHUP\)" \
	"$(cat "$LAST_OUT")" "says to tell opensm"
sim_opensm_reread

# M_Key: the settings shown, sent with every SMP
cat >>"$OSMCONF" <<'EOS'
m_key 0x00000000deadbeef
m_key_protection_level 2
m_key_lease_period 60
EOS
sim_opensm_reread
assert_ok "verify with an M_Key" -- verify
assert_match "^opensm: $OSMCONF: qos TRUE, m_key set, m_key_protection_level 2, m_key_lease_period 60 s$" \
	"$(cat "$LAST_OUT")" "the M_Key settings"
assert_eq "" "$(grep '^warning: opensm' "$LAST_OUT")" "no M_Key warning"
assert_match "; 0 ports differ; 0 left out$" "$(cat "$LAST_OUT")" "the walk with the key still reads every port"
sed -i 's/^m_key_protection_level 2$/m_key_protection_level 0/' "$OSMCONF"
assert_ok "protection level 0" -- verify
assert_match "^warning: opensm: m_key_protection_level 0: ports hand their M_Key to whoever asks" \
	"$(cat "$LAST_OUT")" "a key without protection: a warning"
echo "m_key deadbeef" >>"$OSMCONF"
assert_refused --rc 2 "a malformed opensm.conf" "^oneib-partitions: verify: opensm's configuration .*opensm.conf line [0-9]+: m_key 'deadbeef' is not a number$" \
	-- verify
sed -i '/^m_key deadbeef$/d' "$OSMCONF"

# a VM whose VF the SA does not know
SH_VNETS_A='<IB_SL><![CDATA[3]]></IB_SL>' shared_listing "$TEST_TMP/cloud.xml" \
	10/node02/5,9 11/node02/7,9 12/node03/5,9 13/node03/7 14/node03/5
shared_render_install "$TEST_TMP/cloud.xml"
assert_ok "verify: VM 14's VF is no port of the fabric" -- verify
assert_match "^warning: 1 VF port GUID of VMs unknown to the SA \(VM 14 NIC 0\): ConnectX-4 and later VFs are virtual ports that only a virtualization-capable subnet manager manages \(NVIDIA's opensm with virt_enabled 2, or UFM; Debian's opensm has none\); ConnectX-3 alias GUIDs appear once their host registered them \(one-ib-sm\(7\)\)$" \
	"$(cat "$LAST_OUT")" "named, with the SM it needs"
assert_match "; 13 member ports in the fabric, 1 not; 0 ports differ" "$(cat "$LAST_OUT")" "counted as not in the fabric"
test_done
