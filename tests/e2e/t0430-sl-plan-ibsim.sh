#!/bin/bash
# The service-level plan on the real opensm over an ibsim fabric with two
# leaves (design decision 13; tests/lib/slplan.sh): three clusters, a on
# leaf1's hosts, b on leaf2's, c on both.
# - the two on disjoint leaves share an SL, the one spanning both gets its
#   own; `plan` says which and why;
# - rendered as sl= and as opensm's QoS policy (any, pkey rules), both
#   installed by the root installer: opensm takes the policy (no ERR AC..),
#   and the SA's path records inside each partition answer the planned SL;
# - adding a VM to a cluster never changes its SL (a now on leaf2 too:
#   it clashes with b on hv3, said once, and keeps its SL), nor does
#   re-rendering an unchanged cloud;
# - a cluster with no VMs left has no SL; back with VMs it is planned anew;
# - K + 1 clusters that all share a host: ibsim's ports have 8 data VLs
#   (PortInfo VLCap VL0-7), SL 0 is best effort, so 7 get their own and
#   the 8th the shared SL 0, with one warning naming it;
# - IB_SL set by oneadmin pins a network, and the SA answers it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/slplan.sh"
sim_host none

sl_fabric
assert_match "VLCap:\.*VL0-7" "$(sim_client sm smpquery portinfo "$(sim_lid vm10-nic0)")" \
	"ibsim's ports have 8 data VLs: K = 8, 7 with SL 0 for best effort"
sl_listing "$TEST_TMP/cloud.xml"

# --- the plan ------------------------------------------------------------
assert_ok "plan" -- "$PART" plan --sls 1-7 --sl-best-effort 0 "$TEST_TMP/cloud.xml"
plan=$(cat "$LAST_OUT")
assert_match "^VNET 9 \(c\) 0x0103: SL 1, new: .*; VMs on 2 hosts under 2 leaves \(spans\); conflicts with 2: VNET 5 \(a\) SL 2 \(HOST 1\), VNET 7 \(b\) SL 2 \(HOST 3\)$" \
	"$plan" "c spans both leaves: its own SL, and why"
assert_match "^VNET 5 \(a\) 0x0101: SL 2, new: .*; VMs on 2 hosts under 1 leaf; conflicts with 1: VNET 9 \(c\) SL 1 \(HOST 1\)$" \
	"$plan" "a: one leaf"
assert_match "^VNET 7 \(b\) 0x0102: SL 2, new: .*; VMs on 2 hosts under 1 leaf; conflicts with 1: VNET 9 \(c\) SL 1 \(HOST 3\)$" \
	"$plan" "b: the other leaf, a's SL"
assert_match "^plan: 3 of 3 networks with VMs; SLs 1-7 for them \(7\), best effort 0; 0 on best effort, 0 clashes$" \
	"$plan" "the summary"

# --- rendered, installed, in force -----------------------------------------
sl_render_install "$TEST_TMP/cloud.xml"
assert_eq "2 2 1" "$(sl_of "$SIM_PARTITIONS" 5) $(sl_of "$SIM_PARTITIONS" 7) $(sl_of "$SIM_PARTITIONS" 9)" \
	"sl= of a, b, c as planned"
assert_eq "" "$(cat "$TEST_TMP/render.err")" "no warning"
cat >"$TEST_TMP/want-policy" <<'EOF'
# oneib-partitions: generated from the cloud's state, do not edit
# the SL of every partition that has one (sl=), by P_Key
qos-ulps
	default : 0
	any, pkey 0x0103 : 1
	any, pkey 0x0101-0x0102 : 2
end-qos-ulps
EOF
assert_file_eq "$TEST_TMP/want-policy" "$SL_POLICY" "the QoS policy opensm reads"
assert_eq "" "$(grep -E "$SL_POLICY_ERRORS" "$SIM_OPENSM_LOG")" "opensm took both files"
assert_match "Loading QoS policy file \($SL_POLICY\)" "$(cat "$SIM_OPENSM_LOG")" "and read the policy"
assert_eq 2 "$(sl_path vm10-nic0 vm11-nic0 0x8101)" "SA: a's path answers SL 2"
assert_eq 2 "$(sl_path vm12-nic0 vm13-nic0 0x8102)" "SA: b's path answers SL 2"
assert_eq 1 "$(sl_path vm14-nic0 vm15-nic0 0x8103)" "SA: c's path, across the spine, answers SL 1"
assert_eq 1 "$(sl_path vm15-nic0 vm14-nic0 0x0103)" "... asked with the limited form of its key too"
assert_eq "" "$(sl_path vm10-nic0 vm12-nic0 0x8101)" "no path from a to b"

