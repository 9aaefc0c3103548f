# shellcheck shell=bash
# Shared by the kvm-ib actions (sourced, not an action itself).
#
# Every process started here is paid on every deploy and shutdown (each
# fork and exec costs about what /bin/true does), so paths come from
# parameter expansion, not dirname, and OpenNebula's scripts_common.sh is
# sourced the first time log, log_error or error_message is called: a
# deploy that has nothing to say never reads it.

case $0 in
*/*) DRIVER_PATH=${0%/*} ;;
*) DRIVER_PATH=. ;;
esac
# The settings (kvmrc, kvm-ibrc, their defaults) and oneib_vf.
ONEIB_REMOTES=$DRIVER_PATH/../..
source "$ONEIB_REMOTES/ib/helpers.sh"
# The leases this action takes are its own while it runs: reconcile (the
# monitoring probe) leaves them alone, however long the action takes and
# whatever the clocks do (oneib-vf --owner).
# shellcheck disable=SC2034 # read by oneib_vf (ib/helpers.sh)
ONEIB_OWNER=$$

# scripts_common.sh on first use: each stub is replaced by the real
# function when the file is sourced, and then called.
_oneib_common() {
	unset -f log log_error error_message
	source "$DRIVER_PATH/../../scripts_common.sh"
}
log() { _oneib_common && log "$@"; }
log_error() { _oneib_common && log_error "$@"; }
error_message() { _oneib_common && error_message "$@"; }

# stock_then_release ACTION ARGS...: the stock kvm ACTION with OpenNebula's
# arguments ('<deploy_id>' '<host>' <vmid> <host>), then, once the domain is
# gone, the VM's VFs back to the pool (--domain-gone: the stock action just
# ended the domain, so libvirt is not asked again). A release problem is
# logged but does not fail an action whose domain is already gone: oneib-vf
# reconcile heals the ledger, and deploy never leases a VF a domain holds.
stock_then_release() {
	local action=$1
	shift
	"$DRIVER_PATH/../kvm/$action" "$@" || exit $?
	if ! out=$(oneib_vf release --vm "$3" --domain-gone 2>&1); then
		log_error "$out"
	fi
	return 0
}

# ib_domain DOMAIN: 0 when DOMAIN (name or UUID) is running or paused here,
# 1 when libvirt answers and has no such domain, 2 when it cannot tell.
ib_domain() {
	local names
	names=$(virsh --connect "$LIBVIRT_URI" list --all --name 2>/dev/null &&
		virsh --connect "$LIBVIRT_URI" list --all --uuid 2>/dev/null) || return 2
	printf '%s\n' "$names" | grep -qxF -- "$1" || return 1
	case $(virsh --connect "$LIBVIRT_URI" domstate "$1" 2>/dev/null) in
	running* | paused*) return 0 ;;
	*) return 1 ;;
	esac
}

# ib_vf CMD VMID [options]: oneib_vf CMD for VM VMID, its output on stdout,
# its warnings to the VM log; on failure its reason, one line, on stderr
# (the error OpenNebula shows).
ib_vf() {
	local cmd=$1 vmid=$2 err rc
	shift 2
	err=$(mktemp) || return 1
	oneib_vf "$cmd" --vm "$vmid" "$@" 2>"$err"
	rc=$?
	if [ $rc -ne 0 ]; then
		sed '$d; s/^oneib-vf: //' "$err" | while IFS= read -r line; do log "$line"; done
		tail -n 1 "$err" | sed 's/^oneib-vf: //' >&2
	else
		sed 's/^oneib-vf: //' "$err" | while IFS= read -r line; do log "$line"; done
	fi
	rm -f "$err"
	return $rc
}

# ib_device attach|detach DOMAIN VMID VF DEVICE_XML: virsh attach-device or
# detach-device of one VF's <hostdev>, live, as the stock attach_nic does.
# On failure one line on stderr.
ib_device() {
	local op=$1 dom=$2 vmid=$3 vf=$4 f out
	f=$(mktemp) || return 1
	printf '%s\n' "$5" >"$f"
	if ! out=$(virsh --connect "$LIBVIRT_URI" "$op-device" "$dom" "$f" 2>&1); then
		rm -f "$f"
		echo "VM $vmid: cannot $op VF $vf ($dom): $(printf '%s\n' "$out" |
			sed '/^$/d; /Failed to .* device from/d; s/^error: //' | paste -sd ' ')" >&2
		return 1
	fi
	rm -f "$f"
}

# ib_attach DOMAIN VMID XML [MAC]: a VF for each InfiniBand NIC of the VM
# (or its NIC with MAC) in XML, the action data: the NIC's lease (taken
# now, or a reservation made for a migration, or kept from before),
# programmed with the NIC's GUID and P_Key, then hot-attached to DOMAIN as
# a PCI <hostdev>. VFs already in DOMAIN stay as they are. On failure the
# VFs attached here are detached again, the reason is on stderr, 1; the
# caller releases.
ib_attach() {
	local dom=$1 vmid=$2 xml=$3 sel=() list vf dev a added=()
	[ -n "${4:-}" ] && sel=(--mac "$4")
	if ! virsh --connect "$LIBVIRT_URI" domstate "$dom" >/dev/null 2>&1; then
		echo "VM $vmid: no domain $dom on this host to attach its VFs to" >&2
		return 1
	fi
	ib_vf lease "$vmid" --vm-xml "$xml" "${sel[@]}" >/dev/null || return 1
	list=$(ib_vf hostdevs "$vmid" --vm-xml "$xml" "${sel[@]}" --not-held) || return 1
	while read -r vf dev; do
		[ -n "$vf" ] || continue
		if ! ib_device attach "$dom" "$vmid" "$vf" "$dev"; then
			for a in "${added[@]}"; do
				ib_device detach "$dom" "$vmid" "${a%% *}" "${a#* }" 2>/dev/null
			done
			return 1
		fi
		added+=("$vf $dev")
	done <<<"$list"
	return 0
}

# ib_detach DOMAIN VMID XML [MAC]: hot-detach from DOMAIN every InfiniBand
# VF it holds (or the VF of the NIC with MAC), then wait until libvirt no
# longer lists them (ONEIB_DETACH_TIMEOUT seconds): a detach request the
# guest does not complete must never pass for a detach. The leases stay.
# On failure the VFs that went out are attached again, the reason is on
# stderr, 1.
ib_detach() {
	local dom=$1 vmid=$2 xml=$3 sel=() list still vf dev deadline
	[ -n "${4:-}" ] && sel=(--vm-xml "$xml" --mac "$4")
	list=$(ib_vf hostdevs "$vmid" "${sel[@]}" --held) || return 1
	[ -n "$list" ] || return 0
	while read -r vf dev; do
		if ! ib_device detach "$dom" "$vmid" "$vf" "$dev"; then
			ib_attach "$dom" "$vmid" "$xml" "${4:-}" ||
				log_error "VM $vmid: could not attach its VFs again"
			return 1
		fi
	done <<<"$list"
	deadline=$((SECONDS + ONEIB_DETACH_TIMEOUT))
	while :; do
		still=$(ib_vf hostdevs "$vmid" "${sel[@]}" --held) || return 1
		[ -n "$still" ] || return 0
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "VM $vmid: VF ${still%% *} is still in domain $dom" \
				"$ONEIB_DETACH_TIMEOUT s after the detach request" >&2
			ib_attach "$dom" "$vmid" "$xml" "${4:-}" 2>/dev/null ||
				log_error "VM $vmid: could not attach its VFs again"
			return 1
		fi
		sleep 0.2
	done
}

# ib_release VMID [options]: the VM's leases no domain holds back to the
# pool (unmapped first); a failure is logged, not fatal: the ib VNM clean
# that OpenNebula runs next releases again, and reconcile after it.
ib_release() {
	local out
	out=$(ib_vf release "$@" 2>&1 >/dev/null) || log_error "$out"
	return 0
}

# ib_migrate DOMAIN DEST SRC VMID XML: a live migration that keeps the VM's
# InfiniBand (design decision 10). The caller defines
#   on_src  ARGS...   run `vfs ARGS...` on the source (stdin passed)
#   on_dest ARGS...   run `vfs ARGS...` on the destination
#   stock_migrate     the stock migration (stdin: XML)
# 0. DEST is SRC: refused, nothing touched (see below);
# 1. reserve a VF per IB NIC on DEST, each on the rail it has on SRC where
# DEST has it (none free: fail, nothing touched);
# 2. detach them on SRC and wait until they are out; 3. the stock
# migration; 4. release on SRC (the GUIDs leave the source VFs before the
# destination's carry them); 5. program and attach on DEST. A failure in
# 2 or 3: attached again on SRC, the reservation freed, the VM where it
# was. After 3 the VM runs on DEST whatever follows: a failure in 5 is
# logged, its VFs released, and the migration succeeds (oned must know
# where the VM is).
ib_migrate() {
	local dom=$1 dest=$2 src=$3 vmid=$4 xml=$5 err rc rails
	err=$(mktemp) || return 1
	on_src present "$vmid" "$dom" </dev/null
	rc=$?
	if [ $rc -eq 1 ] && on_dest present "$vmid" "$dom" </dev/null; then
		# Migrated already (this is a retry): make sure of the rest.
		log "VM $vmid: already on $dest"
		on_src release "$vmid" </dev/null || log_error "$src: VM $vmid: VFs not released"
		on_dest attach "$vmid" "$dom" <"$xml" 2>"$err" ||
			log_error "VM $vmid runs on $dest without its InfiniBand: $(tail -n 1 "$err")"
		rm -f "$err"
		return 0
	fi
	if [ "$dest" = "$src" ]; then
		# To the host it runs on (oned lets it through only to another
		# system datastore of that host, with DS_LIVE_MIGRATION): libvirt
		# refuses it, and the stock migrate's cleanup after a refusal
		# destroys the domain on the "destination", the VM itself.
		# Nothing can move: refuse before touching anything.
		echo "VM $vmid: cannot migrate live to $dest, the host it runs on (libvirt refuses it); nothing changed" >&2
		rm -f "$err"
		return 1
	fi
	# each NIC's rail here ("0=3,1=5"); none known: as deploy chooses
	rails=$(on_src rails "$vmid" </dev/null 2>/dev/null) || rails=
	if ! on_dest reserve "$vmid" "$rails" <"$xml" 2>"$err"; then
		echo "$dest: $(tail -n 1 "$err")" >&2
		rm -f "$err"
		return 1
	fi
	if ! on_src detach "$vmid" "$dom" <"$xml"; then
		on_dest release "$vmid" </dev/null || log_error "$dest: VM $vmid: reservation not freed"
		rm -f "$err"
		return 1
	fi
	if ! stock_migrate <"$xml"; then
		on_src attach "$vmid" "$dom" <"$xml" || log_error "VM $vmid: could not attach its VFs again"
		on_dest release "$vmid" </dev/null || log_error "$dest: VM $vmid: reservation not freed"
		rm -f "$err"
		return 1
	fi
	on_src release "$vmid" </dev/null || log_error "$src: VM $vmid: VFs not released"
	if ! on_dest attach "$vmid" "$dom" <"$xml" 2>"$err"; then
		log_error "VM $vmid runs on $dest without its InfiniBand: $(tail -n 1 "$err")"
	fi
	rm -f "$err"
	return 0
}
