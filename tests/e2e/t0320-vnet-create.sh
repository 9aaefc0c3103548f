#!/bin/bash
# vnet_create of the ib network driver, called as one_ipam does (on the
# front-end: vnet_create <vnet_id>, Base64 <VNET> on stdin), with a stand-in
# `onevnet` first in PATH that prints a prepared <VNET_POOL>: a valid P_Key
# prints exactly its full-member IB_PKEY line; a missing one gets the lowest
# free key of the range; every refusal (duplicate, out of range, default,
# zero, limited member, bad IB_MTU/IB_RATE/IB_SL/IB_MODE/IB_PF/IB_PORT, by
# the very rules the partitions renderer applies, range exhausted, a key
# of the operator's static file, a service network's attributes broken)
# exits 1 with one line naming the network and nothing on stdout; the
# range skips the static file's keys. vnet_delete succeeds.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/oneib.sh"

stock_vmm "$TEST_TMP/inst" # scripts_common.sh, as on the front-end
install_tree "$TEST_TMP/inst" 2>/dev/null
R=$TEST_TMP/inst/var/lib/one/remotes
assert_ok "vnet_create installed" -- test -x "$R/vnm/ib/vnet_create"
assert_ok "ibrc installed" -- test -f "$R/etc/vnm/ib/ibrc"

# onevnet: `onevnet list -x` prints $TEST_TMP/pool.xml; with
# $TEST_TMP/onevnet.down it fails as the CLI does when oned is away.
mkdir -p "$TEST_TMP/bin"
cat >"$TEST_TMP/bin/onevnet" <<EOF
#!/bin/sh
[ "\$*" = "list -x" ] || { echo "onevnet stand-in: unexpected \$*" >&2; exit 2; }
if [ -e "$TEST_TMP/onevnet.down" ]; then
	echo "Failed to open TCP connection to localhost:2633" >&2
	exit 255
fi
cat "$TEST_TMP/pool.xml"
EOF
chmod +x "$TEST_TMP/bin/onevnet"

# vnet ID NAME [ATTR=VALUE...]: the <VNET> oned hands to vnet_create.
vnet() {
	local id=$1 name=$2 kv
	shift 2
	printf '<VNET><ID>%s</ID><UID>3</UID><GID>101</GID><UNAME>alice</UNAME><GNAME>hpc</GNAME>' "$id"
	printf '<NAME><![CDATA[%s]]></NAME><BRIDGE><![CDATA[]]></BRIDGE><BRIDGE_TYPE><![CDATA[none]]></BRIDGE_TYPE>' "$name"
	printf '<STATE>2</STATE><VN_MAD><![CDATA[ib]]></VN_MAD><TEMPLATE>'
	for kv in "$@"; do
		printf '<%s><![CDATA[%s]]></%s>' "${kv%%=*}" "${kv#*=}" "${kv%%=*}"
	done
	printf '<VN_MAD><![CDATA[ib]]></VN_MAD><AR><TYPE><![CDATA[ETHER]]></TYPE><SIZE><![CDATA[16]]></SIZE></AR>'
	printf '</TEMPLATE><AR_POOL/></VNET>\n'
}

# pool ID:NAME:VN_MAD:IB_PKEY...: $TEST_TMP/pool.xml (IB_PKEY may be empty).
pool() {
	local e id name mad key
	{
		echo '<VNET_POOL>'
		for e in "$@"; do
			IFS=: read -r id name mad key <<<"$e"
			printf '<VNET><ID>%s</ID><NAME><![CDATA[%s]]></NAME><VN_MAD><![CDATA[%s]]></VN_MAD><TEMPLATE>' "$id" "$name" "$mad"
			[ -n "$key" ] && printf '<IB_PKEY><![CDATA[%s]]></IB_PKEY>' "$key"
			printf '</TEMPLATE></VNET>\n'
		done
		echo '</VNET_POOL>'
	} >"$TEST_TMP/pool.xml"
}

# vnet_create ID NAME [ATTR=VALUE...]: vnet_create as one_ipam runs it.
vnet_create() {
	vnet "$@" | base64 -w0 | PATH="$TEST_TMP/bin:$PATH" "$R/vnm/ib/vnet_create" "$1"
}
# create ...: the same, stdout and stderr in $TEST_TMP/out and
# $TEST_TMP/err, the exit status in $rc.
create() {
	vnet_create "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
	rc=$?
}

