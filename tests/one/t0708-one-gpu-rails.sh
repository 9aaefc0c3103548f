#!/bin/bash
# GPUs and multi-rail InfiniBand through the real OpenNebula front-end
# (design decision 15), on an HGX-class host (fixture hgx: 8 GPUs, 4 PCIe
# switches, rails 2s and 2s+1 beside GPUs 2s and 2s+1):
#   - OpenNebula's own PCI probe (pci.rb, with kvm-ib's pci.conf filtering
#     class 0302) reads the fake host's 8 GPUs, and one-ib's probe the
#     rails and PCIe facts (IB_RAILS, IB_PCI with each GPU's nearest rails);
#   - a user's VM with PCI=[CLASS="0302"] twice and two InfiniBand NICs on
#     one network, q35: oned gives it the first two GPUs (address order,
#     0000:17:00.0 and 0000:18:00.0, under switch 0000:15:00.0), kvm-ib its
#     VFs on rails 0 and 1, under the same switch, and the deployment puts
#     each GPU and its VF under an emulated switch of their own;
#   - then two VMs of 4 GPUs and 4 NICs: node 0's four GPUs and node 1's,
#     each VM's VFs on 4 rails of its own, each beside its GPU (0-3, 4-7);
#   - terminate frees every lease.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
# the VMs' IDs (0, 1, 2 on a front-end of its own)
A=$ONE_VM0 B=$((ONE_VM0 + 1)) C=$((ONE_VM0 + 2))
one_host hv1 hgx
one_fabric 1
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-done \
	oneib-api-vn-allocate oneib-vnet-ready oneib-api-host-allocate oneib-host-monitored
# OpenNebula's PCI probe: the GPUs (kvm-ib's pci.conf, INSTALL 4)
sed -i "s|^:filter:.*|:filter: '::0302'|" "$ONE_DIR/var/remotes/etc/im/kvm-ib-probes.d/pci.conf"
# the PFs' VFs programmable (MLNX_OFED's sriov files: no IPoIB netdev here)
for pf in 0000:19:00.0 0000:1a:00.0 0000:3d:00.0 0000:3e:00.0 0000:99:00.0 0000:9a:00.0 0000:bd:00.0 0000:be:00.0; do
	for i in 0 1 2 3 4 5 6 7; do
		d=$SIM_HOSTS/hv1/host/sys/bus/pci/devices/$pf/sriov/$i
		mkdir -p "$d"
		echo 00:00:00:00:00:00:00:00 >"$d/node"
		echo 00:00:00:00:00:00:00:00 >"$d/port"
		echo Follow >"$d/policy"
	done
done
one_host_create hv1

x=$(one_xml host hv1)
xp() { printf '%s' "$x" | one_xpath "$1"; }
assert_eq 8 "$(xp "count(/HOST/HOST_SHARE/PCI_DEVICES/PCI[CLASS='0302'])")" \
	"OpenNebula's PCI probe reads the host's 8 GPUs"
assert_eq 8 "$(xp /HOST/TEMPLATE/IB_RAILS)" "one-ib's probe: 8 rails"
assert_eq "switch 0,1" "$(xp "concat(/HOST/TEMPLATE/IB_PCI[ADDRESS='0000:17:00.0']/NEAR, ' ', /HOST/TEMPLATE/IB_PCI[ADDRESS='0000:17:00.0']/NEAR_RAILS)")" \
	"GPU 0000:17:00.0: rails 0 and 1 beside it"

# --- the network, without a PF pin
sed -e 's/^NAME .*/NAME = "ib-gpu"/' "$ONE_DIR/share/one-ib/templates/ib-network.tmpl" >"$TEST_TMP/net.tmpl"
assert_ok "oneadmin creates the network" -- as_oneadmin onevnet create "$TEST_TMP/net.tmpl"
one_wait_vnet "$(one_xml vnet ib-gpu | one_xpath /VNET/ID)"

