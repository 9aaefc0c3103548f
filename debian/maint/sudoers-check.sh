# check_sudoers NAME: /etc/sudoers.d/NAME (a conffile, live as soon as dpkg
# unpacked it) must leave sudo working. If visudo refuses the whole
# configuration because of it (an edited copy dpkg kept, a sudo that reads
# the syntax differently), it moves aside to NAME.dpkg-broken, which sudo
# skips (a name with a dot), and configure fails: sudo keeps working, and
# the admin is told what to fix.
check_sudoers() {
	f=/etc/sudoers.d/$1
	[ -e "$f" ] || return 0 # removed by the admin: their choice
	visudo -c -q >/dev/null 2>&1 && return 0
	mv -f "$f" "$f.dpkg-broken"
	if visudo -c -q >/dev/null 2>&1; then
		echo "$1: visudo refuses $f; moved to $f.dpkg-broken so that sudo keeps working." >&2
		visudo -c -f "$f.dpkg-broken" >&2 || true
		echo "$1: fix it, move it back and run 'dpkg --configure -a'." >&2
		return 1
	fi
	# sudo was broken before us, by another file: ours is not the cause.
	mv -f "$f.dpkg-broken" "$f"
	echo "$1: warning: visudo refuses the sudoers configuration, not because of $f:" >&2
	visudo -c >&2 || true
	return 0
}
