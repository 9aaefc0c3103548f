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
#   - an 8-GPU, 8-NIC VM: the hook's rail term (8 rails with a VF left),
#     8 distinct rails, each VF beside its GPU under a switch of its own;
#   - switch 0's HCAs full (two VMs of 8 NICs on an IB_RAILS=pack
#     network: rails 0 and 1), a VM with GPUs 0000:17:00.0 and
#     0000:97:00.0 (SHORT_ADDRESS) and 2 NICs: preferred deploys, NIC 0
#     on the next best with one warning line in its log; required stays
#     PENDING, the hook's beside term matching no host, never sent to a
#     deploy that would refuse it, until rail 0's VFs free up: then it
#     runs beside both GPUs (the hook rewrote its terms on the filler's
#     DONE);
#   - a burst, with a second host now in the cloud (hv2, fixture gpu2: 2
#     rails of 8 VFs, 16 free): rail 0 of hv1 with one VF left (a pack VM
#     of 7), two VMs of 8 NICs at once: one runs on hv1's 8 rails, the
#     other stays PENDING (hv1: 49 VFs free, but on 7 rails; hv2: 16, on
#     2), never sent to either, until hv1's rail 0 frees, then runs there
#     on 8;
#   - terminate frees every lease.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
# the VMs' IDs (0, 1, 2 on a front-end of its own)
A=$ONE_VM0 B=$((ONE_VM0 + 1)) C=$((ONE_VM0 + 2))
one_host hv1 hgx
one_host hv2 gpu2 # on the fabric now, in the cloud from the burst on
one_fabric 1
one_hooks oneib-vm-pending oneib-vm-prolog oneib-vm-boot oneib-vm-running oneib-vm-done \
	oneib-api-vn-allocate oneib-vnet-ready oneib-api-host-allocate oneib-host-monitored
# OpenNebula's PCI probe: the GPUs (kvm-ib's pci.conf, one-ib-frontend(7))
sed -i "s|^:filter:.*|:filter: '::0302'|" "$ONE_DIR/var/remotes/etc/im/kvm-ib-probes.d/pci.conf"
# the PFs' VFs programmable (MLNX_OFED's sriov files: no IPoIB netdev here)
for pf in hv1/0000:19:00.0 hv1/0000:1a:00.0 hv1/0000:3d:00.0 hv1/0000:3e:00.0 hv1/0000:99:00.0 hv1/0000:9a:00.0 \
	hv1/0000:bd:00.0 hv1/0000:be:00.0 hv2/0000:18:00.0 hv2/0000:98:00.0; do
	for i in 0 1 2 3 4 5 6 7; do
		d=$SIM_HOSTS/${pf%/*}/host/sys/bus/pci/devices/${pf#*/}/sriov/$i
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

# --- 8 GPUs, 8 NICs
D=$((ONE_VM0 + 3))
vm_tmpl() { # NAME NETWORK NICS REQUIREMENT PCI...
	local name=$1 net=$2 nics=$3 req=$4 k
	shift 4
	printf 'NAME = "%s"\nCPU = "0.1"\nMEMORY = "128"\nOS = [ MACHINE = "q35" ]\n' "$name"
	for k in "$@"; do printf 'PCI = [ %s ]\n' "$k"; done
	for ((k = 0; k < nics; k++)); do
		printf 'NIC = [ NETWORK = "%s", NETWORK_UNAME = "oneadmin" ]\n' "$net"
	done
	printf 'SCHED_REQUIREMENTS = "%s"\n' "$req"
}
sriov='IB_SRIOV = \"YES\"'
# behind the gate, as templates/ib-vm.tmpl ships it: no host matches until
# the hook has written the VM's terms (without it, under load, the
# scheduler may place the VM first, as t0705 says)
gate='\"/HOST[count(VMS/ID) = TEMPLATE/IB_SYNC_VMS and sum(VMS/ID) = TEMPLATE/IB_SYNC_SUM]/TEMPLATE/IB_VFS_AVAIL\" > 0 & IB_LEAVES = \"*,chosen-by-one-ib,*\" & (IB_SRIOV = \"YES\")'
c=CLASS=\"0302\"
vm_tmpl gpu-8x8 ib-gpu 8 "$gate" "$c" "$c" "$c" "$c" "$c" "$c" "$c" "$c" >"$TEST_TMP/vm8.tmpl"
chmod 0644 "$TEST_TMP/vm8.tmpl"
assert_ok "alice creates the 8x8 template" -- as_user alice onetemplate create "$TEST_TMP/vm8.tmpl"
assert_ok "alice instantiates it" -- as_user alice onetemplate instantiate gpu-8x8
one_wait_vm "$D" "^ACTIVE RUNNING$"
assert_eq "0 1 2 3 4 5 6 7" "$(rails_of "$D")" "VM $D: 8 distinct rails, in its GPUs' order"
assert_match 'IB_VFS_AVAIL" > 7 & IB_RAILS_AVAIL > 7' \
	"$(one_xml vm "$D" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS)" "the hook's rail term: 8 rails"
