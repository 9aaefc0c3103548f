#!/bin/bash
# The helpers on real inputs under valgrind (memcheck: no invalid access, no
# definite leak) and their ASan+UBSan builds: discovery (the damaged tree is
# covered by t0106), deploy with two IB NICs, list, reconcile and release;
# lease (reserved, then programmed), hostdevs and release of one NIC.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/memcheck.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host
# 24 idle domains: enough that libvirt's domains are read by several
# threads (virt.c), so those threads run under valgrind and ASan too.
for i in $(seq 24); do
	echo "<domain type='kvm'><name>idle-$i</name><memory>1024</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os></domain>" >"$TEST_TMP/idle.xml"
	virsh create "$TEST_TMP/idle.xml" >/dev/null
done
mc_valgrind 0 "oneib-discover --format=json" "$R/ib/bin/oneib-discover" --format=json
mc_valgrind 0 "oneib-discover table" "$R/ib/bin/oneib-discover"

mkdir -p "$DS/8"
vm_xml 8 ib/0/02:00:c0:a8:08:01/0x8101 bridge/1/02:00:c0:a8:08:02 ib/2/02:00:c0:a8:08:03/0x8102 >"$DS/8/vm.xml"
domain_xml 8 02:00:c0:a8:08:01 02:00:c0:a8:08:02 02:00:c0:a8:08:03 >"$TEST_TMP/dom.xml"
mc_valgrind 0 "oneib-vf deploy, 2 IB NICs" "$R/ib/bin/oneib-vf" deploy --vm 8 --vm-xml "$DS/8/vm.xml" <"$TEST_TMP/dom.xml"
assert_eq 2 "$(grep -c '<hostdev' "$TEST_TMP/vg.out")" "deploy output has the hostdevs"
mc_valgrind 0 "oneib-vf list --format=json" "$R/ib/bin/oneib-vf" list --format=json
mc_valgrind 0 "oneib-vf reconcile" "$R/ib/bin/oneib-vf" reconcile
mc_valgrind 0 "oneib-vf release" "$R/ib/bin/oneib-vf" release --vm 8
# NIC hot-plug and migration: reserve, lease, list what the domain holds
vm_xml 9 ib/0/02:00:c0:a8:09:01/0x8101 ib/1/02:00:c0:a8:09:02/0x8102 >"$DS/9.xml"
mc_valgrind 0 "oneib-vf lease --reserve" "$R/ib/bin/oneib-vf" lease --vm 9 --vm-xml "$DS/9.xml" --reserve
mc_valgrind 0 "oneib-vf lease (reservations become leases)" "$R/ib/bin/oneib-vf" lease --vm 9 --vm-xml - <"$DS/9.xml"
assert_eq 2 "$(grep -c '<hostdev' "$TEST_TMP/vg.out")" "lease prints the hostdevs"
domain_xml 9 | sed "s|</devices>|$(cut -d' ' -f2- "$TEST_TMP/vg.out" | head -n 1)</devices>|" >"$TEST_TMP/dom9.xml"
virsh create "$TEST_TMP/dom9.xml" >/dev/null
mc_valgrind 0 "oneib-vf hostdevs --held" "$R/ib/bin/oneib-vf" hostdevs --vm 9 --held
assert_eq 1 "$(grep -c '<hostdev' "$TEST_TMP/vg.out")" "one held"
mc_valgrind 0 "oneib-vf hostdevs --not-held --mac" "$R/ib/bin/oneib-vf" hostdevs --vm 9 --not-held --vm-xml "$DS/9.xml" --mac 02:00:c0:a8:09:02
assert_eq 1 "$(grep -c '<hostdev' "$TEST_TMP/vg.out")" "one not held"
mc_valgrind 0 "oneib-vf release --mac" "$R/ib/bin/oneib-vf" release --vm 9 --vm-xml "$DS/9.xml" --mac 02:00:c0:a8:09:02
mc_valgrind 1 "oneib-vf lease refused (--mac of no IB NIC)" "$R/ib/bin/oneib-vf" lease --vm 9 --vm-xml "$DS/9.xml" --mac 02:00:c0:a8:09:99
mc_valgrind 1 "oneib-vf deploy refused (bad P_Key)" "$R/ib/bin/oneib-vf" deploy --vm 8 --vm-xml /dev/stdin \
	<<<'<VM><ID>8</ID><TEMPLATE><NIC><NIC_ID>0</NIC_ID><MAC>02:00:c0:a8:08:01</MAC><VN_MAD>ib</VN_MAD><IB_PKEY>0x7fff</IB_PKEY></NIC></TEMPLATE></VM>'

a=$MC_ASAN_BIN
mc_asan 0 "oneib-discover" "$a/oneib-discover" --format=json
mc_asan 0 "oneib-vf deploy" "$a/oneib-vf" deploy --vm 8 --vm-xml "$DS/8/vm.xml" <"$TEST_TMP/dom.xml"
mc_asan 0 "oneib-vf list" "$a/oneib-vf" list
mc_asan 0 "oneib-vf lease --reserve" "$a/oneib-vf" lease --vm 9 --vm-xml "$DS/9.xml" --nic 1 --reserve
mc_asan 0 "oneib-vf hostdevs --held" "$a/oneib-vf" hostdevs --vm 9 --held
mc_asan 0 "oneib-vf release --nic" "$a/oneib-vf" release --vm 9 --nic 1
mc_asan 0 "oneib-vf reconcile" "$a/oneib-vf" reconcile --grace 1
test_done
