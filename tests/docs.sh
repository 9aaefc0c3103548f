#!/bin/bash
# The documentation against the code (issue 31), run by make check (job
# "docs"); each breach is one line naming the file and what to do:
#   settings   one-ib.conf(5) names every setting the code reads, and none
#              it does not. What the code reads is found in it, never kept
#              in a list here: getenv("ONEIB_...") in helpers/, a shell
#              read with a default (${ONEIB_X:=...}, ${ONEIB_X-...},
#              ${IB_X:-...}) in remotes/, an assignment (or a commented
#              one) in remotes/etc/, and the network attributes of
#              helpers/lib/core/ibattr.c's ib_attr_name table. The page
#              names a setting as a .TP term in bold (\fBONEIB_X\fR).
#   pages      every page of ours a message, a script, a template or a page
#              names ("see one-ib-qos(7)") is a page in doc/ that a package
#              ships (drivers/files.list), and every tool has its page.
#   sections   nothing quotes INSTALL by section number: messages name a
#              page (renumbering INSTALL broke them).
#   messages   every message one-ib-troubleshooting(7) quotes is in the
#              code: between its "..." (what varies), the text of C
#              strings (adjacent literals joined) or scripts, cut where the
#              code puts a value in (tests/docs-messages.pl). A term
#              whose text starts "OpenNebula's" or "libvirt's" is theirs.
#   render     every page renders without a warning, as lintian reads them
#              (man --warnings).
#
#   bash tests/docs.sh [--top DIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ "${1:-}" != --top ] || top=$2
cd "$top" || exit 2
fail=0
bad() { echo "docs: $*"; fail=1; }

# --- settings --------------------------------------------------------------------
code_settings() {
	{
		grep -rhoE 'getenv\("(ONEIB|IB)_[A-Z0-9_]+"\)' helpers --include='*.c' |
			sed -E 's/getenv\("([^"]*)"\)/\1/'
		grep -rhoE '\$\{(ONEIB|IB)_[A-Z0-9_]+:?[-=]' remotes | sed -E 's/^\$\{([A-Z0-9_]+).*/\1/'
		grep -rhoE '^#?(ONEIB|IB)_[A-Z0-9_]+=' remotes/etc | tr -d '#='
		sed -nE 's/^[[:space:]]*\[IBA_[A-Z_]+\] = "(IB_[A-Z_]+)",$/\1/p' helpers/lib/core/ibattr.c
	} | sort -u
}
page_settings() {
	awk 'prev == ".TP" && /^\\fB(ONEIB|IB)_[A-Z0-9_]+\\fR$/ { s = $0; gsub(/\\f[BR]/, "", s); print s }
		{ prev = $0 }' doc/one-ib.conf.5 | sort -u
}
# where the code reads NAME, for the message
where_read() { # NAME
	grep -rlE "getenv\(\"$1\"\)|\\$\\{$1:?[-=]|^#?$1=|\"$1\"" helpers remotes 2>/dev/null |
		grep -v '\.o$' | head -n 3 | xargs | sed 's/ /, /g'
}
if [ ! -f doc/one-ib.conf.5 ]; then
	bad "doc/one-ib.conf.5 is missing: the page of every setting"
else
	code=$(code_settings) page=$(page_settings)
	[ -n "$code" ] || bad "found no setting in the code: tests/docs.sh no longer knows how it reads them"
	for s in $(comm -23 <(echo "$code") <(echo "$page")); do
		bad "doc/one-ib.conf.5 lacks $s, which $(where_read "$s") reads: add it (default, who reads it, an example)"
	done
	for s in $(comm -13 <(echo "$code") <(echo "$page")); do
		bad "doc/one-ib.conf.5 names $s, which no code reads: take it out, or read it"
	done
fi