one_user alice
cat >"$TEST_TMP/vm.tmpl" <<'EOT'
NAME = "gpu-2x2"
CPU = "0.1"
MEMORY = "128"
OS = [ MACHINE = "q35" ]
PCI = [ CLASS = "0302" ]
PCI = [ CLASS = "0302" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
SCHED_REQUIREMENTS = "IB_SRIOV = \"YES\""
EOT
chmod 0644 "$TEST_TMP/vm.tmpl"
assert_ok "alice creates the template" -- as_user alice onetemplate create "$TEST_TMP/vm.tmpl"
assert_ok "alice instantiates it" -- as_user alice onetemplate instantiate gpu-2x2
one_wait_vm "$A" "^ACTIVE RUNNING$"
assert_eq "0000:17:00:0 0000:18:00:0" "$(one_xml vm "$A" | one_xpath "concat(/VM/TEMPLATE/PCI[1]/ADDRESS, ' ', /VM/TEMPLATE/PCI[2]/ADDRESS)")" \
	"oned gave it the first two GPUs (ADDRESS in oned's form)"
pfs=$(on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib |
	jq -r --argjson v "$A" '[.leases[] | select(.vm == $v)] | sort_by(.nic) | map(.pf) | join(" ")')
assert_eq "0000:19:00.0 0000:1a:00.0" "$pfs" "its NICs on rails 0 and 1, beside its GPUs"
dom=$(one_domxml hv1 "$A")
assert_eq 2 "$(grep -c "<alias name=.ua-oneib-sw[01]./>" <<<"$dom")" "two switches of kvm-ib's in the domain"
gpu0=$(grep -A4 "bus=.0x17. slot=.0x00. function=.0x0." <<<"$dom" | sed -n "s/.*<address type=.pci. domain=.0x0000. bus=.\(0x[0-9a-f]*\).*/\1/p" | head -n 1)
vf0=$(grep -A4 "bus=.0x19. slot=.0x00. function=.0x1." <<<"$dom" | sed -n "s/.*<address type=.pci. domain=.0x0000. bus=.\(0x[0-9a-f]*\).*/\1/p" | head -n 1)
up() { grep "<controller type=.pci. index=.$(($1)). " -A3 <<<"$dom" | sed -n "s/.*<address type=.pci. domain=.0x0000. bus=.\(0x[0-9a-f]*\).*/\1/p" | head -n 1; }
assert_match '^0x[0-9a-f]+$' "$gpu0" "GPU 0000:17:00.0 on a guest port"
assert_eq "$(up "$gpu0")" "$(up "$vf0")" "it and NIC 0's VF on downstream ports of one switch"
assert_eq 4 "$(grep -c '<hostdev' <<<"$dom")" "the domain holds 2 GPUs and 2 VFs"

assert_ok "alice terminates it" -- as_user alice onevm terminate --hard "$A"
one_wait_vm "$A" "^DONE"
assert_eq "" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib | jq -r --argjson v "$A" '.leases[] | select(.vm == $v) | .vf')" \
	"its leases are gone"

# --- two VMs of 4 GPUs and 4 NICs on the host
cat >"$TEST_TMP/vm4.tmpl" <<'EOT'
NAME = "gpu-4x4"
CPU = "0.1"
MEMORY = "128"
OS = [ MACHINE = "q35" ]
PCI = [ CLASS = "0302" ]
PCI = [ CLASS = "0302" ]
PCI = [ CLASS = "0302" ]
PCI = [ CLASS = "0302" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
NIC = [ NETWORK = "ib-gpu", NETWORK_UNAME = "oneadmin" ]
SCHED_REQUIREMENTS = "IB_SRIOV = \"YES\""
EOT
chmod 0644 "$TEST_TMP/vm4.tmpl"
assert_ok "alice creates the 4x4 template" -- as_user alice onetemplate create "$TEST_TMP/vm4.tmpl"
assert_ok "alice instantiates it" -- as_user alice onetemplate instantiate gpu-4x4
one_wait_vm "$B" "^ACTIVE RUNNING$"
assert_ok "and again" -- as_user alice onetemplate instantiate gpu-4x4
one_wait_vm "$C" "^ACTIVE RUNNING$"
rails_of() { # VM: its PFs by NIC, as rails (hgx: rails in PF address order)
	on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib | jq -r "
		[.leases[] | select(.vm == $1)] | sort_by(.nic) | map(.pf) | map(
			{\"0000:19:00.0\": 0, \"0000:1a:00.0\": 1, \"0000:3d:00.0\": 2, \"0000:3e:00.0\": 3,
			 \"0000:99:00.0\": 4, \"0000:9a:00.0\": 5, \"0000:bd:00.0\": 6, \"0000:be:00.0\": 7}[.]) |
		map(tostring) | join(\" \")"
}
gpus_of() { one_xml vm "$1" | one_xpath "concat(/VM/TEMPLATE/PCI[1]/ADDRESS, ' ', /VM/TEMPLATE/PCI[4]/ADDRESS)"; }
assert_eq "0000:17:00:0 0000:3c:00:0" "$(gpus_of "$B")" "VM $B: node 0's four GPUs (17 ... 3c)"
assert_eq "0 1 2 3" "$(rails_of "$B")" "VM $B: 4 distinct rails, each beside its GPU"
assert_eq "0000:97:00:0 0000:bc:00:0" "$(gpus_of "$C")" "VM $C: node 1's four (97 ... bc)"
assert_eq "4 5 6 7" "$(rails_of "$C")" "VM $C: 4 rails of its own, each beside its GPU"

for vm in $B $C; do
	assert_ok "alice terminates VM $vm" -- as_user alice onevm terminate --hard $vm
	one_wait_vm $vm "^DONE"
done
assert_eq "" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib | jq -r '.leases[] | .vf')" \
	"every lease is gone"
test_done