accepted() { # MSG EXPECTED_IB_PKEY ID NAME [ATTR=VALUE...]
	local msg=$1 want=$2
	shift 2
	create "$@"
	assert_eq 0 "$rc" "$msg: exit status"
	assert_eq "IB_PKEY=\"$want\"" "$(cat "$TEST_TMP/out")" "$msg: stdout is exactly the IB_PKEY line"
	assert_eq "" "$(cat "$TEST_TMP/err")" "$msg: nothing on stderr"
}

refused() { # MSG REGEX ID NAME [ATTR=VALUE...]
	local msg=$1 re=$2
	shift 2
	assert_refused --rc 1 "$msg" "^VNET 7( \(tenant-b\))?: $re" -- vnet_create "$@"
}

# The pool as oned has it while VNET 7 is in LOCK_CREATE: itself, two IB
# networks holding partitions 0x0101 and 0x0100 (written limited member),
# and a bridge network whose IB_PKEY means nothing.
pool 0:public:bridge:0x8102 5:tenant-a:ib:0x8101 6:tenant-c:ib:0x0100 7:tenant-b:ib:

accepted "hex, full member" 0x8102 7 tenant-b IB_PKEY=0x8102
accepted "hex, upper case" 0x8abc 7 tenant-b IB_PKEY=0X8ABC
accepted "decimal with the membership bit" 0x8102 7 tenant-b IB_PKEY=33026
accepted "outside IB_PKEY_RANGE is fine when asked for" 0xfffe 7 tenant-b IB_PKEY=0xfffe
accepted "every optional attribute" 0x8102 7 tenant-b IB_PKEY=0x8102 IB_MTU=4096 \
	IB_RATE=7 IB_SL=1 IB_MODE=connected IB_PF=0000:3b:00.0 IB_PORT=1
accepted "IB_MODE datagram, IB_MTU 2048" 0x8102 7 tenant-b IB_PKEY=0x8102 IB_MTU=2048 IB_MODE=datagram

refused "duplicate of tenant-a" "IB_PKEY 0x8101 is partition 0x0101, already used by VNET 5 \(tenant-a\)" \
	7 tenant-b IB_PKEY=0x8101
refused "duplicate of a key stored limited member" "IB_PKEY 0x8100 is partition 0x0100, already used by VNET 6 \(tenant-c\)" \
	7 tenant-b IB_PKEY=0x8100

# the limited form is refused, never read as full membership (finding 4)
refused "limited member" "IB_PKEY '0x0102' is a limited-member key \(write 0x8102" 7 tenant-b IB_PKEY=0x0102
refused "limited member in decimal" "IB_PKEY '258' is a limited-member key \(write 0x8102" 7 tenant-b IB_PKEY=258
refused "out of range 0x10000" "IB_PKEY '0x10000' is not a P_Key: more than 16 bits" 7 tenant-b IB_PKEY=0x10000
refused "out of range 65536" "IB_PKEY '65536' is not a P_Key: more than 16 bits" 7 tenant-b IB_PKEY=65536
refused "negative" "IB_PKEY '-1' is not a P_Key" 7 tenant-b IB_PKEY=-1
refused "not a number" "IB_PKEY 'abc' is not a P_Key" 7 tenant-b IB_PKEY=abc
refused "default partition 0x7fff" "IB_PKEY '0x7fff' is the default partition" 7 tenant-b IB_PKEY=0x7fff
refused "default partition 0xffff" "IB_PKEY '0xffff' is the default partition" 7 tenant-b IB_PKEY=0xffff
refused "default partition in decimal" "IB_PKEY '65535' is the default partition" 7 tenant-b IB_PKEY=65535
refused "zero" "IB_PKEY '0' is partition 0, which is invalid" 7 tenant-b IB_PKEY=0
refused "zero with the membership bit" "IB_PKEY '0x8000' is partition 0, which is invalid" 7 tenant-b IB_PKEY=0x8000

