#!/bin/bash
# oneib-peer (root) and oneib-discover asking it, under valgrind (memcheck:
# no invalid access, no definite leak) and in their ASan+UBSan builds: a
# leaf switch answered, a CA answered, a refusal; discover's table, JSON
# and probe formats with the peer command, one port answered and one not.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host cx5-ibsim
sim_fabric "$TOP/tests/e2e/data/fabric-2leaf.net"
P=$TOP/build/bin/oneib-peer
D=$TOP/build/bin/oneib-discover

# umad2sim is preloaded before the ASan runtime: link-order check off, and
# its own faults suppressed.
MC_VALGRIND_OPTS=(--suppressions="$TOP/tests/e2e/data/umad2sim.supp")
MC_ASAN_OPTS=(verify_asan_link_order=0 suppressions="$TOP/tests/e2e/data/umad2sim.asan-supp")
MC_ON=(sim_client hv1)
mc_check 0 "oneib-peer, a leaf" "$P" 0000:3b:00.0 1
assert_eq "type switch" "$(head -n 1 "$TEST_TMP/asan.out")" "the leaf answered"
MC_ON=(sim_client hv5)
mc_check 0 "oneib-peer, a CA" "$P" 0000:3b:00.0 1
assert_eq "type CA" "$(head -n 1 "$TEST_TMP/asan.out")" "the CA answered"
mc_check 1 "oneib-peer, a VF refused" "$P" 0000:3b:00.1 1
mc_check 1 "oneib-peer, no simulated port" "$P" 0000:af:00.0 1

MC_ON=()
cat >"$TEST_TMP/peer" <<EOS
#!/bin/sh
cd "$TEST_TMP/fabric/client" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST=hv3 "$P" "\$@"
EOS
chmod +x "$TEST_TMP/peer"
for f in table json one one-system; do
	mc_check 0 "oneib-discover --format=$f --peer-cmd" "$D" --format="$f" --peer-cmd "$TEST_TMP/peer" \
		--ledger "$TEST_TMP/ledger"
done
assert_match '^IB_LEAVES=",0x0002c90200000b00,"$' "$(cat "$TEST_TMP/asan.out")" "hv3's leaf, leaf2"
test_done
