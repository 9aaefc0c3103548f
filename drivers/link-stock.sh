#!/bin/sh
# Links OpenNebula's stock KVM remotes into the kvm-ib directories, so kvm-ib
# hosts run every stock probe and VMM action of the OpenNebula installed:
#
#   im/kvm-ib-probes.d/<class>/<probe>  -> ../../../kvm-probes.d/<class>/<probe>
#   im/kvm-ib.d/<file>                  -> ../kvm.d/<file>
#   vmm/kvm-ib/<action>                 -> ../kvm/<action>
#
# one relative symlink for every stock file that one-ib does not provide
# itself, at the same depth, so the stock scripts' relative requires still
# resolve after `onehost sync` (rsync -L) turned the links into files.
#
#   link-stock.sh [--quiet] REMOTES_DIR   add the missing links and drop the
#                                         ones whose stock file is gone (run
#                                         again after an OpenNebula upgrade;
#                                         the one-ib-frontend package does it
#                                         by itself through a dpkg trigger)
#   link-stock.sh --remove REMOTES_DIR    remove every link (and the
#                                         directories only links needed)
set -eu

mode=link quiet=0
case ${1:-} in
--remove) mode=remove; shift ;;
--quiet) quiet=1; shift ;;
esac
[ $# -eq 1 ] || { echo "usage: link-stock.sh [--quiet|--remove] REMOTES_DIR" >&2; exit 2; }
remotes=$1
pairs="im/kvm-probes.d:im/kvm-ib-probes.d im/kvm.d:im/kvm-ib.d vmm/kvm:vmm/kvm-ib"

# one-ib ships no symlinks of its own: every link in these directories is
# one of ours, and a dangling one points at a stock file that is gone.
drop_links() { # DIR [dangling]
	[ -d "$1" ] || return 0
	if [ "${2:-}" = dangling ]; then
		find "$1" -type l ! -exec test -e {} \; -exec rm -f {} +
	else
		find "$1" -type l -exec rm -f {} +
	fi
	find "$1" -mindepth 1 -type d -empty -delete
}

for pair in $pairs; do
	stock=$remotes/${pair%%:*} mine=$remotes/${pair#*:}
	if [ $mode = remove ]; then
		drop_links "$mine"
		rmdir "$mine" 2>/dev/null || true
		continue
	fi
	drop_links "$mine" dangling
	if [ ! -d "$stock" ]; then
		[ $quiet = 1 ] || echo "link-stock.sh: $stock not found: kvm-ib hosts will lack OpenNebula's stock ${pair%%:*} until OpenNebula is installed and this runs again" >&2
		continue
	fi
	(cd "$stock" && find . \( -type f -o -type l \) -print) |
	while IFS= read -r f; do
		f=${f#./}
		[ -e "$mine/$f" ] || [ -L "$mine/$f" ] && continue
		up=..
		rest=$f
		while [ "${rest#*/}" != "$rest" ]; do
			up=$up/..
			rest=${rest#*/}
		done
		mkdir -p "$(dirname "$mine/$f")"
		ln -s "$up/$(basename "$stock")/$f" "$mine/$f"
	done
done
