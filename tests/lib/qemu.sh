# shellcheck shell=bash
# tests/lib/qemu.sh - libvirt's real QEMU driver in a test, sourced after
# test-lib.sh, for validating domain XML (define, dumpxml, undefine).
#
#   sim_qemu_libvirtd      a private libvirtd that loads only the QEMU driver.
#                          Exports SIM_QEMU_LIBVIRTD_PID, SIM_QEMU_DIR.
#   qemu_virsh ARGS...     virsh -c qemu:///system ARGS..., talking to it
#                          (or to $SIM_QEMU_URI when set).
#   qemu_kvm_to_qemu IN OUT  copy a domain XML with <domain type='kvm'>
#                          switched to type 'qemu' (TCG; see below).
#
# Isolation.  The QEMU driver keeps persistent domains in /etc/libvirt/qemu,
# reads /etc/libvirt/qemu.conf, reconnects to whatever /run/libvirt/qemu
# lists and autostarts what /etc/libvirt/qemu/autostart lists.  So the
# daemon runs in a mount namespace of its own, nested in sim_host's, where
# /etc/libvirt is an empty directory of the test ($SIM_QEMU_DIR/etc) holding
# only our qemu.conf, and /run/libvirt, /var/{lib,log,cache}/libvirt are
# fresh tmpfs (not even shared with sim_libvirtd).  Nothing of the real
# system's libvirt is read or written (at most, like sim_libvirtd, an empty
# /run/libvirt is created to mount on, if there is none).  Its socket there is the default one,
# /run/libvirt/libvirt-sock, so qemu_virsh enters that mount namespace
# (nsenter --mount) and uses the plain URI qemu:///system.
#
# The QEMU user.  Debian's driver is built to run QEMU as
# libvirt-qemu:libvirt-qemu ($SIM_QEMU_USER), and resolves that user and
# group when its state driver starts, before reading qemu.conf: without them
# it fails ("Failed to parse user 'libvirt-qemu'") and libvirtd exits.  They
# come with libvirt-daemon-system, which would also install and start the
# system's own libvirtd; so when they are missing, the nested namespace gets
# copies of /etc/passwd and /etc/group with them added, bind-mounted over
# the real ones (seen by this daemon and qemu_virsh only).  qemu.conf then
# says user = group = "root" anyway: nothing is ever started here, only
# defined, and no file changes owner.
#
# /dev/kvm: without it the QEMU driver has no capabilities for type kvm, and
# define of <domain type='kvm'> fails ("could not get preferred machine for
# /usr/bin/qemu-system-x86_64 type=kvm").  The same XML with type 'qemu' goes
# through the same parser, post-parse and validation (devices, hostdevs,
# addresses) against the same emulator, which is what these tests are after.
#
# Needs libvirt-daemon-driver-qemu (libvirt_driver_qemu.so) and
# qemu-system-x86 (/usr/bin/qemu-system-x86_64, the emulator OpenNebula's
# deployment files name, probed by libvirt for its capabilities).

SIM_QEMU_EMULATOR=${SIM_QEMU_EMULATOR:-/usr/bin/qemu-system-x86_64}
SIM_QEMU_USER=${SIM_QEMU_USER:-libvirt-qemu}

