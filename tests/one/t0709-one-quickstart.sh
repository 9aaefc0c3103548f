#!/bin/bash
# README's quick start, run as written (issue 31): the page cannot drift
# from what works. The commands are read from README.md, the fenced blocks
# of the section "Quick start" whose info string is `sh quickstart`
# (`as=root|oneadmin|user`, `on=build|front-end|node1|vm`, `repeat`,
# `not-run=WHY`), each with the `text quickstart-output` block after it,
# and run in order on the real OpenNebula front-end of the suite
# (tests/lib/one.sh), one simulated ConnectX-3 host named node1 and its
# fabric, as the operator (root, oneadmin), the user (alice) and the VM's
# root would run them:
#   - a block's commands run with bash, their standard output and error
#     together being what the page says to expect: each line of the
#     expected output, `...` standing for any text, must be a line of what
#     the commands printed, in order (lines between are allowed); they must
#     exit 0. A `repeat` block only reads, and is run again, as a reader
#     looks again, until its output is what the page shows;
#   - the test's OpenNebula is installed from source (ONE_LOCATION), so the
#     packaged paths of the page are read as its paths: /var/lib/one/remotes
#     is $ONE_LOCATION/var/remotes, /usr/share/one-ib $ONE_LOCATION/share/
#     one-ib, /etc/one $ONE_LOCATION/etc (on the front-end only);
#   - a `not-run=WHY` block is one the test cannot run as it is (hardware,
#     installing packages, restarting the front-end, creating the hooks a
#     session made already): the page says so below it, and the test checks
#     what the block leaves behind instead, with the check of that WHY
#     (qs_not_run_WHY below; a WHY it has none for fails the test);
#   - what the page takes for granted and the simulated cloud lacks is made
#     first, and said: the image debian12 and the Ethernet network public
#     the shipped VM template names (OpenNebula's dummy drivers; the image
#     datastore told the shared system datastore's targets), and,
#     before the VM starts, what opensm programs on a ConnectX-3 host's
#     port (its P_Key table, which the host's kernel shows in sysfs: read
#     from the simulated fabric, written into the host's sysfs);
#   - the VM (on=vm) is the guest of tests/lib/guest.sh (tests/one/
#     quickstart-vm.sh): a network namespace
#     whose sysfs holds the VF as node1 programmed it (its GUID from the
#     lease, its P_Key table through the host's mapping), where
#     oneib-context runs on the context.sh OpenNebula wrote for the VM, as
#     one-context runs it at boot; then the block's commands.
# The page has at most ten steps, and every block says who runs it where.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/one.sh"
one_sim
one_frontend
V=$ONE_VM0
one_host node1 cx3
one_fabric 1
one_hooks
one_user alice
QS=$TEST_TMP/qs
mkdir -p "$QS"

