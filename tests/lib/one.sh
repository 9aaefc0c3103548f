# shellcheck shell=bash
# tests/lib/one.sh - the real OpenNebula front-end in a test: oned, its
# scheduler, monitord, the hook manager and the Ruby CLI, built from
# ../shared/third-party (tests/lib/one-build.sh, cached outside the
# checkout), driving simulated hosts over ssh, with one-ib installed as
# one-ib-frontend(7) says. Sourced after test-lib.sh (it sources oneib.sh, qemu.sh and
# hosts.sh itself).
#
#     . "$(dirname "$0")/../lib/test-lib.sh"
#     . "$TOP/tests/lib/one.sh"
#     one_sim                     # first: skips without the sources; the
#                                 # part above runs twice, as with sim_host
#     one_frontend
#     one_host hv1 cx5            # a host (sim_hv) with its sshd
#     one_host_create hv1         # onehost create -i kvm-ib -v kvm-ib, MONITORED
#     one_user alice              # a user of group users
#     as_user alice onevm list
#     test_done
#
# API (the test plays the operator and the users, through the CLI only):
#   one_sim [FIXTURE]         OpenNebula $ONE_VERSION built (or found in the
#                             cache), the account oneadmin (made if missing),
#                             then sim_host FIXTURE (default none) with a
#                             network namespace of its own (SIM_NETNS: every
#                             daemon on its usual port, only lo). Skips when
#                             the sources are not there.
#   one_frontend              the front-end (below), started; its ONE_LOCATION
#                             is $ONE_DIR
#   one_host NAME FIXTURE     hypervisor NAME (tests/lib/hosts.sh sim_hv,
#                             fixture cx5, cx3, ... of tests/fixtures/mkhost.sh)
#                             with an sshd on 127.0.2.N:22, NAME in /etc/hosts;
#                             before one_fabric, it takes a place on the fabric:
#                             --leaf N (default 1), --vfs "VMID/NIC ..." (the
#                             NICs whose VF port GUIDs the fabric file gets as
#                             ports on that host's leaf, mlx5 only). With
#                             ONE_STANDIN=1 (or --standin) the host's virsh is
#                             the stand-in (hot-plug, migration, restore --xml:
#                             what libvirt 9.0's test driver lacks,
#                             tests/lib/standin/virsh, mounted over
#                             /usr/bin/virsh in the host's namespace)
#   one_host_create NAME...   onehost create NAME -i kvm-ib -v kvm-ib as
#                             oneadmin for each, then wait for each to be
#                             MONITORED with IB_SRIOV
#   one_fabric [LEAVES]       ibsim with the SM and LEAVES (2) leaf switches,
#                             every one_host's PF port (its fixture's port GUID)
#                             and --vfs, and opensm reading
#                             /etc/opensm/partitions.conf and qos-policy.conf
#                             (what the hook installs by default; qos TRUE), told
#                             as Debian's unit (a systemctl stand-in):
#                             sim_fabric; $ONE_FABRIC the net file
#   one_hooks [NAME...]       onehook create for the hook templates one-ib
#                             installed whose names match (globs; default all,
#                             as oneib-partitions-sync(8); one.hook.allocate, as the
#                             CLI does)
#   one_user NAME             oneuser create NAME (group users), its auth file
#   as_oneadmin cmd...        cmd as the oneadmin account, its environment
#                             (ONE_LOCATION, ONE_AUTH, ONE_XMLRPC, PATH)
#   as_user NAME cmd...       the same with NAME's credentials
#   one_vm_state ID           "STATE LCM_STATE" names, e.g. "ACTIVE RUNNING",
#                             "POWEROFF LCM_INIT"
#   one_wait_vm ID REGEX [SECONDS]  until one_vm_state matches (die if not)
#   one_wait_migrated ID [SECONDS]  until VM ID's migration is over
#   one_wait_vnet ID [SECONDS]  until network ID is READY (vnet_create done)
#   one_xml KIND ID           `one<KIND> show ID -x` (vm, host, vnet, ...)
#   one_rpc METHOD ARG...     oned's XML-RPC METHOD (i:N, s:TEXT arguments) as
#                             oneadmin: its document; cheap, for polling
#   one_xpath XPATH           the text of XPATH in the XML on stdin
#   one_domxml HOST VMID      the domain XML of one-VMID on HOST (its libvirt)
#   one_vm_log ID             the VM's log (drivers' messages in full)
#   one_leases HOST           the ledger of HOST, "VM NIC VF GUID PKEY SINCE"
#                             lines (oneib-vf list --format=json)
#   one_hook_log              "HOOK_NAME CODE" per execution (onehook log)
#   one_wait_hook NAME [N] [SECONDS]  until hook NAME ran successfully > N times
#   one_wait_hooks NAME...    until each ran successfully; log in $ONE_HOOK_LOG
#   one_cloud_agrees MSG      check: the hosts' domains (hostdevs), ledgers and
#                             VFs (GUID, P_Key) are exactly what oned's VMs imply
#   one_partitions_agree MSG VNET...  check (once the hook caught up): each
#                             network's partition in /etc/opensm/partitions.conf
#                             holds exactly its running NICs' GUIDs
#   one_partition_members VNET  the full members of network VNET's partition
#   one_log                   tails of the front-end's logs (on failure)
#   one_ib_build REV          one-ib at git revision REV built (cached): ONE_IB_OLD
#   one_install_frontend      one-ib's front-end part again (an upgrade: run
#                             one-ib-frontend(7)'s self-contained `make install`; from
#                             $ONE_IB_SRC when set, else this checkout)
# Variables: ONE_VERSION (ONEIB_ONE_VERSION, default 6.10.0) ONE_BUILD
# ONE_DIR ONE_HOME ONE_FABRIC.
#
# What is real and what stands in:
#   - OpenNebula is the release's own code, built by tests/lib/one-build.sh
#     (nothing of it is in this repository) and installed self-contained
#     (install.sh -d): $ONE_DIR is ONE_LOCATION, its bin/ and lib/ link to
#     the cache, etc/ and var/ are the test's. oned, mm_sched (6.10) and
#     onehem-server are started as `one start` starts them (without its
#     sleeps), as oneadmin, and stopped by PID when the test ends.
#   - one-ib: the front-end part with `make install ROLES=frontend
#     REMOTES_DIR=$ONE_DIR/var/remotes DATADIR=...` (one-ib-frontend(7) for a
#     self-contained OpenNebula: the one-ib-frontend package's layout is the
#     packaged OpenNebula's), then one-ib-frontend(7)'s configuration (the oned.conf and
#     monitord.conf fragments). The node and sm parts from the one-ib-node
#     and one-ib-sm packages of `make deb` (build/deb; else `make install`
#     of those roles into a staging root), whose /usr and /etc/sudoers.d are
#     laid over the machine's in the test's mount namespace: the hosts run
#     `sudo -n /usr/sbin/oneib-pkey` and the hook
#     `sudo -n /usr/sbin/oneib-partitions-install`, as in production.
#   - The network: the test's own network namespace; /etc/hosts (private)
#     names the front-end 127.0.0.1 and each host 127.0.2.N, where its sshd
#     listens. oneadmin's home ($ONE_HOME, bind-mounted over the account's
#     home directory) holds its ssh key and config (OpenNebula's: no host
#     key checks, connection sharing), ONE_AUTH, and libvirt's
#     uri_default = qemu:///system (the stock probes run a plain `virsh`).
#     Each host gets the same ~oneadmin/.ssh, as an operator copies it.
#   - Hosts: tests/lib/hosts.sh's sim_hv with SIM_HV_ONE=oneadmin (the
#     fixture's sysfs, a private libvirtd with the test driver running the
#     VMs and the QEMU driver answering the stock probes and validating).
#     OpenNebula reaches them as oneadmin through their sshd: rsync of the
#     remotes, probes, drivers. kvmrc's LIBVIRT_URI names the test driver
#     on the host's own socket.
#   - One shared system datastore (TM_MAD shared): the hosts see the
#     front-end's $ONE_DIR/var/datastores, as on a cloud with shared storage.
#   - The scheduler runs more often than by default (6.10 SCHED_INTERVAL,
#     7.0 SCHED_MAX_WND_TIME: $ONE_SCHED_SECONDS, 2), so tests wait less;
#     7.0 places waiting VMs again every $ONE_SCHED_RETRY s (60);
#     its drivers start at the suite's priority, not nice 19 (defaultrc);
#     $ONE_SYSTEM_HOST sets monitord's SYSTEM_HOST period (the probes that
#     publish IB_VFS_FREE; default OpenNebula's 600 s); $ONE_STATE_VM the
#     VM state probe's (30; OpenNebula's 5).

