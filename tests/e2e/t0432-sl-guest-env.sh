#!/bin/bash
# The guest uses the plan (design decision 13; guest/guestsl.h): VM 10's VF
# (tenant a, VNET 5, 0x8101) on the SL plan's ibsim fabric, its guest's
# oneib-context attached to that VF's node through libumad2sim (the
# fixture's RDMA device is ibsim0, the one it shows):
# - it asks the SA from the VF's own port for a path inside its partition
#   and for its IPoIB broadcast group, and writes the SL into the
#   environment file (UCX_IB_SL, NCCL_IB_SL, ONEIB_ETH0_IB_SL and the
#   group's, ONEIB_ETH0_IPOIB_SL); the dry run shows it ("sl 2 (sa)");
# - a context that says otherwise (ETH0_IB_SL, which the VM's owner can
#   write) loses to the SA, with a note;
# - oneadmin pins the network to another SL (IB_SL): the SA answers the new
#   SL at once, the IPoIB broadcast group keeps the one it was made with
#   (opensm-facts §1), and the note says so;
# - without the SA (no umad device: the image has no ib_umad, or the VF
#   is not on a fabric) the context's SL is used, with a note; without
#   either, no SL is written, and UCX_IB_SL/NCCL_IB_SL are left unset.
# No kernel here can make the P_Key child ib0.8101 (tests/lib/guest.sh):
# that NIC's one-line refusal is the exit status 1; the SL does not depend
# on it.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
. "$TOP/tests/lib/guest.sh"
. "$TOP/tests/lib/slplan.sh"
export MKHOST_GUEST_KIND=mlx5 MKHOST_GUEST_GUID=02000000000a0000 \
	MKHOST_GUEST_PKEYS="ffff 8101" MKHOST_GUEST_IBDEV=ibsim0
sim_guest guest-demo
sl_fabric
sl_listing "$TEST_TMP/cloud.xml"
sl_render_install "$TEST_TMP/cloud.xml"
assert_eq 2 "$(sl_of "$SIM_PARTITIONS" 5)" "a's planned SL: 2"

ctx=$TEST_TMP/context.sh
ENV=$GUEST_STATE/environment
# oneib-context as the guest runs it, its umad device the VF's port
vm10() { sim_client vm10-nic0 "$IBCTX" --context "$ctx" --state-dir "$GUEST_STATE" --wait 5 "$@"; }

ctx_write "$ctx" VMID=10 ETH0_MAC=02:00:0a:00:0a:00 ETH0_IP=10.11.0.10
assert_ok "dry run" -- vm10 --dry-run
assert_eq "ETH0 ib0 guid 0x02000000000a0000 pkey 0x8101 via ib0.8101 mode datagram mtu - sl 2 (sa) ip 10.11.0.10/24" \
	"$(cat "$LAST_OUT")" "the plan: the SA's SL 2"
assert_fail "configure (no kernel here makes the child)" -- vm10
assert_match "^oneib-context: ETH0 ib0\.8101: not configured: cannot create ib0\.8101 " "$(cat "$LAST_ERR")" \
	"the child's refusal, and only that NIC's"
assert_eq "# oneib-context: the service levels of this VM's InfiniBand NICs (design decision 13);
# rewritten at every run: source it with set -a, or EnvironmentFile= of a unit
# ETH0 ib0.8101 (partition 0x8101): SL 2, as the SA answers for its partition
ONEIB_ETH0_IB_SL=2
ONEIB_ETH0_IPOIB_SL=2
UCX_IB_SL=2
NCCL_IB_SL=2" "$(cat "$ENV")" "the environment file carries the SL"
assert_eq 644 "$(stat -c %a "$ENV")" "readable by the MPI users"
# shellcheck disable=SC1090 # the file under test, written by the guest
assert_eq 2 "$(set -a; . "$ENV"; set +a; echo "$UCX_IB_SL")" "a shell sourcing it gets UCX_IB_SL"

# the context says 5: the SA wins
ctx_write "$ctx" VMID=10 ETH0_MAC=02:00:0a:00:0a:00 ETH0_IP=10.11.0.10 ETH0_IB_SL=5
assert_fail "a forged ETH0_IB_SL" -- vm10
assert_match "^oneib-context: ETH0 ib0: ETH0_IB_SL 5 is not what the SA answers for its partition \(SL 2\): the SA's is used$" \
	"$(cat "$LAST_ERR")" "a note"
assert_match "^UCX_IB_SL=2$" "$(cat "$ENV")" "still the SA's"

# oneadmin pins a to SL 6: paths follow at once, the broadcast group not
SL_MORE_VNETS='' sl_listing "$TEST_TMP/pinned.xml"
sed -i 's|<IB_PKEY><!\[CDATA\[0x8101\]\]></IB_PKEY></TEMPLATE>|<IB_PKEY><![CDATA[0x8101]]></IB_PKEY><IB_SL><![CDATA[6]]></IB_SL></TEMPLATE>|' \
	"$TEST_TMP/pinned.xml"
sl_render_install "$TEST_TMP/pinned.xml"
assert_eq 6 "$(sl_of "$SIM_PARTITIONS" 5)" "a pinned to 6"
ctx_write "$ctx" VMID=10 ETH0_MAC=02:00:0a:00:0a:00 ETH0_IP=10.11.0.10
assert_fail "after the pin" -- vm10
assert_match "^oneib-context: ETH0 ib0: its IPoIB broadcast group has SL 2, its paths SL 6: the group keeps the SL it was made with until the subnet manager makes it again$" \
	"$(cat "$LAST_ERR")" "the group keeps SL 2, said"
assert_match "^ONEIB_ETH0_IB_SL=6$" "$(cat "$ENV")" "the paths' SL"
assert_match "^ONEIB_ETH0_IPOIB_SL=2$" "$(cat "$ENV")" "the group's"
assert_match "^NCCL_IB_SL=6$" "$(cat "$ENV")" "MPI gets the paths' SL"

# no SA to ask: the context's, with a note; neither: nothing
ctx_write "$ctx" VMID=10 ETH0_MAC=02:00:0a:00:0a:00 ETH0_IP=10.11.0.10 ETH0_IB_SL=4
assert_fail "no umad device" -- guest_ctx "$ctx" --wait 0
assert_match "^oneib-context: ETH0 ib0: SL 4 from ETH0_IB_SL: the SA was not asked \(" "$(cat "$LAST_ERR")" \
	"the context's SL, and why"
assert_match "^UCX_IB_SL=4$" "$(cat "$ENV")" "written"
ctx_write "$ctx" VMID=10 ETH0_MAC=02:00:0a:00:0a:00 ETH0_IP=10.11.0.10
assert_fail "neither" -- guest_ctx "$ctx" --wait 0
assert_eq "" "$(grep -v '^#' "$ENV")" "no SL, no variable: the MPI stacks' default"
test_done
