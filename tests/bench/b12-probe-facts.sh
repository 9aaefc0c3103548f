#!/bin/bash
# The host/system probe class with the host facts of issue 22 on cx7-big
# (4 PFs x 127 VFs), the bench's host: the probe as monitord runs it, once
# without asking the leaves (ONEIB_PEER empty) and once asking each of the
# 4 InfiniBand ports' leaf through "sudo -n oneib-peer" as in production
# (root already, so sudo asks for nothing but still runs its policy and
# PAM); the difference is what the leaf query costs per probe run. The
# first PF's port is an ibsim port (cx7-big-ibsim), answered by leaf1 of
# tests/e2e/data/fabric-2leaf.net through libumad2sim; the three others
# have no simulated port, so their queries fail where a real host's would
# send SMPs. Also oneib-peer alone on the simulated port, and sudo alone.
# (sudo resets the environment: the wrapper standing in for the installed
# oneib-peer names the test's ibsim socket itself.)
# Over libumad2sim each SMP is a round trip through ibsim's socket, not a
# HCA's firmware: the peer figure is the simulator's, not a host's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/bench/lib.sh"
sim_host cx7-big-ibsim
sim_fabric "$TOP/tests/e2e/data/fabric-2leaf.net"
kvm_ib_host
probe=$R/im/kvm-ib-probes.d/host/system/oneib-inventory.sh
rc=$R/etc/vmm/kvm-ib/kvm-ibrc
command -v sudo >/dev/null || die "sudo not installed"

cat >"$TEST_TMP/peer" <<EOS
#!/bin/sh
cd "$TEST_TMP/fabric/client" && exec env LD_PRELOAD="$UMAD2SIM" SIM_HOST=hv1 \
	IBSIM_SOCKNAME="$IBSIM_SOCKNAME" "$TEST_TMP/inst/usr/sbin/oneib-peer" "\$@"
EOS
chmod +x "$TEST_TMP/peer"
sed -i "s|^ONEIB_PEER=.*|ONEIB_PEER=\"sudo -n $TEST_TMP/peer\"|" "$rc"
sh "$probe" kvm-ib 0 node1 >"$TEST_TMP/out"
assert_match '^IB_LEAVES=",0x0002c90200000a00,"$' "$(cat "$TEST_TMP/out")" "the leaf is asked and found"
assert_eq 4 "$(grep -c '^IB_PF=.*PKEY_CAP=' "$TEST_TMP/out")" "4 PF ports with their P_Key room"

t=$("$RUNSTAT" 50 /bin/true | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
run() { # LABEL CMD...
	local res m label=$1
	shift
	res=$("$RUNSTAT" 30 "$@")
	m=$(echo "$res" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
	echo "bench: $label: $res = $(ratio "$m" "$t")x /bin/true (median_ms=$t)" >&2
	echo "$m"
}
with=$(run "host/system probe, cx7-big, 4 leaf queries (sudo -n oneib-peer)" sh "$probe" kvm-ib 0 node1)
sed -i 's|^ONEIB_PEER=.*|ONEIB_PEER=|' "$rc"
without=$(run "host/system probe, cx7-big, leaves not asked" sh "$probe" kvm-ib 0 node1)
run "sudo -n /bin/true (the sudo of each query)" sudo -n /bin/true >/dev/null
run "oneib-peer on a simulated port (2 SMPs over libumad2sim)" "$TEST_TMP/peer" 0000:17:00.0 1 >/dev/null
echo "bench: the leaf query adds $(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.1f", a - b }') ms" \
	"to a system probe run of 4 InfiniBand ports ($(ratio "$with" "$without")x; goal: none, it runs every SYSTEM_HOST = 600 s)" >&2
test_done