_qemu_find_driver() {
	local f
	for f in /usr/lib/*/libvirt/connection-driver/libvirt_driver_qemu.so \
		/usr/lib*/libvirt/connection-driver/libvirt_driver_qemu.so \
		/usr/local/lib*/libvirt/connection-driver/libvirt_driver_qemu.so; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# The daemon answers as the QEMU driver (its state driver is up).
_qemu_ready() {
	[ "$(qemu_virsh uri 2>/dev/null | sed '/^$/d')" = qemu:///system ]
}

# DIR: when the QEMU user or group is missing, DIR/passwd and DIR/group:
# the system's files plus that user/group (an id free in both).
_qemu_user_files() { # DIR
	local id=64055
	getent passwd "$SIM_QEMU_USER" >/dev/null && getent group "$SIM_QEMU_USER" >/dev/null &&
		return 0
	while getent passwd "$id" >/dev/null || getent group "$id" >/dev/null; do
		id=$((id + 1))
	done
	cp /etc/passwd "$1/passwd" && cp /etc/group "$1/group" || return 1
	getent passwd "$SIM_QEMU_USER" >/dev/null ||
		echo "$SIM_QEMU_USER:x:$id:$id:sim_qemu_libvirtd:/nonexistent:/usr/sbin/nologin" >>"$1/passwd"
	getent group "$SIM_QEMU_USER" >/dev/null ||
		echo "$SIM_QEMU_USER:x:$id:" >>"$1/group"
}

# The qemu.conf of a QEMU driver that only defines and validates (also the
# simulated hosts' of tests/lib/hosts.sh with SIM_HV_ONE): root, no
# ownership changes, no security driver.
_qemu_conf() {
	cat <<-EOF
	user = "root"
	group = "root"
	dynamic_ownership = 0
	remember_owner = 0
	security_driver = "none"
	EOF
}

_qemu_startup_failed() { # PID MSG
	_tl_show "$SIM_QEMU_DIR/libvirtd.out" 10 "libvirtd (qemu) output"
	_tl_show "$SIM_QEMU_DIR/libvirtd.log" 25 "libvirtd (qemu) log"
	if _tl_running "$1"; then
		die "$2"
	fi
	die "libvirtd with the QEMU driver exited during startup (log above)"
}

sim_qemu_libvirtd() {
	_tl_require_inside sim_qemu_libvirtd
	local d=$TEST_TMP/qemu drv pid
	command -v libvirtd >/dev/null || die "libvirtd not found (apt-get install libvirt-daemon)"
	command -v virsh >/dev/null || die "virsh not found (apt-get install libvirt-clients)"
	command -v nsenter >/dev/null || die "nsenter not found (util-linux)"
	drv=$(_qemu_find_driver) ||
		die "libvirt_driver_qemu.so not found (apt-get install libvirt-daemon-driver-qemu)"
	[ -x "$SIM_QEMU_EMULATOR" ] ||
		die "$SIM_QEMU_EMULATOR not found (apt-get install qemu-system-x86)"
	# bind-mounting over it needs the directory; never create it in the
	# real /etc (libvirt-clients ships /etc/libvirt/libvirt.conf)
	[ -d /etc/libvirt ] || die "/etc/libvirt does not exist (apt-get install libvirt-clients)"
	SIM_QEMU_DIR=$d
	export SIM_QEMU_DIR
	mkdir -p "$d/drivers" "$d/etc" || die "cannot create $d"
	ln -s "$drv" "$d/drivers/libvirt_driver_qemu.so"
	_qemu_user_files "$d" || die "cannot copy /etc/passwd and /etc/group to $d"
	_qemu_conf >"$d/etc/qemu.conf"
	cat >"$d/libvirtd.conf" <<-EOF
	unix_sock_dir = "/run/libvirt"
	auth_unix_rw = "none"
	auth_unix_ro = "none"
	log_outputs = "2:file:$d/libvirtd.log"
	EOF
	# unshare without --fork execs: $! is libvirtd itself, and the nested
	# mount namespace ends when it does.
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- bash -c '
		set -e
		for dir in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do
			mkdir -p "$dir"
			mount -t tmpfs -o mode=0755 tmpfs "$dir"
		done
		mount --bind "$1/etc" /etc/libvirt
		for f in passwd group; do
			[ ! -f "$1/$f" ] || mount --bind "$1/$f" "/etc/$f"
		done
		cd "$1"
		LIBVIRT_DRIVER_DIR=$1/drivers exec libvirtd -f "$1/libvirtd.conf" -p "$1/libvirtd.pid"
	' sim-qemu-libvirtd "$d" </dev/null >"$d/libvirtd.out" 2>&1 &
	pid=$!
	_tl_daemon "$pid" "libvirtd (qemu)"
	SIM_QEMU_LIBVIRTD_PID=$pid
	export SIM_QEMU_LIBVIRTD_PID
	if ! _tl_wait_daemon 15 "$pid" test -S "/proc/$pid/root/run/libvirt/libvirt-sock"; then
		_qemu_startup_failed "$pid" "libvirtd with the QEMU driver did not come up within 15 s"
	fi
	# the QEMU state driver initialises after the socket appears; calls
	# wait for it, and a failure there makes libvirtd exit
	if ! _tl_wait_daemon 30 "$pid" _qemu_ready; then
		_qemu_startup_failed "$pid" "libvirtd did not answer as qemu:///system within 30 s"
	fi
}

# virsh -c qemu:///system, in the private daemon's mount namespace (same
# files, same working directory), killed after $SIM_QEMU_VIRSH_TIMEOUT (60) s.
# With SIM_QEMU_URI set instead: that URI, from here (a simulated host's own
# QEMU driver, tests/lib/hosts.sh with SIM_HV_ONE), with $SIM_VIRSH_REAL.
qemu_virsh() {
	if [ -n "${SIM_QEMU_URI:-}" ]; then
		timeout -k 2 "${SIM_QEMU_VIRSH_TIMEOUT:-60}" "${SIM_VIRSH_REAL:-/usr/bin/virsh}" \
			-c "$SIM_QEMU_URI" "$@"
		return
	fi
	[ -n "$SIM_QEMU_LIBVIRTD_PID" ] || die "qemu_virsh: no sim_qemu_libvirtd"
	timeout -k 2 "${SIM_QEMU_VIRSH_TIMEOUT:-60}" \
		nsenter --mount="/proc/$SIM_QEMU_LIBVIRTD_PID/ns/mnt" --wd="$PWD" -- \
		virsh -c qemu:///system "$@"
}

# Copy domain XML IN to OUT with the root element's type kvm -> qemu
# (either quote style; nothing else changes).  1 if IN has no
# <domain ... type='kvm'> on one line.
qemu_kvm_to_qemu() { # IN OUT
	grep -Eq "<domain[[:space:]][^>]*type=(\"kvm\"|'kvm')" "$1" || return 1
	sed -E "0,/<domain[[:space:]]/ s/(<domain[[:space:]][^>]*type=)(\"kvm\"|'kvm')/\1'qemu'/" \
		"$1" >"$2" || return 1
	grep -q "<domain[[:space:]].*type='qemu'" "$2"
}
