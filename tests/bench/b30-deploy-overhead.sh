#!/bin/bash
# What the kvm-ib deploy costs over the stock kvm deploy, for a VM with 2
# InfiniBand NICs on cx5: median wall time of vmm/kvm-ib/deploy (oneib-vf
# deploy, then the stock deploy) against the stock stand-in vmm/kvm/deploy
# alone given the same, already rewritten, domain XML. Same private
# libvirtd (test driver) for both. Every deploy is followed by an untimed
# cancel, so domains do not pile up. Goal: overhead < 10 ms. Also timed:
# oneib-vf deploy alone, to tell the helper's share of the overhead from
# the shell wrapper's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

RUNSTAT=$TOP/build/bench/runstat
RUNS=${B30_RUNS:-40}
WARM=3
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"

vmid=42
mkdir -p "$DS/$vmid"
vm_xml $vmid ib/0/02:00:c0:a8:01:05/0x8101 ib/1/02:00:c0:a8:01:06/0x8102 >"$DS/$vmid/vm.xml"
domain_xml $vmid 02:00:c0:a8:01:05 02:00:c0:a8:01:06 >"$TEST_TMP/dom.xml"

# kvm-ib and stock deploy with OpenNebula's arguments; the domain XML on stdin.
ib_deploy() { "$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 $vmid node1 <"$TEST_TMP/dom.xml"; }
stock_deploy() { "$R/vmm/kvm/deploy" "$DS/$vmid/deployment.1" node1 $vmid node1 <"$TEST_TMP/dom.rewritten.xml"; }
# cancel by domain name (virsh destroy takes a name as well as the UUID)
ib_cancel() { "$R/vmm/kvm-ib/cancel" one-$vmid node1 $vmid node1; }
stock_cancel() { "$R/vmm/kvm/cancel" one-$vmid node1 $vmid node1; }

# hostdev PCI addresses of the running one-42, sorted
held() {
	virsh dumpxml one-$vmid |
		sed -n "s/.*<address domain=.0x0000. bus=.0x\(..\). slot=.0x\(..\). function=.0x\(.\)..*/0000:\1:\2.\3/p" | sort
}

# The equivalent input of the stock deploy: what oneib-vf deploy makes of
# dom.xml. Released at once; the kvm-ib deploys below lease the same VFs.
"$R/ib/bin/oneib-vf" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml" >"$TEST_TMP/dom.rewritten.xml"
assert_eq 0 $? "oneib-vf deploy rewrites the domain XML"
"$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[].vf' | sort >"$TEST_TMP/leased"
assert_eq 2 "$(grep -c . "$TEST_TMP/leased")" "2 VFs leased, one per IB NIC"
assert_eq 0 "$(grep -c '<interface' "$TEST_TMP/dom.rewritten.xml")" "no <interface> left in the rewritten XML"
assert_ok "release" -- "$R/ib/bin/oneib-vf" release --vm $vmid

# Both paths work, and give the domain the same VFs.
uuid=$(ib_deploy 2>"$TEST_TMP/err")
assert_eq 0 $? "kvm-ib deploy succeeds"
assert_eq "$(virsh domuuid one-$vmid | sed '/^$/d')" "$uuid" "kvm-ib deploy prints the domain UUID"
held >"$TEST_TMP/held.ib"
assert_file_eq "$TEST_TMP/leased" "$TEST_TMP/held.ib" "kvm-ib: the domain holds the 2 leased VFs"
assert_ok "kvm-ib cancel" -- ib_cancel
assert_eq "0 0" "$(virsh list --name | grep -c "^one-$vmid\$") $("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" \
	"kvm-ib cancel: domain gone, ledger empty"
assert_ok "stock deploy of the rewritten XML" -- stock_deploy
held >"$TEST_TMP/held.stock"
assert_file_eq "$TEST_TMP/leased" "$TEST_TMP/held.stock" "stock: the domain holds the same 2 VFs"
assert_ok "stock cancel" -- stock_cancel

# Interleaved, so that both see the same machine load; each deploy timed by
# runstat (fork, exec, wait), each cancel untimed.
: >"$TEST_TMP/t.ib" && : >"$TEST_TMP/t.stock" && : >"$TEST_TMP/t.vf"
bad=
for i in $(seq $((RUNS + WARM))); do
	a=$("$RUNSTAT" 1 "$R/vmm/kvm-ib/deploy" "$DS/$vmid/deployment.0" node1 $vmid node1 <"$TEST_TMP/dom.xml") || { bad="kvm-ib deploy, run $i"; break; }
	ib_cancel || { bad="kvm-ib cancel, run $i"; break; }
	b=$("$RUNSTAT" 1 "$R/vmm/kvm/deploy" "$DS/$vmid/deployment.1" node1 $vmid node1 <"$TEST_TMP/dom.rewritten.xml") || { bad="stock deploy, run $i"; break; }
	stock_cancel || { bad="stock cancel, run $i"; break; }
	c=$("$RUNSTAT" 1 "$R/ib/bin/oneib-vf" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml") || { bad="oneib-vf deploy, run $i"; break; }
	"$R/ib/bin/oneib-vf" release --vm $vmid >/dev/null || { bad="oneib-vf release, run $i"; break; }
	[ "$i" -le $WARM ] && continue
	[[ $c =~ median_ms=([0-9.]+) ]] && echo "${BASH_REMATCH[1]}" >>"$TEST_TMP/t.vf"
	[[ $a =~ median_ms=([0-9.]+) ]] && echo "${BASH_REMATCH[1]}" >>"$TEST_TMP/t.ib"
	[[ $b =~ median_ms=([0-9.]+) ]] && echo "${BASH_REMATCH[1]}" >>"$TEST_TMP/t.stock"
done
assert_eq "" "$bad" "$RUNS deploy + cancel runs of each kind succeed"
assert_eq "$RUNS $RUNS $RUNS" "$(grep -c . "$TEST_TMP/t.ib") $(grep -c . "$TEST_TMP/t.stock") $(grep -c . "$TEST_TMP/t.vf")" "every deploy timed"
assert_eq "test" "$(virsh list --all --name | sed '/^$/d')" "no domain left but the test driver's own"
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "no lease left"

# median (n/2 as runstat) and p99 of a file of numbers
med() { sort -g "$1" | awk '{ v[NR - 1] = $1 } END { printf "%.3f", v[int(NR / 2)] }'; }
p99() { sort -g "$1" | awk '{ v[NR - 1] = $1 } END { p = int(NR * 99 / 100); if (p > NR - 1) p = NR - 1; printf "%.3f", v[p] }'; }
m_ib=$(med "$TEST_TMP/t.ib") m_st=$(med "$TEST_TMP/t.stock")
echo "bench: vmm/kvm-ib/deploy, VM with 2 IB NICs, cx5, test-driver libvirt: runs=$RUNS median_ms=$m_ib p99_ms=$(p99 "$TEST_TMP/t.ib")"
echo "bench: vmm/kvm/deploy (stock stand-in), same VM, rewritten XML:     runs=$RUNS median_ms=$m_st p99_ms=$(p99 "$TEST_TMP/t.stock")"
echo "bench: kvm-ib deploy overhead over stock: median difference $(awk -v a="$m_ib" -v b="$m_st" 'BEGIN { printf "%.3f", a - b }') ms (goal: < 10 ms)"
# Where the overhead goes: the helper itself, and what the wrapper script
# adds around it (bash, sourcing, mktemp, the pipe into the stock deploy).
m_vf=$(med "$TEST_TMP/t.vf")
echo "bench:   of which oneib-vf deploy alone (2 VFs, incl. libvirt round trip): runs=$RUNS median_ms=$m_vf p99_ms=$(p99 "$TEST_TMP/t.vf"); the rest, $(awk -v a="$m_ib" -v b="$m_st" -v c="$m_vf" 'BEGIN { printf "%.3f", a - b - c }') ms, is the wrapper script"
test_done
