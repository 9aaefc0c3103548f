# shellcheck shell=bash
# Helpers for tests on the ConnectX-3 (mlx4) fixture (tests/fixtures
# mkhost.sh cx3), sourced after test-lib.sh.
#
#   mlx4_pkey_vf                  sets PKEY (the oneib-pkey under test:
#                                 $ONEIB_PKEY, or the build's), IOV (mlx4_0's
#                                 iov directory), VF (the VF the tests map)
#                                 and PI1 (its port 1 pkey_idx directory)
#   mlx4_file_is VALUE FILE MSG   FILE holds exactly VALUE plus the kernel's
#                                 one newline
#   mlx4_count_none DIR FROM      how many of DIR/<FROM>..126 (a VF's
#                                 pkey_idx directory) read "none\n"
#   mlx4_not_none DIR             the entries of DIR that are not "none",
#                                 one "N=VALUE" per line, in index order

mlx4_pkey_vf() {
	PKEY=${ONEIB_PKEY:-$TOP/build/bin/oneib-pkey}
	[ -x "$PKEY" ] || die "oneib-pkey not built: $PKEY (set ONEIB_PKEY)"
	IOV=/sys/class/infiniband/mlx4_0/iov
	VF=0000:03:00.2 # VF index 1 = mlx4 slave 2: dir 0000:03:00.2, GUID index 2
	# shellcheck disable=SC2034 # read by the tests
	PI1=$IOV/$VF/ports/1/pkey_idx
}

mlx4_file_is() { # VALUE FILE MSG
	local got
	got=$(cat "$2" 2>&1; echo x)
	assert_eq "$(printf %q "$1"$'\n')" "$(printf %q "${got%x}")" "$3"
}

mlx4_count_none() { # DIR FROM
	local n c=0
	for ((n = $2; n < 127; n++)); do
		[ "$(cat "$1/$n"; echo x)" = $'none\nx' ] && c=$((c + 1))
	done
	echo "$c"
}

mlx4_not_none() { # DIR
	local n v
	for ((n = 0; n < 127; n++)); do
		v=$(cat "$1/$n" 2>&1)
		[ "$v" = none ] || echo "$n=$v"
	done
}