dom=$(one_domxml hv1 "$D")
assert_eq 8 "$(grep -c "<alias name=.ua-oneib-sw[0-7]./>" <<<"$dom")" "a switch of kvm-ib's per GPU and its VF"
assert_ok "alice terminates it" -- as_user alice onevm terminate --hard "$D"
one_wait_vm "$D" "^DONE"

# --- switch 0's HCAs full: two VMs of 8 NICs on a pack network
sed -e 's/^NAME .*/NAME = "ib-fill"/' "$ONE_DIR/share/one-ib/templates/ib-network.tmpl" >"$TEST_TMP/fill.tmpl"
echo 'IB_RAILS = "pack"' >>"$TEST_TMP/fill.tmpl"
sed -e 's/^NAME .*/NAME = "ib-req"/' "$ONE_DIR/share/one-ib/templates/ib-network.tmpl" >"$TEST_TMP/req.tmpl"
echo 'IB_AFFINITY = "required"' >>"$TEST_TMP/req.tmpl"
for n in fill req; do
	assert_ok "oneadmin creates ib-$n" -- as_oneadmin onevnet create "$TEST_TMP/$n.tmpl"
	one_wait_vnet "$(one_xml vnet "ib-$n" | one_xpath /VNET/ID)"
done
E=$((ONE_VM0 + 4)) F=$((ONE_VM0 + 5)) P=$((ONE_VM0 + 6)) Q=$((ONE_VM0 + 7))
vm_tmpl fill ib-fill 8 "$sriov" >"$TEST_TMP/fill-vm.tmpl"
chmod 0644 "$TEST_TMP/fill-vm.tmpl"
assert_ok "alice creates the filler" -- as_user alice onetemplate create "$TEST_TMP/fill-vm.tmpl"
for vm in $E $F; do
	assert_ok "alice instantiates it" -- as_user alice onetemplate instantiate fill
	one_wait_vm "$vm" "^ACTIVE RUNNING$"
done
assert_eq "0 0 0 0 0 0 0 0|1 1 1 1 1 1 1 1" "$(rails_of "$E")|$(rails_of "$F")" "pack: rail 0, then rail 1, full"
rails_avail() { one_xml host hv1 | one_xpath /HOST/TEMPLATE/IB_RAILS_AVAIL; }
_rails_avail_is() { [ "$(rails_avail)" = "$1" ] || { sleep 0.3; return 1; }; }
wait_for 30 _rails_avail_is 6
assert_eq 6 "$(rails_avail)" "the hook counts 6 rails with a VF left"

pair='SHORT_ADDRESS="17:00.0"' pair2='SHORT_ADDRESS="97:00.0"'
vm_tmpl gpu-pref ib-gpu 2 "$sriov" "$pair" "$pair2" >"$TEST_TMP/pref.tmpl"
vm_tmpl gpu-req ib-req 2 "$gate" "$pair" "$pair2" >"$TEST_TMP/req-vm.tmpl"
chmod 0644 "$TEST_TMP/pref.tmpl" "$TEST_TMP/req-vm.tmpl"
assert_ok "alice creates the preferred one" -- as_user alice onetemplate create "$TEST_TMP/pref.tmpl"
assert_ok "and the required one" -- as_user alice onetemplate create "$TEST_TMP/req-vm.tmpl"
assert_ok "alice instantiates the preferred one" -- as_user alice onetemplate instantiate gpu-pref
one_wait_vm "$P" "^ACTIVE RUNNING$"
assert_eq "2 4" "$(rails_of "$P")" "preferred: NIC 0 on the next best (rail 2, its node), NIC 1 beside GPU 0000:97:00.0"
assert_eq 1 "$(one_vm_log "$P" | grep -c 'is not beside GPU')" "one warning line in its log"
assert_match 'VM [0-9]+ NIC 0: rail 2 \(0000:3d:00.0 port 1\) is not beside GPU 0000:17:00.0: no free VF under its PCIe switch 0000:15:00.0 \(IB_AFFINITY preferred\)' \
	"$(one_vm_log "$P" | grep 'is not beside GPU')" "naming the NIC, the GPU and what was full"