# every attribute the renderer reads, by its rules: IB_RATE and IB_SL too
refused "IB_MTU not an IB MTU" "IB_MTU '9000' is not 256, 512, 1024, 2048 or 4096" 7 tenant-b IB_PKEY=0x8102 IB_MTU=9000
refused "IB_MTU empty" "IB_MTU '' is not 256" 7 tenant-b IB_PKEY=0x8102 IB_MTU=
refused "IB_MTU twice" "IB_MTU given twice" 7 tenant-b IB_PKEY=0x8102 IB_MTU=2048 IB_MTU=4096
refused "IB_RATE 100" "IB_RATE '100' is not a rate code 2..24" 7 tenant-b IB_PKEY=0x8102 IB_RATE=100
refused "IB_SL 16" "IB_SL '16' is not a service level 0..15" 7 tenant-b IB_PKEY=0x8102 IB_SL=16
refused "IB_MODE" "IB_MODE 'ud' is not datagram or connected" 7 tenant-b IB_PKEY=0x8102 IB_MODE=ud
refused "IB_PF short form" "IB_PF '3b:00.0' is not a PCI address" 7 tenant-b IB_PKEY=0x8102 IB_PF=3b:00.0
refused "IB_PF path" "IB_PF '../../x' is not a PCI address" 7 tenant-b IB_PKEY=0x8102 IB_PF=../../x
refused "IB_PORT 0" "IB_PORT '0' is not a port number 1..9" 7 tenant-b IB_PKEY=0x8102 IB_PORT=0
refused "IB_PORT 10" "IB_PORT '10' is not a port number 1..9" 7 tenant-b IB_PKEY=0x8102 IB_PORT=10
refused "IB_PKEY twice" "IB_PKEY given twice" 7 tenant-b IB_PKEY=0x8102 IB_PKEY=0x8103

# No IB_PKEY: the lowest partition of 0x0100-0x01ff no IB network holds
# (0x0100 and 0x0101 are taken; the bridge network's 0x8102 is not).
accepted "missing: lowest free in the range" 0x8102 7 tenant-b
accepted "empty: same as missing" 0x8102 7 tenant-b IB_PKEY=
pool 5:tenant-a:ib:0x8101 6:tenant-c:ib:0x0100 7:tenant-b:ib:0x8104
accepted "its own entry in the pool does not count (a retried create)" 0x8104 7 tenant-b IB_PKEY=0x8104
pool 5:tenant-a:ib:0x8101 6:tenant-c:ib:0x0100 8:tenant-d:ib:0x8102 9:tenant-e:ib:0x0104 7:tenant-b:ib:
accepted "missing: skips every used key" 0x8103 7 tenant-b

sed -i 's/^IB_PKEY_RANGE=.*/IB_PKEY_RANGE="0x0100-0x0102"/' "$R/etc/vnm/ib/ibrc"
refused "range exhausted" "no free P_Key in IB_PKEY_RANGE 0x0100-0x0102 \(all 3 held by other InfiniBand networks or the static file\)" \
	7 tenant-b
accepted "range exhausted, but a key given" 0x8105 7 tenant-b IB_PKEY=0x8105
sed -i 's/^IB_PKEY_RANGE=.*/IB_PKEY_RANGE="0x7f00-0x7fff"/' "$R/etc/vnm/ib/ibrc"
refused "range reaching the default partition" "IB_PKEY_RANGE '0x7f00-0x7fff' in etc/vnm/ib/ibrc is not LO-HI" \
	7 tenant-b
sed -i 's/^IB_PKEY_RANGE=.*/IB_PKEY_RANGE="0x8200-0x82ff"/' "$R/etc/vnm/ib/ibrc"
accepted "range written full member" 0x8200 7 tenant-b

# A service network (design decision 11): its attributes by their rules.
pool 5:tenant-a:ib:0x8101 7:tenant-b:ib:
accepted "a service network" 0x8109 7 tenant-b IB_PKEY=0x8109 IB_MEMBERSHIP=limited \
	"IB_SERVICE_GUIDS=0x0002c903000a0001, 0x0002c903000b0001"
refused "IB_MEMBERSHIP" "IB_MEMBERSHIP 'half' is not full or limited" 7 tenant-b IB_PKEY=0x8109 IB_MEMBERSHIP=half
refused "a tenant VF as an endpoint" "IB_SERVICE_GUIDS '0x02000000000a0001' has 0x02000000000a0001 \(VM 10 NIC 1\), a tenant VF's GUID: never a service endpoint" \
	7 tenant-b IB_PKEY=0x8109 IB_SERVICE_GUIDS=0x02000000000a0001
refused "IB_SERVICE_PARTITION without a static file" "IB_SERVICE_PARTITION 'storage' is no partition of the static file \(none: ONEIB_PARTITIONS_STATIC in etc/vnm/ib/ibrc\)" \
	7 tenant-b IB_PKEY=0x8109 IB_SERVICE_PARTITION=storage

# The operator's static file: its keys are reserved. Its default path is
# /etc/one/ib/partitions.static.conf (none there: no static file); a path
# set in ibrc must be there.
cat >"$TEST_TMP/static.conf" <<'EOS'
# the site's own
storage=0x0200, ipoib : 0x0002c903000a0001=full ;
infra=0x0201 : 0x0002c903000c0001=full ;
EOS
echo "ONEIB_PARTITIONS_STATIC=$TEST_TMP/static.conf" >>"$R/etc/vnm/ib/ibrc"
refused "a key of the static file" "IB_PKEY 0x8200 is partition 0x0200, the static file's \(storage\)$" \
	7 tenant-b IB_PKEY=0x8200