. "$TOP/tests/lib/hosts.sh"

ONE_VERSION=${ONEIB_ONE_VERSION:-6.10.0}
ONE_ADMIN=oneadmin
# A session (tests/lib/one-session.sh) runs a release's scenarios one after
# another on one front-end, each in its own mount and pid namespace in the
# front-end's network namespace, with its own users, networks and hosts:
# ONEIB_ONE_SESSION is the session's directory (the front-end's files,
# ONE_FE, and what the session tells each scenario in its env file: ONE_DIR,
# ONE_HOME, ONE_BUILD, ONE_ETC_HOSTS, and ONE_VM0, the ID its first VM will
# get). Alone, a scenario has a front-end of its own: ONE_FE is TEST_TMP.
ONE_SESSION=${ONEIB_ONE_SESSION:-}
ONE_VM0=0
if [ -n "$ONE_SESSION" ]; then
	# shellcheck source=/dev/null # the session's, at run time
	. "$ONE_SESSION/env" || { echo "not ok - $TEST_NAME (no session $ONE_SESSION)"; exit 1; }
else
	ONE_FE=$TEST_TMP
	ONE_DIR=$TEST_TMP/one
	ONE_ETC_HOSTS=$TEST_TMP/etc-hosts
fi
export ONE_VERSION ONE_DIR ONE_FE ONE_VM0
# Two front-ends run side by side in `make check`: say which one.
TEST_NAME="${TEST_NAME%.sh} [OpenNebula $ONE_VERSION]"
: "${TEST_TIMEOUT:=900}"

_one_hosts_n=0 _one_standin_dir=

one_sim() { # [FIXTURE]
	local out rc
	if [ -n "$ONE_SESSION" ]; then
		# the session's front-end and network namespace; a mount and pid
		# namespace of this scenario's own (its hosts, mounts, daemons)
		export ONE_BUILD
		SIM_NETNS='' SIM_KEEP_VARLIB=1 sim_host "${1:-none}"
		return
	fi
	out=$(bash "$TOP/tests/lib/one-build.sh" "$ONE_VERSION" 2>"$TEST_TMP/one-build.err")
	rc=$?
	case $rc in
	0) ONE_BUILD=$out ;;
	77) skip_all "$(tail -n 1 "$TEST_TMP/one-build.err")" ;;
	*)
		_tl_show "$TEST_TMP/one-build.err" 30 one-build.sh
		die "OpenNebula $ONE_VERSION could not be built"
		;;
	esac
	export ONE_BUILD
	[ -n "$_tl_inside" ] || _one_account
	SIM_NETNS=1 sim_host "${1:-none}"
	ip link set lo up || die "cannot bring lo up"
}

# The account oneadmin, as OpenNebula's packages make it (home
# /var/lib/one), unless there is one. sshd (UsePAM no) refuses a locked
# account: a password field of "*", not "!".
_one_account() {
	local lock=${ONEIB_ONE_CACHE:-${ONEIB_CACHE:-/var/cache/one-ib}/opennebula}/.account.lock pw
	if ! getent passwd "$ONE_ADMIN" >/dev/null; then
		(
			flock 9
			getent passwd "$ONE_ADMIN" >/dev/null && exit 0
			useradd --system --user-group --home-dir /var/lib/one --no-create-home \
				--shell /bin/bash "$ONE_ADMIN" && usermod -p '*' "$ONE_ADMIN"
		) 9>>"$lock" || die "cannot create the account $ONE_ADMIN"
	fi
	pw=$(getent shadow "$ONE_ADMIN" | cut -d: -f2)
	case $pw in
	'!'*) die "the account $ONE_ADMIN is locked (password field '!'): sshd refuses it; usermod -p '*' $ONE_ADMIN" ;;
	esac
	mkdir -p "$(getent passwd "$ONE_ADMIN" | cut -d: -f6)" || die "no home for $ONE_ADMIN"
}

# The environment of oneadmin's shell on the front-end.
_one_env() { # [AUTH_FILE]
	printf '%s\0' HOME="$ONE_HOME" USER="$ONE_ADMIN" LOGNAME="$ONE_ADMIN" SHELL=/bin/bash \
		LANG=C.UTF-8 PATH="$ONE_DIR/bin:/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin" \
		ONE_LOCATION="$ONE_DIR" ONE_AUTH="${1:-$ONE_HOME/.one/one_auth}" \
		ONE_XMLRPC=http://localhost:2633/RPC2
}

as_oneadmin() {
	local env=()
	mapfile -d '' env < <(_one_env)
	(cd "$ONE_HOME" && exec setpriv --reuid="$ONE_ADMIN" --regid="$ONE_ADMIN" \
		--init-groups env -i "${env[@]}" "$@")
}

as_user() { # NAME cmd...
	local env=() auth=$TEST_TMP/auth/$1
	[ -f "$auth" ] || die "as_user: no user $1 (one_user $1)"
	shift
	mapfile -d '' env < <(_one_env "$auth")
	(cd "$ONE_HOME" && exec setpriv --reuid="$ONE_ADMIN" --regid="$ONE_ADMIN" \
		--init-groups env -i "${env[@]}" "$@")
}

# Start cmd as oneadmin in the background, its output to LOG, stopped by
# PID when the test ends.
_one_daemon() { # NAME LOG cmd...
	local name=$1 log=$2 env=() wait=3
	shift 2
	# oned ends its drivers one by one on SIGTERM
	[ "$name" != oned ] || wait=20
	mapfile -d '' env < <(_one_env)
	# exec all the way: $! is the daemon itself
	(cd "$ONE_HOME" && exec setpriv --reuid="$ONE_ADMIN" --regid="$ONE_ADMIN" \
		--init-groups env -i "${env[@]}" "$@") </dev/null >>"$log" 2>&1 &
	_tl_daemon $! "$name" "$wait"
}

_one_set() { # FILE ATTR VALUE   ATTR = VALUE, replacing a line that sets it
	if grep -Eq "^[#[:space:]]*$2[[:space:]]*=" "$1"; then
		sed -i -E "0,/^[#[:space:]]*$2[[:space:]]*=.*/s||$2 = $3|" "$1"
	else
		printf '%s = %s\n' "$2" "$3" >>"$1"
	fi
}

one_frontend() {
	_tl_require_inside one_frontend
	local d home pw f
	[ -n "$ONE_BUILD" ] || die "one_frontend: call one_sim first"
	if [ -n "$ONE_SESSION" ]; then
		# the session's, running: this scenario's own files only
		export ONE_HOME
		chmod 0711 "$TEST_TMP"
		mkdir -p "$TEST_TMP/auth" "$TEST_TMP/ssh" || die "cannot create $TEST_TMP/auth"
		# another one-ib to start from (ONE_IB_SRC: an upgrade's older
		# one), installed over the session's as one-ib-upgrade(7) installs it; the
		# session installs this checkout's again after the scenario
		[ -z "${ONE_IB_SRC:-}" ] || one_install_frontend
		return
	fi
	home=$(getent passwd "$ONE_ADMIN" | cut -d: -f6)
	ONE_HOME=$home
	export ONE_HOME
	# oneadmin traverses the test's directory to its own files
	chmod 0711 "$TEST_TMP"
	mkdir -p "$ONE_DIR/share" "$TEST_TMP/auth" "$TEST_TMP/ssh" || die "cannot create $ONE_DIR"
	for f in "$ONE_BUILD"/*; do
		case ${f##*/} in
		etc | var) cp -a "$f" "$ONE_DIR/" || die "cannot copy $f" ;;
		share) ;;
		*) ln -s "$f" "$ONE_DIR/${f##*/}" ;;
		esac
	done
	for f in "$ONE_BUILD"/share/*; do
		ln -s "$f" "$ONE_DIR/share/${f##*/}"
	done

	one_install_frontend
	_one_configure
	# the subnet manager's files: the test's own (one_fabric's opensm reads
	# them), never the machine's
	mkdir -p "$ONE_FE/fabric"
	mount --bind "$ONE_FE/fabric" /etc/opensm || die "cannot mount a private /etc/opensm"
	_one_account_home
	_one_network
	_one_packages
	_one_start
	at_exit _one_sweep
}

