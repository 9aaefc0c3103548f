#!/bin/bash
# The two-host simulated cloud the life-cycle tests run on (tests/lib/
# hosts.sh) and its stand-ins are what they claim: each host has its own
# /var/lib/one and libvirt, ssh reaches the other host's namespace; the
# virsh stand-in, standing in for device hot-plug, restore --xml and
# migration (which libvirt 9.0's test driver lacks), applies them to the
# running test domain, and refuses what libvirt's QEMU driver refuses
# (negative controls: a hostdev with PCI function 0x9, the same VF twice, a
# device that is not there, a migration of a domain holding a PCI hostdev,
# a restore XML that does not parse), so the validation really validates.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TOP/tests/lib/hosts.sh"
sim_two_hvs cx5

# --- hosts and ssh
on hv2 touch /var/lib/one/only-on-hv2
assert_fail "hv1 has its own /var/lib/one" -- on hv1 test -e /var/lib/one/only-on-hv2
assert_ok "ssh hv2 runs there" -- on hv1 ssh hv2 test -e /var/lib/one/only-on-hv2
assert_ok "stdin passes through ssh" -- on hv1 bash -c 'echo hello | ssh hv2 "cat > /var/lib/one/greeting"'
assert_eq hello "$(on hv2 cat /var/lib/one/greeting)" "and lands on hv2"
on hv1 ssh nohost true 2>"$TEST_TMP/err"
assert_eq 255 $? "ssh to an unknown host fails as ssh does"
assert_match "Could not resolve hostname nohost" "$(cat "$TEST_TMP/err")" "saying why"
assert_ok "the remotes are synced to /var/tmp/one on each host" -- on hv2 test -x /var/tmp/one/vmm/kvm-ib/migrate
domain_xml 42 02:00:c0:a8:01:05 >"$TEST_TMP/d42.xml"
on hv1 virsh create "$TEST_TMP/d42.xml" >/dev/null
assert_ok "a domain on hv1" -- on hv1 virsh domstate one-42
assert_fail "is not on hv2" -- on hv2 virsh domstate one-42

# --- hot-plug through the stand-in
hd() { # FUNCTION [SLOT]
	printf '<hostdev mode="subsystem" type="pci" managed="yes"><source><address domain="0x0000" bus="0x3b" slot="0x%s" function="0x%s"/></source></hostdev>\n' "${2:-00}" "$1" >"$TEST_TMP/hd$1.xml"
	echo "$TEST_TMP/hd$1.xml"
}
uuid=$(on hv1 virsh domuuid one-42 | sed '/^$/d')
assert_ok "attach-device of a VF" -- on hv1 virsh attach-device one-42 "$(hd 2)"
assert_match "bus='0x3b' slot='0x00' function='0x2'" "$(on hv1 virsh dumpxml one-42)" "the running domain holds it"
assert_eq "$uuid" "$(on hv1 virsh domuuid one-42 | sed '/^$/d')" "same domain (UUID)"
assert_match "^validated attach-device one-42: <hostdev" "$(tail -n 1 "$SIM_HOSTS/standin.log")" "validated by the QEMU driver first"
assert_fail "the same VF again is refused" -- on hv1 virsh attach-device one-42 "$(hd 2)"
assert_match "already" "$(cat "$LAST_ERR")" "with the QEMU driver's reason"
assert_fail "a hostdev with PCI function 0x9 is refused" -- on hv1 virsh attach-device one-42 "$(hd 9)"
assert_match "Invalid PCI address function=0x9" "$(cat "$LAST_ERR")" "with the QEMU driver's reason"
assert_eq 1 "$(on hv1 virsh dumpxml one-42 | grep -c '<hostdev')" "refusals changed nothing"
assert_fail "detach-device of a device not in the domain is refused" -- on hv1 virsh detach-device one-42 "$(hd 3)"
assert_match "not found|not present" "$(cat "$LAST_ERR")" "device not found"

