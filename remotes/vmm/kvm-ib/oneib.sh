# Shared by the kvm-ib actions (sourced, not an action itself).

DRIVER_PATH=$(dirname "$0")
source "$DRIVER_PATH/../../scripts_common.sh"
source "$DRIVER_PATH/../../etc/vmm/kvm/kvmrc"
source "$DRIVER_PATH/../../etc/vmm/kvm-ib/kvm-ibrc"

ONEIB_VF="$DRIVER_PATH/../../ib/bin/oneib-vf"

# oneib_vf CMD VMID [options]: oneib-vf with this host's ledger and libvirt.
oneib_vf() {
	local cmd=$1 vmid=$2
	shift 2
	"$ONEIB_VF" "$cmd" --vm "$vmid" --ledger "${ONEIB_LEDGER_DIR:-/var/lib/one/ib}" \
		--connect "${LIBVIRT_URI:-qemu:///system}" \
		--pkey-cmd "$ONEIB_PKEY" --cloud-id "${ONEIB_CLOUD_ID:-0}" "$@"
}

# stock_then_release ACTION ARGS...: the stock kvm ACTION with OpenNebula's
# arguments ('<deploy_id>' '<host>' <vmid> <host>), then, once the domain is
# gone, the VM's VFs back to the pool. A release problem is logged but does
# not fail an action whose domain is already gone: oneib-vf reconcile heals
# the ledger, and a VF a domain holds is never leased anyway.
stock_then_release() {
	local action=$1
	shift
	"$DRIVER_PATH/../kvm/$action" "$@" || exit $?
	if ! out=$(oneib_vf release "$3" 2>&1); then
		log_error "$out"
	fi
	return 0
}
