# one-ib specific test helpers, sourced after test-lib.sh.

# run_probes DIR IM_MAD HOST_ID HOSTNAME: what monitord-client's ProbeRunner
# does for one probe class: every executable file of DIR in sorted order,
# called as <probe> <IM_MAD> <host_id> <hostname> with the monitor
# configuration XML on stdin; stdouts concatenated; any non-zero exit fails
# the whole class (prints "Error executing <probe>" and returns 1).
run_probes() {
	_dir=$1
	shift
	for _p in $(find "$_dir" -maxdepth 1 \( -type f -o -type l \) | sort); do
		[ -x "$_p" ] || continue
		printf '<MONITOR_CONFIGURATION><HOST_ID>%s</HOST_ID></MONITOR_CONFIGURATION>\n' "$2" |
			"$_p" "$@" || { echo "Error executing $_p"; return 1; }
	done
}

# tmpl_value FILE ATTR: value of a simple ATTR=value / ATTR="value" line.
tmpl_value() {
	sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$1"
}

# tmpl_vectors FILE NAME: the vectors NAME=[ ... ] of FILE, one per line,
# as K=V pairs separated by '|' (values unquoted), for grep/assertions.
tmpl_vectors() {
	sed -n "s/^$2=\[ \(.*\) \]\$/\1/p" "$1" | sed 's/", /"|/g; s/"//g'
}

# install_tree DEST: a fresh `make install` into DEST, on top of whatever
# stand-ins for OpenNebula's own remotes the test put there first.
install_tree() {
	sh "$TOP/drivers/install.sh" "$1" /var/lib/one/remotes /usr/share/one-ib \
		"$TOP/build/bin"
}

# stock_remotes DEST: small stand-ins for the stock kvm IM client and
# probes (OpenNebula's own are not ours to copy), with the same layout.
stock_remotes() {
	_r=$1/var/lib/one/remotes/im
	mkdir -p "$_r/common.d" "$_r/kvm.d" "$_r/kvm-probes.d/host/system" \
		"$_r/kvm-probes.d/host/monitor" "$_r/kvm-probes.d/vm/status"
	printf '#!/bin/sh\necho client\n' >"$_r/common.d/monitord-client_control.sh"
	ln -s ../common.d/monitord-client_control.sh "$_r/kvm.d/monitord-client_control.sh"
	printf '#!/bin/sh\necho HYPERVISOR=kvm\n' >"$_r/kvm-probes.d/host/system/linux_host.sh"
	printf '#!/bin/sh\necho FREEMEMORY=1024\n' >"$_r/kvm-probes.d/host/monitor/linux_usage.sh"
	printf '#!/bin/sh\necho VM_STATUS=stub\n' >"$_r/kvm-probes.d/vm/status/state.sh"
	chmod +x "$_r/common.d/"*.sh "$_r"/kvm-probes.d/*/*/*.sh
}
