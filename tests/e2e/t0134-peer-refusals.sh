#!/bin/bash
# oneib-peer runs as root on oneadmin's arguments (sudo), so it trusts none
# of them: anything but a PCI address of a PF of this host and one of its
# InfiniBand ports is refused with one line naming the PF and the reason,
# and nothing is sent: libibumad is not even initialised (strace shows no
# umad device and no umad sysfs opened). A well-formed query of a real
# port does get that far (it opens the port's umad device, which this
# machine lacks), so the checks of the refusals could fail.
. "$(dirname "$0")/../lib/test-lib.sh"
sim_host cx5
command -v strace >/dev/null || die "strace not installed (apt-get install strace)"
P=$ONEIB_DESTDIR/usr/sbin/oneib-peer
trace=$TEST_TMP/trace
traced() { strace -f -qq -o "$trace" -e trace=open,openat,ioctl,socket,connect "$@"; }
umad_opened() { grep -E 'infiniband_mad|/dev/infiniband|umad[0-9]' "$trace"; }

# A well-formed query tries the port's umad device: what refusals must not.
assert_fail "a real port's query reaches libibumad" -- traced "$P" 0000:3b:00.0 1
assert_match '^oneib-peer: PF 0000:3b:00.0 port 1: cannot open its umad device' "$(cat "$LAST_ERR")" \
	"and says which port"
assert_match '/dev/infiniband/umad0' "$(umad_opened)" "it opened umad0: the trace shows a query"

refused() { # RC MSG REGEX ARGS...
	local rc=$1 msg=$2 re=$3
	shift 3
	assert_refused --rc "$rc" "$msg" "$re" -- traced "$P" "$@"
	assert_eq "" "$(umad_opened)" "$msg: nothing sent (no umad opened)"
}
refused 2 "no arguments" '^oneib-peer: takes a PF and a port' 
refused 2 "one argument" '^oneib-peer: takes a PF and a port' 0000:3b:00.0
refused 2 "a third argument" '^oneib-peer: takes a PF and a port' 0000:3b:00.0 1 2
refused 2 "an option" '^oneib-peer: takes a PF and a port' --port 1 0000:3b:00.0
refused 2 "garbage for the PF" "^oneib-peer: PF 'garbage': not a PCI address" garbage 1
refused 2 "a path for the PF" "^oneib-peer: PF '0000:3b:00.0/../..': not a PCI address" 0000:3b:00.0/../.. 1
refused 2 "a control character" "^oneib-peer: PF '0000:3b:00.0\?': not a PCI address" $'0000:3b:00.0\n' 1
refused 2 "garbage for the port" "^oneib-peer: port 'one': not a port number \(1-254\)$" 0000:3b:00.0 one
refused 2 "port 0 (the switch's own)" "^oneib-peer: port '0': not a port number" 0000:3b:00.0 0
refused 2 "a negative port" "^oneib-peer: port '-1': not a port number" 0000:3b:00.0 -1
refused 1 "not on this host" '^oneib-peer: PF 0000:99:00.0: no such PCI function on this host$' 0000:99:00.0 1
refused 1 "a VF" '^oneib-peer: PF 0000:3b:00.1: a VF \(of 0000:3b:00.0\), not a PF$' 0000:3b:00.1 1
refused 1 "the VF the host holds" '^oneib-peer: PF 0000:3b:01.0: a VF \(of 0000:3b:00.0\), not a PF$' 0000:3b:01.0 1
refused 1 "a PCI bridge" '^oneib-peer: PF 0000:3a:00.0: no RDMA device \(not an InfiniBand HCA\)$' 0000:3a:00.0 1
refused 1 "a port the PF lacks" '^oneib-peer: PF 0000:3b:00.0 port 2: mlx5_0 has no such port$' 0000:3b:00.0 2
# PF B's port in Ethernet (RoCE) mode: not InfiniBand, no SMP.
echo Ethernet >/sys/bus/pci/devices/0000:af:00.0/infiniband/mlx5_1/ports/1/link_layer
refused 1 "an Ethernet port" '^oneib-peer: PF 0000:af:00.0 port 1: link layer Ethernet, not InfiniBand$' 0000:af:00.0 1
test_done
