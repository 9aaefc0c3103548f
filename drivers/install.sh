#!/bin/sh
# Lays out (or removes) what an OpenNebula operator installs; called by
# `make install` / `make uninstall`.
#
#   install.sh DESTDIR REMOTES_DIR DATADIR SBINDIR BINDIR
#   install.sh --uninstall DESTDIR REMOTES_DIR DATADIR SBINDIR
#
# REMOTES_DIR (/var/lib/one/remotes) is what `onehost sync` copies to every
# host as /var/tmp/one with rsync -L, so symlinks arrive as plain files:
#   ib/bin/oneib-*            the helpers, found by the scripts beside them
#   im/kvm-ib-probes.d/...    our probes, plus a relative symlink to every
#                             stock kvm probe (same depth, so the stock
#                             probes' relative requires still resolve)
#   im/kvm-ib.d/...           symlinks to the stock im/kvm.d client
#   vmm/kvm-ib/...            deploy, shutdown, cancel of our own, a relative
#                             symlink to the stock vmm/kvm script for every
#                             other action
#   hooks/oneib-partitions    the front-end hook; hooks/ itself is stock
#                             OpenNebula's, so uninstall removes only this file
#   etc/...                   configuration, kept when it already exists
# DATADIR (/usr/share/one-ib) gets the oned.conf/monitord.conf fragments,
# the sudoers rule and the hook templates (hooks/*.tmpl, for onehook create).
# SBINDIR (/usr/sbin) gets what sudo runs as root, root-owned and outside
# the remotes oneadmin can replace: oneib-pkey (hosts),
# oneib-partitions-install and a copy of oneib-partitions for verify (the
# subnet manager's host). oneib-partitions is in the remotes too: the
# front-end hook renders with it, unprivileged.
set -eu

uninstall=0
if [ "${1:-}" = --uninstall ]; then
	uninstall=1
	shift
fi
[ $# -ge 4 ] || { echo "install.sh: usage: [--uninstall] DESTDIR REMOTES_DIR DATADIR SBINDIR [BINDIR]" >&2; exit 2; }
dest=$1 remotes=$1$2 data=$1$3 sbin=$1$4 bindir=${5:-}
src=$(cd "$(dirname "$0")/.." && pwd)

# Our own directories: removing them removes everything install put there.
ours="$remotes/ib $remotes/im/kvm-ib.d $remotes/im/kvm-ib-probes.d $remotes/vmm/kvm-ib
      $remotes/vnm/ib $remotes/etc/im/kvm-ib-probes.d $remotes/etc/vmm/kvm-ib
      $remotes/etc/vnm/ib"

# prune DIR: remove DIR and its parents while empty, never above DESTDIR.
prune() {
	d=$1
	while [ "$d" != "$dest" ] && [ "$d" != / ] && [ "${d#"$dest"}" != "$d" ]; do
		rmdir "$d" 2>/dev/null || break
		d=$(dirname "$d")
	done
}

if [ $uninstall = 1 ]; then
	# prune leaves a stock hooks/ that still holds OpenNebula's own hooks
	for d in $ours "$remotes/hooks/oneib-partitions" "$data" "$sbin/oneib-pkey" \
		"$sbin/oneib-partitions-install" "$sbin/oneib-partitions"; do
		rm -rf "$d"
		prune "$(dirname "$d")"
	done
	exit 0
fi

[ -n "$bindir" ] || { echo "install.sh: BINDIR missing" >&2; exit 2; }

# mirror STOCK_DIR OUR_DIR (sibling directories under REMOTES_DIR): a
# relative symlink in OUR_DIR for every file of STOCK_DIR that OUR_DIR does
# not provide itself.
mirror() {
	stock=$1 mine=$2
	( cd "$remotes/$stock" && find . \( -type f -o -type l \) -print ) |
	while IFS= read -r f; do
		f=${f#./}
		[ -e "$remotes/$mine/$f" ] || [ -L "$remotes/$mine/$f" ] && continue
		up=..
		rest=$f
		while [ "${rest#*/}" != "$rest" ]; do
			up=$up/..
			rest=${rest#*/}
		done
		mkdir -p "$(dirname "$remotes/$mine/$f")"
		ln -s "$up/$(basename "$stock")/$f" "$remotes/$mine/$f"
	done
}

# root-only helpers: never in the remotes
root_only="oneib-pkey oneib-partitions-install"
install -d "$remotes/ib/bin"
for b in "$bindir"/oneib-*; do
	case " $root_only " in *" $(basename "$b") "*) continue ;; esac
	# the guest's helper is for guest images only (make install-guest)
	[ "$(basename "$b")" = oneib-context ] && continue
	install -m 0755 "$b" "$remotes/ib/bin/"
done
for h in $root_only oneib-partitions; do
	[ -x "$bindir/$h" ] || continue
	install -d "$sbin"
	if [ "$(id -u)" = 0 ]; then
		install -m 0755 -o root -g root "$bindir/$h" "$sbin/"
	else
		install -m 0755 "$bindir/$h" "$sbin/"
	fi
done

# Files under etc/ are the operator's configuration once installed: kept.
( cd "$src/remotes" && find . -type f -print ) |
while IFS= read -r f; do
	case $f in ./etc/*) [ -e "$remotes/$f" ] && continue ;; esac
	install -D -m "$(stat -c %a "$src/remotes/$f")" "$src/remotes/$f" "$remotes/$f"
done

for pair in im/kvm-probes.d:im/kvm-ib-probes.d im/kvm.d:im/kvm-ib.d vmm/kvm:vmm/kvm-ib; do
	stock=${pair%%:*} mine=${pair#*:}
	if [ -d "$remotes/$stock" ]; then
		mkdir -p "$remotes/$mine"
		mirror "$stock" "$mine"
	else
		echo "install.sh: $remotes/$stock not found: install OpenNebula's remotes first, then run make install again so $mine reuses them" >&2
	fi
done

install -d "$data/drivers"
for f in "$src"/drivers/*.kvm-ib "$src"/drivers/sudoers.oneib; do
	install -m 0644 "$f" "$data/drivers/"
done
install -d "$data/hooks"
for f in "$src"/templates/hooks/*.tmpl "$src"/templates/hooks/README.md; do
	install -m 0644 "$f" "$data/hooks/"
done
