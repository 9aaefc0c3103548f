#!/bin/bash
# Demo part, run by 50-guest.sh with what the host gave VM 10's VF
# (MKHOST_GUEST_KIND, MKHOST_GUEST_GUID, MKHOST_GUEST_PKEYS): VM 10's
# guest, in mount and network namespaces of its own (tests/lib/guest.sh):
# its context as the CONTEXT CD carries it, its netdevs, oneib-context's
# --dry-run plan, the run, and ib0 afterwards.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-demo
ctx=$TEST_TMP/context.sh
ctx_write "$ctx" VMID=10 NETWORK=YES DISK_ID=1 \
	SSH_PUBLIC_KEY='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoKeyDemoKeyDemoKeyDemoKeyDemoKeyDemo demo' \
	ETH0_MAC=02:00:0a:0a:00:0a ETH0_IP=10.10.0.10 ETH0_MASK=255.255.255.0 \
	ETH0_MTU=2044 ETH0_IB_MODE=connected ETH0_GATEWAY='' ETH0_IP6='' \
	'ETH0_ROUTES=10.20.0.0/16 via 10.10.0.1' \
	ETH1_MAC=02:00:c0:a8:0a:0a ETH1_IP=192.168.10.10 ETH1_MASK=255.255.255.0 \
	ETH1_GATEWAY=192.168.10.1

say "=== VM 10's guest: context.sh from its CONTEXT CD ==="
sed 's/^/    /' "$ctx"
say "=== the guest's netdevs (sysfs) ==="
for d in /sys/class/net/*; do
	printf '    %-5s type %-3s %s\n' "${d##*/}" "$(cat "$d/type")" "$(cat "$d/address")"
done
say "    mlx4_0 port 1 P_Keys: $(cat /sys/class/infiniband/mlx4_0/ports/1/pkeys/* | grep -v 0x0000 | tr '\n' ' ')"

say "=== oneib-context --dry-run ==="
guest_ctx "$ctx" --dry-run 2>"$TEST_TMP/err" | tee "$TEST_TMP/plan" | sed 's/^/    /'
sed 's/^/    /' "$TEST_TMP/err"
assert_eq "ETH0 ib0 guid 0x${MKHOST_GUEST_GUID} pkey 0x8101 via ib0 mode connected mtu 2044 ip 10.10.0.10/24 route 10.20.0.0/16 via 10.10.0.1" \
	"$(sed -n 1p "$TEST_TMP/plan")" "ETH0 planned on ib0, the parent (the tenant key is at index 0)"
assert_eq "ETH1 - stock no IPoIB netdev carries the GUID of VM 10 NIC 1" \
	"$(sed -n 2p "$TEST_TMP/plan")" "ETH1 left to one-context"

say "=== oneib-context ==="
guest_ctx "$ctx" 2>"$TEST_TMP/err" | sed 's/^/    /'
assert_eq 0 "${PIPESTATUS[0]}" "exit 0"
sed 's/^/    /' "$TEST_TMP/err"
say "=== ib0 afterwards (rtnetlink; mode from sysfs; a veth stands in for ib0 on"
say "    rtnetlink, hence its link/ether line) ==="
ip addr show dev ib0 | grep -v valid_lft | sed 's/^/    /'
ip route show dev ib0 | sed 's/^/    /'
say "    mode: $(cat /sys/class/net/ib0/mode)"
assert_eq "10.10.0.10/24" "$(g_addrs ib0)" "ib0 has VM 10's address"
assert_eq "2044 up connected" "$(g_mtu ib0) $(g_up ib0) $(cat /sys/class/net/ib0/mode)" \
	"MTU, link, mode"
assert_eq "10.20.0.0/16 via 10.10.0.1 dev ib0" "$(g_routes -4)" "its route"
assert_eq "" "$(g_addrs eth0)" "eth0 is one-context's"
test_done
