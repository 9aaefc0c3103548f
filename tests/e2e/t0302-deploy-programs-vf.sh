#!/bin/bash
# kvm-ib deploy on a ConnectX-3 host programs the leased VF before the
# domain starts (alias GUID from the NIC's MAC, virtual P_Key index 0 on the
# network's partition, nothing else) through oneib-pkey as configured in
# kvm-ibrc; shutdown clears it. A P_Key the port does not carry fails the
# deploy: no lease, no domain, and the VF blocked, never in the default
# partition. A deploy killed whole right after programming leaves its VF
# leased (the ledger is written first): retried, it programs the same VF;
# not retried, reconcile unmaps it once the lease expires. A refusal whose
# undo cannot unmap a VF keeps that VF's lease. A retry whose earlier VF no
# longer fits unmaps it before taking another.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"
sim_host cx3
sim_libvirtd
kvm_ib_host
kvm_ib_pkey
iov=/sys/class/infiniband/mlx4_0/iov

uuid=$(one_deploy 42 ib/0/02:00:c0:a8:01:05/0x8101)
assert_eq 0 $? "deploy succeeds"
vf=$("$R/ib/bin/oneib-vf" list --format=json | jq -r '.leases[0].vf')
assert_eq 0000:03:00.1 "$vf" "first VF leased"
slave=$(cat "$iov/$vf/ports/1/gid_idx/0")
assert_eq 2000000002a0000 "$(cat "$iov/ports/1/admin_guids/$slave")" "alias GUID = VM 42 NIC 0"
assert_eq 1 "$(cat "$iov/$vf/ports/1/pkey_idx/0")" "virtual index 0 -> the physical index of 0x8101"
assert_eq "" "$(grep -lv '^none$' "$iov/$vf"/ports/1/pkey_idx/* | grep -v '/pkey_idx/0$')" "every other index none"
"$PKEY_BIN" show "$vf" >"$TEST_TMP/show"
assert_match "0x02000000002a0000" "$(cat "$TEST_TMP/show")" "oneib-pkey show reads it back"

"$R/vmm/kvm-ib/shutdown" "$uuid" node1 42 node1
assert_eq 0 $? "shutdown succeeds"
assert_eq ffffffffffffffff "$(cat "$iov/ports/1/admin_guids/$slave")" "GUID invalidated"
assert_eq "" "$(grep -Lx none "$iov/$vf"/ports/1/pkey_idx/*)" "every index none"

(cd /sys && find class/infiniband/mlx4_0/iov/ -type f -exec md5sum {} + | sort) >"$TEST_TMP/before"
one_deploy 43 ib/0/02:00:c0:a8:01:06/0x8123 >/dev/null 2>"$TEST_TMP/err"
assert_eq 1 $? "deploy with a P_Key the port does not carry fails"
assert_eq 1 "$(grep -c . "$TEST_TMP/err")" "one line"
assert_match "0x8123" "$(cat "$TEST_TMP/err")" "naming the P_Key"
assert_fail "no domain" -- virsh domuuid one-43
assert_eq 0 "$("$R/ib/bin/oneib-vf" list --format=json | jq '.leases | length')" "no lease left"
assert_eq "" "$(grep -Lx none "$iov/$vf"/ports/1/pkey_idx/*)" "the VF stays blocked"

# Killed between two steps: the whole deploy (kvm-ib script, oneib-vf and
# all) dies with -9 right after oneib-pkey gave its VF the NIC's GUID. The
# lease was written first, so the programmed VF is leased; the retry
# programs the same VF; without a retry reconcile unmaps it once the lease
# expires. (Programmed before the lease was written, the VF kept a GUID no
# lease named, and a retry that chose another VF was refused: "GUID ... is
# already in use on this host".)
printf '#!/bin/sh\n"%s" "$@"; rc=$?\nif [ "$1" = map ] && rm "%s" 2>/dev/null; then pkill -9 -s "$(ps -o sid= -p $$ | tr -d " ")"; fi\nexit $rc\n' \
	"$TEST_TMP/oneib-pkey-logged" "$TEST_TMP/kill-after-map" >"$TEST_TMP/oneib-pkey-killing"
