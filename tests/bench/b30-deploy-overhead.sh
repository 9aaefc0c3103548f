#!/bin/bash
# What the kvm-ib actions cost over the stock kvm ones, for a VM with 2
# InfiniBand NICs, on cx7-big with 100 OpenNebula VMs of 5 IB NICs each
# already running (500 leases, 100 domains): wall time of
# vmm/kvm-ib/deploy (oneib-vf deploy, then the stock deploy) against the
# stock stand-in vmm/kvm/deploy alone given the same, already rewritten,
# domain XML, and of kvm-ib cancel/shutdown against the stock ones (the
# stock action, then oneib-vf release --domain-gone). Same private
# libvirtd (test driver) for all; runs interleaved, so that all see the
# same machine load. Goal: deploy overhead <= 3 ms median, shutdown and
# cancel overhead <= 3 ms. Also timed: oneib-vf deploy alone, to tell the
# helper's share of the overhead from the shell wrapper's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx7-big
sim_libvirtd
kvm_ib_host
. "$TOP/tests/bench/lib.sh"

RUNS=${B30_RUNS:-40}
WARM=3
VF=$R/ib/bin/oneib-vf

host_vms 100 5 1000
baseline

vmid=42
mkdir -p "$DS/$vmid"
vm_xml $vmid ib/0/02:00:c0:a8:01:05/0x8101 ib/1/02:00:c0:a8:01:06/0x8102 >"$DS/$vmid/vm.xml"
domain_xml $vmid 02:00:c0:a8:01:05 02:00:c0:a8:01:06 >"$TEST_TMP/dom.xml"
ib() { "$R/vmm/kvm-ib/$1" "${@:2}"; }
stock() { "$R/vmm/kvm/$1" "${@:2}"; }

# hostdev PCI addresses of the running one-42, sorted
held() {
	virsh dumpxml one-$vmid |
		sed -n "s/.*<address domain=.0x0000. bus=.0x\(..\). slot=.0x\(..\). function=.0x\(.\)..*/0000:\1:\2.\3/p" | sort
}
leases() { "$VF" list --format=json | jq '.leases | length'; }

# The equivalent input of the stock deploy: what oneib-vf deploy makes of
# dom.xml. Released at once; the kvm-ib deploys below lease the same VFs.
"$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml" >"$TEST_TMP/dom.rewritten.xml"
assert_eq 0 $? "oneib-vf deploy rewrites the domain XML"
"$VF" list --format=json | jq -r '.leases[] | select(.vm == 42) | .vf' | sort >"$TEST_TMP/leased"
assert_eq 2 "$(grep -c . "$TEST_TMP/leased")" "2 VFs leased, one per IB NIC"
assert_ok "release" -- "$VF" release --vm $vmid

# Both paths work, and give the domain the same VFs.
uuid=$(ib deploy "$DS/$vmid/deployment.0" node1 $vmid node1 <"$TEST_TMP/dom.xml" 2>"$TEST_TMP/err")
assert_eq 0 $? "kvm-ib deploy succeeds"
assert_eq "$(virsh domuuid one-$vmid | sed '/^$/d')" "$uuid" "kvm-ib deploy prints the domain UUID"
held >"$TEST_TMP/held.ib"
assert_file_eq "$TEST_TMP/leased" "$TEST_TMP/held.ib" "kvm-ib: the domain holds the 2 leased VFs"
assert_ok "kvm-ib cancel" -- ib cancel one-$vmid node1 $vmid node1
assert_eq "0 500" "$(virsh list --name | grep -c "^one-$vmid\$") $(leases)" "kvm-ib cancel: domain gone, its leases gone"
stock_rewritten() { stock deploy "$DS/$vmid/deployment.1" node1 $vmid node1 <"$TEST_TMP/dom.rewritten.xml"; }
assert_ok "stock deploy of the rewritten XML" -- stock_rewritten
held >"$TEST_TMP/held.stock"
assert_file_eq "$TEST_TMP/leased" "$TEST_TMP/held.stock" "stock: the domain holds the same 2 VFs"
assert_ok "stock cancel" -- stock cancel one-$vmid node1 $vmid node1

