#!/bin/bash
# The machine running the tests may be a hypervisor where one-ib runs: its
# lease ledger (/var/lib/one/ib) and /dev/shm (oneib-vf's views of libvirt)
# are production state, which no test and no demo step may read or write.
# Every simulated host has its own (sim_host, sim_hv). Here the "machine"
# is this test's own namespace: a ledger holding a lease is planted in its
# /var/lib/one/ib, and files in its /dev/shm; then tests that run
# oneib-discover, the probes and oneib-vf in simulated hosts (one host, two
# hosts of tests/lib/hosts.sh) and the demo's discovery step run here. They
# pass, as on a machine without one-ib (the planted lease names a VF of
# their fixture), and the ledger and /dev/shm stay byte for byte as
# planted. tests/run.sh and tests/demo.sh check the real machine the same
# way around every run.
TEST_TIMEOUT=${TEST_TIMEOUT:-900}
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/machine.sh"
sim_host none

# This namespace's own /var/lib/one and /dev/shm (sim_host gives them
# already; mounted here again so that the planting below never reaches the
# real machine, whatever the harness does): the "machine" of the tests run
# below.
mkdir -p /var/lib/one && mount -t tmpfs -o mode=0755 tmpfs /var/lib/one &&
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm || die "cannot make the planted machine"
mkdir -p /var/lib/one/ib
cat >/var/lib/one/ib/leases <<'EOF'
# one-ib VF leases, written by oneib-vf under flock; see oneib-vf(8) before editing by hand
vf=0000:3b:00.1 pf=0000:3b:00.0 port=1 vm=4242 nic=0 mac=02:00:c0:a8:42:42 guid=0x0200000010920000 pkey=0x8101 since=1000000000
EOF
: >/var/lib/one/ib/leases.lock
echo "a view of the machine's own" >/dev/shm/oneib-view-0000000000000001
echo "someone else's" >/dev/shm/other
machine_state >"$TEST_TMP/before"
assert_match "leases$" "$(cat "$TEST_TMP/before")" "the planted ledger is there"

for t in t0101-discover-cx5 t0121-probe-monitor t0211-probe-reconciles \
	t0221-deploy-libvirt-view t0603-lifecycle-migrate; do
	assert_ok "$t passes on a machine with a lease of its own" -- bash "$TOP/tests/e2e/$t.sh"
done
assert_ok "the demo's discovery step too" -- env DEMO_HOST=cx5 bash "$TOP/tests/demo/10-discover.sh"
assert_eq "" "$(machine_changes "$TEST_TMP/before")" \
	"the machine's ledger and /dev/shm are byte for byte as they were"
test_done