# --- pages -----------------------------------------------------------------------
# NAME(N) of ours in FILE...: one-ib*, oneib-*; roff's \- and fonts taken off
page_refs() {
	sed -E -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/^\.B[RI] ([^ ]+) \(([1-9])\).*/\1(\2)/' "$@" 2>/dev/null |
		grep -oE '\b(one-ib|oneib)[a-z.-]*\([1-9]\)' | sort -u
}
# the pages files.list installs, its globs (doc/one-ib*.7) expanded
# shellcheck disable=SC2086 # the globs
shipped=$(sed -e 's/#.*//' drivers/files.list | awk '$3 ~ /^doc\// { print $3 }' |
	while read -r g; do printf '%s\n' $g; done)
# where pages are named: what ships, what the packages say, the tests
scope=(helpers remotes drivers guest templates debian doc README.md INSTALL tests)
mapfile -t named_in < <(find "${scope[@]}" -type f)
for ref in $(page_refs "${named_in[@]}"); do
	name=${ref%(*} sec=${ref#*(} sec=${sec%)}
	f=doc/$name.$sec
	if [ ! -f "$f" ]; then
		bad "$ref is named ($(grep -rlF -e "$name($sec)" -e "${name//-/\\-}($sec)" -e "$name ($sec)" "${scope[@]}" 2>/dev/null | head -n 3 | xargs)) but there is no $f"
	elif ! printf '%s\n' "$shipped" | grep -qx "$f"; then
		bad "$f is named but no package ships it: add it to drivers/files.list"
	fi
done
# the Makefile's TOOLS, its continuation lines joined
tools=$(awk '/^TOOLS[[:space:]]*:=/ { on = 1; sub(/^TOOLS[[:space:]]*:=/, "") }
	on { l = $0; more = sub(/\\$/, "", l); print l; if (!more) exit }' Makefile)
[ -n "$tools" ] || bad "found no TOOLS in the Makefile: tests/docs.sh no longer knows the tools"
for t in $tools; do
	ls doc/"$t".[18] >/dev/null 2>&1 || bad "the tool $t has no page doc/$t.8 (or .1)"
done
[ -f doc/oneib-partitions-sync.8 ] || bad "the front-end hook has no page doc/oneib-partitions-sync.8"
for f in doc/*.[1-8]; do
	printf '%s\n' "$shipped" | grep -qx "$f" || bad "$f: no package ships it (drivers/files.list)"
done

# --- sections --------------------------------------------------------------------
grep -rnE '(^|[^A-Za-z_\-])INSTALL[, ]*(section )?[0-9]+(\.[0-9]+)*\b|INSTALL, section' helpers remotes drivers guest templates debian doc tests \
	--include='*.[ch]' --include='*.sh' --include='*.tmpl' --include='*rc' --include='*.[1-8]' --include='*.md' \
	--include='oneib-*' --include='loc-*' --include='*.postinst' 2>/dev/null |
	grep -v '^tests/docs.sh:' | while IFS= read -r l; do
		echo "docs: ${l%%:*}:$(echo "$l" | cut -d: -f2): quotes INSTALL by its section number; name a page instead (e.g. one-ib-qos(7))"
	done | grep . && fail=1

# --- messages --------------------------------------------------------------------
# tests/docs-messages.pl: each .TP term of the page is one message, made of
# the code's text where the page writes no "..."
if [ -f doc/one-ib-troubleshooting.7 ]; then
	mapfile -t code < <(find helpers -name '*.c'; find remotes guest -type f)
	perl tests/docs-messages.pl doc/one-ib-troubleshooting.7 "${code[@]}" || fail=1
else
	bad "doc/one-ib-troubleshooting.7 is missing"
fi

# --- render ----------------------------------------------------------------------
for f in doc/*.[1-8]; do
	w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null)
	[ -z "$w" ] || bad "$f: man --warnings: $(echo "$w" | head -n 1)"
done
[ "$fail" = 0 ] && echo "docs: the settings, pages, messages and man pages agree with the code"
exit "$fail"
