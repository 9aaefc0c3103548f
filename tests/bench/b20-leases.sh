#!/bin/bash
# VF leases on a busy host: cx7-big (4 PFs x 127 VFs = 508 VFs) with 100
# OpenNebula VMs of 5 InfiniBand NICs each deployed through kvm-ib, so the
# ledger holds 500 leases and libvirt 100 running domains.
#  1. acquire (oneib-vf deploy of a 1-NIC VM: the 501st VF) and release
#     (oneib-vf release, which asks libvirt whether a domain still holds
#     the VF; and release --domain-gone, what shutdown/cancel run once the
#     stock action ended the domain): p50/p99 of each call, peak RSS.
#     Goal: p50 <= 1 ms, p99 <= 5 ms.
#  2. the monitor probe (reconcile against libvirt, then the free VFs) on
#     that host. Goal: < 50 ms.
# The ledger is on tmpfs, as sim_host puts /var/lib/one there: its
# fsyncs cost next to nothing (on a disk they add the disk's latency).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx7-big
sim_libvirtd
kvm_ib_host
. "$TOP/tests/bench/lib.sh"

VF=$R/ib/bin/oneib-vf
LEDGER=/var/lib/one/ib # oneib-vf's default, the production ledger
CYCLES=${B20_CYCLES:-100}

host_vms 100 5 1000
assert_eq "100 500" "$(virsh list --name | grep -c '^one-') $("$VF" list --format=json | jq '.leases | length')" \
	"100 domains and 500 leases"
cp "$LEDGER/leases" "$TEST_TMP/leases.500"
baseline

# VM 2000, one IB NIC: gets the one VF after the 500 (PFs by address, VFs
# by index).
vmid=2000
mkdir -p "$DS/$vmid"
vm_xml $vmid ib/0/02:00:0a:02:00:01/0x8101 >"$DS/$vmid/vm.xml"
domain_xml $vmid 02:00:0a:02:00:01 >"$TEST_TMP/dom.xml"
"$R/ib/bin/oneib-discover" --format=json |
	jq -r '[.hcas[].vfs[] | select(.vm == null) | .address] | first' >"$TEST_TMP/want"
acquire() { "$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml"; }
assert_ok "acquire with 500 leases" -- acquire
IFS=':.' read -r _ bus slot fn <"$TEST_TMP/want"
assert_match "<address domain=.0x0000. bus=.0x$bus. slot=.0x$slot. function=.0x$fn./>" \
	"$(cat "$LAST_OUT")" "the new domain XML has the first free VF ($(cat "$TEST_TMP/want")) as a hostdev"
assert_ok "release with 500 leases" -- "$VF" release --vm $vmid
assert_match "VM 2000: released 1 VF" "$(cat "$LAST_OUT")" "release frees the one VF"
assert_file_eq "$TEST_TMP/leases.500" "$LEDGER/leases" \
	"after acquire + release the ledger is the one before, byte for byte"

# Each call timed on its own (runstat forks, execs and waits for it).
: >"$TEST_TMP/acq" && : >"$TEST_TMP/rel" && : >"$TEST_TMP/gone"
bad=
for i in $(seq $((CYCLES + 5))); do
	a=$(ms "$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml") || { bad="acquire $i"; break; }
	r=$(ms "$VF" release --vm $vmid) || { bad="release $i"; break; }
	a2=$(ms "$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml") || { bad="acquire $i"; break; }
	g=$(ms "$VF" release --vm $vmid --domain-gone) || { bad="release --domain-gone $i"; break; }
	[ "$i" -le 5 ] && continue # warm-up
	printf '%s\n%s\n' "$a" "$a2" >>"$TEST_TMP/acq"
	echo "$r" >>"$TEST_TMP/rel"
	echo "$g" >>"$TEST_TMP/gone"
done
assert_eq "" "$bad" "$CYCLES cycles of acquire, release, acquire, release --domain-gone succeed"
assert_file_eq "$TEST_TMP/leases.500" "$LEDGER/leases" "the 500 leases are untouched after the cycles"
rss=$("$RUNSTAT" 1 "$VF" deploy --vm $vmid --vm-xml "$DS/$vmid/vm.xml" <"$TEST_TMP/dom.xml" | sed -n 's/.*max_rss_kb=\([0-9]*\).*/\1/p')
"$VF" release --vm $vmid --domain-gone >/dev/null

echo "bench: host: cx7-big, 100 running domains (one-1000..1099, 5 VFs each), 500 leases, libvirt test driver over its socket"
figure "oneib-vf deploy (acquire 1 VF, asks libvirt)" "$TEST_TMP/acq" "p50 <= 1 ms, p99 <= 5 ms"
figure "oneib-vf release (1 VF, asks libvirt)" "$TEST_TMP/rel" "p50 <= 1 ms, p99 <= 5 ms"
figure "oneib-vf release --domain-gone (1 VF, as shutdown/cancel run it)" "$TEST_TMP/gone" "p50 <= 1 ms, p99 <= 5 ms"
echo "bench:   oneib-vf deploy peak RSS: max_rss_kb=$rss"
# What the floor is made of: a program that links nothing, the same
# binary reading the 500-lease ledger without lock nor libvirt, and the
# cost of loading libvirt's client library alone (virsh -v links it and
# does nothing else).
: >"$TEST_TMP/list" && : >"$TEST_TMP/virsh"
for i in $(seq 30); do
	ms "$VF" list >>"$TEST_TMP/list"
	ms virsh -v >>"$TEST_TMP/virsh"
done
figure "  floor: oneib-vf list (500 leases, no lock, no libvirt)" "$TEST_TMP/list" "none, context"
figure "  floor: virsh -v (loading libvirt's client library, nothing else)" "$TEST_TMP/virsh" "none, context"

# --- 2. the monitor probe ----------------------------------------------------

probe=$R/im/kvm-ib-probes.d/host/monitor/oneib-vfs.sh
assert_ok "monitor probe" -- "$probe" kvm-ib 0 node1
assert_match "^IB_VFS_FREE=8$" "$(cat "$LAST_OUT")" "it reports the 8 free VFs"
: >"$TEST_TMP/probe" && : >"$TEST_TMP/rec"
for i in $(seq 23); do
	p=$(ms "$probe" kvm-ib 0 node1 </dev/null) || die "probe failed"
	c=$(ms "$VF" reconcile) || die "reconcile failed"
	[ "$i" -le 3 ] && continue
	echo "$p" >>"$TEST_TMP/probe"
	echo "$c" >>"$TEST_TMP/rec"
done
figure "monitor probe oneib-vfs.sh (reconcile + free VFs), 100 domains" "$TEST_TMP/probe" "< 50 ms"
figure "  of which oneib-vf reconcile (reads every domain)" "$TEST_TMP/rec" "none, context"
test_done