# one-ib's front-end part into the self-contained tree with the command
# one-ib-frontend(7) gives for a self-contained OpenNebula (read from the
# page, roff's \- undone: the harness runs what operators are told), then
# the page's OpenNebula configuration.
one_install_frontend() {
	local r=$ONE_DIR/var/remotes args
	args=$(sed -e 's/\\-/-/g' "$TOP/doc/one-ib-frontend.7" |
		sed -n 's/^[[:space:]]*make install \(ROLES=frontend REMOTES_DIR=\$ONE_LOCATION\/.*\)$/\1/p' | head -n 1)
	[ -n "$args" ] || die "one-ib-frontend(7) gives no 'make install ROLES=frontend REMOTES_DIR=\$ONE_LOCATION/...' for a self-contained OpenNebula"
	# the build is make check's (or yours): -o all, nothing rebuilt here
	# shellcheck disable=SC2034 # ONE_LOCATION: in the page's words
	(ONE_LOCATION=$ONE_DIR && eval "make -s --no-print-directory -C \"\${ONE_IB_SRC:-\$TOP}\" -o all install $args") \
		>"$TEST_TMP/one-ib-install.log" 2>&1 ||
		{ _tl_show "$TEST_TMP/one-ib-install.log" 20; die "make install $args failed"; }
	[ -x "$r/vmm/kvm-ib/deploy" ] && [ -L "$r/vmm/kvm-ib/reboot" ] &&
		[ -e "$r/im/kvm-ib-probes.d/host/system/linux_host.rb" ] ||
		die "make install did not install kvm-ib into $r, linked to the stock kvm remotes"
	cat "$ONE_DIR/share/one-ib/drivers/oned.conf.kvm-ib" >>"$ONE_DIR/etc/oned.conf"
	cat "$ONE_DIR/share/one-ib/drivers/monitord.conf.kvm-ib" >>"$ONE_DIR/etc/monitord.conf"
}

_one_configure() {
	local e=$ONE_DIR/etc
	# hooks: onehem-server.conf names the packaged path
	sed -i "s|^:hook_base_path:.*|:hook_base_path: '$ONE_DIR/var/remotes/hooks'|" \
		"$e/onehem-server.conf"
	# the VMs run in each host's test driver, on its own socket
	sed -i "s|^export LIBVIRT_URI=.*|export LIBVIRT_URI='$SIM_HV_URI'|" \
		"$ONE_DIR/var/remotes/etc/vmm/kvm/kvmrc"
	grep -q "^export LIBVIRT_URI='$SIM_HV_URI'\$" "$ONE_DIR/var/remotes/etc/vmm/kvm/kvmrc" ||
		die "kvmrc has no LIBVIRT_URI to set"
	# the drivers at the suite's own priority: OpenNebula starts them at nice
	# 19 (defaultrc PRIORITY), and oned gives each 10 s to answer INIT; on a
	# machine loaded by the suite's other jobs a nice-19 Ruby start missed
	# that three times in a row (measured with one core kept busy beside
	# make check), and oned never listened
	grep -q '^PRIORITY=19$' "$e/defaultrc" || die "$e/defaultrc sets no PRIORITY=19"
	sed -i 's/^PRIORITY=19$/PRIORITY=0/' "$e/defaultrc"
	# datastores monitored every 5 s (not 300): the system datastore is made
	# shared after oned's start, and the scheduler needs its capacity
	_one_set "$e/oned.conf" MANAGER_TIMER 5
	_one_set "$e/oned.conf" MONITORING_INTERVAL_DATASTORE 5
	if [ -e "$e/sched.conf" ]; then # 6.10: mm_sched
		_one_set "$e/sched.conf" SCHED_INTERVAL "${ONE_SCHED_SECONDS:-2}"
	else # 7.0: the scheduler driver of oned
		_one_set "$e/oned.conf" SCHED_MAX_WND_TIME "${ONE_SCHED_SECONDS:-2}"
		# pending VMs placed again every $ONE_SCHED_RETRY s (OpenNebula's
		# 60): a VM waiting for a free VF is not placed by an event
		_one_set "$e/oned.conf" SCHED_RETRY_TIME "${ONE_SCHED_RETRY:-60}"
	fi
	# the VM state probe every $ONE_STATE_VM s (30; OpenNebula's 5): each
	# run is a Ruby probe per host, a tenth of a core for nothing here, as
	# every state change the tests wait for comes from a driver action
	sed -i -E "s/^([[:space:]]*STATE_VM[[:space:]]*=[[:space:]]*)[0-9]+/\1${ONE_STATE_VM:-30}/" \
		"$e/monitord.conf"
	grep -Eq "^[[:space:]]*STATE_VM[[:space:]]*=[[:space:]]*${ONE_STATE_VM:-30}," "$e/monitord.conf" ||
		die "monitord.conf has no STATE_VM to set"
	if [ -n "${ONE_SYSTEM_HOST:-}" ]; then
		sed -i -E "s/^([[:space:]]*SYSTEM_HOST[[:space:]]*=[[:space:]]*)[0-9]+/\1$ONE_SYSTEM_HOST/" \
			"$e/monitord.conf"
	fi
}

# oneadmin's home: ONE_AUTH, ssh key and config, libvirt client config.
_one_account_home() {
	local h=$TEST_TMP/home pw
	mkdir -p "$h/.one" "$h/.ssh" "$h/.config/libvirt" || die "cannot create $h"
	pw=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
	echo "$ONE_ADMIN:$pw" >"$h/.one/one_auth"
	ssh-keygen -q -t ed25519 -N '' -C "$ONE_ADMIN@one-ib-test" -f "$h/.ssh/id_ed25519" ||
		die "ssh-keygen failed"
	cp "$h/.ssh/id_ed25519.pub" "$TEST_TMP/ssh/authorized_keys"
	cp "$h/.ssh/id_ed25519.pub" "$h/.ssh/authorized_keys"
	# OpenNebula's own ~oneadmin/.ssh/config (share/ssh/config), with the
	# control sockets in the test's directory
	mkdir -p "$TEST_TMP/ssh/ctl"
	cat >"$h/.ssh/config" <<-EOF
	Host *
	    StrictHostKeyChecking no
	    UserKnownHostsFile /dev/null
	    LogLevel ERROR
	    ServerAliveInterval 10
	    ControlMaster auto
	    ControlPersist 70s
	    ControlPath $TEST_TMP/ssh/ctl/%C
	EOF
	echo 'uri_default = "qemu:///system"' >"$h/.config/libvirt/libvirt.conf"
	chown -R "$ONE_ADMIN:" "$h" "$TEST_TMP/ssh/ctl" "$ONE_DIR/etc" "$ONE_DIR/var" ||
		die "cannot give $ONE_ADMIN its files"
	chmod 0700 "$h" "$h/.ssh" "$TEST_TMP/ssh/ctl"
	mount --bind "$h" "$ONE_HOME" || die "cannot mount $h on $ONE_HOME"
}

# /etc/hosts of the test, the front-end's sshd (the TM drivers reach the
# front-end by its name too), an ssh host key.
_one_network() {
	local me
	me=$(hostname)
	{
		echo "127.0.0.1 localhost $me"
		echo "::1 localhost ip6-localhost ip6-loopback"
	} >"$ONE_ETC_HOSTS"
	mount --bind "$ONE_ETC_HOSTS" /etc/hosts || die "cannot mount a private /etc/hosts"
	ssh-keygen -q -t ed25519 -N '' -f "$TEST_TMP/ssh/host_key" || die "ssh-keygen failed"
	mkdir -p /run/sshd
	_one_sshd front-end 127.0.0.1 "" ""
}

# sshd on ADDRESS:22 in host NAME's mount namespace ("" for the front-end),
# sessions of oneadmin only, with ENV lines (SetEnv) added.
_one_sshd() { # LABEL ADDRESS HOST SETENV
	local label=$1 addr=$2 host=$3 cfg=$TEST_TMP/ssh/sshd.$1.conf pid
	cat >"$cfg" <<-EOF
	ListenAddress $addr:22
	HostKey $ONE_FE/ssh/host_key
	PidFile none
	UsePAM no
	StrictModes no
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PubkeyAuthentication yes
	AuthorizedKeysFile $ONE_FE/ssh/authorized_keys
	AllowUsers $ONE_ADMIN
	PrintMotd no
	LogLevel ERROR
	MaxStartups 100
	MaxSessions 100
	Subsystem sftp internal-sftp
	$4
	EOF
	if [ -n "$host" ]; then
		on "$host" /usr/sbin/sshd -D -e -f "$cfg" </dev/null >"$TEST_TMP/ssh/sshd.$label.log" 2>&1 &
	else
		/usr/sbin/sshd -D -e -f "$cfg" </dev/null >"$TEST_TMP/ssh/sshd.$label.log" 2>&1 &
	fi
	pid=$!
	_tl_daemon "$pid" "sshd of $label"
	if ! _tl_wait_daemon 10 "$pid" _one_listening "$addr" 22; then
		_tl_show "$TEST_TMP/ssh/sshd.$label.log" 10
		die "sshd of $label did not listen on $addr:22 within 10 s"
	fi
}

