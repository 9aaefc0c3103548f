# shellcheck shell=sh
# tests/lib/machine.sh - what of the machine the tests and the demo must
# never touch: the lease ledger of a hypervisor where one-ib runs
# (/var/lib/one/ib) and the shared memory where oneib-vf keeps its views of
# libvirt (/dev/shm). Every simulated host has its own of both (sim_host,
# sim_hv); tests/run.sh and tests/demo.sh take machine_state at their start
# and compare it at their end.

# machine_state: every entry under /var/lib/one/ib and /dev/shm, sorted,
# as "TYPE MODE OWNER SIZE MD5 PATH" (MD5 of regular files only, "-" for
# the rest; a file that cannot be read: "unreadable"), so that two equal
# outputs mean byte-identical trees.
machine_state() (
	for d in /var/lib/one/ib /dev/shm; do
		if [ ! -e "$d" ]; then
			echo "absent $d"
			continue
		fi
		find "$d" -xdev -mindepth 1 -printf '%y %m %u:%g %s %p\n' 2>/dev/null |
			LC_ALL=C sort -k6 | while read -r y m o s p; do
			if [ "$y" = f ]; then
				sum=$(md5sum <"$p" 2>/dev/null | cut -d' ' -f1)
				printf '%s %s %s %s %s %s\n' "$y" "$m" "$o" "$s" "${sum:-unreadable}" "$p"
			else
				printf '%s %s %s %s - %s\n' "$y" "$m" "$o" "$s" "$p"
			fi
		done
	done
)

# machine_changes BEFORE: what differs from the machine_state in file
# BEFORE, as diff prints it; nothing when the machine is as it was.
machine_changes() {
	machine_state | diff "$1" - | grep '^[<>]'
}