refused "the same, limited form in the file's view" "IB_PKEY 0x8201 is partition 0x0201, the static file's \(infra\)$" \
	7 tenant-b IB_PKEY=0x8201
accepted "IB_PKEY_RANGE skips the static file's keys" 0x8202 7 tenant-b
accepted "IB_SERVICE_PARTITION of the static file" 0x8109 7 tenant-b IB_PKEY=0x8109 \
	IB_MEMBERSHIP=limited IB_SERVICE_PARTITION=storage
refused "IB_SERVICE_PARTITION not in it" "IB_SERVICE_PARTITION 'nas' is no partition of the static file$" \
	7 tenant-b IB_PKEY=0x8109 IB_SERVICE_PARTITION=nas
echo 'broken=0x0300 : ALL=full ;' >>"$TEST_TMP/static.conf"
refused "a static file that breaks its rules" ".*static.conf line 4: ALL=full would make every tenant VF a full member of broken \(0x0300\)$" \
	7 tenant-b IB_PKEY=0x8109
echo "ONEIB_PARTITIONS_STATIC=$TEST_TMP/no-such.conf" >>"$R/etc/vnm/ib/ibrc"
refused "a static file set and missing" ".*no-such.conf: No such file or directory$" 7 tenant-b IB_PKEY=0x8109
sed -i '/^ONEIB_PARTITIONS_STATIC=/d' "$R/etc/vnm/ib/ibrc"

: >"$TEST_TMP/onevnet.down"
refused "oned unreachable" "cannot list the virtual networks \(onevnet list -x\): Failed to open TCP" 7 tenant-b IB_PKEY=0x8102
rm -f "$TEST_TMP/onevnet.down"
echo '<VNET_POOL><VNET><ID>5</ID>' >"$TEST_TMP/pool.xml"
refused "pool cut short" ".*pool.xml: .*<VNET_POOL> has no end tag$" 7 tenant-b IB_PKEY=0x8102
echo '<VNET_POOL><VNET><ID>5</ID></VNET_POOL>' >"$TEST_TMP/pool.xml"
refused "pool not XML" ".*pool.xml: not well-formed XML" 7 tenant-b IB_PKEY=0x8102

pool 5:tenant-a:ib:0x8101
printf 'not base64!' | PATH="$TEST_TMP/bin:$PATH" "$R/vnm/ib/vnet_create" 7 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 1 $? "stdin not Base64: exit status 1"
assert_eq "VNET 7: the VNET XML on stdin is not Base64" "$(cat "$TEST_TMP/err")" "stdin not Base64: one line"
vnet 7 tenant-b IB_PKEY=0x8102 | base64 -w0 |
	PATH="$TEST_TMP/bin:$PATH" "$R/vnm/ib/vnet_create" 7x >"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 1 $? "a VNET ID that is no number: exit status 1"
assert_eq "--id '7x': not a VNET ID" "$(cat "$TEST_TMP/err")" "a VNET ID that is no number: one line naming it"
vnet 8 tenant-x IB_PKEY=0x8102 | base64 -w0 |
	PATH="$TEST_TMP/bin:$PATH" "$R/vnm/ib/vnet_create" 7 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 1 $? "XML of another network: exit status 1"
assert_eq "VNET 7: the VNET XML describes VNET 8" "$(cat "$TEST_TMP/err")" "XML of another network: reason"
printf '%s' "$(printf '<!DOCTYPE VNET [<!ENTITY x "0x8102">]><VNET><ID>7</ID><TEMPLATE><IB_PKEY>&x;</IB_PKEY></TEMPLATE></VNET>' | base64 -w0)" |
	PATH="$TEST_TMP/bin:$PATH" "$R/vnm/ib/vnet_create" 7 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 1 $? "DOCTYPE: exit status 1"
assert_match "^VNET 7 XML: DOCTYPE refused" "$(cat "$TEST_TMP/err")" "DOCTYPE: refused"

vnet 7 tenant-b IB_PKEY=0x8102 | base64 -w0 | "$R/vnm/ib/vnet_delete" 7 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
assert_eq 0 $? "vnet_delete succeeds"
assert_eq "" "$(cat "$TEST_TMP/out" "$TEST_TMP/err")" "vnet_delete prints nothing"
test_done
