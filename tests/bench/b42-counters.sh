#!/bin/bash
# The free-VF counters and leaf terms (fabric/writeback.h over vfcount.h,
# leafpack.h, schedreq.h) the front-end's run (oneib-partitions sync)
# computes at every VM event, on a synthetic cloud of about 10,000 VMs and 1,000 hosts
# (tests/bench/genpools.sh, the `extended` shape of `onevm list -x
# --extended`, the listing the hook reads; every host given 64 usable VFs,
# so the 10 % of VMs waiting to be placed get leaves chosen): wall time
# (p50, p99 over B42_RUNS runs, 10) and peak RSS of
#   poolbench writeback vms.xml hosts.xml vnets.xml
#       the placement decisions of one event (counters and leaves)
#   poolbench render-writeback OUT vms.xml hosts.xml vnets.xml
#       sync's render step: one parse, the partitions and the counters
#       (tests/bench/poolbench.c runs the steps on files)
# and of the render alone, for scale; then counters again with every
# waiting VM behind the gate, so that each gets its cluster's leaf map
# (fabric/topology.h). Printed, never asserted; checked
# only that a run succeeds, names every host with IB PFs once, gives
# waiting VMs requirements under several leaves, and that sync's render
# step renders what render does. The listing itself (`onevm list`, Ruby, about 4 s
# at 10,000 VMs, issue 22) is not in it.
. "$(dirname "$0")/../lib/test-lib.sh"

PART=${ONEIB_PARTITIONS:-$TOP/build/bin/oneib-partitions}
POOLB=$TOP/build/bench/poolbench
RUNSTAT=$TOP/build/bench/runstat
RUNS=${B42_RUNS:-10}
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"
[ -x "$PART" ] || die "$PART missing (make)"
[ -x "$POOLB" ] || die "$POOLB missing (make build/bench/poolbench)"

d=$TEST_TMP/cloud
assert_ok "genpools.sh: 10,000 VMs, 1,000 hosts" -- \
	bash "$TOP/tests/bench/genpools.sh" -n 2000 -g 14000 -H 1000 -f extended "$d" || test_done
say "cloud: $(cat "$LAST_OUT")"
sed -i 's|<TEMPLATE>|<TEMPLATE><IB_VFS_USABLE>64</IB_VFS_USABLE>|' "$d/hosts.xml"
pools=("$d/vms.xml" "$d/hosts.xml" "$d/vnets.xml")
assert_ok "the write-back plan succeeds" -- "$POOLB" writeback "${pools[@]}"
hosts=$(grep -c '^host ' "$LAST_OUT")
vms=$(grep -c '^vm ' "$LAST_OUT")
assert_eq "$(grep -c '<IB_PF>' "$d/hosts.xml" | awk '{ print ($1 > 0) }')" "$((hosts > 0))" "counters name hosts"
assert_eq "$hosts" "$(grep '^host ' "$LAST_OUT" | sort -u | wc -l)" "each host once"
leaves=$(grep -o 'IB_LEAVES = [^,]*,0x[0-9a-f]*' "$LAST_OUT" | sort -u | wc -l)
assert_eq 1 "$((vms > 0 && leaves > 1))" "waiting VMs get requirements, under several leaves"
assert_ok "sync's render step succeeds" -- "$POOLB" render-writeback "$TEST_TMP/sync.conf" "${pools[@]}"
assert_ok "render succeeds" -- "$PART" render --output "$TEST_TMP/p.conf" "${pools[@]}"
assert_file_eq "$TEST_TMP/p.conf" "$TEST_TMP/sync.conf" "sync's render step renders what render does"
echo "# b42 counters and leaves: hosts=$hosts vms_given_terms=$vms leaves_chosen=$leaves vms_bytes=$(stat -c %s "$d/vms.xml") $("$RUNSTAT" "$RUNS" "$POOLB" writeback "${pools[@]}")"
echo "# b42 sync's one parse (partitions and counters): $("$RUNSTAT" "$RUNS" "$POOLB" render-writeback "$TEST_TMP/sync.conf" "${pools[@]}")"
echo "# b42 render alone (same files): $("$RUNSTAT" "$RUNS" "$PART" render --output "$TEST_TMP/p.conf" "${pools[@]}")"
# every waiting VM behind the shipped template's gate: each gets its
# cluster's leaf map for its CONTEXT (fabric/topology.h) as its gate lifts
gate='"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL" \&gt; 0 \&amp; IB_LEAVES = "*,chosen-by-one-ib,*"'
sed "s|<USER_TEMPLATE>|<USER_TEMPLATE><SCHED_REQUIREMENTS>$gate</SCHED_REQUIREMENTS>|" "$d/vms.xml" >"$d/vms-gated.xml"
gated=("$d/vms-gated.xml" "$d/hosts.xml" "$d/vnets.xml")
assert_ok "counters, every waiting VM gated" -- "$POOLB" writeback "${gated[@]}"
maps=$(grep -c '^ctx ' "$LAST_OUT")
assert_eq 1 "$((maps > 0))" "gated VMs get their cluster's map"
assert_eq "$maps" "$(awk '$1 == "ctx" { c = $2; next } c != "" && $1 == "vm" && $2 == c && /IB_LEAVES = \\"\*,0x/ { n++ } { c = "" } END { print n + 0 }' "$LAST_OUT")" \
	"each map just before the leaf term that lifts that VM's gate"
echo "# b42 counters with maps: vms_given_maps=$maps map_bytes=$(grep '^ctx ' "$LAST_OUT" | wc -c) $("$RUNSTAT" "$RUNS" "$POOLB" writeback "${gated[@]}")"
test_done
