#!/bin/bash
# tests/lib/one-build.sh VERSION: build OpenNebula VERSION (6.10.0, 7.0.0)
# from ../shared/third-party/opennebula-VERSION.tar.xz, once per machine,
# and print the directory of its self-contained install (install.sh -d),
# which the real front-end harness (tests/lib/one.sh) copies for each test.
#
#   bash tests/lib/one-build.sh 6.10.0
#   /var/cache/one-ib/opennebula/6.10.0-941ae4c84fa9-5f0c2a1e
#
# The cache lives outside the checkout ($ONEIB_ONE_CACHE, default
# /var/cache/one-ib/opennebula) and is never committed. An entry is named
# VERSION-<first 12 hex of the tarball's sha256>-<first 8 of the recipe's>:
# a changed tarball, or a change of the flags or fix-ups below, builds a new
# entry (older entries stay, for other checkouts that may still use them:
# remove them by hand). Runs on one machine are serialised per entry with
# flock, so two `make check`s started together build once; the second waits
# and finds the entry complete. An entry is complete when its .complete
# file exists; a build killed half-way leaves only VERSION-*.tmp.* and
# *.log behind, which the next build removes.
#
# Exit status: 0 and the directory on stdout; 77 and the reason on stderr
# when the tarball is not there (tests then skip, saying why); 1 and the end
# of the build log on stderr when the build fails.
#
# Environment: ONEIB_THIRD_PARTY and ONEIB_CACHE (tests/lib/thirdparty.sh),
# ONEIB_ONE_CACHE (default $ONEIB_CACHE/opennebula), ONEIB_ONE_JOBS (scons
# -j, default the number of cores).
#
# The recipe (measured, ../shared/docs/reference/real-opennebula.md): the
# Debian packages of the Makefile's DEB_PKGS, scons with SQLite only, the
# new xmlrpc-c, no systemd, no Sunstone, FireEdge, VNC proxy, rubygems or
# context packages (about 3 minutes per release on 2 cores, no patch), then
# `install.sh -d` (its cp errors for the files that were not built are
# expected). One fix-up for 7.0: every Ruby program there does
# `require 'load_opennebula_paths'` between %%RUBYGEMS_SETUP_BEGIN%% and
# %%RUBYGEMS_SETUP_END%%, a file that a self-contained install puts only in
# lib/ruby and that switches to a bundled gems directory a rubygems=no
# build does not have; OpenNebula's packaging rewrites that block, and so
# does this script: the require goes, the lines around it already set
# ONE_LOCATION and RUBY_LIB_LOCATION and put it on $LOAD_PATH, as 6.10's
# programs do. Nothing else of OpenNebula is changed.
set -u
version=${1:?usage: one-build.sh VERSION}
. "$(dirname "$0")/thirdparty.sh"
cache=${ONEIB_ONE_CACHE:-$TP_CACHE/opennebula}

SCONS_FLAGS="sqlite=yes mysql=no postgresql=no new_xmlrpc=yes systemd=no svncterm=no sunstone=no fireedge=no rubygems=no context=no"
# Bump when the install or the fix-up changes.
RECIPE="$SCONS_FLAGS; install.sh -d; rubygems-setup-require-removed; 1"

tarball=$(tp_tarball "opennebula-$version") || exit 77
for c in scons g++ xz flock sha256sum; do
	command -v "$c" >/dev/null || {
		echo "one-build.sh: $c not found (make deps installs what the build needs)" >&2
		exit 1
	}
done
tsum=$(sha256sum <"$tarball" | cut -c1-12)
rsum=$(printf '%s' "$RECIPE" | sha256sum | cut -c1-8)
key=$version-$tsum-$rsum
dest=$cache/$key
mkdir -p "$cache" || exit 1

exec 9>>"$cache/$key.lock" || exit 1
if ! flock -n 9; then
	echo "one-build.sh: waiting for another build of $key" >&2
	flock 9 || exit 1
fi
if [ -e "$dest/.complete" ]; then
	echo "$dest"
	exit 0
fi

log=$cache/$key.log
rm -rf "$dest" "$cache/$key".tmp.*
work=$cache/$key.tmp.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" || exit 1
fail() {
	echo "one-build.sh: OpenNebula $version: $* (log: $log)" >&2
	tail -n 25 "$log" | sed 's/^/    /' >&2
	exit 1
}
start=$SECONDS
{
	echo "# $key: $RECIPE"
	date
} >"$log"
tar -C "$work/src" -xJf "$tarball" >>"$log" 2>&1 || fail "cannot extract $tarball"
src=$work/src/opennebula-$version
[ -d "$src" ] || fail "no opennebula-$version/ in $tarball"
# shellcheck disable=SC2086 # the flags are words
# at the lowest priority: the first release's scenarios run during the
# second build, and oned gives each of their Ruby drivers 10 s to start
# (measured: with the build at nice 0 on 2 cores, every 6.10 scenario's
# oned missed that three times in a row and the run failed)
(cd "$src" && nice -n 19 scons -j"${ONEIB_ONE_JOBS:-$(nproc)}" $SCONS_FLAGS) >>"$log" 2>&1 ||
	fail "scons failed"
# cp errors for what was not built (Sunstone, FireEdge, ...) are expected:
# success is the programs being there.
(cd "$src" && ./install.sh -d "$work/inst") >>"$log" 2>&1
for f in bin/oned bin/one bin/onevm bin/onehost lib/ruby/opennebula.rb var/remotes/vmm/kvm/deploy; do
	[ -e "$work/inst/$f" ] || fail "install.sh -d installed no $f"
done
grep -rl --null '%%RUBYGEMS_SETUP_BEGIN%%' "$work/inst" |
	xargs -0 -r sed -i "/%%RUBYGEMS_SETUP_BEGIN%%/,/%%RUBYGEMS_SETUP_END%%/{/^[[:space:]]*require 'load_opennebula_paths'[[:space:]]*\$/d}" ||
	fail "cannot remove the load_opennebula_paths require"
! grep -rq "^[[:space:]]*require 'load_opennebula_paths'" "$work/inst" ||
	fail "a require 'load_opennebula_paths' outside the RUBYGEMS_SETUP block remains"
echo "# built in $((SECONDS - start)) s" >>"$log"
echo "$((SECONDS - start))" >"$work/inst/.build-seconds"
: >"$work/inst/.complete"
mv "$work/inst" "$dest" || fail "cannot move the install to $dest"
echo "$dest"
