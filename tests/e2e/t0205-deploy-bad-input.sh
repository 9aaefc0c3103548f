#!/bin/bash
# Bad input to deploy is refused with one line naming the object and the
# reason, non-zero exit, and nothing changes: no lease, no domain.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx5
sim_libvirtd
kvm_ib_host

# One healthy VM first, so "nothing changed" has something to compare.
one_deploy 1 ib/0/02:00:c0:a8:03:01/0x8101 >/dev/null

# What must not change: the ledger and the domains.
host_state() { cat /var/lib/one/ib/leases; virsh list --all --name; }
deploy() { # VMID (stdin: domain XML; vm.xml already written)
	"$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1 <"$TEST_TMP/domain.xml"
}
refused() { # MSG REGEX VMID (stdin: domain XML)
	cat >"$TEST_TMP/domain.xml"
	assert_refused --rc 1 --state host_state "$1" "$2" -- deploy "$3"
	assert_fail "$1: no domain" -- virsh domuuid "one-$3"
}

mkdir -p "$DS/50"
vm_xml 50 ib/0/02:00:c0:a8:03:32/0x8101 >"$DS/50/vm.xml"
printf '<domain type="kvm"><name>one-50</name><devices>' | refused "malformed deployment XML" "VM 50|one-50|XML" 50

vm_xml 51 ib/0/02:00:c0:a8:03:32/0x8101 >"$DS/50/vm.xml"
domain_xml 50 02:00:c0:a8:03:32 | refused "VM XML of another VM" "VM 51, not VM 50" 50

mkdir -p "$DS/52"
printf '<VM><ID>52</ID><TEMPLATE><NIC><NIC_ID>0</NIC_ID><VN_MAD>ib</VN_MAD><IB_PKEY>0x8101</IB_PKEY></NIC></TEMPLATE></VM>' >"$DS/52/vm.xml"
domain_xml 52 02:00:c0:a8:03:34 | refused "IB NIC without MAC" "VM 52 NIC 0: .*MAC" 52

mkdir -p "$DS/53"
vm_xml 53 ib/0/02:00:c0:a8:03:35/0x8101 >"$DS/53/vm.xml"
domain_xml 53 02:00:c0:a8:03:99 | refused "MAC not in the domain" "02:00:c0:a8:03:35" 53

mkdir -p "$DS/54"
vm_xml 54 ib/0/02:00:c0:a8:03:36/0x8101 | sed 's|<IB_PKEY>|<IB_PKEY><![CDATA[0x7fff]]></IB_PKEY><IB_PKEY>|' >"$DS/54/vm.xml"
domain_xml 54 02:00:c0:a8:03:36 | refused "P_Key from the VM's own template" "VM 54 NIC 0: IB_PKEY given twice" 54

mkdir -p "$DS/55"
vm_xml 55 ib/0/02:00:c0:a8:03:37/0x7fff >"$DS/55/vm.xml"
domain_xml 55 02:00:c0:a8:03:37 | refused "default partition" "VM 55 NIC 0: .*0x7fff" 55

mkdir -p "$DS/56"
vm_xml 56 ib/0/02:00:c0:a8:03:38/0x0000 >"$DS/56/vm.xml"
domain_xml 56 02:00:c0:a8:03:38 | refused "invalid partition 0" "VM 56 NIC 0: .*0x0000" 56

mkdir -p "$DS/57"
vm_xml 57 "ib/0/02:00:c0:a8:03:39/0x81'01\"<x>" >"$DS/57/vm.xml"
domain_xml 57 02:00:c0:a8:03:39 | refused "hostile P_Key string" "VM 57 NIC 0: .*IB_PKEY" 57

mkdir -p "$DS/58"
printf '<VM><ID>58</ID><TEMPLATE><NIC><NIC_ID>0</NIC_ID><MAC>02:00:c0:a8:03:3a\n&lt;x&gt;"</MAC><VN_MAD>ib</VN_MAD><IB_PKEY>0x8101</IB_PKEY></NIC></TEMPLATE></VM>' >"$DS/58/vm.xml"
domain_xml 58 02:00:c0:a8:03:3a | refused "hostile MAC with newline" "VM 58 NIC 0: .*MAC" 58

mkdir -p "$DS/59"
vm_xml 59 ib/0/02:00:c0:a8:03:3b/0x8101/0000:3b:00.0/2 >"$DS/59/vm.xml"
domain_xml 59 02:00:c0:a8:03:3b | refused "IB_PF port that does not exist" "IB_PF 0000:3b:00.0 port 2 is not an ACTIVE InfiniBand port" 59

# oneib-vf's numeric options: a usage error (2), the option and value named.
VF=$R/ib/bin/oneib-vf
assert_refused --rc 2 --state host_state "--vm of letters" "^oneib-vf: --vm 'x1': not a non-negative number$" -- \
	"$VF" release --vm x1
assert_refused --rc 2 --state host_state "negative --nic" "^oneib-vf: --nic '-1': not a non-negative number$" -- \
	"$VF" release --vm 1 --nic -1
assert_refused --rc 2 --state host_state "--vm past INT_MAX" "^oneib-vf: --vm '2147483648': not a non-negative number$" -- \
	"$VF" release --vm 2147483648
assert_refused --rc 2 --state host_state "--grace with a unit" "^oneib-vf: --grace '10s': not a number of seconds$" -- \
	"$VF" reconcile --grace 10s
test_done
