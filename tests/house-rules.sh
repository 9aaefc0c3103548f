#!/bin/bash
# The house rules of helpers/ (design decision 14), checked on the source
# and on the built tools; `make house-rules`, part of `make check`.
#
#   tests/house-rules.sh [--src DIR] [--bin DIR]
#     --src DIR   the helpers/ tree to check (default: this checkout's)
#     --bin DIR   the built tools (default build/bin); --bin '' checks the
#                 source only
#
# 1. Where code runs decides what it may include: a module of lib/<room>/
#    includes only what is listed for its room below, and so does each tool
#    (helpers/<tool>.c). guest/ and root/ include only core/; fabric/ also
#    root's partitions and QoS policy grammars (the renderer writes what the
#    root installer re-parses); host/ also root's IB-device facts (its
#    inventory offers what oneib-pkey will program, by the same rule).
# 2. Each tool needs only the shared libraries listed for it (readelf -d,
#    NEEDED): the root helpers libc alone (oneib-peer, read only, also
#    libibumad for its two SMPs), the guest's libc, libibverbs and
#    libibumad (its SA queries).
#    Why each needs what it does: the Makefile, above the rooms_* table.
#
# Every broken rule is one line naming the file and what broke it, e.g.
#   helpers/lib/root/vfmap.c:12: includes "host/hca.h"; root/ may include only core/ root/
#   build/bin/oneib-pkey: needs libxml2.so.2; oneib-pkey may need only libc.so.6
# and the exit status is 1; 0 when every rule holds.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/helpers
bin=$top/build/bin
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	*) echo "usage: $0 [--src DIR] [--bin DIR]" >&2; exit 2 ;;
	esac
done

# What each room and each tool may include: a folder ("core/") or one
# header ("root/partconf.h").
declare -A may_include=(
	[core]="core/"
	[guest]="core/ guest/"
	[root]="core/ root/"
	[fabric]="core/ fabric/ root/partconf.h root/qospolicy.h"
	[host]="core/ host/ root/ibdev.h"
	[oneib-context]="core/ guest/"
	[oneib-pkey]="core/ root/"
	[oneib-partitions-install]="core/ root/"
	[oneib-peer]="core/ root/"
	[oneib-partitions]="core/ fabric/ root/partconf.h root/qospolicy.h"
	[oneib-vnet]="core/ fabric/"
	[oneib-vf]="core/ host/"
	[oneib-discover]="core/ host/"
)
# The shared libraries each tool may need.
declare -A may_need=(
	[oneib-pkey]="libc.so.6"
	[oneib-partitions-install]="libc.so.6"
	[oneib-peer]="libc.so.6 libibumad.so.3"
	[oneib-context]="libc.so.6 libibverbs.so.1 libibumad.so.3"
	[oneib-vf]="libc.so.6 libxml2.so.2 libibumad.so.3"
	[oneib-discover]="libc.so.6 libpci.so.3 libibumad.so.3"
	[oneib-partitions]="libc.so.6 libxml2.so.2 libibumad.so.3"
	[oneib-vnet]="libc.so.6 libxml2.so.2"
)

broken=0
say() {
	echo "$*"
	broken=1
}

allowed() { # WHAT RULES: is the include WHAT ("host/hca.h") allowed?
	local r
	for r in $2; do
		case $r in
		*/) case $1 in "$r"*) return 0 ;; esac ;;
		*) [ "$1" = "$r" ] && return 0 ;;
		esac
	done
	return 1
}

# check_includes FILE WHO: every #include "..." of FILE against WHO's rules.
check_includes() {
	local file=$1 who=$2 line inc
	while IFS=: read -r line inc; do
		inc=${inc#*\"}
		inc=${inc%%\"*}
		allowed "$inc" "${may_include[$who]}" ||
			say "${file#"$top"/}:$line: includes \"$inc\"; $who may include only ${may_include[$who]}"
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file")
}

[ -d "$src/lib" ] || { echo "$0: $src/lib: no such directory" >&2; exit 2; }
for d in "$src"/lib/*/; do
	room=$(basename "$d")
	if [ -z "${may_include[$room]+set}" ]; then
		say "${d#"$top"/}: a folder the house rules do not know (core, host, root, fabric, guest)"
		continue
	fi
	for f in "$d"*.[ch]; do
		[ -e "$f" ] || continue
		check_includes "$f" "$room"
	done
done
for f in "$src"/lib/*.[ch]; do
	[ -e "$f" ] && say "${f#"$top"/}: outside the rooms: each module lives in core/, host/, root/, fabric/ or guest/"
done
for f in "$src"/*.c; do
	tool=$(basename "$f" .c)
	if [ -z "${may_include[$tool]+set}" ]; then
		say "${f#"$top"/}: a tool the house rules do not know: give it its rooms and libraries"
		continue
	fi
	check_includes "$f" "$tool"
done

if [ -n "$bin" ]; then
	for tool in "${!may_need[@]}"; do
		b=$bin/$tool
		if [ ! -x "$b" ]; then
			say "${b#"$top"/}: not built"
			continue
		fi
		for lib in $(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case " ${may_need[$tool]} " in
			*" $lib "*) ;;
			*) say "${b#"$top"/}: needs $lib; $tool may need only ${may_need[$tool]}" ;;
			esac
		done
	done
fi
exit $broken