assert_ok "alice terminates it" -- as_user alice onevm terminate --hard "$P"
one_wait_vm "$P" "^DONE"

assert_ok "alice instantiates the required one" -- as_user alice onetemplate instantiate gpu-req
sched_req() { one_xml vm "$1" | one_xpath /VM/USER_TEMPLATE/SCHED_REQUIREMENTS; }
_req_has() { [[ $(sched_req "$1") == *"$2"* ]] || { sleep 0.3; return 1; }; }
wait_for 30 _req_has "$Q" no-vf-beside-its-gpus
assert_match '> 1 & IB_RAILS_AVAIL > 1 & IB_BESIDE = "no-vf-beside-its-gpus" & \(IB_SRIOV = "YES"\)$' \
	"$(sched_req "$Q")" "the beside term: no host has VFs beside its GPUs"
# Waiting, not failing: the scheduler refuses it again and again (each
# refusal a SCHED_MESSAGE with the time of its own: 6.10's mm_sched every
# cycle, 7.0's driver every ONE_SCHED_RETRY s) and it stays PENDING, with
# no history record (a deploy tried, even one refused, leaves one).
_refusals=() _last=''
_refused() { # VM N: N refusals seen since the term, PENDING at each
	local x m
	x=$(one_xml vm "$1") || return 1
	[ "$(one_xpath "concat(/VM/STATE, ' ', /VM/LCM_STATE, ' ', count(/VM/HISTORY_RECORDS/HISTORY))" <<<"$x")" = "1 0 0" ] ||
		return 0 # moved on: the asserts after the wait say how
	m=$(one_xpath /VM/USER_TEMPLATE/SCHED_MESSAGE <<<"$x")
	[ -z "$m" ] || [ "$m" = "$_last" ] || { _refusals+=("$m") && _last=$m; }
	[ "${#_refusals[@]}" -ge "$2" ] || { sleep 0.3; return 1; }
}
wait_for 60 _refused "$Q" 4 # the first may be from before the term
assert_eq "PENDING LCM_INIT 0 4" "$(one_vm_state "$Q") $(one_xml vm "$Q" | one_xpath "count(/VM/HISTORY_RECORDS/HISTORY)") ${#_refusals[@]}" \
	"required: PENDING, never sent to a host, through 4 refusals of the scheduler"
assert_ok "alice terminates the rail-0 filler" -- as_user alice onevm terminate --hard "$E"
one_wait_vm "$E" "^DONE"
# the hook, on E's DONE, counts rail 0 free and rewrites Q's terms
one_wait_vm "$Q" "^ACTIVE RUNNING$"
assert_eq "0 4" "$(rails_of "$Q")" "required, once rail 0 has VFs: beside both GPUs"
assert_eq "" "$(sched_req "$Q" | grep -o no-vf-beside-its-gpus)" "the hook took the beside term back"
assert_eq 0 "$(one_vm_log "$Q" | grep -c 'is not beside GPU')" "no warning"

for vm in $F $Q; do
	assert_ok "alice terminates VM $vm" -- as_user alice onevm terminate --hard "$vm"
	one_wait_vm "$vm" "^DONE"
done