chmod +x "$TEST_TMP/oneib-pkey-killing"
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-killing\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
deploy_killed() { # VMID MAC: deploy, killed whole after its first map
	mkdir -p "$DS/$1"
	vm_xml "$1" "ib/0/$2/0x8101" >"$DS/$1/vm.xml"
	: >"$TEST_TMP/kill-after-map"
	(domain_xml "$1" "$2" |
		setsid -w "$R/vmm/kvm-ib/deploy" "$DS/$1/deployment.0" node1 "$1" node1 >/dev/null) 2>/dev/null
	[ ! -e "$TEST_TMP/kill-after-map" ] || die "deploy of VM $1 never mapped a VF"
}
lease_of() { "$R/ib/bin/oneib-vf" list --format=json | jq -r ".leases[] | select(.vm == $1) | .vf"; }
alias_guid() { cat "$iov/ports/1/admin_guids/$(cat "$iov/$1/ports/1/gid_idx/0")"; }
guid_vf() { # GUID: the VFs whose alias GUID it is
	local d
	for d in "$iov"/0000:*; do
		[ "$(alias_guid "${d##*/}")" != "$1" ] || echo "${d##*/}"
	done
}

deploy_killed 44 02:00:c0:a8:01:07
assert_fail "killed before its domain was defined" -- virsh domuuid one-44
vf44=$(guid_vf 2000000002c0000)
assert_match '^0000:03:00\.[0-9]$' "$vf44" "one VF carries VM 44's GUID"
assert_eq "$vf44" "$(lease_of 44)" "and it is leased to VM 44"
one_deploy 44 ib/0/02:00:c0:a8:01:07/0x8101 >/dev/null
assert_eq 0 $? "the retry deploys"
assert_eq "$vf44" "$(lease_of 44)" "on the same VF, leased once"
assert_eq 2000000002c0000 "$(alias_guid "$vf44")" "programmed with the same GUID"

deploy_killed 45 02:00:c0:a8:01:08
vf45=$(guid_vf 2000000002d0000)
assert_match '^0000:03:00\.[0-9]$' "$vf45" "VM 45, killed and never retried: one VF carries its GUID"
assert_eq "$vf45" "$(lease_of 45)" "and it is leased to VM 45"
ledger_age
"$R/ib/bin/oneib-vf" reconcile --grace 1 --pkey-cmd "$TEST_TMP/oneib-pkey-logged" >/dev/null
assert_eq "" "$(lease_of 45)" "reconcile after the grace: the lease released"
assert_eq ffffffffffffffff "$(alias_guid "$vf45")" "and the VF unmapped"
assert_eq "$vf44" "$(lease_of 44)" "VM 44, running, keeps its VF"

# A refusal whose undo fails: NIC 1's P_Key is not on the port, and the
# unmap of NIC 0's VF, programmed just before, fails too. That VF still
# carries the GUID, so its lease stays (reconcile unmaps it later); the
# refused NIC's lease goes.
printf '#!/bin/sh\nif [ "$1" = unmap ]; then echo "oneib-pkey: $2: unmap failed (test)" >&2; exit 1; fi\nexec "%s" "$@"\n' \
	"$TEST_TMP/oneib-pkey-logged" >"$TEST_TMP/oneib-pkey-nounmap"
chmod +x "$TEST_TMP/oneib-pkey-nounmap"
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-nounmap\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
one_deploy 46 ib/0/02:00:c0:a8:01:09/0x8101 ib/1/02:00:c0:a8:01:0a/0x8123 >/dev/null 2>&1
assert_eq 1 $? "deploy with NIC 1's P_Key not on the port fails"
vf46=$(guid_vf 2000000002e0000)
assert_match '^0000:03:00\.[0-9]$' "$vf46" "NIC 0's VF could not be unmapped: it carries its GUID"
assert_eq "$vf46" "$(lease_of 46)" "and stays leased, the only lease of VM 46"
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-logged\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
ledger_age
"$R/ib/bin/oneib-vf" reconcile --grace 1 --pkey-cmd "$TEST_TMP/oneib-pkey-logged" >/dev/null
assert_eq "" "$(lease_of 46)" "reconcile after the grace: released"
assert_eq ffffffffffffffff "$(alias_guid "$vf46")" "and unmapped"

# A retry whose earlier VF no longer fits: VM 47's deploy dies after
# programming its VF; meanwhile VM 44 ends, freeing a lower VF, and VM 47's
# NIC gets another MAC (its lease no longer fits). The retry unmaps the
# earlier VF before the NIC takes the lower one; left mapped, oneib-pkey
# refused the GUID on the new VF ("already in use on this host") and every
# retry failed.
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-killing\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
deploy_killed 47 02:00:c0:a8:01:0b
sed -i "s|^ONEIB_PKEY=.*|ONEIB_PKEY=\"$TEST_TMP/oneib-pkey-logged\"|" "$R/etc/vmm/kvm-ib/kvm-ibrc"
vf47=$(guid_vf 2000000002f0000)
assert_eq "$vf47" "$(lease_of 47)" "VM 47 killed: its VF leased and carrying its GUID"
"$R/vmm/kvm-ib/shutdown" "$(virsh domuuid one-44)" node1 44 node1 >/dev/null 2>&1
assert_eq "" "$(lease_of 44)" "VM 44 shut down: its VF free"
assert_eq "$vf44" "$(printf '%s\n' "$vf44" "$vf47" | sort | head -n 1)" "a lower VF than VM 47's"
one_deploy 47 ib/0/02:00:c0:a8:01:0c/0x8101 >/dev/null 2>"$TEST_TMP/err47"
assert_eq 0 $? "the retry, another MAC, deploys: $(cat "$TEST_TMP/err47")"
assert_eq "$vf44" "$(lease_of 47)" "on the lower VF, leased once"
assert_eq "$vf44" "$(guid_vf 2000000002f0000)" "VM 47's GUID on that VF alone"
assert_eq ffffffffffffffff "$(alias_guid "$vf47")" "the earlier VF unmapped"
test_done
