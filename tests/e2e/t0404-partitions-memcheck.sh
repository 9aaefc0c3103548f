#!/bin/bash
# oneib-partitions (render, verify, list) and oneib-partitions-install
# under valgrind (memcheck: no invalid access, no definite leak) and in
# their ASan+UBSan build: render, with a network and NICs left out and
# legacy GUIDs, install, unchanged, a failed reload and its retry, a
# refusal, and verify with and without drift on the fabric; the shared
# fabric's paths (design decision 11): a static file and a hosts
# partition, a service network, a hostile static file, an installed file
# one-ib did not write, and verify reading opensm.conf and asking the SA
# for a partition's SL.
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
cat >"$TEST_TMP/static.conf" <<'EOS'
infra=0x0105, ipoib, defmember=full : 0x0002c90300000001 ;
storage=0x0200 : 0x0002c90300000001=full, 0x0002c903000a0001=limited ;
EOS
echo 'evil=0x0300 : ALL=full ;' >"$TEST_TMP/hostile.conf"
printf 'Default=0x7fff : ALL=full ;\nlab=0x0300 : 0x0002c903000c0001 ;\n' >"$TEST_TMP/hand.conf"
sed -e 's|<IB_MTU><!\[CDATA\[2048\]\]></IB_MTU>|&<IB_SL><![CDATA[3]]></IB_SL>|' \
	-e 's|</VNET_POOL>|<VNET><ID>9</ID><NAME><![CDATA[storage]]></NAME><CLUSTERS><ID>100</ID></CLUSTERS><VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE><IB_PKEY><![CDATA[0x8109]]></IB_PKEY><IB_MEMBERSHIP><![CDATA[limited]]></IB_MEMBERSHIP><IB_SERVICE_PARTITION><![CDATA[storage]]></IB_SERVICE_PARTITION><IB_SERVICE_GUIDS><![CDATA[0x0002c90300000001]]></IB_SERVICE_GUIDS></TEMPLATE></VNET></VNET_POOL>|' \
	"$TEST_TMP/vnets.xml" >"$TEST_TMP/shared.xml"
cmp -s "$TEST_TMP/vnets.xml" "$TEST_TMP/shared.xml" && die "no IB_SL or service network added"
shared="$TEST_TMP/vms.xml $TEST_TMP/hosts.xml $TEST_TMP/shared.xml"
"$P" render --static "$TEST_TMP/static.conf" --hosts-partition infra $shared >"$TEST_TMP/s.conf" ||
	die "cannot render the shared cloud"
printf 'qos TRUE\nm_key 0x00000000deadbeef\nm_key_protection_level 2\n' >"$TEST_TMP/osm.conf"

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
mc_check 0 "render, static file, hosts partition, service network" $P render \
	--static "$TEST_TMP/static.conf" --hosts-partition infra --installed "$TEST_TMP/s.conf" $shared
mc_check 1 "render, a hostile static file" $P render --static "$TEST_TMP/hostile.conf" $shared
mc_check 1 "render, an installed file one-ib did not write" $P render --installed "$TEST_TMP/hand.conf" $shared
mc_check 0 "list the static file" $P list "$TEST_TMP/static.conf"
MC_ON=(sim_client sm) # from here on: on the fabric's SM node
mc_check 1 "verify, drift" $P verify --conf "$TEST_TMP/p.conf"
cp "$TEST_TMP/p.conf" "$SIM_PARTITIONS"
sim_opensm_reread
mc_check 0 "verify from XML, no drift" $P verify $pools
cp "$TEST_TMP/s.conf" "$SIM_PARTITIONS"
echo 'qos TRUE' >>"$TEST_TMP/fabric/opensm.conf"
sim_opensm_reread
mc_check 0 "verify, opensm.conf, an SL asked of the SA, the M_Key" $P verify --conf "$SIM_PARTITIONS" \
	--opensm-conf "$TEST_TMP/osm.conf"
}
test_done
