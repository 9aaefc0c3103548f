#!/bin/bash
# The front-end hook's cost per VM event (issue 22), under the real
# OpenNebula front-end (tests/lib/one.sh, OpenNebula 6.10.0): a cloud of
# B43_VMS VMs (default 2,000) with two InfiniBand NICs each, on B43_NETS
# "ib" networks (default 20), created held (never placed, listed like any
# other) with the shipped template's requirement, so that the hook's run
# is at its fixed point (no update to write) as after most events. Wall
# time (p50, p99 over B43_RUNS runs, 5; the CLI's over B43_CLI_RUNS, 3)
# and peak RSS of
#   the hook's whole run, as oneadmin, as an event runs it (the shim and
#       oneib-partitions sync): the three listings through oned's XML-RPC
#       API (curl), the one parse that renders the partitions and the
#       counters, the install command (here `cat >/dev/null`)
#   the VM listing alone (curl), and the document taken out of its answer
#   and the kept listing copied (tests/bench/poolbench.c, the run's steps
#   on files)
#   `onevm list -x --extended --no-pager all`: the Ruby CLI's listing of
#       the VMs alone, which the hook read before
# and the bytes of the VM listing. Printed, never asserted; checked only
# that the hook succeeds, renders one partition per network, and lists
# what the CLI lists.
. "$(dirname "$0")/../lib/test-lib.sh"
: "${TEST_TIMEOUT:=7200}" # before one.sh's 900 s: 10,000 VMs take 11 min to create
. "$TOP/tests/lib/one.sh"
N=${B43_VMS:-2000}
NETS=${B43_NETS:-20}
RUNS=${B43_RUNS:-5}
CLI_RUNS=${B43_CLI_RUNS:-3}
RUNSTAT=$TOP/build/bench/runstat
POOLB=$TOP/build/bench/poolbench
[ -x "$RUNSTAT" ] || die "$RUNSTAT missing (make build/bench/runstat)"
[ -x "$POOLB" ] || die "$POOLB missing (make build/bench/poolbench)"
one_sim
# oned's sqlite database on a tmpfs: creating the VMs waits on no disk
mkdir -p "$ONE_DIR" && mount -t tmpfs -o mode=0755 tmpfs "$ONE_DIR" || die "tmpfs on $ONE_DIR"
one_frontend
nets=()
for i in $(seq 1 "$NETS"); do
	cat >"$TEST_TMP/net$i.tmpl" <<-EOF
	NAME = "ib-bench-$i"
	VN_MAD = "ib"
	AR = [ TYPE = "IP4", IP = "10.$((64 + i)).0.1", SIZE = "60000" ]
	NETWORK_ADDRESS = "10.$((64 + i)).0.0"
	NETWORK_MASK = "255.255.0.0"
	EOF
	id=$(as_oneadmin onevnet create "$TEST_TMP/net$i.tmpl") || die "onevnet create"
	nets+=("${id#ID: }")
