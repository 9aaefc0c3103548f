#!/bin/bash
# Harness: sim_host mounts the cx5 fixture over /sys (real cgroupfs still
# grafted in) and sim_libvirtd gives a private libvirtd whose test-driver
# domains persist between virsh calls.
. "$(dirname "$0")/../lib/test-lib.sh"

sim_host cx5
sim_libvirtd

# --- the simulated host
assert_eq 1 "$$" "the test runs as pid 1 of its own pid namespace"
assert_match '^(tmpfs|ext[234]|xfs|btrfs|overlay)' "$(stat -f -c %T /sys)" \
	"/sys is the fixture tree, not sysfs"
dev=/sys/bus/pci/devices/0000:3b:00.0
assert_eq 0x15b3 "$(cat "$dev/vendor" 2>&1)" "fixture PCI device 0000:3b:00.0 is Mellanox"
assert_match '^/sys/devices/pci' "$(readlink -f "$dev")" \
	"fixture symlinks resolve inside /sys"
assert_ok "expect.json of the fixture is readable" -- test -s "$SIM_HOST_DIR/expect.json"
assert_match '^cgroup2?$' "$(findmnt -rn -R -o FSTYPE /sys/fs/cgroup)" \
	"the real cgroup filesystem is grafted at /sys/fs/cgroup"
assert_ok "the real /sys/devices/system is grafted" -- test -e /sys/devices/system/cpu/online

# --- the private libvirtd
assert_eq tmpfs "$(findmnt -n -o FSTYPE /run/libvirt)" "/run/libvirt is a private tmpfs"
assert_match 'Running hypervisor: TEST' "$(virsh -c "$LIBVIRT_URI" version 2>&1)" \
	"libvirtd serves the test driver"

cat >"$TEST_TMP/vm.xml" <<-XML
<domain type='test'>
  <name>harness-vm</name>
  <memory unit='MiB'>64</memory>
  <os><type>hvm</type></os>
</domain>
XML
assert_ok "define and start a domain in one virsh call" -- \
	virsh -c "$LIBVIRT_URI" "define $TEST_TMP/vm.xml; start harness-vm"
assert_ok "a second virsh call lists domains" -- virsh -c "$LIBVIRT_URI" list --name
assert_match '^harness-vm$' "$(cat "$LAST_OUT")" "the domain persists across virsh connections"
assert_eq running "$(virsh -c "$LIBVIRT_URI" domstate harness-vm 2>&1)" "the domain is running"

test_done
