#!/bin/bash
# The placement decision of a VM with 8 GPUs and 8 InfiniBand NICs on an
# HGX-class host of 8 x 127 VFs (design decision 15): the pure rule
# (tests/bench/placebench.c: 8 placement_choose calls and the ledger adds
# between them), with no other lease and with 800 leases of other VMs on
# the host; then `oneib-vf deploy` as kvm-ib runs it on the hgx-big
# fixture (sysfs, ledger, libvirt's test driver, the domain XML rewritten
# with a switch per GPU). Goal for the decision: <= 1 ms. Printed, never
# asserted; the check is that every NIC got its own rail beside its GPU.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
PB=$TOP/build/bench/placebench
RUNSTAT=$TOP/build/bench/runstat
[ -x "$PB" ] || die "$PB missing (make build/bench/placebench)"
for busy in 0 800; do
	assert_ok "placebench, $busy other leases" -- "$PB" 200 "$busy"
	echo "bench: placement of 8 GPUs x 8 NICs, 8 x 127 VFs, $busy leases: $(cat "$LAST_OUT") (goal: p50 <= 1 ms)"
done
sim_host hgx-big
sim_libvirtd
kvm_ib_host
gpus="0000:17:00.0 0000:18:00.0 0000:3b:00.0 0000:3c:00.0 0000:97:00.0 0000:98:00.0 0000:bb:00.0 0000:bc:00.0"
specs=() macs=()
for i in 0 1 2 3 4 5 6 7; do
	specs+=("ib/$i/02:00:0a:05:00:0$i/0x8101/////20")
	macs+=("02:00:0a:05:00:0$i")
done
mkdir -p "$DS/5"
VM_XML_PCI=$gpus vm_xml 5 "${specs[@]}" >"$DS/5/vm.xml"
DOMAIN_XML_PCI=$gpus domain_xml 5 "${macs[@]}" >"$TEST_TMP/dom.xml"
sed -i "s|<os><type arch='x86_64'>hvm</type></os>|<os><type arch='x86_64' machine='q35'>hvm</type></os>|" "$TEST_TMP/dom.xml"
# deploy twice is safe (the NICs keep their VFs): the runs time the whole
# command with its leases already there, as a retried deploy
run_deploy() { "$R/ib/bin/oneib-vf" deploy --vm 5 --vm-xml "$DS/5/vm.xml" <"$TEST_TMP/dom.xml" >/dev/null; }
assert_ok "oneib-vf deploy, 8 GPUs x 8 NICs" -- run_deploy
export -f run_deploy
export R DS TEST_TMP
echo "bench: oneib-vf deploy, 8 GPUs x 8 NICs on hgx-big (sysfs, ledger, libvirt, XML): $("$RUNSTAT" 20 bash -c run_deploy)"
test_done
