#!/bin/bash
# The VM of README's quick start (tests/one/t0709-one-quickstart.sh runs
# it): a guest of tests/lib/guest.sh whose VF is what the host gave it
# (MKHOST_GUEST_KIND, MKHOST_GUEST_GUID, MKHOST_GUEST_PKEYS: the guest-demo
# fixture), oneib-context run on the context OpenNebula wrote for the VM
# (QS_CONTEXT), as one-context's loc-11-oneib runs it at boot, then the
# page's commands (QS_COMMANDS) as the VM's root, their output into
# QS_OUTPUT.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/guest.sh"
sim_guest guest-demo
# ib0 as `ip addr` shows the kernel's IPoIB netdev: no peer (a veth
# prints "ib0@ib0p:"; nothing here sends through it, so an ifb link:
# this kernel has no dummy module),
# at the MTU its sysfs (the fixture's) gives, as datagram mode on a
# 2048-byte port has it: 2044, what the page shows
ip link del ib0 && ip link add ib0 mtu "$(cat /sys/class/net/ib0/mtu)" type ifb ||
	die "cannot make the ifb link standing in for ib0"
cp "$QS_CONTEXT" "$TEST_TMP/context.sh.local" || die "no context $QS_CONTEXT"
assert_ok "oneib-context configures the VM's InfiniBand NIC from its context" -- \
	guest_ctx "$TEST_TMP/context.sh.local"
sed 's/^/# oneib-context: /' "$LAST_OUT" "$LAST_ERR"
bash "$QS_COMMANDS" >"$QS_OUTPUT" 2>&1
assert_eq 0 "$?" "the page's commands in the VM exit 0"
test_done
