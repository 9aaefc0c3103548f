#!/bin/bash
# oneib-pkey map and unmap on a ConnectX-3 VF that a previous tenant left
# with mappings at higher virtual indexes: its partition at pkey_idx/5 and
# /126, the full default partition (physical 0, 0xffff) at /9 and /1. The
# fixture starts with every index but 0 at none, so t0300 cannot tell a map
# that writes every index from one that writes only 0 and 1; here the new
# tenant's VF must hold its own partition at 0 and nothing else, and an
# unmapped VF nothing at all (issue 14, item 1).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/mlx4.sh"
sim_host cx3
mlx4_pkey_vf
# physical table of port 1: 0 = 0xffff, 1 = 0x8101, 2 = 0x8102
assert_eq "0xffff 0x8101 0x8102" "$(cat "$IOV"/ports/1/pkeys/{0,1,2} | tr '\n' ' ' | sed 's/ $//')" \
	"fixture: physical 0, 1, 2"

# What the previous tenant (0x8102, GUID ...0142) left on the VF, and
# nothing else (whatever an earlier step left is overwritten).
stale() {
	local n
	for ((n = 0; n < 127; n++)); do printf 'none\n' >"$PI1/$n"; done
	printf '200c0fffea80142\n' >"$IOV/ports/1/admin_guids/2"
	printf '2\n' >"$PI1/0"
	printf '0\n' >"$PI1/1"
	printf '2\n' >"$PI1/5"
	printf '0\n' >"$PI1/9"
	printf '2\n' >"$PI1/126"
	assert_eq "0=2 1=0 5=2 9=0 126=2" "$(mlx4_not_none "$PI1" | tr '\n' ' ' | sed 's/ $//')" \
		"stale mappings in place"
}

# --- map: the new tenant gets its partition at 0, nothing else -----------------
stale
assert_ok "map over stale mappings" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
mlx4_file_is 200c0fffea80105 "$IOV/ports/1/admin_guids/2" "the new tenant's GUID"
mlx4_file_is 1 "$PI1/0" "pkey_idx/0 -> physical 1 (0x8101)"
mlx4_file_is none "$PI1/1" "pkey_idx/1: the full default (0xffff) is gone"
mlx4_file_is none "$PI1/5" "pkey_idx/5: the previous tenant's 0x8102 is gone"
mlx4_file_is none "$PI1/9" "pkey_idx/9: the full default (0xffff) is gone"
mlx4_file_is none "$PI1/126" "pkey_idx/126: the previous tenant's 0x8102 is gone"
assert_eq "0=1" "$(mlx4_not_none "$PI1")" "only pkey_idx/0 is mapped"
assert_ok "show" -- "$PKEY" show "$VF"
assert_match '^pkey_idx 1: none$' "$(cat "$LAST_OUT")" "show: index 1 none"

# A stale higher index holding the new tenant's own key goes too: the map
# is exactly one entry, whatever was there.
printf '1\n' >"$PI1/7"
assert_ok "map again over a stray copy of the same key" -- \
	"$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
assert_eq "0=1" "$(mlx4_not_none "$PI1")" "pkey_idx/7 cleared, only 0 mapped"

# With a limited default (0x7fff at physical 5) index 1 maps to it, and
# still nothing else stays.
printf '0x7fff\n' >"$IOV/ports/1/pkeys/5"
stale
assert_ok "map with a limited default" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8101
assert_eq "0=1 1=5" "$(mlx4_not_none "$PI1" | tr '\n' ' ' | sed 's/ $//')" \
	"pkey_idx/0 -> 0x8101, /1 -> 0x7fff, nothing else"
printf '0x0000\n' >"$IOV/ports/1/pkeys/5"

# --- a P_Key the port lacks: blocked, stale entries included -------------------
stale
assert_fail "map 0x8123 (not in the table)" -- "$PKEY" map "$VF" 0x0200c0fffea80105 0x8123
assert_match "P_Key 0x8123 is not in the table of mlx4_0 port 1: VF blocked" "$(cat "$LAST_ERR")" "says why"
assert_eq "" "$(mlx4_not_none "$PI1")" "blocked: every pkey_idx none, the stale ones too"

# --- unmap: nothing at all -------------------------------------------------------
stale
assert_ok "unmap over stale mappings" -- "$PKEY" unmap "$VF"
mlx4_file_is ffffffffffffffff "$IOV/ports/1/admin_guids/2" "GUID deleted"
mlx4_file_is none "$PI1/5" "pkey_idx/5 cleared"
mlx4_file_is none "$PI1/9" "pkey_idx/9 cleared"
assert_eq 127 "$(mlx4_count_none "$PI1" 0)" "every pkey_idx none"
assert_ok "show after unmap" -- "$PKEY" show "$VF"
assert_match '^blocked: yes$' "$(cat "$LAST_OUT")" "show: blocked"
test_done
