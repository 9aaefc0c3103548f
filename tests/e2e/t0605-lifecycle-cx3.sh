#!/bin/bash
# The life cycle of a VM with InfiniBand NICs on two ConnectX-3 (mlx4)
# hosts, where the host maps each VF's P_Key table: NIC hot-attach, suspend
# on one host and resume on the other, live migration back, NIC detach,
# poweroff. After every step the domains' hostdevs, both ledgers, each VF's
# alias GUID and the partition its virtual P_Key index 0 maps to, and the
# partitions model agree with oned's view; a released VF keeps nothing
# (GUID invalidated, every index none). The one-host details (retries,
# refusals, failures) are in t0501-t0504 on ConnectX-5.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx3
iov=/sys/class/infiniband/mlx4_0/iov

one_vm_new 42 0/02:00:c0:a8:01:05/5
assert_eq "DEPLOY SUCCESS" "$(one_deploy_vm 42 hv1)" "deploy of VM 42 on hv1"
cloud_agrees "deploy"
assert_eq "ATTACHNIC SUCCESS" "$(one_attach_nic 42 1/02:00:c0:a8:02:05/7)" "nic-attach on tenant-b"
cloud_agrees "attach"
vf1=$(on hv1 /var/tmp/one/ib/bin/oneib-vf hostdevs --vm 42 --nic 1 | cut -d' ' -f1)
assert_eq "SAVE SUCCESS" "$(one_save 42)" "suspend"
cloud_agrees "suspended"
assert_eq "" "$(on hv1 grep -Lx none "$iov/$vf1"/ports/1/pkey_idx/*)" "NIC 1's old VF: every P_Key index none"
slave=$(on hv1 cat "$iov/$vf1/ports/1/gid_idx/0")
assert_eq ffffffffffffffff "$(on hv1 cat "$iov/ports/1/admin_guids/$slave")" "and its GUID invalidated"
assert_eq "RESTORE SUCCESS" "$(one_restore 42 hv2)" "resume on hv2"
cloud_agrees "resumed on hv2"
assert_eq "MIGRATE SUCCESS" "$(one_migrate 42 hv1)" "live migration back to hv1"
cloud_agrees "migrated to hv1"
assert_eq "DETACHNIC SUCCESS" "$(one_detach_nic 42 1)" "nic-detach"
cloud_agrees "detach"
assert_eq "SHUTDOWN SUCCESS" "$(one_shutdown 42)" "poweroff"
cloud_agrees "powered off"
test_done