_one_listening() { # ADDRESS PORT
	(exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# one-ib's node and sm packages, laid over /usr and /etc/sudoers.d in the
# test's mount namespace (the hosts' nest in it); the libvirt-qemu user the
# hosts' QEMU drivers need (tests/lib/qemu.sh).
_one_packages() {
	local root=$TEST_TMP/pkgroot deb
	mkdir -p "$root"
	if ls "$TOP"/build/deb/one-ib-node_*.deb "$TOP"/build/deb/one-ib-sm_*.deb >/dev/null 2>&1; then
		for deb in "$TOP"/build/deb/one-ib-node_*.deb "$TOP"/build/deb/one-ib-sm_*.deb; do
			dpkg-deb -x "$deb" "$root" || die "cannot unpack $deb"
		done
		ONE_PACKAGES="make deb: $(cd "$TOP/build/deb" && echo one-ib-node_*.deb one-ib-sm_*.deb)"
	else
		sh "$TOP/drivers/install.sh" --role node --role sm --destdir "$root" \
			--build "$TOP/build/bin" >"$TEST_TMP/one-ib-node.log" 2>&1 ||
			{ _tl_show "$TEST_TMP/one-ib-node.log" 10; die "make install ROLES='node sm' failed"; }
		ONE_PACKAGES="make install of the roles node and sm (no build/deb: run make deb)"
	fi
	export ONE_PACKAGES
	[ -x "$root/usr/sbin/oneib-pkey" ] && [ -f "$root/etc/sudoers.d/one-ib-node" ] ||
		die "the node package holds no /usr/sbin/oneib-pkey and sudoers rule"
	# and what OpenNebula's node package (opennebula-node-kvm) makes on a
	# host: /usr/bin/qemu-kvm-one, the EMULATOR of its deployment files, a
	# link to the system's QEMU (its qemu-kvm-one-gen)
	mkdir -p "$TEST_TMP/one-node/usr/bin"
	ln -s "${SIM_QEMU_EMULATOR:-/usr/bin/qemu-system-x86_64}" "$TEST_TMP/one-node/usr/bin/qemu-kvm-one"
	mount -t overlay overlay -o "lowerdir=$root/usr:$TEST_TMP/one-node/usr:/usr" /usr ||
		die "cannot lay the packages over /usr"
	mount -t overlay overlay -o "lowerdir=$root/etc/sudoers.d:/etc/sudoers.d" /etc/sudoers.d ||
		die "cannot lay the packages' sudoers rules over /etc/sudoers.d"
	mkdir -p "$TEST_TMP/qemu-user"
	_qemu_user_files "$TEST_TMP/qemu-user" || die "cannot copy /etc/passwd and /etc/group"
	for f in passwd group; do
		[ ! -f "$TEST_TMP/qemu-user/$f" ] || mount --bind "$TEST_TMP/qemu-user/$f" "/etc/$f" ||
			die "cannot mount /etc/$f"
	done
}

_one_start() {
	local v=$ONE_DIR/var try pid b rc
	mkdir -p "$v/lock" && chown "$ONE_ADMIN:" "$v/lock"
	# oned gives each driver 10 s to answer INIT (a Ruby start, slow on a
	# machine loaded by other work); when one does not, oned gives up its
	# start (7.0 exits, 6.10 stays without listening): it is stopped and
	# started again, at most three times in all. One front-end starts at a
	# time on the machine (fd 8, not inherited by oned): two scenarios'
	# fifteen Ruby drivers starting together on 2 cores missed the 10 s.
	local lock=${ONEIB_ONE_CACHE:-${ONEIB_CACHE:-/var/cache/one-ib}/opennebula}/.oned-start.lock
	exec 8>>"$lock" || die "cannot open $lock"
	flock -w 600 8 || die "$lock still locked after 600 s"
	for try in 1 2 3; do
		_one_daemon oned "$v/oned.out" "$ONE_DIR/bin/oned" -f 8>&-
		# shellcheck disable=SC2154 # test-lib.sh's
		pid=${_tl_daemons[-1]}
		bound_start b 90
		rc=1
		while ! bound_over b; do
			_one_oned_up "$pid"
			rc=$?
			[ $rc -eq 1 ] || break
		done
		case $rc in
		0) break ;;
		2)
			if [ "$try" -lt 3 ]; then
				say "oned gave up its start ($(grep -s 'Unable to start driver' "$v/oned.log" | tail -n 1 |
					sed 's/.*\]: //')); starting it again"
				kill -TERM "$pid" 2>/dev/null
				wait_for 15 _one_gone "$pid"
				kill -KILL "$pid" 2>/dev/null
				wait "$pid" 2>/dev/null
				mv "$v/oned.log" "$v/oned.log.$try" && rm -f "$v/lock/.lock"
				continue
			fi
			;;
		esac
		exec 8>&-
		one_log
		die "oned did not listen on 2633 within 90 s"
	done
	exec 8>&-
	if [ -x "$ONE_DIR/bin/mm_sched" ]; then
		_one_daemon mm_sched "$v/sched.out" "$ONE_DIR/bin/mm_sched"
	fi
	_one_daemon onehem-server "$v/onehem.out" ruby "$ONE_DIR/lib/onehem/onehem-server.rb"
	if ! wait_for 30 _one_answers || ! as_oneadmin oneuser show 0 >/dev/null 2>&1; then
		one_log
		die "oned does not answer oneadmin"
	fi
	# Every host sees the front-end's $ONE_LOCATION/var/datastores: one
	# shared system datastore (what live migration needs), so its TM is
	# "shared"; with "ssh" each host's cleanup would remove the others'.
	# The scheduler needs its capacity, which oned monitors (on the
	# front-end, for a shared one) every MONITORING_INTERVAL_DATASTORE.
	echo 'TM_MAD = "shared"' >"$TEST_TMP/ds0.tmpl" && chmod 0644 "$TEST_TMP/ds0.tmpl"
	as_oneadmin onedatastore update 0 "$TEST_TMP/ds0.tmpl" --append >/dev/null ||
		die "cannot make the system datastore shared"
	# The image and file datastores hold nothing here (the VMs have no
	# disks): their dummy drivers answer the 5 s monitoring without the
	# Ruby the fs driver runs each time.
	printf '%s\n' 'DS_MAD = "dummy"' 'TM_MAD = "dummy"' >"$TEST_TMP/ds-dummy.tmpl" &&
		chmod 0644 "$TEST_TMP/ds-dummy.tmpl"
	as_oneadmin onedatastore update 1 "$TEST_TMP/ds-dummy.tmpl" --append >/dev/null &&
		as_oneadmin onedatastore update 2 "$TEST_TMP/ds-dummy.tmpl" --append >/dev/null ||
		die "cannot give the image and file datastores the dummy drivers"
	if ! wait_for 60 _one_ds_monitored; then
		as_oneadmin onedatastore show 0 | sed 's/^/#   /'
		die "the shared system datastore was not monitored within 60 s"
	fi
}
_one_ds_monitored() {
	[ "$(one_rpc one.datastore.info i:0 | one_xpath 'concat(/DATASTORE/TM_MAD, " ", /DATASTORE/FREE_MB > 0)')" = "shared true" ] ||
		{ sleep 0.5; return 1; }
}

_one_gone() { ! _tl_running "$1"; }

# oned PID listening: 0; a driver missed its INIT: 2 (not waited for more).
_one_oned_up() { # PID
	_one_listening 127.0.0.1 2633 && return 0
	grep -qs 'Driver initialization time out' "$ONE_DIR/var/oned.log" && return 2
	_tl_running "$1" || return 2
	sleep 0.2
	return 1
}
_one_answers() { one_rpc one.user.info i:0 >/dev/null || { sleep 0.2; return 1; }; }

# Processes of oneadmin left when the daemons are stopped (drivers oned
# did not end, ssh connection masters): the test's pid namespace holds
# nothing else of oneadmin's.
_one_sweep() {
	local pid uid
	uid=$(id -u "$ONE_ADMIN")
	for pid in $(ps -e -o pid= -o uid= | awk -v u="$uid" '$2 == u { print $1 }'); do
		kill -KILL "$pid" 2>/dev/null
	done
}

