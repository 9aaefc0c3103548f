# shellcheck shell=sh
# one-ib's settings and helpers for every shell action: the kvm-ib VMM
# actions (vmm/kvm-ib/oneib.sh), the ib VNM actions, the kvm-ib monitoring
# probes and the front-end hook. Sourced, never run; POSIX sh, since the
# probes are (monitord runs them with /bin/sh).
#
#   ONEIB_REMOTES=<the remotes directory>   /var/lib/one/remotes on the
#   . "$ONEIB_REMOTES/ib/helpers.sh"         front-end, /var/tmp/one on hosts
#
# It reads the settings, each file when it is there (the stock kvmrc sets
# LIBVIRT_URI; a probe must report even on a host without them), and fills
# in the default of every one-ib setting a file leaves unset: the one place
# they are written (one-ib.conf(5) and the rc files explain each):
#   etc/vmm/kvm/kvmrc  etc/vmm/kvm-ib/kvm-ibrc  etc/vnm/ib/ibrc
# then gives the one way to call the helpers in ib/bin, with this host's
# settings. It defines variables and functions only (prefix oneib_ /
# ONEIB_, and _oneib_ for its own scratch) and prints nothing.

for _oneib_rc in etc/vmm/kvm/kvmrc etc/vmm/kvm-ib/kvm-ibrc etc/vnm/ib/ibrc; do
	# shellcheck disable=SC1090 # the remotes' settings, found at run time
	[ ! -r "$ONEIB_REMOTES/$_oneib_rc" ] || . "$ONEIB_REMOTES/$_oneib_rc"
done

# --- defaults (kvm-ibrc and ibrc say what each is) ---------------------------
: "${LIBVIRT_URI:=qemu:///system}"
: "${ONEIB_LEDGER_DIR:=/var/lib/one/ib}"
: "${ONEIB_CLOUD_ID:=0}"
ONEIB_PKEY=${ONEIB_PKEY-} # empty: this host programs no VF
ONEIB_PEER=${ONEIB_PEER-} # empty: no leaf switch is asked
ONEIB_RAIL_MAP=${ONEIB_RAIL_MAP-} # empty: rails by PCI address
: "${ONEIB_RECONCILE_GRACE:=600}"
: "${ONEIB_DETACH_TIMEOUT:=30}"
: "${ONEIB_REMOTE_DIR:=/var/tmp/one}"
: "${IB_PKEY_RANGE:=0x0100-0x01ff}"
ONEIB_PARTITIONS_STATIC_DEFAULT=/etc/one/ib/partitions.static.conf
ONEIB_PARTITIONS_STATIC=${ONEIB_PARTITIONS_STATIC-$ONEIB_PARTITIONS_STATIC_DEFAULT}
ONEIB_HOSTS_PARTITION=${ONEIB_HOSTS_PARTITION-}
ONEIB_SLS=${ONEIB_SLS-1-7} # empty: no SL plan, IB_SL alone
: "${ONEIB_SL_BEST_EFFORT:=0}"

ONEIB_BIN=$ONEIB_REMOTES/ib/bin

# --- the helpers, with this host's settings -----------------------------------

# oneib_vf CMD [ARGS...]: oneib-vf with this host's ledger, libvirt,
# oneib-pkey command, cloud id and rail map (every command takes all), and the
# action the leases it takes are for, when the caller set ONEIB_OWNER (its
# pid: reconcile never takes them while that process runs).
oneib_vf() {
	_oneib_cmd=$1
	shift
	"$ONEIB_BIN/oneib-vf" "$_oneib_cmd" --ledger "$ONEIB_LEDGER_DIR" \
		--connect "$LIBVIRT_URI" --pkey-cmd "$ONEIB_PKEY" \
		--cloud-id "$ONEIB_CLOUD_ID" --rail-map "$ONEIB_RAIL_MAP" \
		${ONEIB_OWNER:+--owner "$ONEIB_OWNER"} "$@"
}

# oneib_discover FORMAT: this host's InfiniBand as a probe reports it
# (one, one-system, one-monitor, json, table), with the ledger's leases,
# each port's leaf switch (through ONEIB_PEER) and rail (ONEIB_RAIL_MAP);
# a port whose VFs cannot get GUIDs counts as not ready only where the
# host programs VFs (ONEIB_PKEY set).
oneib_discover() {
	_oneib_guids=on
	[ -n "$ONEIB_PKEY" ] || _oneib_guids=off
	"$ONEIB_BIN/oneib-discover" --format="$1" --guids=$_oneib_guids \
		--ledger "$ONEIB_LEDGER_DIR" --peer-cmd "$ONEIB_PEER" \
		--rail-map "$ONEIB_RAIL_MAP"
}

# oneib_static_file: the operator's static partitions file to hand on
# (--static FILE), or nothing: none set (ONEIB_PARTITIONS_STATIC=""), or
# the default path with no file there. A path set in ibrc is handed on
# even when it is missing, so a typo fails instead of dropping the
# operator's partitions.
oneib_static_file() {
	[ -n "$ONEIB_PARTITIONS_STATIC" ] || return 0
	if [ "$ONEIB_PARTITIONS_STATIC" = "$ONEIB_PARTITIONS_STATIC_DEFAULT" ] &&
		[ ! -e "$ONEIB_PARTITIONS_STATIC" ]; then
		return 0
	fi
	printf '%s\n' "$ONEIB_PARTITIONS_STATIC"
}

# oneib_vnet ARGS...: the ib network driver's helper (vnet_create, and
# the VM ID of a VNM action's document).
oneib_vnet() {
	"$ONEIB_BIN/oneib-vnet" "$@"
}
