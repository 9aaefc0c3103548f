# shellcheck shell=bash
# tests/lib/thirdparty.sh - the third-party sources tests may build and run
# (../shared/third-party, see its README: OpenNebula 6.10.0 and 7.0.0,
# one-apps 7.0.0), never copied into the repository. Sourced by
# tests/lib/one-build.sh and by tests that run one-apps.
#
#   tp_tarball NAME     the path of NAME.tar.xz; 1 (and a reason on stderr,
#                       for skip_all) when it is not there
#   tp_extract NAME     NAME.tar.xz unpacked once per machine into
#                       $TP_CACHE/src/NAME-<first 12 hex of its sha256>
#                       (flock: concurrent runs unpack once; a changed
#                       tarball unpacks anew); prints that directory
#
# ONEIB_THIRD_PARTY: where the tarballs are (default <checkout>/../shared/
# third-party, as on CI); ONEIB_CACHE: the machine's cache of built and
# unpacked third-party code (default /var/cache/one-ib, outside the
# checkout).

TP_TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TP_DIR=${ONEIB_THIRD_PARTY:-$TP_TOP/../shared/third-party}
TP_CACHE=${ONEIB_CACHE:-/var/cache/one-ib}

tp_tarball() { # NAME
	local f=$TP_DIR/$1.tar.xz
	if [ ! -f "$f" ]; then
		echo "no $1 sources: $f not found (ONEIB_THIRD_PARTY)" >&2
		return 1
	fi
	echo "$f"
}

tp_extract() { # NAME
	local f sum d
	f=$(tp_tarball "$1") || return 1
	sum=$(sha256sum <"$f" | cut -c1-12)
	d=$TP_CACHE/src/$1-$sum
	mkdir -p "$TP_CACHE/src" || return 1
	(
		flock 9
		[ -e "$d/.complete" ] && exit 0
		rm -rf "$d" "$d.tmp" && mkdir -p "$d.tmp" &&
			tar -C "$d.tmp" -xJf "$f" && : >"$d.tmp/.complete" && mv "$d.tmp" "$d"
	) 9>>"$d.lock" || { echo "cannot unpack $f into $d" >&2; return 1; }
	echo "$d"
}
