#!/bin/bash
# tests/shellcheck.sh FILE...: `shellcheck -x -S warning` of every FILE,
# run only for the files whose result is not known already: a clean
# result is kept in $ONEIB_CACHE/shellcheck (default
# /var/cache/one-ib/shellcheck), under a key of shellcheck's version, the
# file's path and content, and the content of every library a FILE sources
# (the files of the list, or beside them, whose names a `.`/`source` line
# or a `shellcheck source=` directive gives: -x reads them too). A change to
# a library checks every file again; a change to a script, that script.
# A file with findings is never kept: its findings show at every run.
# The files left are checked on every core at once.
# Exit status: shellcheck's (0 when every file is clean).
set -u
[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
command -v shellcheck >/dev/null || { echo "shellcheck not found (make deps)" >&2; exit 1; }
cache=${ONEIB_CACHE:-/var/cache/one-ib}/shellcheck
mkdir -p "$cache" 2>/dev/null || cache=

# the libraries: every file a script of the list may source, by name
names=$(grep -hoE '^[[:space:]]*(\.|source)[[:space:]].*|shellcheck source=[^ ]+' "$@" 2>/dev/null |
	grep -oE '[A-Za-z0-9_.-]+\.sh' | sort -u)
libs=()
for f in "$@"; do
	printf '%s\n' "$names" | grep -qxF "${f##*/}" && libs+=("$f")
done
libsum=$({
	shellcheck --version
	[ ${#libs[@]} -eq 0 ] || sha256sum "${libs[@]}"
} | sha256sum | cut -c1-16)

todo=() keys=()
for f in "$@"; do
	if [ -n "$cache" ]; then
		k=$( { echo "$libsum $f"; cat "$f"; } | sha256sum | cut -c1-32)
		[ -e "$cache/$k" ] && continue
		keys+=("$k")
	fi
	todo+=("$f")
done
echo "shellcheck: ${#todo[@]} of $# files to check ($(($# - ${#todo[@]})) known clean)"
[ ${#todo[@]} -gt 0 ] || exit 0

# every core at once, the files split between them (one shellcheck reads
# a library once for all its files: a process per file took twice the
# CPU); the files a finding names are the ones not kept, and their
# findings are shown as shellcheck shows them
rc=0
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
per=$(((${#todo[@]} + $(nproc) - 1) / $(nproc)))
printf '%s\0' "${todo[@]}" | xargs -0 -P "$(nproc)" -n "$per" sh -c '
	shellcheck -x -S warning -f gcc "$@" >"$0/gcc.$$" 2>&1 || :' "$out"
cat "$out"/gcc.* 2>/dev/null | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*/\1/p' | sort -u >"$out/bad"
bad=()
for i in "${!todo[@]}"; do
	f=${todo[i]}
	if grep -qxF "$f" "$out/bad"; then
		bad+=("$f")
	elif [ -n "$cache" ]; then
		: >"$cache/${keys[i]}"
	fi
done
# a file that did not parse or a shellcheck that failed names no file: then
# nothing of this run is kept as clean
if [ ${#bad[@]} -eq 0 ] && grep -qv '^[^:]*:[0-9]*:[0-9]*: ' "$out"/gcc.* 2>/dev/null; then
	cat "$out"/gcc.*
	for k in "${keys[@]}"; do rm -f "$cache/$k"; done
	exit 1
fi
[ ${#bad[@]} -eq 0 ] || { shellcheck -x -S warning "${bad[@]}"; rc=1; }
exit $rc