# ---------------------------------------------------------------------------
# Hosts

one_host() { # NAME FIXTURE [--leaf N] [--vfs "VMID/NIC ..."] [--standin]
	_tl_require_inside one_host
	local name=$1 fixture=$2 leaf=1 vfs='' standin=${ONE_STANDIN:-} addr env h
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--leaf) leaf=$2; shift 2 ;;
		--vfs) vfs=$2; shift 2 ;;
		--standin) standin=1; shift ;;
		*) die "one_host: unknown option $1" ;;
		esac
	done
	[ -n "$ONE_HOME" ] || die "one_host: call one_frontend first"
	_one_hosts_n=$((_one_hosts_n + 1))
	addr=127.0.2.$_one_hosts_n
	# every host its own GUIDs (tests/fixtures/mkhost.sh), for the fabric
	MKHOST_HOST=$_one_hosts_n SIM_HV_ONE=$ONE_ADMIN sim_hv "$name" "$fixture"
	echo "$addr $name" >>"$ONE_ETC_HOSTS"
	echo "$leaf" >"$SIM_HOSTS/$name/leaf"
	echo "$vfs" >"$SIM_HOSTS/$name/vfs"
	# what the stand-in virsh needs on the host, as oneadmin (tests/lib/
	# standin/virsh): the validator is the host's own QEMU driver, and the
	# hosts reach each other with the real ssh
	chmod 0755 "$SIM_HOSTS" && : >>"$SIM_HOSTS/standin.log" && chmod 0666 "$SIM_HOSTS/standin.log"
	mkdir -p "$SIM_HOSTS/inject" && chmod 0777 "$SIM_HOSTS/inject"
	if [ -n "$standin" ]; then
		# OpenNebula's scripts put /usr/bin first in PATH: the stand-in is
		# mounted over the host's /usr/bin/virsh, the real one kept as
		# $SIM_VIRSH_REAL (a copy: the path resolves through the mount)
		if [ -z "$_one_standin_dir" ]; then
			_one_standin_dir=$TEST_TMP/standin
			mkdir -p "$_one_standin_dir" && cp /usr/bin/virsh "$_one_standin_dir/virsh.real" ||
				die "cannot copy /usr/bin/virsh"
			SIM_VIRSH_REAL=$_one_standin_dir/virsh.real
			export SIM_VIRSH_REAL
		fi
		on "$name" mount --bind "$SIM_BIN/virsh" /usr/bin/virsh ||
			die "host $name: cannot mount the stand-in virsh"
	fi
	env="SetEnv SIM_HOSTS=$SIM_HOSTS SIM_TOP=$SIM_TOP SIM_BIN=$SIM_BIN SIM_HV_URI=$SIM_HV_URI SIM_QEMU_URI=qemu:///system SIM_SSH=ssh SIM_VIRSH_REAL=${SIM_VIRSH_REAL:-/usr/bin/virsh}"
	# oneadmin's ssh key and config on the host, as an operator copies them
	h=$SIM_HOSTS/$name
	on "$name" sh -c 'cp -a "$1/." /var/lib/one/ && chown -R "$2:" /var/lib/one' sh \
		"$ONE_FE/home" "$ONE_ADMIN" || die "host $name: cannot copy oneadmin's home"
	_one_sshd "$name" "$addr" "$name" "$env"
	echo "$addr" >"$h/address"
}

# host NAME's state name and a template attribute
_one_host_ready() { # ID
	local x
	x=$(one_rpc one.host.info i:"$1") || return 1
	case $(printf '%s' "$x" | one_xpath /HOST/STATE) in
	3 | 5) return 2 ;; # ERROR, DISABLED...
	2) [ -n "$(printf '%s' "$x" | one_xpath /HOST/TEMPLATE/IB_SRIOV)" ] ;;
	*) return 1 ;;
	esac
}

one_host_create() { # NAME...
	local name b rc id hostids=()
	# created one after the other, monitored side by side (OpenNebula
	# monitors each host on its own: a wait of its own for each adds up)
	for name in "$@"; do
		as_oneadmin onehost create "$name" -i kvm-ib -v kvm-ib >"$TEST_TMP/onehost.out" 2>&1 ||
			{ _tl_show "$TEST_TMP/onehost.out" 5; die "onehost create $name failed"; }
		id=$(sed -n 's/^ID: //p' "$TEST_TMP/onehost.out")
		[ -n "$id" ] || die "onehost create $name printed no ID"
		hostids+=("$id")
	done
	bound_start b 120
	for id in "${hostids[@]}"; do
		name=$1
		shift
		while :; do
			_one_host_ready "$id"
			rc=$?
			[ $rc -eq 0 ] && break
			if [ $rc -eq 2 ] || bound_over b; then
				as_oneadmin onehost show "$name" | tail -n 20 | sed 's/^/#   /'
				one_log
				die "host $name did not reach MONITORED with IB_SRIOV"
			fi
			sleep 0.5
		done
	done
}

# ---------------------------------------------------------------------------
# The fabric: ibsim, opensm reading /etc/opensm/partitions.conf.

one_fabric() { # [LEAVES]
	local leaves=${1:-2} net=$TEST_TMP/one-fabric.net l h guid vf port n
	local -a on_leaf
	for ((l = 1; l <= leaves; l++)); do on_leaf[l]=; done
	on_leaf[1]="sm"
	for h in "$SIM_HOSTS"/*/leaf; do
		h=$(dirname "$h")
		l=$(cat "$h/leaf")
		on_leaf[l]="${on_leaf[l]} ${h##*/}"
		[ "$(cat "$h/kind")" = mlx5 ] || [ -z "$(cat "$h/vfs")" ] ||
			die "one_fabric: host ${h##*/} is a ConnectX-3: its VFs share the PF's port (alias GUIDs), no --vfs"
		for vf in $(cat "$h/vfs"); do
			on_leaf[l]="${on_leaf[l]} vm${vf%/*}-nic${vf#*/}"
		done
	done
	{
		echo "# the fabric of $TEST_NAME, written by one_fabric (tests/lib/one.sh)"
		for ((l = 1; l <= leaves; l++)); do
			printf 'switchguid=0x0002c9020000%04x\nSwitch\t36 "leaf%d"\n' "$l" "$l"
			port=1
			for n in ${on_leaf[l]}; do
				printf '[%d]\t"%s"[1]\n' "$port" "$n"
				port=$((port + 1))
			done
			# every leaf to the next: two links
			if [ "$l" -lt "$leaves" ]; then
				printf '[35]\t"leaf%d"[35]\n[36]\t"leaf%d"[36]\n' $((l + 1)) $((l + 1))
			fi
			if [ "$l" -gt 1 ]; then
				printf '[35]\t"leaf%d"[35]\n[36]\t"leaf%d"[36]\n' $((l - 1)) $((l - 1))
			fi
			echo
		done
		for ((l = 1; l <= leaves; l++)); do
			port=1
			for n in ${on_leaf[l]}; do
				case $n in
				sm) guid=0x0002c90300000001 ;;
				vm*) vf=${n#vm}; guid=$(guid_of "${vf%-nic*}" "${vf#*-nic}") ;;
				*) guid=$(_one_pf_guid "$n") || die "one_fabric: host $n has no InfiniBand port GUID" ;;
				esac
				printf 'caguid=0x%016x\nHca\t1 "%s"\n[1]\t"leaf%d"[%d]\n\n' $((guid - 1)) "$n" "$l" "$port"
				port=$((port + 1))
			done
		done
	} >"$net"
	ONE_FABRIC=$net
	export ONE_FABRIC
	echo 'Default=0x7fff, ipoib : ALL=limited, SELF=full ;' >"$TEST_TMP/default-only.conf"
	# opensm.conf as one-ib-qos(7) says: the planned SLs in force,
	# the QoS policy the hook installs (its path is read at start only)
	# (in the front-end's /etc/opensm: a session's scenario has its own
	# mount namespace, the hook the front-end's)
	SIM_FABRIC_DIR=$ONE_FE/fabric SIM_SM_NODE=sm SIM_OPENSM_CONF="qos TRUE
qos_policy_file /etc/opensm/qos-policy.conf" sim_fabric "$net" "$TEST_TMP/default-only.conf"
	[ /etc/opensm/partitions.conf -ef "$SIM_PARTITIONS" ] ||
		die "one_fabric: opensm does not read /etc/opensm/partitions.conf"
	# a session's front-end has its stand-in already (its mount namespace)
	[ -n "$ONE_SESSION" ] || _one_opensm_unit
}