# --- verify: planned SL, the SA's answer, the tables opensm programmed ------
OSMCONF=$TEST_TMP/fabric/opensm.conf
verify() { sim_client sm "$PART" verify --conf "$SIM_PARTITIONS" --opensm-conf "$OSMCONF"; }
assert_ok "verify" -- verify
out=$(cat "$LAST_OUT")
assert_match "^qos-policy: $SL_POLICY: one-ib's, 3 partitions with an SL, default SL 0$" "$out" \
	"the policy opensm reads is one-ib's"
assert_match "^sl: vnet5_a \(0x0101\) sl=2: the SA answers SL 2 \(0x[0-9a-f]{16} -> 0x[0-9a-f]{16}\): in force$" \
	"$out" "a: planned 2, the SA answers 2"
assert_match "^sl: vnet9_c \(0x0103\) sl=1: the SA answers SL 1 .*: in force$" "$out" "c: 1 and 1"
assert_match "^tables: vnet5_a \(0x0101\) SL 2: VL 2 on its 2 ports and the switch ports toward them: weight low 4 high 0, switch low 4 high 0: in force$" \
	"$out" "a's SL on its VFs' ports and their leaf's: VL 2, opensm's default weight"
assert_match "^tables: vnet9_c \(0x0103\) SL 1: VL 1 on its 2 ports and the switch ports toward them: .*: in force$" \
	"$out" "c's: VL 1"
assert_match "^vls: the 6 ports read have 8 data VLs or more \(OperVLs\), the switch ports toward them 8$" \
	"$out" "K: 8 data VLs on every port read"
assert_match "; 0 ports differ; 0 left out$" "$out" "nothing wrong"
# SL 2 to VL 15 (opensm.conf's qos_sl2vl; opensm re-reads qos_* at SIGHUP)
echo "qos_sl2vl 0,1,15,3,4,5,6,7,8,9,10,11,12,13,14,15" >>"$OSMCONF"
sim_opensm_reread
assert_fail "SL 2 dropped" -- verify
out=$(cat "$LAST_OUT")
assert_match "^tables: vnet5_a \(0x0101\) SL 2: [0-9]+ faults, e.g. port 0x02000000000[ab]0000 \(VM 1[01] NIC 0; lid [0-9]+, \"vm1[01]-nic0\"\) maps it to VL 15: dropped \(VL 15\): NOT in force \(one-ib-qos\(7\)\)$" \
	"$out" "the VL 15 a's VFs drop it to, named"
assert_match "^sl: vnet5_a \(0x0101\) sl=2: no path 0x.* in it \(the SA answers MAD status" "$out" \
	"and the SA has no path for it"
assert_match "QoS table faults?$" "$out" "counted"
# SL 1 and SL 2 on one VL: a's and c's classes are one
sed -i 's/^qos_sl2vl .*/qos_sl2vl 0,1,1,3,4,5,6,7,8,9,10,11,12,13,14,15/' "$OSMCONF"
sim_opensm_reread
assert_fail "SL 1 and SL 2 on one VL" -- verify
assert_match "^tables: SL 1 and SL 2 share VL 1 on [0-9]+ ports, e.g. .*: their partitions are one class there: NOT in force \(one-ib-qos\(7\)\)$" \
	"$(cat "$LAST_OUT")" "said"
sed -i 's/^qos_sl2vl .*/qos_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15/' "$OSMCONF"
sim_opensm_reread
assert_ok "opensm's map back" -- verify

# --- sticky: VMs added, or nothing changed ---------------------------------
cp "$SIM_PARTITIONS" "$TEST_TMP/before.conf"
sl_render_install "$TEST_TMP/cloud.xml"
assert_file_eq "$TEST_TMP/before.conf" "$SIM_PARTITIONS" "an unchanged cloud renders the same file"
sl_listing "$TEST_TMP/grown.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9 16/3/5 17/2/9
sl_render_install "$TEST_TMP/grown.xml"
assert_eq "2 2 1" "$(sl_of "$SIM_PARTITIONS" 5) $(sl_of "$SIM_PARTITIONS" 7) $(sl_of "$SIM_PARTITIONS" 9)" \
	"VM 16 joins a (on hv3, leaf2), VM 17 joins c: no SL changes"
assert_match "^warning: SL plan: networks that can share a link have one SL: VNET 5 \(a\) and VNET 7 \(b\) SL 2 \(HOST 3\): an SL is kept while its network has VMs" \
	"$(cat "$TEST_TMP/render.err")" "the clash a placement made is said"