# --- migration: refused with a PCI hostdev, as libvirt refuses it
assert_fail "migrate with a hostdev is refused" -- on hv1 virsh migrate --live one-42 qemu+ssh://hv2/system
assert_match "cannot migrate a domain with <hostdev mode='subsystem' type='pci'>" "$(cat "$LAST_ERR")" "libvirt's reason"
assert_ok "detach-device" -- on hv1 virsh detach-device one-42 "$(hd 2)"
assert_eq 0 "$(on hv1 virsh dumpxml one-42 | grep -c '<hostdev')" "the domain no longer holds it"
assert_ok "migrate without" -- on hv1 virsh migrate --live one-42 qemu+ssh://hv2/system
assert_fail "the domain left hv1" -- on hv1 virsh domstate one-42
assert_eq "$uuid" "$(on hv2 virsh domuuid one-42 | sed '/^$/d')" "and runs on hv2, same UUID"
inject migrate-fails
assert_fail "an injected migration failure" -- on hv2 virsh migrate --live one-42 qemu+ssh://hv1/system
uninject migrate-fails
assert_ok "leaves the domain where it was" -- on hv2 virsh domstate one-42
assert_fail "and nothing on the destination" -- on hv1 virsh domstate one-42
assert_ok "migrate from the front-end (qemu+ssh:// source)" -- \
	virsh --connect qemu+ssh://hv2/system migrate --live one-42 qemu+ssh://hv1/system
assert_ok "the domain is on hv1 again" -- on hv1 virsh domstate one-42

# --- restore --xml
assert_ok "save" -- on hv1 virsh save one-42 /var/lib/one/datastores/ckpt
on hv1 virsh save-image-dumpxml /var/lib/one/datastores/ckpt >"$TEST_TMP/ckpt.xml"
sed -i 's|<memory unit=.KiB.>1048576</memory>|<memory unit="KiB">2097152</memory>|' "$TEST_TMP/ckpt.xml"
cp "$TEST_TMP/ckpt.xml" "$TEST_TMP/bad.xml"
echo '<oops' >>"$TEST_TMP/bad.xml"
assert_fail "restore --xml with a broken XML is refused" -- \
	on hv1 virsh restore /var/lib/one/datastores/ckpt --xml "$TEST_TMP/bad.xml"
assert_fail "nothing restored" -- on hv1 virsh domstate one-42
assert_ok "restore --xml" -- on hv1 virsh restore /var/lib/one/datastores/ckpt --xml "$TEST_TMP/ckpt.xml"
assert_match "<memory unit='KiB'>2097152</memory>" "$(on hv1 virsh dumpxml one-42)" "with the XML given, not the image's"

# --- save, when virsh 9.0 loses its job watcher's wakeup (the top of
# standin/virsh): a real virsh that saves, then waits for ever, as the hung
# one did; and one that fails, then waits
cat >"$TEST_TMP/virsh-lost-wakeup" <<'EOF'
#!/bin/bash
case " $* " in *" save "*) /usr/bin/virsh "$@" >/dev/null; exec sleep 600 ;; esac
exec /usr/bin/virsh "$@"
EOF
chmod +x "$TEST_TMP/virsh-lost-wakeup"
lost() { on hv1 env SIM_VIRSH_REAL="$TEST_TMP/virsh-lost-wakeup" virsh "$@"; }
rm -f "$TEST_TMP/shared-ds/ckpt"
assert_eq "Domain 'one-42' saved to /var/lib/one/datastores/ckpt" "$(lost save one-42 /var/lib/one/datastores/ckpt | sed '/^$/d')" \
	"a save whose virsh never returns: saved, as virsh would have said"
assert_fail "the domain was saved" -- on hv1 virsh domstate one-42
assert_match "TestGuestMagic" "$(head -c 14 "$TEST_TMP/shared-ds/ckpt")" "into the file"
assert_match "^virsh save one-42: ended, waiting after one-42 was saved to " "$(tail -n 1 "$SIM_HOSTS/standin.log")" \
	"the stand-in says it ended that virsh"
assert_eq "" "$(pgrep -f 'sleep 600')" "and it is gone"
assert_fail "a failed save whose virsh never returns" -- lost save one-42 /var/lib/one/datastores/ckpt2
assert_match "failed to get domain 'one-42'" "$(cat "$LAST_ERR")" "fails, with virsh's error"
assert_match "^virsh save one-42: ended, waiting after its error" "$(tail -n 1 "$SIM_HOSTS/standin.log")" "said"
assert_ok "restore" -- on hv1 virsh restore /var/lib/one/datastores/ckpt
assert_eq "Domain 'one-42' saved to /var/lib/one/datastores/ckpt" "$(on hv1 virsh save one-42 /var/lib/one/datastores/ckpt | sed '/^$/d')" \
	"a save whose virsh returns: its own answer"
assert_match "^virsh save one-42: ended" "$(tail -n 1 "$SIM_HOSTS/standin.log")" "(the log as before)"
test_done