# The installer tells the opensm that Debian 12's unit runs, asking
# `systemctl show --property=Id,MainPID -- opensm@*.service`; no systemd
# runs here, so a stand-in for /usr/bin/systemctl (in the test's mount
# namespace) answers that question with the fabric's opensm, as systemd
# does for opensm@<port GUID>.service, and anything else as systemctl
# without systemd does.
# one_peer_ibsim: the hosts learn their leaf switch from the ibsim fabric.
# It stands in for exactly "sudo -n /usr/sbin/oneib-peer" (ONEIB_PEER of
# kvm-ibrc, which the hosts get with the remotes): the node package's own
# oneib-peer, run as oneadmin under libumad2sim attached to the host's
# fabric node (its host name, one_fabric's HCA), which it reaches through
# the fixture's ibsim0, the one device libumad2sim shows (cx5-four-ibsim).
# The probe, oneib-discover and oneib-peer's two SMPs are the production
# ones. Call it after one_fabric and before one_host_create.
one_peer_ibsim() {
	local peer=$TEST_TMP/peer rc=$ONE_DIR/var/remotes/etc/vmm/kvm-ib/kvm-ibrc
	[ -n "$UMAD2SIM" ] || die "one_peer_ibsim: call one_fabric first"
	grep -q '^ONEIB_PEER=' "$rc" || die "one_peer_ibsim: $rc sets no ONEIB_PEER"
	mkdir -p "$TEST_TMP/peer-client" && chmod 0777 "$TEST_TMP/peer-client" ||
		die "one_peer_ibsim: cannot make $TEST_TMP/peer-client"
	cat >"$peer" <<-EOF
	#!/bin/sh
	h=\$(hostname) && d=$TEST_TMP/peer-client/\$h && mkdir -p "\$d" && cd "\$d" &&
		exec env LD_PRELOAD=$UMAD2SIM IBSIM_SOCKNAME=$IBSIM_SOCKNAME SIM_HOST="\$h" /usr/sbin/oneib-peer "\$@"
	EOF
	chmod 0755 "$peer" && sed -i "s|^ONEIB_PEER=.*|ONEIB_PEER=\"$peer\"|" "$rc" ||
		die "one_peer_ibsim: cannot set ONEIB_PEER in $rc"
}

_one_opensm_unit() {
	cat >"$ONE_FE/systemctl" <<EOS
#!/bin/sh
if [ "\$*" = "show --property=Id,MainPID -- opensm@*.service" ]; then
	# the opensm reading the front-end's /etc/opensm, by its PID in this
	# (the front-end's) PID namespace: a session's scenario starts it in
	# one of its own, where it has another
	printf 'MainPID=%s\\nId=opensm@0x0002c90300000001.service\\n' \\
		"\$(pgrep -o -f '^opensm -F $ONE_FE/fabric/opensm.conf')"
	exit 0
fi
echo "System has not been booted with systemd as init system (PID 1). Can't operate." >&2
exit 1
EOS
	chmod 0755 "$ONE_FE/systemctl"
	mount --bind "$ONE_FE/systemctl" /usr/bin/systemctl ||
		die "one_fabric: cannot put the systemctl stand-in in place"
}

# The port GUID of port 1 of the first InfiniBand HCA of host NAME's fixture.
_one_pf_guid() { # NAME
	local g
	g=$(on "$1" sh -c 'cat /sys/class/infiniband/*/ports/1/gids/0 2>/dev/null | head -n 1') || return 1
	[ -n "$g" ] || return 1
	g=$(echo "$g" | cut -d: -f5-8 | tr -d ':')
	echo "0x$g"
}

# ---------------------------------------------------------------------------
# Another one-ib: an older release, for upgrades

# one_ib_build REV: one-ib at REV of this checkout's history (git archive),
# its helpers built once per machine into the cache
# ($ONEIB_ONE_CACHE/one-ib-<commit>, flock as for OpenNebula); sets
# ONE_IB_OLD to that source tree (with build/bin), for ONE_IB_SRC. Skips the
# test when REV is not in the history (a shallow clone).
one_ib_build() { # REV
	local cache=${ONEIB_ONE_CACHE:-${ONEIB_CACHE:-/var/cache/one-ib}/opennebula} c d
	c=$(git -C "$TOP" rev-parse -q --verify "$1^{commit}" 2>/dev/null) ||
		skip_all "one-ib $1 is not in this checkout's history (a shallow clone?)"
	d=$cache/one-ib-${c:0:12}
	(
		flock 9
		[ -e "$d/.complete" ] && exit 0
		rm -rf "$d" "$d.tmp" && mkdir -p "$d.tmp" &&
			git -C "$TOP" archive "$c" | tar -C "$d.tmp" -x &&
			make -s -C "$d.tmp" -j"$(nproc)" all >"$d.tmp/build.log" 2>&1 &&
			: >"$d.tmp/.complete" && mv "$d.tmp" "$d"
	) 9>>"$d.lock" || die "cannot build one-ib $1 (log: $d.tmp/build.log)"
	ONE_IB_OLD=$d
	export ONE_IB_OLD
}

# ---------------------------------------------------------------------------
# Users, hooks, reading OpenNebula's state

one_user() { # NAME
	local pw
	pw=$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n')
	as_oneadmin oneuser create "$1" "$pw" >"$TEST_TMP/oneuser.out" 2>&1 ||
		{ _tl_show "$TEST_TMP/oneuser.out" 5; die "oneuser create $1 failed"; }
	echo "$1:$pw" >"$TEST_TMP/auth/$1"
	chown "$ONE_ADMIN:" "$TEST_TMP/auth/$1" && chmod 0600 "$TEST_TMP/auth/$1"
}

one_hooks() { # [NAME...]   (globs; default every template)
	local g t n
	# a session made every hook at its start, as one-ib-frontend(7) says
	[ -z "$ONE_SESSION" ] || return 0
	[ $# -gt 0 ] || set -- '*'
	for g in "$@"; do
		n=0
		for t in "$ONE_DIR"/share/one-ib/hooks/$g.tmpl; do
			[ -e "$t" ] || continue
			# what `onehook create FILE` sends oned (one.hook.allocate,
			# the file's text; no Ruby start for each)
			one_rpc one.hook.allocate s:"$(cat "$t")" >/dev/null ||
				die "one.hook.allocate of $t failed"
			n=$((n + 1))
		done
		[ "$n" -gt 0 ] || die "one_hooks: no hook template matches $g"
	done
}

one_xml() { # KIND ID|NAME
	local m id=$2
	case $1 in
	vm) m=vm ;;
	host) m=host ;;
	vnet) m=vn ;;
	template) m=template ;;
	*)
		as_oneadmin "one$1" show "$2" -x
		return
		;;
	esac
	# what `one<KIND> show ID -x` prints, read with one.<kind>.info (no
	# Ruby start: scenarios poll with it); a name looked up in the pool
	# as the CLI does (the first of that name)
	if ! [[ $id =~ ^[0-9]+$ ]]; then
		id=$(_one_id_of "$m" "$2") || return 1
	fi
	one_rpc "one.$m.info" i:"$id"
}
_one_id_of() { # KIND NAME
	local pool e id
	case $1 in
	vm) pool=(one.vmpool.info i:-2 i:-1 i:-1 i:-1) e=VM ;;
	host) pool=(one.hostpool.info) e=HOST ;;
	vn) pool=(one.vnpool.info i:-2 i:-1 i:-1) e=VNET ;;
	template) pool=(one.templatepool.info i:-2 i:-1 i:-1) e=VMTEMPLATE ;;
	esac
	id=$(one_rpc "${pool[@]}" | sed "s|<$e>|\n<$e>|g" |
		awk -v n="<NAME>$2</NAME>" -F'[<>]' 'index($0, n) { print $5; exit }')
	[ -n "$id" ] || { echo "one_xml: no $1 named $2" >&2; return 1; }
	echo "$id"
}

one_xpath() { # XPATH   (XML on stdin)
	xmllint --xpath "string($1)" - 2>/dev/null
}