# One run: kvm-ib deploy + cancel, stock deploy + cancel, kvm-ib deploy +
# shutdown, stock deploy + shutdown, oneib-vf deploy alone + release.
for f in ib.dep st.dep ib.can st.can ib.shu st.shu vf d.dep d.can d.shu; do : >"$TEST_TMP/t.$f"; done
bad=
for i in $(seq $((RUNS + WARM))); do
	a=$(ms "$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 $vmid node1 <"$TEST_TMP/dom.xml") &&
		b=$(ms "$R/vmm/kvm-ib/cancel" one-$vmid node1 $vmid node1) &&
		c=$(ms "$R/vmm/kvm/deploy" "$DS/$vmid/deployment.1" node1 $vmid node1 <"$TEST_TMP/dom.rewritten.xml") &&
		d=$(ms "$R/vmm/kvm/cancel" one-$vmid node1 $vmid node1) &&
		e=$(ms "$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 $vmid node1 <"$TEST_TMP/dom.xml") &&
		f=$(ms "$R/vmm/kvm-ib/shutdown" one-$vmid node1 $vmid node1) &&
		g=$(ms "$R/vmm/kvm/deploy" "$DS/$vmid/deployment.1" node1 $vmid node1 <"$TEST_TMP/dom.rewritten.xml") &&
		h=$(ms "$R/vmm/kvm/shutdown" one-$vmid node1 $vmid node1) &&
		v=$(ms "$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml") &&
		"$VF" release --vm $vmid --domain-gone >/dev/null || { bad="run $i"; break; }
	[ "$i" -le $WARM ] && continue
	printf '%s\n' "$a" >>"$TEST_TMP/t.ib.dep"
	printf '%s\n' "$c" >>"$TEST_TMP/t.st.dep"
	printf '%s\n' "$e" >>"$TEST_TMP/t.ib.dep"
	printf '%s\n' "$g" >>"$TEST_TMP/t.st.dep"
	printf '%s\n' "$b" >>"$TEST_TMP/t.ib.can"
	printf '%s\n' "$d" >>"$TEST_TMP/t.st.can"
	printf '%s\n' "$f" >>"$TEST_TMP/t.ib.shu"
	printf '%s\n' "$h" >>"$TEST_TMP/t.st.shu"
	printf '%s\n' "$v" >>"$TEST_TMP/t.vf"
	# paired differences: the same run's kvm-ib minus stock
	awk -v a="$a" -v c="$c" -v e="$e" -v g="$g" 'BEGIN { printf "%.3f\n%.3f\n", a - c, e - g }' >>"$TEST_TMP/t.d.dep"
	awk -v b="$b" -v d="$d" 'BEGIN { printf "%.3f\n", b - d }' >>"$TEST_TMP/t.d.can"
	awk -v f="$f" -v h="$h" 'BEGIN { printf "%.3f\n", f - h }' >>"$TEST_TMP/t.d.shu"
done
assert_eq "" "$bad" "$RUNS runs of every action succeed"
assert_eq "test" "$(virsh list --all --name | grep -v '^one-1[01][0-9][0-9]$' | sed '/^$/d')" "no domain left but the 100 and the test driver's own"
assert_eq 500 "$(leases)" "no lease left but the 500"

echo "bench: host: cx7-big, 100 running domains, 500 leases; VM with 2 IB NICs; libvirt test driver"
figure "vmm/kvm-ib/deploy" "$TEST_TMP/t.ib.dep" "none, context"
figure "vmm/kvm/deploy (stock stand-in), same VM, rewritten XML" "$TEST_TMP/t.st.dep" "none, context"
figure "kvm-ib deploy overhead over stock (paired, run by run)" "$TEST_TMP/t.d.dep" "median <= 3 ms"
figure "  of which oneib-vf deploy alone (2 VFs, asks libvirt)" "$TEST_TMP/t.vf" "none, context"
echo "bench:   the rest of the overhead, the wrapper script: $(awk -v a="$(med "$TEST_TMP/t.d.dep")" -v b="$(med "$TEST_TMP/t.vf")" 'BEGIN { printf "%.3f", a - b }') ms"
figure "kvm-ib cancel overhead over stock (paired)" "$TEST_TMP/t.d.can" "median <= 3 ms"
figure "kvm-ib shutdown overhead over stock (paired)" "$TEST_TMP/t.d.shu" "median <= 3 ms"
test_done
