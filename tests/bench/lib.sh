# Shared by the benches (sourced after tests/lib/test-lib.sh and
# tests/lib/oneib.sh, inside sim_host with sim_libvirtd and kvm_ib_host).
#
# Every figure is printed beside what the same run measures for /bin/true
# (the cost of starting any program here, now) and for the stock kvm
# deploy stand-in (what OpenNebula pays without one-ib), so that a busy
# machine shows as a busy machine and the ratios stay comparable:
#
#   bench: oneib-vf deploy (acquire 1 VF), 500 leases, 100 domains: runs=200
#     p50_ms=13.101 p99_ms=17.950 (goal: p50 <= 1 ms, p99 <= 5 ms)
#     = 19.6x /bin/true, 0.31x stock deploy

RUNSTAT=$TOP/build/bench/runstat
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"

# ms CMD...: wall milliseconds of one run of CMD (stdin passed through).
ms() {
	local out
	out=$("$RUNSTAT" 1 "$@") || return 1
	[[ $out =~ median_ms=([0-9.]+) ]] && echo "${BASH_REMATCH[1]}"
}

# med FILE / p99 FILE: of the numbers in FILE, one a line (ranks n/2 and
# n*99/100, as runstat).
med() { sort -g "$1" | awk '{ v[NR - 1] = $1 } END { printf "%.3f", v[int(NR / 2)] }'; }
p99() {
	sort -g "$1" | awk '{ v[NR - 1] = $1 } END {
		p = int(NR * 99 / 100); if (p > NR - 1) p = NR - 1; printf "%.3f", v[p] }'
}

# ratio A B: A / B, two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# baseline: BASE_TRUE and BASE_STOCK, the medians of /bin/true and of the
# stock deploy stand-in (a VM with one bridge NIC, each run cancelled
# untimed) on this machine now.
baseline() {
	local i t
	BASE_TRUE=$("$RUNSTAT" 50 /bin/true | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
	mkdir -p "$DS/9999"
	domain_xml 9999 02:00:0a:99:99:99 >"$TEST_TMP/base.xml"
	: >"$TEST_TMP/base.t"
	for i in $(seq 23); do
		t=$(ms "$R/vmm/kvm/deploy" "$DS/9999/deployment.0" node1 9999 node1 <"$TEST_TMP/base.xml") ||
			die "stock deploy stand-in failed"
		"$R/vmm/kvm/cancel" one-9999 node1 9999 node1 || die "stock cancel failed"
		[ "$i" -gt 3 ] && echo "$t" >>"$TEST_TMP/base.t"
	done
	BASE_STOCK=$(med "$TEST_TMP/base.t")
	echo "bench:   baseline: /bin/true median_ms=$BASE_TRUE; stock kvm deploy (stand-in: bash + virsh create) median_ms=$BASE_STOCK"
}

# figure LABEL FILE GOAL: "bench: LABEL: runs=N p50_ms=.. p99_ms=.. (goal:
# GOAL) = Rx /bin/true, Sx stock deploy" for the times in FILE.
figure() {
	local m
	m=$(med "$2")
	echo "bench: $1: runs=$(grep -c . "$2") p50_ms=$m p99_ms=$(p99 "$2") (goal: $3)" \
		"= $(ratio "$m" "$BASE_TRUE")x /bin/true, $(ratio "$m" "$BASE_STOCK")x stock deploy"
}

# host_vms N NICS FIRST [PF...]: N OpenNebula VMs, FIRST.., each deployed
# through vmm/kvm-ib/deploy with NICS InfiniBand NICs (network P_Key
# 0x8101), so that the ledger holds N * NICS leases and libvirt N running
# domains holding exactly those VFs: a host as OpenNebula leaves it. With
# PFs, VM i's NICs are pinned (IB_PF) to PF number i modulo their count.
host_vms() {
	local n=$1 k=$2 first=$3 i j pf nics
	shift 3
	for ((i = 0; i < n; i++)); do
		nics=()
		pf=
		[ $# -gt 0 ] && pf=${*:$((i % $# + 1)):1}
		for ((j = 0; j < k; j++)); do
			nics+=("ib/$j/$(printf '02:00:0b:%02x:%02x:%02x' $((i / 256)) $((i % 256)) $j)/0x8101${pf:+/$pf}")
		done
		one_deploy $((first + i)) "${nics[@]}" >/dev/null || die "host_vms: deploy of VM $((first + i)) failed"
	done
	[ "$(virsh list --name | grep -c '^one-')" = "$n" ] || die "host_vms: $n domains expected"
}