# one_rpc METHOD ARG...: oned's XML-RPC method called as oneadmin with curl
# (ARG: i:NUMBER or s:TEXT), the document it returns (what `one... show -x`
# prints) on stdout; 1 when the call fails. For the polls of the waits: a
# CLI call is a Ruby start, about 0.25 s of CPU, and a wait would burn a
# core; the tests act and assert through the CLI.
one_rpc() { # METHOD ARG...
	local m=$1 a p auth r
	shift
	auth=$(cat "$ONE_HOME/.one/one_auth") || return 1
	p="<param><value><string>$auth</string></value></param>"
	for a in "$@"; do
		case $a in
		i:*) p="$p<param><value><int>${a#i:}</int></value></param>" ;;
		s:*)
			a=${a#s:} a=${a//"&"/"&amp;"} a=${a//"<"/"&lt;"} a=${a//">"/"&gt;"}
			p="$p<param><value><string>$a</string></value></param>"
			;;
		*) die "one_rpc: argument $a is not i:NUMBER or s:TEXT" ;;
		esac
	done
	r=$(curl -s --max-time 30 -H 'Content-Type: text/xml' \
		--data "<?xml version='1.0'?><methodCall><methodName>$m</methodName><params>$p</params></methodCall>" \
		http://127.0.0.1:2633/RPC2) || return 1
	[ "$(printf '%s' "$r" | one_xpath '/methodResponse/params/param/value/array/data/value[1]/boolean')" = 1 ] ||
		return 1
	printf '%s' "$r" | one_xpath '/methodResponse/params/param/value/array/data/value[2]/string'
}

_ONE_VM_STATES=(INIT PENDING HOLD ACTIVE STOPPED SUSPENDED DONE FAILED POWEROFF UNDEPLOYED CLONING CLONING_FAILURE)
_ONE_LCM_STATES=(LCM_INIT PROLOG BOOT RUNNING MIGRATE SAVE_STOP SAVE_SUSPEND SAVE_MIGRATE
	PROLOG_MIGRATE PROLOG_RESUME EPILOG_STOP EPILOG SHUTDOWN CANCEL FAILURE CLEANUP_RESUBMIT
	UNKNOWN HOTPLUG SHUTDOWN_POWEROFF BOOT_UNKNOWN BOOT_POWEROFF BOOT_SUSPENDED BOOT_STOPPED
	CLEANUP_DELETE HOTPLUG_SNAPSHOT HOTPLUG_NIC HOTPLUG_SAVEAS HOTPLUG_SAVEAS_POWEROFF
	HOTPLUG_SAVEAS_SUSPENDED SHUTDOWN_UNDEPLOY EPILOG_UNDEPLOY PROLOG_UNDEPLOY BOOT_UNDEPLOY
	HOTPLUG_PROLOG_POWEROFF HOTPLUG_EPILOG_POWEROFF BOOT_MIGRATE BOOT_FAILURE BOOT_MIGRATE_FAILURE
	PROLOG_MIGRATE_FAILURE PROLOG_FAILURE EPILOG_FAILURE EPILOG_STOP_FAILURE
	EPILOG_UNDEPLOY_FAILURE PROLOG_MIGRATE_POWEROFF PROLOG_MIGRATE_POWEROFF_FAILURE
	PROLOG_MIGRATE_SUSPEND PROLOG_MIGRATE_SUSPEND_FAILURE BOOT_UNDEPLOY_FAILURE
	BOOT_STOPPED_FAILURE PROLOG_RESUME_FAILURE PROLOG_UNDEPLOY_FAILURE DISK_SNAPSHOT_POWEROFF
	DISK_SNAPSHOT_REVERT_POWEROFF DISK_SNAPSHOT_DELETE_POWEROFF DISK_SNAPSHOT_SUSPENDED
	DISK_SNAPSHOT_REVERT_SUSPENDED DISK_SNAPSHOT_DELETE_SUSPENDED DISK_SNAPSHOT
	DISK_SNAPSHOT_REVERT DISK_SNAPSHOT_DELETE PROLOG_MIGRATE_UNKNOWN
	PROLOG_MIGRATE_UNKNOWN_FAILURE DISK_RESIZE DISK_RESIZE_POWEROFF DISK_RESIZE_UNDEPLOYED
	HOTPLUG_NIC_POWEROFF HOTPLUG_RESIZE HOTPLUG_SAVEAS_UNDEPLOYED HOTPLUG_SAVEAS_STOPPED
	BACKUP BACKUP_POWEROFF RESTORE)

one_vm_state() { # ID
	local x s l
	x=$(one_rpc one.vm.info i:"$1") || return 1
	s=$(printf '%s' "$x" | one_xpath /VM/STATE)
	l=$(printf '%s' "$x" | one_xpath /VM/LCM_STATE)
	[ -n "$s" ] || return 1
	echo "${_ONE_VM_STATES[s]:-$s} ${_ONE_LCM_STATES[l]:-$l}"
}

one_wait_vm() { # ID REGEX [SECONDS]
	local b st
	bound_start b "${3:-120}"
	while :; do
		st=$(one_vm_state "$1") || die "one_wait_vm: no VM $1"
		[[ $st =~ $2 ]] && return 0
		bound_over b && break
		sleep 0.3
	done
	if :; then
		say "VM $1 is $st, not /$2/"
		as_oneadmin onevm show "$1" | grep -E 'STATE|HOST|MESSAGE|ERROR' | sed 's/^/#   /'
		one_log
		die "VM $1 did not reach /$2/ within ${3:-120} s"
	fi
}

# one_wait_migrated ID: wait until VM ID's migration is over: RUNNING with
# its last history record started (RSTIME set). The migrate request adds
# that record and returns while the VM is still RUNNING on the old host
# (oned moves it to MIGRATE later, from its life-cycle thread), so waiting
# for RUNNING alone may return before the migration began.
one_wait_migrated() { # ID [SECONDS]
	local b rs
	bound_start b "${2:-120}"
	while :; do
		rs=$(one_rpc one.vm.info i:"$1" | one_xpath '/VM/HISTORY_RECORDS/HISTORY[last()]/RSTIME')
		[ "${rs:-0}" != 0 ] && break
		! bound_over b || { one_log; die "VM $1: its migration did not end within ${2:-120} s"; }
		sleep 0.3
	done
	one_wait_vm "$1" "^ACTIVE RUNNING$" 10
}

# Wait until virtual network ID is READY (vnet_create ran); die if it went
# to ERROR, printing why.
# one_ib_network NAME: oneadmin creates the ib network NAME from the
# shipped templates/ib-network.tmpl, pinned to PF 0000:3b:00.0 (the
# fixtures' first), and waits until it is READY; prints its ID.
one_ib_network() { # NAME
	local t=$TEST_TMP/net-$1.tmpl id
	sed -e "s/^NAME .*/NAME = \"$1\"/" -e 's/^# IB_PF .*/IB_PF = "0000:3b:00.0"/' \
		"$ONE_DIR/share/one-ib/templates/ib-network.tmpl" >"$t" || die "one_ib_network: no template"
	id=$(as_oneadmin onevnet create "$t") || die "onevnet create $1"
	id=${id#ID: }
	one_wait_vnet "$id" >&2
	echo "$id"
}

one_wait_vnet() { # ID [SECONDS]
	local b x st
	bound_start b "${2:-60}"
	while :; do
		x=$(one_rpc one.vn.info i:"$1") || die "one_wait_vnet: no network $1"
		st=$(printf '%s' "$x" | one_xpath /VNET/STATE)
		case $st in
		1) return 0 ;;
		5 | 6)
			as_oneadmin onevnet show "$1" | grep -E 'STATE|ERROR' | sed 's/^/#   /'
			die "network $1 went to state $st"
			;;
		esac
		bound_over b && die "network $1 not READY within ${2:-60} s (state $st)"
		sleep 0.3
	done
}

# The VM's log on the front-end ($ONE_LOCATION/var/vms/ID/vm.log).
one_vm_log() { # ID
	cat "$ONE_DIR/var/vms/$1/vm.log"
}

one_domxml() { # HOST VMID
	on "$1" virsh -c "$SIM_HV_URI" dumpxml "one-$2"
}

# "VM NIC VF GUID PKEY SINCE" per lease of HOST's ledger, sorted.
one_leases() { # HOST
	on "$1" /var/tmp/one/ib/bin/oneib-vf list --format=json --ledger /var/lib/one/ib |
		jq -r '.leases[] | "\(.vm) \(.nic) \(.vf) \(.guid) \(.pkey) \(.since)"' | sort
}