# --- a burst of two 8-rail VMs, rail 0 with one VF left, and a host of 2
one_host_create hv2
host_facts() { # HOST: its rails, VFs free and rails with a VF left, as the hook counts them
	one_xml host "$1" | one_xpath "concat(/HOST/TEMPLATE/IB_RAILS, ' ', /HOST/TEMPLATE/IB_VFS_AVAIL, ' ', /HOST/TEMPLATE/IB_RAILS_AVAIL)"
}
_host_facts_are() { [ "$(host_facts "$1")" = "$2" ] || { sleep 0.3; return 1; }; }
wait_for 30 _host_facts_are hv2 "2 16 2"
assert_eq "2 16 2" "$(host_facts hv2)" "hv2: 2 rails, 16 VFs free, both rails with VFs left"
G=$((ONE_VM0 + 8)) H=$((ONE_VM0 + 9)) I=$((ONE_VM0 + 10))
vm_tmpl fill7 ib-fill 7 "$sriov & HOSTNAME = \\\"hv1\\\"" >"$TEST_TMP/fill7.tmpl"
vm_tmpl spread8 ib-gpu 8 "$gate" >"$TEST_TMP/spread8.tmpl"
chmod 0644 "$TEST_TMP/fill7.tmpl" "$TEST_TMP/spread8.tmpl"
assert_ok "alice creates a filler of 7" -- as_user alice onetemplate create "$TEST_TMP/fill7.tmpl"
assert_ok "and a VM of 8 NICs without GPUs" -- as_user alice onetemplate create "$TEST_TMP/spread8.tmpl"
assert_ok "alice instantiates the filler" -- as_user alice onetemplate instantiate fill7
one_wait_vm "$G" "^ACTIVE RUNNING$"
assert_eq "0 0 0 0 0 0 0" "$(rails_of "$G")" "pack: rail 0 has one VF left"
wait_for 30 _rails_avail_is 8
assert_ok "alice instantiates two of 8 NICs at once" -- as_user alice onetemplate instantiate spread8 --multiple 2
# one takes rail 0's last VF; the other, 49 VFs free on 7 rails, must wait
_one_ran() { [ "$(one_vm_state "$H")|$(one_vm_state "$I")" != "PENDING LCM_INIT|PENDING LCM_INIT" ] || { sleep 0.3; return 1; }; }
wait_for 120 _one_ran
if [ "$(one_vm_state "$H")" = "PENDING LCM_INIT" ]; then ran=$I wait=$H; else ran=$H wait=$I; fi
one_wait_vm "$ran" "^ACTIVE RUNNING$"
assert_eq "0 1 2 3 4 5 6 7" "$(rails_of "$ran")" "VM $ran: 8 distinct rails, rail 0's last VF"
wait_for 30 _rails_avail_is 7
assert_eq 7 "$(rails_avail)" "the hook counts 7 rails with a VF left"
assert_match 'IB_RAILS_AVAIL > 7' "$(sched_req "$wait")" "VM $wait: the rail term asks for 8"
_refusals=() _last=''
wait_for 60 _refused "$wait" 3
assert_eq "PENDING LCM_INIT 0 3" "$(one_vm_state "$wait") $(one_xml vm "$wait" | one_xpath "count(/VM/HISTORY_RECORDS/HISTORY)") ${#_refusals[@]}" \
	"VM $wait: PENDING, never sent to a host with 7 rails, nor to one with 2, through 3 refusals"
assert_eq "2 16 2" "$(host_facts hv2)" "hv2 meanwhile: 16 VFs free, on 2 rails"
assert_ok "alice terminates the filler" -- as_user alice onevm terminate --hard "$G"
one_wait_vm "$G" "^DONE"
one_wait_vm "$wait" "^ACTIVE RUNNING$"
assert_eq "hv1 hv1" "$(one_xml vm "$ran" | one_xpath /VM/HISTORY_RECORDS/HISTORY/HOSTNAME) $(one_xml vm "$wait" | one_xpath /VM/HISTORY_RECORDS/HISTORY/HOSTNAME)" \
	"both on hv1, the host with 8 rails"
assert_eq "0 1 2 3 4 5 6 7" "$(rails_of "$wait")" "VM $wait, once rail 0 has VFs: 8 distinct rails"
for vm in $ran $wait; do
	assert_ok "alice terminates VM $vm" -- as_user alice onevm terminate --hard "$vm"
	one_wait_vm "$vm" "^DONE"
done
assert_eq "|" "$(on hv1 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib | jq -r '.leases[] | .vf')|$(on hv2 /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib | jq -r '.leases[] | .vf')" \
	"every lease is gone, none ever on hv2"
test_done
