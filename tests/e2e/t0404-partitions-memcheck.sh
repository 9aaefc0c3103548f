#!/bin/bash
# oneib-partitions (render, verify, list) and oneib-partitions-install
# under valgrind (memcheck: no invalid access, no definite leak) and in
# their ASan+UBSan build: render, with a network and NICs left out and
# legacy GUIDs, install, unchanged, a failed reload and its retry, a
# refusal, and verify with and without drift on the fabric.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/cloud.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host none
P=$TOP/build/bin/oneib-partitions
I=$TOP/build/bin/oneib-partitions-install

cloud_start_vms >"$TEST_TMP/vms.xml"
cloud_hosts >"$TEST_TMP/hosts.xml"
cloud_vnets >"$TEST_TMP/vnets.xml"
sed 's/0x8102/0x8101/' "$TEST_TMP/vnets.xml" >"$TEST_TMP/collision.xml"
cloud_vms "$CLOUD_VM10/0x8102" "$CLOUD_VM11" >"$TEST_TMP/badnic.xml"
cloud_fabric
pools="$TEST_TMP/vms.xml $TEST_TMP/hosts.xml $TEST_TMP/vnets.xml"
"$P" render $pools >"$TEST_TMP/r.conf" || die "cannot render"
sed 's/=full ;$/=full/' "$TEST_TMP/r.conf" >"$TEST_TMP/broken.conf"

# umad2sim (the fabric's clients) is preloaded before the ASan runtime:
# link-order check off, and its own faults suppressed.
MC_VALGRIND_OPTS=(--suppressions="$TOP/tests/e2e/data/umad2sim.supp")
MC_ASAN_OPTS=(verify_asan_link_order=0 suppressions="$TOP/tests/e2e/data/umad2sim.asan-supp")
# shellcheck disable=SC2086
{
mc_check 0 "render to stdout" $P render $pools
mc_check 0 "render, a network and a NIC left out, legacy GUIDs" $P render --legacy-guids \
	--installed "$TEST_TMP/r.conf" "$TEST_TMP/badnic.xml" "$TEST_TMP/hosts.xml" "$TEST_TMP/collision.xml"
mc_check 1 "render refused" $P render "$TEST_TMP/vms.xml" "$TEST_TMP/vnets.xml"
mc_check 0 "list" $P list "$TEST_TMP/r.conf"
mc_check 0 "install" $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/r.conf"
mc_check 0 "unchanged" $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/r.conf"
rm "$TEST_TMP/p.conf"
mc_check 1 "install, reload fails" $I --output "$TEST_TMP/p.conf" --reload-cmd false "$TEST_TMP/r.conf"
mc_check 0 "unchanged, reload retried" $I --output "$TEST_TMP/p.conf" --reload-cmd true "$TEST_TMP/r.conf"
mc_check 1 "install refused" $I --output "$TEST_TMP/p.conf" --no-reload "$TEST_TMP/broken.conf"
MC_ON=(sim_client sm) # from here on: on the fabric's SM node
mc_check 1 "verify, drift" $P verify --conf "$TEST_TMP/p.conf"
cp "$TEST_TMP/p.conf" "$SIM_PARTITIONS"
sim_opensm_reread
mc_check 0 "verify from XML, no drift" $P verify $pools
}
test_done