# Every execution the hook manager logged, "HOOK_NAME CODE" per line, in
# the order of the log (what `onehook log -x` prints, read with
# one.hooklog.info: no Ruby start per poll); in a session, since this
# scenario began (ONE_T0).
one_hook_log() {
	local names
	names=$(one_rpc one.hookpool.info i:-2 i:-1 i:-1 | sed 's/<HOOK>/\n<HOOK>/g' |
		sed -n 's|^<HOOK><ID>\([0-9]*\)</ID><NAME>\([^<]*\)</NAME>.*|\1 \2|p') || return 1
	one_rpc one.hooklog.info i:$((${ONE_T0:-0} - 1)) i:-1 i:-1 i:0 | sed 's/</\n</g' |
		awk -F'>' -v names="$names" '
		BEGIN { n = split(names, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); name[f[1]] = f[2] } }
		$1 == "<HOOK_ID" { id = $2 } $1 == "<CODE" { print name[id], $2 }'
}

# Wait until each hook NAME has run successfully at least once; then its
# log is in $ONE_HOOK_LOG.
one_wait_hooks() { # NAME...
	local b h missing
	bound_start b 60
	while :; do
		ONE_HOOK_LOG=$(one_hook_log)
		missing=
		for h in "$@"; do
			printf '%s\n' "$ONE_HOOK_LOG" | grep -qx "$h 0" || missing="$missing $h"
		done
		[ -z "$missing" ] && return 0
		if bound_over b; then
			printf '%s\n' "$ONE_HOOK_LOG" | sed 's/^/#   /' | tail -n 20
			die "hooks that did not run successfully within 60 s:$missing"
		fi
		sleep 1
	done
}

# Wait until hook NAME has run successfully more than N times in all.
one_wait_hook() { # NAME [N] [SECONDS]
	if ! wait_for "${3:-60}" _one_hook_ran "$1" "${2:-0}"; then
		one_hook_log | sed 's/^/#   /' | tail -n 20
		die "hook $1 did not run successfully (more than ${2:-0} times) within ${3:-60} s"
	fi
}
_one_hook_ran() { # NAME N
	[ "$(one_hook_log | grep -c "^$1 0\$")" -gt "$2" ] || { sleep 0.3; return 1; }
}

# The VMs as oned lists them for everyone, full bodies (what `onevm list
# -x --extended all` prints), into FILE.
_one_vms_xml() { # FILE
	# (one.vmpool.infoextended, as the CLI asks: no Ruby start per poll)
	one_rpc one.vmpool.infoextended i:-2 i:-1 i:-1 i:-1 >"$1" ||
		die "one.vmpool.infoextended failed"
}

# What oned's view implies on the hosts (hosts.sh's _host_view format):
# every InfiniBand NIC (VN_MAD ib) of a RUNNING VM holds one VF on the VM's
# host, in its domain, leased with its GUID and its IB_PKEY, programmed
# with its GUID (on mlx4 with the P_Key too). Also writes FILE.nics:
# "VMID NIC_ID NETWORK_ID GUID" of every InfiniBand NIC of a RUNNING VM.
_one_view() { # VMS_XML
	local x=$1 n i id st host k j nic pk g
	n=$(xmllint --xpath 'count(/VM_POOL/VM)' "$x")
	: >"$x.nics"
	for ((i = 1; i <= n; i++)); do
		id=$(xmllint --xpath "string(/VM_POOL/VM[$i]/ID)" "$x")
		st=$(xmllint --xpath "concat(/VM_POOL/VM[$i]/STATE, ' ', /VM_POOL/VM[$i]/LCM_STATE)" "$x")
		[ "$st" = "3 3" ] || continue
		host=$(xmllint --xpath "string(/VM_POOL/VM[$i]/HISTORY_RECORDS/HISTORY[last()]/HOSTNAME)" "$x")
		k=$(xmllint --xpath "count(/VM_POOL/VM[$i]/TEMPLATE/NIC[VN_MAD='ib'])" "$x")
		for ((j = 1; j <= k; j++)); do
			nic=$(xmllint --xpath "string(/VM_POOL/VM[$i]/TEMPLATE/NIC[VN_MAD='ib'][$j]/NIC_ID)" "$x")
			pk=$(xmllint --xpath "string(/VM_POOL/VM[$i]/TEMPLATE/NIC[VN_MAD='ib'][$j]/IB_PKEY)" "$x")
			g=$(guid_of "$id" "$nic")
			echo "$id $nic $(xmllint --xpath "string(/VM_POOL/VM[$i]/TEMPLATE/NIC[VN_MAD='ib'][$j]/NETWORK_ID)" "$x") $g" >>"$x.nics"
			if [ "$(cat "$SIM_HOSTS/$host/kind")" = mlx4 ]; then
				echo "$host VM $id NIC $nic: GUID $g P_KEY $pk, in one-$id, programmed $g/$pk"
			else
				echo "$host VM $id NIC $nic: GUID $g P_KEY $pk, in one-$id, programmed $g"
			fi
		done
	done
}

# one_cloud_agrees MSG: on every host, the domains' hostdevs, the ledger and
# the VFs' GUID (and P_Key) state are exactly what oned's view of the VMs
# implies, nothing more (no VF held, leased or programmed for a NIC that is
# not running there, no reservation, nothing beside the ledger).
#
# oned may take a VM's new state from monitoring before the driver action
# that brought it there has returned (a powered-off domain is gone before
# kvm-ib's shutdown has released its VFs: "VM reported SHUTDOWN by the
# drivers"), so the two are compared until they agree, for up to 20 s.
# one_deployed_once FIRST LAST MSG: VMs FIRST..LAST were each dispatched
# to one host and never failed there (no *_FAILURE state in their log: a
# deploy on a host without a free VF fails). A second history record on
# the same host is not a second deploy: 7.0 adds one when monitoring,
# racing a deploy, saw the VM POWEROFF and then "found again" (measured).
one_deployed_once() {
	local i other failed
	for i in $(seq "$1" "$2"); do
		other=$(one_xml vm "$i" | one_xpath 'count(/VM/HISTORY_RECORDS/HISTORY[HOSTNAME != /VM/HISTORY_RECORDS/HISTORY[1]/HOSTNAME])')
		failed=$(one_vm_log "$i" 2>/dev/null | grep -c '_FAILURE')
		if [ "$other $failed" != "0 0" ]; then
			say "VM $i: $other history records on another host, $failed failure states"
			one_vm_log "$i" 2>/dev/null | tail -n 15 | sed 's/^/#   /' >&2
		fi
		echo "$other $failed"
	done | sort -u >"$TEST_TMP/histories"
	assert_eq "0 0" "$(cat "$TEST_TMP/histories")" "$3"
}
one_cloud_agrees() { # MSG
	wait_for 20 _one_agree
	assert_eq "$(cat "$TEST_TMP/oned.view")" "$(cat "$TEST_TMP/real.view")" \
		"$1: hosts (domains, ledgers, VFs) agree with oned"
}
_one_agree() {
	local h
	_one_vms_xml "$TEST_TMP/vms.xml"
	_one_view "$TEST_TMP/vms.xml" | sort >"$TEST_TMP/oned.view"
	for h in "$SIM_HOSTS"/*/kind; do
		h=$(dirname "$h")
		_host_view "${h##*/}"
	done | sort >"$TEST_TMP/real.view"
	cmp -s "$TEST_TMP/oned.view" "$TEST_TMP/real.view" || { sleep 1; return 1; }
}

# The GUIDs the installed partitions.conf makes full members of network
# VNET's partition, sorted, on one line.
one_partition_members() { # VNET
	partition_members_in "$1" </etc/opensm/partitions.conf
}

# The GUIDs of the InfiniBand NICs of network VNET whose VM runs (after
# one_cloud_agrees: its view), sorted, on one line.
_one_running_guids() { # VNET
	awk -v n="$1" '$3 == n { print $4 }' "$TEST_TMP/vms.xml.nics" | sort | tr '\n' ' ' | sed 's/ $//'
}

# one_partitions_agree MSG VNET...: once the hook has caught up (within 60 s),
# each network's partition in /etc/opensm/partitions.conf holds exactly the
# GUIDs of its running NICs (as of the last one_cloud_agrees).
one_partitions_agree() { # MSG VNET...
	local msg=$1 n
	shift
	for n in "$@"; do
		wait_for 60 _one_members_are "$n" "$(_one_running_guids "$n")"
		assert_eq "$(_one_running_guids "$n")" "$(one_partition_members "$n")" \
			"$msg: partition of network $n = its running NICs' GUIDs"
	done
}
_one_members_are() { [ "$(one_partition_members "$1")" = "$2" ] || { sleep 0.3; return 1; }; }

one_log() {
	local f
	for f in "$ONE_DIR/var/oned.log" "$ONE_DIR/var/sched.log" "$ONE_DIR/var/monitor.log" \
		"$ONE_DIR/var/onehem.log"; do
		_tl_show "$f" 15 "${f##*/}"
	done
}
