#!/bin/bash
# oneib-pkey map/unmap/show on a ConnectX-3 (mlx4) host: after map the VF's
# alias GUID and pkey_idx table hold exactly the tenant's values (index 0 the
# partition, index 1 the default partition only as a limited member, all
# others none), nothing else in sysfs changes, a repeated map or unmap
# writes nothing, and port 2 is programmed in port 2's files only.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/mlx4.sh"
sim_host cx3
mlx4_pkey_vf

# The files a port 1 map of $VF may change (snap lines end in the path).
target="/iov/ports/1/admin_guids/2\$|/iov/$VF/ports/1/pkey_idx/[0-9]+\$"

# --- the kernel's defaults, as show reads them --------------------------------
assert_ok "show before map" -- "$PKEY" show "$VF"
assert_eq "kind: mlx4
vf: $VF
ibdev: mlx4_0
port: 1
slave: 2
guid: none
oper_guid: none
smi_enabled: 0
enable_smi_admin: 0
pkey_idx 0: 0 (0xffff)
pkey_idx 1: none
blocked: no" "$(cat "$LAST_OUT")" "default VF: index 0 -> physical 0 (0xffff)"

# --- map on port 1 -------------------------------------------------------------
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/before"
assert_ok "map $VF 0x0200c0fffea80105 0x8101" -- \
	"$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
assert_eq "" "$(cat "$LAST_OUT" "$LAST_ERR")" "map prints nothing"
mlx4_file_is 200c0fffea80105 "$IOV/ports/1/admin_guids/2" "admin_guids/2 = %llx of the GUID"
mlx4_file_is 1 "$PI1/0" "pkey_idx/0 -> physical 1 (0x8101)"
mlx4_file_is none "$PI1/1" "pkey_idx/1 none: the port has 0xffff only, never a full default member"
assert_eq 125 "$(mlx4_count_none "$PI1" 2)" "pkey_idx/2..126 all none"
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "nothing else changed (other VFs, PF, port 2)"

assert_ok "show after map" -- "$PKEY" show "$VF" --port 1
assert_eq "kind: mlx4
vf: $VF
ibdev: mlx4_0
port: 1
slave: 2
guid: 0x0200c0fffea80105
nic: MAC 02:00:c0:a8:01:05 (old GUID)
oper_guid: none
smi_enabled: 0
enable_smi_admin: 0
pkey_idx 0: 1 (0x8101)
pkey_idx 1: none
blocked: no" "$(cat "$LAST_OUT")" "show reads the mapping back"

# The same map again changes nothing and writes nothing.
touch "$TEST_TMP/mark"
snap "$SIM_HOST_DIR/sys" >"$TEST_TMP/before"
assert_ok "map again" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
snap "$SIM_HOST_DIR/sys" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "second map: same tree"
assert_eq "" "$(find "$IOV/" -newer "$TEST_TMP/mark" -type f)" "second map: no file written"

# --- a limited default entry (as an SM would program it) ---------------------
printf '0x7fff\n' >"$IOV/ports/1/pkeys/5"
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/before"
assert_ok "map with 0x7fff at physical 5" -- \
	"$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
mlx4_file_is 1 "$PI1/0" "pkey_idx/0 still -> 1"
mlx4_file_is 5 "$PI1/1" "pkey_idx/1 -> physical 5 (0x7fff, limited default)"
assert_eq 125 "$(mlx4_count_none "$PI1" 2)" "pkey_idx/2..126 still none"
mlx4_file_is 200c0fffea80105 "$IOV/ports/1/admin_guids/2" "GUID kept"
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "nothing else changed"
assert_ok "show with the default" -- "$PKEY" show "$VF"
assert_match '^pkey_idx 1: 5 \(0x7fff\)$' "$(cat "$LAST_OUT")" "show: index 1 limited default"

# Partition by its low 15 bits, full member preferred (ib_find_pkey): with
# 0x0101 at 3 and 0x8101 at 1, P_Key 0x8101 maps to 1, not to the limited
# entry; a partition the port only has as a limited member maps to that
# entry.
printf '0x0101\n' >"$IOV/ports/1/pkeys/3"
printf '0x0103\n' >"$IOV/ports/1/pkeys/6"
assert_ok "map 0x8101" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
mlx4_file_is 1 "$PI1/0" "0x8101 -> the full member entry 0x8101 at 1, not 0x0101 at 3"
assert_ok "map 0x8103" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8103
mlx4_file_is 6 "$PI1/0" "0x8103 -> the only entry 0x0103 at 6"
mlx4_file_is 5 "$PI1/1" "index 1 unchanged"