# --- the page's blocks -------------------------------------------------------
# N.meta: "STEP AS ON REPEAT NOTRUN", N.cmd, N.out (the expected output).
awk -v d="$QS" '
	/^## / { inqs = ($0 == "## Quick start"); next }
	!inqs { next }
	/^\*\*[0-9]+\. / { step = $0; sub(/^\*\*/, "", step); sub(/\..*/, "", step); next }
	/^```sh quickstart( |$)/ {
		n++; blk = "cmd"; as = on = nr = ""; rep = 0
		for (i = 3; i <= NF; i++) {
			if ($i ~ /^as=/) as = substr($i, 4)
			else if ($i ~ /^on=/) on = substr($i, 4)
			else if ($i == "repeat") rep = 1
			else if ($i ~ /^not-run=/) nr = substr($i, 9)
			else { print "unknown word " $i " in block " n > "/dev/stderr"; bad = 1 }
		}
		printf "%s %s %s %d %s\n", step, as, on, rep, nr > (d "/" n ".meta")
		printf "" > (d "/" n ".out")
		next
	}
	/^```text quickstart-output$/ { if (!n) bad = 1; blk = "out"; next }
	/^```$/ { blk = ""; next }
	blk == "cmd" { print > (d "/" n ".cmd") }
	blk == "out" { print > (d "/" n ".out") }
	END { if (bad) exit 1; print n + 0 > (d "/count") }
' "$TOP/README.md" || die "README.md: a quick start block I cannot read"
blocks=$(cat "$QS/count")
[ "$blocks" -gt 0 ] || die "README.md has no quick start blocks (\`\`\`sh quickstart)"
steps=$(cut -d' ' -f1 "$QS"/*.meta | sort -nu)
assert_eq "$(seq 1 "$(echo "$steps" | tail -n 1)" | xargs)" "$(echo "$steps" | xargs)" \
	"the quick start's steps are numbered 1, 2, ... and every block is in one"
assert_ok "at most ten steps" -- test "$(echo "$steps" | tail -n 1)" -le 10
for ((n = 1; n <= blocks; n++)); do
	read -r step as on rep nr <"$QS/$n.meta"
	case $as:$on in
	root:build | root:front-end | oneadmin:front-end | user:front-end | root:node1 | oneadmin:node1 | root:vm) ;;
	*) die "README.md quick start, step $step: a block as '$as' on '$on', which the test cannot be" ;;
	esac
done

# --- running one block ---------------------------------------------------------
W=$TEST_TMP/work
mkdir -p "$W/root" "$W/oneadmin" "$W/alice"
chown "$ONE_ADMIN:" "$W/oneadmin" "$W/alice"
# the page's packaged paths as the test's self-contained OpenNebula has them
qs_paths() { # < commands
	sed -e "s|/var/lib/one/remotes|$ONE_DIR/var/remotes|g" \
		-e "s|/usr/share/one-ib|$ONE_DIR/share/one-ib|g" -e "s|/etc/one/|$ONE_DIR/etc/|g"
}
qs_run() { # N   (its output in N.got, its status returned)
	local as on cmd
	read -r _ as on _ _ <"$QS/$1.meta"
	cmd=$(cat "$QS/$1.cmd")
	case $on in front-end) cmd=$(printf '%s\n' "$cmd" | qs_paths) ;; esac
	case $as:$on in
	root:build) (cd "$TOP" && bash -c "$cmd") ;;
	root:front-end) (cd "$W/root" && bash -c "$cmd") ;;
	oneadmin:front-end) as_oneadmin bash -c "cd '$W/oneadmin' && $cmd" ;;
	user:front-end) as_user alice bash -c "cd '$W/alice' && $cmd" ;;
	root:node1) on node1 bash -c "cd /root 2>/dev/null; $cmd" ;;
	oneadmin:node1)
		on node1 setpriv --reuid="$ONE_ADMIN" --regid="$ONE_ADMIN" --init-groups env -i \
			HOME=/var/lib/one USER="$ONE_ADMIN" PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
			LANG=C.UTF-8 bash -c "cd; $cmd"
		;;
	root:vm) qs_vm "$1" ;;
	esac >"$QS/$1.got" 2>&1
	echo $? >"$QS/$1.rc"
}
# Each expected line (`...` any text) a line of the output, in order.
qs_matches() { # EXPECTED GOT
	local e re got=() i=0
	# trailing blanks are not what a reader sees (onehost show pads)
	mapfile -t got < <(sed 's/[[:space:]]*$//' "$2")
	while IFS= read -r e; do
		[ -n "$e" ] && [ "$e" != ... ] || continue
		re=$(printf '%s' "$e" | sed -e 's/[][\.*^$+?(){}|/]/\\&/g' -e 's/\\\.\\\.\\\./.*/g')
		while [ "$i" -lt "${#got[@]}" ] && ! [[ ${got[i]} =~ ^$re$ ]]; do i=$((i + 1)); done
		[ "$i" -lt "${#got[@]}" ] || { echo "no line '$e'"; return 1; }
		i=$((i + 1))
	done <"$1"
}
qs_block() { # N
	local step as on rep nr b why
	read -r step as on rep nr <"$QS/$1.meta"
	if [ -n "$nr" ]; then
		declare -F "qs_not_run_$nr" >/dev/null ||
			die "README.md quick start, step $step: not run for '$nr', which the test has no check for"
		say "step $step: not run as written ($nr): $(head -n 1 "$QS/$1.cmd")..."
		"qs_not_run_$nr" "$step" "$1"
		return
	fi
	if [ "$rep" = 1 ]; then
		bound_start b 180
		while :; do
			qs_run "$1" && why=$(qs_matches "$QS/$1.out" "$QS/$1.got") && break
			bound_over b && break
			sleep 2
		done
	else
		qs_run "$1"
	fi
	assert_eq 0 "$(cat "$QS/$1.rc")" "step $step ($as on $on): $(head -n 1 "$QS/$1.cmd") exits 0"
	why=$(qs_matches "$QS/$1.out" "$QS/$1.got")
	assert_eq "" "$why" "step $step: $(head -n 1 "$QS/$1.cmd") prints what the page shows"
	[ -z "$why" ] || sed 's/^/#   | /' "$QS/$1.got"
}

# --- what the page's not-run blocks leave, checked instead --------------------
# packages: the page's .deb files are make deb's (build/deb), and what each
# installs is where the test put it from them.
qs_not_run_packages() { # STEP N
	local p
	if grep -q '^make deb$' "$QS/$2.cmd"; then
		assert_ok "step $1: make deb built the packages (build/deb/*.changes)" -- \
			sh -c "ls '$TOP'/build/deb/*.changes >/dev/null"
	fi
	for p in $(grep -o 'one-ib-[a-z]*_' "$QS/$2.cmd" | tr -d _ | sort -u); do
		assert_ok "step $1: build/deb has $p" -- sh -c "ls '$TOP'/build/deb/${p}_*.deb >/dev/null"
		case $p in
		one-ib-node)
			assert_match "^make deb: " "$ONE_PACKAGES" "step $1: the hosts have one-ib-node from build/deb"
			assert_ok "step $1: node1 has oneib-pkey and its sudoers rule" -- \
				on node1 test -x /usr/sbin/oneib-pkey -a -f /etc/sudoers.d/one-ib-node
			;;
		one-ib-sm)
			assert_ok "step $1: the SM's host has oneib-partitions-install" -- \
				test -x /usr/sbin/oneib-partitions-install -a -f /etc/sudoers.d/one-ib-sm
			;;
		one-ib-frontend)
			assert_ok "step $1: kvm-ib's drivers in the front-end's remotes" -- \
				test -x "$ONE_DIR/var/remotes/vmm/kvm-ib/deploy" -a -x "$ONE_DIR/var/remotes/hooks/oneib-partitions"
			;;
		one-ib-doc)
			assert_ok "step $1: one-ib-doc has the guides (one-ib(7))" -- \
				sh -c "dpkg-deb -c '$TOP'/build/deb/one-ib-doc_*.deb | grep -q 'man7/one-ib.7'"
			;;
		esac
	done
}
# hardware: the simulated host has an InfiniBand PF with VFs enabled.
qs_not_run_hardware() { # STEP N
	assert_match '^[1-9][0-9]*$' "$(on node1 sh -c 'cat /sys/class/infiniband/*/device/sriov_numvfs' | head -n 1)" \
		"step $1: node1's HCA has its VFs enabled (sriov_numvfs)"
}
# restart: the front-end's oned.conf and monitord.conf hold the page's
# fragments (the session configured them before oned started).
qs_not_run_restart() { # STEP N
	local f conf
	while read -r f conf; do
		f=$(printf '%s\n' "$f" | qs_paths) conf=$(printf '%s\n' "$conf" | qs_paths)
		assert_ok "step $1: $(basename "$conf") holds $(basename "$f")" -- \
			bash -c '[[ "$(cat "$2")" == *"$(cat "$1")"* ]]' _ "$f" "$conf"
	done < <(sed -n 's/^cat \([^ ]*\) *>>\([^ ]*\)$/\1 \2/p' "$QS/$2.cmd")
}
# hooks: one hook of each template's name.
qs_not_run_hooks() { # STEP N
	local t name have
	have=$(one_rpc one.hookpool.info i:-2 i:-1 i:-1 | grep -o '<NAME>[^<]*</NAME>' | sed 's/<[^>]*>//g')
	for t in "$ONE_DIR"/share/one-ib/hooks/*.tmpl; do
		name=$(sed -n 's/^NAME *= *"\([^"]*\)".*/\1/p' "$t")
		assert_eq 1 "$(printf '%s\n' "$have" | grep -cx "$name")" "step $1: the hook $name is there"
	done
}

# --- what the page takes for granted ------------------------------------------
say "made by the test, as the page takes them for granted: the image debian12 and the network public (dummy drivers)"
# No PATH: an image copied in (PATH) takes the FORMAT its datastore's cp
# prints, dummy's "dummy_format", which libvirt refuses as a disk's
# driver type (and oned then forces it over DRIVER); an OS image made
# empty (mkfs, SIZE) takes the template's DRIVER
printf '%s\n' 'NAME = "debian12"' 'TYPE = "OS"' 'SIZE = "1"' 'DRIVER = "raw"' >"$W/image.tmpl"
printf '%s\n' 'NAME = "public"' 'VN_MAD = "dummy"' 'BRIDGE = "br0"' \
	'AR = [ TYPE = "IP4", IP = "192.168.150.10", SIZE = "10" ]' >"$W/public.tmpl"
chmod 0644 "$W/image.tmpl" "$W/public.tmpl"
# The image datastore's dummy drivers copy nothing, but oned deploys a disk
# of it into the session's shared system datastore only when the datastore
# names the targets of that mode (what TM_MAD_CONF's TM_MAD_SYSTEM gives
# ceph's): CLONE.shared then runs tm/dummy/clone, which does nothing.
printf '%s\n' 'CLONE_TARGET_SHARED = "SYSTEM"' 'LN_TARGET_SHARED = "NONE"' 'DISK_TYPE_SHARED = "FILE"' >"$W/ds1.tmpl"
chmod 0644 "$W/ds1.tmpl"
assert_ok "oneadmin lets the image datastore's disks go to the shared system datastore" -- \
	as_oneadmin onedatastore update default "$W/ds1.tmpl" --append
assert_ok "oneadmin registers the image debian12" -- as_oneadmin oneimage create -d default "$W/image.tmpl"
assert_ok "... which the users may use" -- as_oneadmin oneimage chmod debian12 604
assert_ok "oneadmin creates the network public" -- as_oneadmin onevnet create "$W/public.tmpl"
_image_ready() {
	[ "$(one_rpc one.imagepool.info i:-2 i:-1 i:-1 | grep -o '<NAME>debian12</NAME><[^/]*' >/dev/null &&
		as_oneadmin oneimage show debian12 -x | one_xpath /IMAGE/STATE)" = 1 ] || { sleep 1; return 1; }
}
wait_for 60 _image_ready || die "the image debian12 is not READY"

# Before the VM: what opensm programmed on node1's port (ConnectX-3: the
# PF port is a member of each network of its cluster) into node1's sysfs,
# as its kernel would show it, once the hook installed the network's
# partition.
before_vm() {
	local net lid table i k
	net=$(one_xml vnet ib-tenant-a | one_xpath /VNET/ID)
	_has_port() { grep -q "^vnet${net}_" /etc/opensm/partitions.conf || { sleep 1; return 1; }; }
	wait_for 60 _has_port || die "the hook never installed network $net's partition"
	sim_opensm_reread
	lid=$(sim_lid node1)
	table=$(sim_client sm smpquery pkeys "$lid" | awk '/^ *[0-9]+:/ { for (i = 2; i <= NF; i++) print $i }')
	say "node1's port as opensm programmed it (into its sysfs): $(echo "$table" | grep -v 0x0000 | xargs)"
	i=0
	# the host's view (ports/1/pkeys) and the physical table mlx4's
	# paravirtualisation maps the VFs' entries to (iov/ports/1/pkeys, 127
	# entries), which oneib-pkey reads: one table, as tests/fixtures/mkhost.sh
	# builds them
	for k in $table; do
		on node1 sh -c "echo $k >/sys/class/infiniband/mlx4_0/ports/1/pkeys/$i &&
			{ [ $i -ge 127 ] || echo $k >/sys/class/infiniband/mlx4_0/iov/ports/1/pkeys/$i; }" ||
			die "cannot write node1's P_Key $i"
		i=$((i + 1))
	done
}

# The VM's guest (tests/lib/guest.sh): the VF as node1 programmed it, the
# context OpenNebula wrote; oneib-context as one-context runs it; then N's
# commands.
qs_vm() { # N
	local lease vf guid table=() i phys k ctx
	lease=$(one_leases node1 | awk -v v="$V" '$1 == v && $2 == 0')
	vf=$(echo "$lease" | cut -d' ' -f3) guid=$(echo "$lease" | cut -d' ' -f4)
	[ -n "$vf" ] || { echo "no lease of VM $V NIC 0 on node1"; return 1; }
	for ((i = 0; i < 127; i++)); do
		phys=$(on node1 cat "/sys/class/infiniband/mlx4_0/iov/$vf/ports/1/pkey_idx/$i")
		if [ "$phys" = none ]; then
			table+=(0000)
		else
			k=$(on node1 cat "/sys/class/infiniband/mlx4_0/ports/1/pkeys/$phys")
			table+=("${k#0x}")
		fi
	done
	while [ "${#table[@]}" -gt 0 ] && [ "${table[-1]}" = 0000 ]; do unset 'table[-1]'; done
	ctx=$(find "$ONE_DIR/var" -path "*/$V/context.sh" 2>/dev/null | head -n 1)
	[ -n "$ctx" ] || { echo "OpenNebula wrote no context.sh for VM $V"; return 1; }
	MKHOST_GUEST_KIND=mlx4 MKHOST_GUEST_GUID=${guid#0x} MKHOST_GUEST_PKEYS="${table[*]}" \
		QS_CONTEXT=$ctx QS_COMMANDS=$QS/$1.cmd QS_OUTPUT=$QS/$1.vm \
		bash "$TOP/tests/one/quickstart-vm.sh" >"$QS/$1.vmlog" 2>&1 ||
		{ sed 's/^/    /' "$QS/$1.vmlog"; return 1; }
	cat "$QS/$1.vm"
}

# --- the page, in order ----------------------------------------------------------
for ((n = 1; n <= blocks; n++)); do
	! grep -q 'onetemplate instantiate' "$QS/$n.cmd" || before_vm
	qs_block "$n"
done
test_done
