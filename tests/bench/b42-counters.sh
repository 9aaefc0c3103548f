#!/bin/bash
# The free-VF counters (oneib-partitions counters, fabric/vfcount.h) the
# front-end hook computes at every VM event, on a synthetic cloud of about
# 10,000 VMs and 1,000 hosts (tests/bench/genpools.sh, the `extended` shape
# of `onevm list -x --extended`, the listing the hook reads): wall time
# (p50, p99 over B42_RUNS runs, 10) and peak RSS of
#   oneib-partitions counters vms.xml hosts.xml
# and, for scale, of the render the same run does on the same files. The
# hosts of genpools have no VMS, so every host's counters are written: the
# most output a run can have. Printed, never asserted; checked only that a
# run succeeds and names every host with IB PFs once. The listing itself
# (`onevm list`, Ruby, about 4 s at 10,000 VMs, issue 22) is not in it.
. "$(dirname "$0")/../lib/test-lib.sh"

PART=${ONEIB_PARTITIONS:-$TOP/build/bin/oneib-partitions}
RUNSTAT=$TOP/build/bench/runstat
RUNS=${B42_RUNS:-10}
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"
[ -x "$PART" ] || die "$PART missing (make)"

d=$TEST_TMP/cloud
assert_ok "genpools.sh: 10,000 VMs, 1,000 hosts" -- \
	bash "$TOP/tests/bench/genpools.sh" -n 2000 -g 14000 -H 1000 -f extended "$d" || test_done
say "cloud: $(cat "$LAST_OUT")"
assert_ok "counters succeeds" -- "$PART" counters "$d/vms.xml" "$d/hosts.xml"
hosts=$(grep -c '^host ' "$LAST_OUT")
assert_eq "$(grep -c '<IB_PF>' "$d/hosts.xml" | awk '{ print ($1 > 0) }')" "$((hosts > 0))" "counters name hosts"
assert_eq "$hosts" "$(grep '^host ' "$LAST_OUT" | sort -u | wc -l)" "each host once"
echo "# b42 counters: hosts=$hosts vms_bytes=$(stat -c %s "$d/vms.xml") $("$RUNSTAT" "$RUNS" "$PART" counters "$d/vms.xml" "$d/hosts.xml")"
echo "# b42 render (same files): $("$RUNSTAT" "$RUNS" "$PART" render --output "$TEST_TMP/p.conf" "$d/vms.xml" "$d/hosts.xml" "$d/vnets.xml")"
test_done