done
for id in "${nets[@]}"; do one_wait_vnet "$id"; done
# the VMs in one Ruby process (a CLI call each would take longer than the
# bench): the shipped template's requirement, two NICs on one network
sed -n 's/^SCHED_REQUIREMENTS = //p' "$ONE_DIR/share/one-ib/templates/ib-vm.tmpl" >"$TEST_TMP/gate"
[ -s "$TEST_TMP/gate" ] || die "no SCHED_REQUIREMENTS in the shipped ib-vm.tmpl"
chmod 0644 "$TEST_TMP/gate"
cat >"$TEST_TMP/mk.rb" <<'EOF'
require 'opennebula'
include OpenNebula
c = Client.new
nets = ARGV[1].split(',')
gate = File.read(ARGV[2]).strip
ARGV[0].to_i.times do |i|
  n = nets[i % nets.size]
  t = %Q(NAME="bench-#{i}" CPU="0.1" MEMORY="64" NIC=[NETWORK_ID="#{n}"] NIC=[NETWORK_ID="#{n}"]
CONTEXT=[NETWORK="YES", SSH_PUBLIC_KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPx bench@front"]
GRAPHICS=[TYPE="VNC", LISTEN="0.0.0.0"] OS=[ARCH="x86_64"]
SCHED_REQUIREMENTS=) + gate
  vm = VirtualMachine.new(VirtualMachine.build_xml, c)
  rc = vm.allocate(t, true)
  if OpenNebula.is_error?(rc) then STDERR.puts rc.message; exit 1 end
end
EOF
chmod 0644 "$TEST_TMP/mk.rb"
start=$SECONDS
as_oneadmin env RUBYLIB="$ONE_DIR/lib/ruby" ruby "$TEST_TMP/mk.rb" "$N" "$(IFS=,; echo "${nets[*]}")" "$TEST_TMP/gate" ||
	die "creating the VMs failed"
say "created $N VMs on $NETS networks in $((SECONDS - start)) s"

ibrc=$ONE_DIR/var/remotes/etc/vnm/ib/ibrc
cat >>"$ibrc" <<EOF
ONEIB_PARTITIONS_CMD="cat >$ONE_DIR/var/bench-partitions.conf; echo installed"
ONEIB_PARTITIONS_READ_CMD=true
ONEIB_QOS_POLICY_CMD=""
EOF
hook=$ONE_DIR/var/remotes/hooks/oneib-partitions
assert_ok "the hook's first run" -- as_oneadmin "$hook"
assert_ok "the hook at its fixed point" -- as_oneadmin "$hook"
assert_eq "installed" "$(cat "$LAST_OUT")" "it renders and installs"
assert_eq "$NETS" "$(grep -c '^vnet' "$ONE_DIR/var/bench-partitions.conf")" "one partition per network"
assert_eq "" "$(cat "$LAST_ERR")" "nothing to say, nothing to update"
# the listing, both ways: the same VMs
as_oneadmin onevm list -x --extended --no-pager all >"$TEST_TMP/cli.xml" || die "onevm list"
body="<?xml version='1.0'?><methodCall><methodName>one.vmpool.infoextended</methodName><params><param><value><string>$(cat "$ONE_HOME/.one/one_auth")</string></value></param><param><value><int>-2</int></value></param><param><value><int>-1</int></value></param><param><value><int>-1</int></value></param><param><value><int>-1</int></value></param></params></methodCall>"
printf '%s' "$body" >"$TEST_TMP/call.xml"
curl -sS -H 'Content-Type: text/xml' --data-binary @"$TEST_TMP/call.xml" -o "$TEST_TMP/answer.xml" \
	http://127.0.0.1:2633/RPC2 || die "curl"
"$POOLB" rpc-string "$TEST_TMP/answer.xml" >"$TEST_TMP/rpc.xml" || die "rpc-string"
assert_eq "$(grep -o '<VM><ID>[0-9]*' "$TEST_TMP/rpc.xml" | sort | md5sum)" \
	"$(tr -d ' \n' <"$TEST_TMP/cli.xml" | grep -o '<VM><ID>[0-9]*' | sort | md5sum)" \
	"XML-RPC and the CLI list the same VMs"

envs=()
mapfile -d '' envs < <(_one_env)
# as_oneadmin as a command line runstat can run
oneadmin=(setpriv --reuid="$ONE_ADMIN" --regid="$ONE_ADMIN" --init-groups env -i "${envs[@]}")
echo "# b43 cloud: vms=$N nets=$NETS ib_nics=$((2 * N)) vm_listing_bytes=$(stat -c %s "$TEST_TMP/rpc.xml") cli_listing_bytes=$(stat -c %s "$TEST_TMP/cli.xml")"
kept=$ONE_DIR/var/.oneib-partitions.lock.vms
echo "# b43 the hook's whole run without an event (every VM listed; by hand, cron, host and network hooks): $("$RUNSTAT" "$RUNS" "${oneadmin[@]}" "$hook")"
# a VM's state hook, as oned hands it ("vm-state $TEMPLATE" on stdin): the
# VM's body as oned shows it
vm=$(one_rpc one.vm.info i:"$((N / 2))" | base64 -w0) || die "one.vm.info"
printf 'vm-state %s' "$vm" >"$TEST_TMP/event"
chmod 0644 "$TEST_TMP/event"
assert_ok "the hook on a VM's event" -- as_oneadmin sh -c '"$0" --event-stdin <"$1"' "$hook" "$TEST_TMP/event"
assert_eq "installed" "$(cat "$LAST_OUT")" "it renders and installs"
assert_eq "" "$(cat "$LAST_ERR")" "nothing to say, nothing to update"
assert_match "^<!-- next VM ID: $N -->$" "$(head -n 1 "$kept")" "from the listing it kept"
echo "# b43 the hook's whole run per VM event (that VM and the VMs made since, into the kept listing of $(stat -c %s "$kept") bytes): $("$RUNSTAT" "$RUNS" "${oneadmin[@]}" sh -c '"$0" --event-stdin <"$1"' "$hook" "$TEST_TMP/event")"
echo "# b43 the kept listing copied (vmcache): $("$RUNSTAT" "$RUNS" "$POOLB" vmcache "$kept")"
echo "# b43 one.vmpool.infoextended with curl: $("$RUNSTAT" "$RUNS" curl -sS -H 'Content-Type: text/xml' --data-binary @"$TEST_TMP/call.xml" -o /dev/null http://127.0.0.1:2633/RPC2)"
echo "# b43 its document taken out of the answer (onerpc_string): $("$RUNSTAT" "$RUNS" "$POOLB" rpc-string "$TEST_TMP/answer.xml")"
echo "# b43 before: onevm list -x --extended (Ruby CLI), the VMs alone: $("$RUNSTAT" "$CLI_RUNS" "${oneadmin[@]}" "$ONE_DIR/bin/onevm" list -x --extended --no-pager all)"
test_done