assert_eq 1 "$(grep -c 'SL plan' "$TEST_TMP/render.err")" "once"
assert_eq 2 "$(sl_path vm10-nic0 vm16-nic0 0x8101)" "SA: a's new VM, across the spine, SL 2"
assert_eq 1 "$(sl_path vm14-nic0 vm17-nic0 0x8103)" "SA: c's new VM, SL 1"
assert_ok "plan" -- "$PART" plan --sls 1-7 --installed "$SIM_PARTITIONS" "$TEST_TMP/grown.xml"
assert_match "^VNET 5 \(a\) 0x0101: SL 2, kept, its installed SL; VMs on 3 hosts under 2 leaves \(spans\); conflicts with 2: VNET 7 \(b\) SL 2 \(HOST 3\), VNET 9 \(c\) SL 1 \(HOST 1\)$" \
	"$(cat "$LAST_OUT")" "plan: a keeps its SL"

# --- a cluster without VMs: no SL; back, planned anew ------------------------
sl_listing "$TEST_TMP/nob.xml" 10/1/5 11/2/5 14/1/9 15/3/9
sl_render_install "$TEST_TMP/nob.xml"
assert_eq "" "$(sl_of "$SIM_PARTITIONS" 7)" "b without VMs: no sl="
assert_match "^vnet7_b=0x0102, ipoib : ;$" "$(cat "$SIM_PARTITIONS")" "b's partition stays, best effort, empty"
assert_eq "2 1" "$(sl_of "$SIM_PARTITIONS" 5) $(sl_of "$SIM_PARTITIONS" 9)" "a and c keep theirs"
assert_match "^	any, pkey 0x0101 : 2$" "$(cat "$SL_POLICY")" "b has no rule"
sl_listing "$TEST_TMP/b-back.xml" 10/1/5 11/2/5 14/1/9 15/3/9 12/4/7 13/4/7
sl_render_install "$TEST_TMP/b-back.xml"
assert_eq 1 "$(sl_of "$SIM_PARTITIONS" 7)" "b back, on hv4 alone: it meets nobody, the lowest SL (c's too)"
assert_eq 1 "$(sl_path vm12-nic0 vm13-nic0 0x8102)" "SA answers it"

# --- IB_SL pins ------------------------------------------------------------
SL_MORE_VNETS=$(sl_vnet 11 pinned 0x8104 '<IB_SL><![CDATA[6]]></IB_SL>')
SL_PKEY[11]=0x8104
sl_listing "$TEST_TMP/pinned.xml" 10/1/5 11/2/5 12/3/7 13/4/7 14/1/9 15/3/9
sl_render_install "$TEST_TMP/pinned.xml"
assert_eq 6 "$(sl_of "$SIM_PARTITIONS" 11)" "IB_SL 6: pinned, even without VMs"
assert_match "^	any, pkey 0x0104 : 6$" "$(cat "$SL_POLICY")" "and in the policy"
unset 'SL_PKEY[11]'
SL_MORE_VNETS=

# --- K + 1 conflicting clusters ---------------------------------------------
SL_MORE_VNETS=
specs=()
for i in 0 1 2 3 4 5 6 7; do
	SL_MORE_VNETS+=$(sl_vnet $((20 + i)) "k$i" "$(printf '0x%04x' $((0x8110 + i)))")
	SL_PKEY[$((20 + i))]=$(printf '0x%04x' $((0x8110 + i)))
	specs+=("$((30 + i))/4/$((20 + i))")
done
sl_listing "$TEST_TMP/k1.xml" "${specs[@]}"
assert_ok "plan of K + 1 on one host" -- "$PART" plan --sls 1-7 "$TEST_TMP/k1.xml"
out=$(cat "$LAST_OUT")
assert_eq "1 2 3 4 5 6 7 0" "$(sed -n 's/^VNET 2[0-7] (k[0-7]) 0x011[0-7]: SL \([0-9]*\),.*/\1/p' <<<"$out" | tr '\n' ' ' | sed 's/ $//')" \
	"7 clusters get SLs 1-7, the 8th the best-effort SL 0"
assert_match "^VNET 27 \(k7\) 0x0117: SL 0, best effort: each of SLs 1-7 is taken by a network it conflicts with; VMs on 1 host under 1 leaf; conflicts with 7:" \
	"$out" "and why"
assert_eq "warning: SL plan: no SL of 1-7 is free for VNET 27 (k7): each is taken by a network it can share a link with, so it gets the best-effort SL 0 (place it under fewer leaves, or give the clusters more SLs: ONEIB_SLS)" \
	"$(grep '^warning:' <<<"$out")" "one warning, naming it"
sl_render_install "$TEST_TMP/k1.xml"
assert_eq 0 "$(sl_of "$SIM_PARTITIONS" 27)" "rendered: sl=0"
assert_eq 1 "$(grep -c '^warning: SL plan: no SL' "$TEST_TMP/render.err")" "the render warns once too"
assert_eq "" "$(grep -E "$SL_POLICY_ERRORS" "$SIM_OPENSM_LOG")" "opensm takes the policy"
test_done