# A new tenant on the same VF: new GUID, new partition, nothing of the old.
assert_ok "remap to another tenant" -- "$PKEY" map "$VF" 02:00:c0:ff:fe:a8:01:09 0x8102
mlx4_file_is 200c0fffea80109 "$IOV/ports/1/admin_guids/2" "new GUID (byte form parsed)"
mlx4_file_is 2 "$PI1/0" "pkey_idx/0 -> physical 2 (0x8102)"
mlx4_file_is 5 "$PI1/1" "pkey_idx/1 -> 5"
assert_eq 125 "$(mlx4_count_none "$PI1" 2)" "pkey_idx/2..126 none"

# A GUID of today's form (VM 42 NIC 1), decoded by show.
assert_ok "map VM 42 NIC 1's GUID" -- "$PKEY" map "$VF" 0x02000000002a0001 0x8102
mlx4_file_is 2000000002a0001 "$IOV/ports/1/admin_guids/2" "the NIC GUID"
assert_ok "show it" -- "$PKEY" show "$VF"
assert_eq "guid: 0x02000000002a0001
nic: VM 42 NIC 1" "$(grep -A1 '^guid: ' "$LAST_OUT")" "show decodes the GUID"

# --- unmap ---------------------------------------------------------------------
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/before"
assert_ok "unmap" -- "$PKEY" unmap "$VF"
assert_eq "" "$(cat "$LAST_OUT" "$LAST_ERR")" "unmap prints nothing"
mlx4_file_is ffffffffffffffff "$IOV/ports/1/admin_guids/2" "GUID deleted (all ones)"
assert_eq 127 "$(mlx4_count_none "$PI1" 0)" "every pkey_idx none"
snap "$SIM_HOST_DIR/sys" "$target" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "unmap changed nothing else"
assert_ok "show after unmap" -- "$PKEY" show "$VF"
assert_eq "kind: mlx4
vf: $VF
ibdev: mlx4_0
port: 1
slave: 2
guid: none
oper_guid: none
smi_enabled: 0
enable_smi_admin: 0
pkey_idx 0: none
pkey_idx 1: none
blocked: yes" "$(cat "$LAST_OUT")" "show: unmapped VF is blocked"
touch "$TEST_TMP/mark"
assert_ok "unmap again" -- "$PKEY" unmap "$VF"
assert_eq "" "$(find "$IOV/" -newer "$TEST_TMP/mark" -type f)" "second unmap: no file written"

# --- port 2: port 2's files only -------------------------------------------------
snap "$SIM_HOST_DIR/sys" >"$TEST_TMP/before"
assert_ok "map port 2" -- "$PKEY" map "$VF" 0x0200c0fffea80106 0x8102 --port 2
snap "$SIM_HOST_DIR/sys" >"$TEST_TMP/after"
diff "$TEST_TMP/before" "$TEST_TMP/after" | sed -n 's/^> .* \.\///p' | sort >"$TEST_TMP/changed"
assert_eq "" "$(grep -Ev "^devices/.*/infiniband/mlx4_0/iov/(ports/2/admin_guids/2|$VF/ports/2/pkey_idx/[0-9]+)$" "$TEST_TMP/changed")" \
	"port 2 map changed only port 2's files of this VF"
assert_eq 2 "$(wc -l <"$TEST_TMP/changed")" "two files changed (GUID, pkey_idx/0; 1..126 were none)"
mlx4_file_is 200c0fffea80106 "$IOV/ports/2/admin_guids/2" "port 2 GUID"
mlx4_file_is 2 "$IOV/$VF/ports/2/pkey_idx/0" "port 2 pkey_idx/0 -> 2 (0x8102)"
assert_eq 126 "$(mlx4_count_none "$IOV/$VF/ports/2/pkey_idx" 1)" "port 2 pkey_idx/1..126 none"
mlx4_file_is ffffffffffffffff "$IOV/ports/1/admin_guids/2" "port 1 GUID still deleted"
assert_ok "unmap port 2" -- "$PKEY" unmap "$VF" --port 2
mlx4_file_is ffffffffffffffff "$IOV/ports/2/admin_guids/2" "port 2 GUID deleted"
assert_eq 127 "$(mlx4_count_none "$IOV/$VF/ports/2/pkey_idx" 0)" "port 2 all none"

# --- slave numbering past 8: VF index 7 = slave 8 = dir 0000:03:01.0 ----------
other="/iov/0000:03:01\\.0/ports/1/pkey_idx/[0-9]+\$|/iov/ports/1/admin_guids/8\$"
snap "$SIM_HOST_DIR/sys" "$other" >"$TEST_TMP/before"
assert_ok "map VF index 7" -- "$PKEY" map 0000:03:01.0 0x0200c0fffea80107 0x8101
mlx4_file_is 200c0fffea80107 "$IOV/ports/1/admin_guids/8" "slave 8 uses GUID index 8"
mlx4_file_is 1 "$IOV/0000:03:01.0/ports/1/pkey_idx/0" "its pkey_idx/0 -> 1"
snap "$SIM_HOST_DIR/sys" "$other" >"$TEST_TMP/after"
assert_file_eq "$TEST_TMP/before" "$TEST_TMP/after" "nothing else changed"
test_done
