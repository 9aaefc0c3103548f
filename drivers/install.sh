#!/bin/sh
# Installs (or removes) the files of drivers/files.list; called by
# `make install` / `make uninstall`, and per package by debian/rules.
#
#   install.sh [--uninstall | --list] [--role ROLE]... [--destdir DIR]
#              [--remotes DIR] [--datadir DIR] [--sbindir DIR] [--bindir DIR]
#              [--udevdir DIR] [--unitdir DIR] [--mandir DIR] [--build DIR]
#              [--no-link]
#
# ROLE: frontend, node, sm, doc, guest (default: frontend node sm doc,
# what a front-end built from source needs). --build is where the helpers were
# built (build/bin/NAME in the list means DIR/NAME). --list prints
# "MODE SOURCE DESTINATION" for every file instead of installing it.
#
# After the frontend files, drivers/link-stock.sh links OpenNebula's stock
# kvm probes, IM client and VMM actions into the kvm-ib directories (unless
# --no-link: the Debian package does that in its postinst, against the
# OpenNebula installed then). Files of MODE conf are the operator's once
# installed: kept. A sudoers rule installed into the live system (no
# DESTDIR) is checked with visudo first and replaces the old one atomically.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
action=install roles='' dest='' link=1
remotes=/var/lib/one/remotes data=/usr/share/one-ib sbin=/usr/sbin bin=/usr/bin
udev=/usr/lib/udev unit=/usr/lib/systemd/system
man=/usr/share/man
build=$src/build/bin

die() { echo "install.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--uninstall) action=uninstall ;;
	--list) action=list ;;
	--no-link) link=0 ;;
	--role) roles="$roles ${2:?}"; shift ;;
	--destdir) dest=${2?}; shift ;;
	--remotes) remotes=${2:?}; shift ;;
	--datadir) data=${2:?}; shift ;;
	--sbindir) sbin=${2:?}; shift ;;
	--bindir) bin=${2:?}; shift ;;
	--udevdir) udev=${2:?}; shift ;;
	--unitdir) unit=${2:?}; shift ;;
	--mandir) man=${2:?}; shift ;;
	--build) build=${2:?}; shift ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done
[ -n "$roles" ] || roles="frontend node sm doc"
for r in $roles; do
	case $r in frontend | node | sm | doc | guest) ;; *) die "unknown role '$r'" ;; esac
done

# The list's lines of our roles, as "MODE SOURCE DESTINATION", with the
# placeholders and globs resolved (a glob that matches nothing is an error:
# a file the list promises is missing).
entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$src/drivers/files.list" |
	while read -r role mode from to extra; do
		[ -z "$extra" ] && [ -n "$to" ] || die "files.list: bad line: $role $mode $from $to $extra"
		case " $roles " in *" $role "*) ;; *) continue ;; esac
		to=$(printf '%s\n' "$to" | sed -e "s|@REMOTES@|$remotes|" \
			-e "s|@DATA@|$data|" -e "s|@SBIN@|$sbin|" -e "s|@BIN@|$bin|" \
			-e "s|@UDEV@|$udev|" -e "s|@UNIT@|$unit|" -e "s|@MAN@|$man|")
		case $from in
		build/bin/*) from=$build/${from#build/bin/} ;;
		*) from=$src/$from ;;
		esac
		n=0
		for f in $from; do
			[ -e "$f" ] || die "files.list: $f not found (not built?)"
			n=$((n + 1))
			case $to in
			*/) echo "$mode $f $to$(basename "$f")" ;;
			*) echo "$mode $f $to" ;;
			esac
		done
		[ $n -le 1 ] || case $to in */) ;; *) die "files.list: $from: several files, one destination" ;; esac
	done
}

# prune DIR: remove DIR and its parents while empty, never above DESTDIR.
prune() {
	d=$1
	while [ "$d" != "$dest" ] && [ "$d" != / ] && [ "${d#"$dest"}" != "$d" ]; do
		rmdir "$d" 2>/dev/null || break
		d=$(dirname "$d")
	done
}

# A sudoers rule goes live only once visudo accepts it, and by rename, so
# sudo never reads a half-written or broken file.
install_sudoers() { # SOURCE DEST
	tmp=$2.new # sudo skips names with a dot in /etc/sudoers.d
	install -m 0440 -o root -g root "$1" "$tmp"
	if ! visudo -c -q -f "$tmp" >/dev/null; then
		rm -f "$tmp"
		die "$1: visudo refuses it; $2 left as it was"
	fi
	mv -f "$tmp" "$2"
}

list=$(entries) || exit 2
case $action in
list)
	printf '%s\n' "$list"
	exit 0
	;;
uninstall)
	case " $roles " in *" frontend "*)
		[ ! -d "$dest$remotes" ] || sh "$src/drivers/link-stock.sh" --remove "$dest$remotes" ;;
	esac
	while read -r mode from to; do
		[ -n "$mode" ] || continue
		rm -f "$dest$to"
		prune "$(dirname "$dest$to")"
	done <<EOF
$list
EOF
	exit 0
	;;
esac

root=0
[ "$(id -u)" = 0 ] && root=1
while read -r mode from to; do
	[ -n "$mode" ] || continue # no file of these roles
	t=$dest$to
	case $mode in
	conf)
		[ -e "$t" ] && continue
		mode=0644
		;;
	esac
	install -d "$(dirname "$t")"
	case $to in
	/etc/sudoers.d/*)
		if [ -z "$dest" ]; then
			install_sudoers "$from" "$t"
			continue
		fi
		;;
	esac
	if [ $root = 1 ]; then
		install -m "$mode" -o root -g root "$from" "$t"
	else
		install -m "$mode" "$from" "$t"
	fi
done <<EOF
$list
EOF

if [ $link = 1 ]; then
	case " $roles " in *" frontend "*)
		# Staging into a DESTDIR without OpenNebula is expected (tests,
		# demo, packaging): only a real install warns.
		if [ -n "$dest" ]; then
			sh "$src/drivers/link-stock.sh" --quiet "$dest$remotes"
		else
			sh "$src/drivers/link-stock.sh" "$remotes"
		fi
		;;
	esac
fi
