#!/bin/bash
# The guard of the house rules (tests/house-rules.sh, make check) catches
# what it is there for, each time naming the file and what broke the rule:
# on a copy of helpers/ that holds, a planted include that runs from root/
# or guest/ into another room, from fabric/ into root/ beyond the
# partitions grammar, from core/ anywhere, a module outside the rooms; and
# on a copy of the built tools, a root helper that needs libxml2 and a
# guest tool that needs libpci.
. "$(dirname "$0")/../lib/test-lib.sh"

CHECK=$TOP/tests/house-rules.sh
BIN=$TOP/build/bin
[ -x "$BIN/oneib-pkey" ] || die "tools not built (make)"

src=$TEST_TMP/helpers
cp -r "$TOP/helpers" "$src"
assert_ok "the tree as it is keeps every rule" -- bash "$CHECK" --src "$src" --bin "$BIN"
assert_eq "" "$(cat "$LAST_OUT")" "and says nothing"

# plant FILE LINE: add an include line at the top of a copy of FILE, check,
# and put the file back.
plant() {
	cp "$src/$1" "$TEST_TMP/saved"
	sed -i "1a $2" "$src/$1"
	bash "$CHECK" --src "$src" --bin '' >"$TEST_TMP/out" 2>&1
	echo $? >"$TEST_TMP/rc"
	cp "$TEST_TMP/saved" "$src/$1"
}
planted() { # FILE INCLUDE REGEX MSG
	plant "$1" "#include \"$2\""
	assert_eq 1 "$(cat "$TEST_TMP/rc")" "$4: the check fails"
	assert_eq 1 "$(grep -c . "$TEST_TMP/out")" "$4: one line"
	assert_match "$3" "$(cat "$TEST_TMP/out")" "$4: names the file, the line and the include"
}

planted lib/root/vfmap.c host/hca.h \
	'lib/root/vfmap\.c:2: includes "host/hca\.h"; root may include only core/ root/$' \
	"root/ including host/"
planted lib/guest/guest.c fabric/partitions.h \
	'lib/guest/guest\.c:2: includes "fabric/partitions\.h"; guest may include only core/ guest/$' \
	"guest/ including fabric/"
planted lib/guest/rtnl.h root/netlink.h \
	'lib/guest/rtnl\.h:2: includes "root/netlink\.h"' "a guest/ header including root/"
planted lib/fabric/partitions.c root/opensm.h \
	'lib/fabric/partitions\.c:2: includes "root/opensm\.h"; fabric may include only core/ fabric/ root/partconf\.h root/qospolicy\.h$' \
	"fabric/ including root/ beyond the partitions grammar"
planted lib/core/log.c host/lease.h \
	'lib/core/log\.c:2: includes "host/lease\.h"; core may include only core/$' "core/ including host/"
planted oneib-pkey.c host/hca.h \
	'oneib-pkey\.c:2: includes "host/hca\.h"; oneib-pkey may include only core/ root/$' \
	"the root helper's main including host/"
plant lib/fabric/partitions.c '#include "root/partconf.h"'
assert_eq 0 "$(cat "$TEST_TMP/rc")" "fabric/ may include the partitions grammar"

: >"$src/lib/stray.c"
assert_fail "a module outside the rooms" -- bash "$CHECK" --src "$src" --bin ''
assert_match 'lib/stray\.c: outside the rooms' "$(cat "$LAST_OUT")" "is named"
rm "$src/lib/stray.c"

# The libraries: copies of the built tools, two of them swapped for
# programs that need what they may not.
bin=$TEST_TMP/bin
cp -r "$BIN" "$bin"
printf '#include <libxml/parser.h>\nint main(void) { xmlInitParser(); return 0; }\n' >"$TEST_TMP/x.c"
read -ra xml_cflags <<<"$(pkg-config --cflags libxml-2.0)"
cc "${xml_cflags[@]}" -o "$bin/oneib-pkey" "$TEST_TMP/x.c" -lxml2 || die "cannot build the stand-in"
printf '#include <pci/pci.h>\nint main(void) { pci_cleanup(pci_alloc()); return 0; }\n' >"$TEST_TMP/p.c"
cc -o "$bin/oneib-context" "$TEST_TMP/p.c" -lpci || die "cannot build the stand-in"
assert_fail "tools needing libraries they may not" -- bash "$CHECK" --src "$TOP/helpers" --bin "$bin"
assert_match '/bin/oneib-pkey: needs libxml2\.so\.2; oneib-pkey may need only libc\.so\.6$' \
	"$(cat "$LAST_OUT")" "the root helper linking libxml2 is named, with the library"
assert_match '/bin/oneib-context: needs libpci\.so\.3; oneib-context may need only libc\.so\.6 libibverbs\.so\.1 libibumad\.so\.3$' \
	"$(cat "$LAST_OUT")" "the guest tool linking libpci is named, with the library"
assert_eq 2 "$(grep -c . "$LAST_OUT")" "nothing else is"
test_done
