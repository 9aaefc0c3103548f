# shellcheck shell=bash
# The order of the system calls that make a file replacement survive a
# power loss, read from a real run under strace (sourced after test-lib.sh).
#
#   durable_trace LOG CMD...   run CMD (and its children) under strace,
#                              logging write, fsync, rename and unlink
#                              calls; the exit status is CMD's
#   durable_steps LOG DIR      those calls on DIR and the files in it, in
#                              order, one per line, paths relative to DIR
#                              ("." is DIR itself), the random part of a
#                              temporary name masked (".tmp.<pid>" ->
#                              ".tmp.PID", mkstemp's ".abc123" -> ".XXXXXX"),
#                              repeated lines (one file written in several
#                              calls) shown once. A ledger commit reads:
#       write leases.tmp.PID
#       fsync leases.tmp.PID
#       rename leases.tmp.PID leases
#       fsync .
# A call that failed is left out. strace -y names each descriptor's file,
# so an fsync of the temporary file after its rename shows the new name.
#
#   durable_replace FILE [TMP]  those four steps, for FILE replaced through
#                               TMP (default FILE.XXXXXX, mkstemp's)

durable_trace() { # LOG CMD...
	local log=$1
	shift
	command -v strace >/dev/null || die "strace is not installed (make deps)"
	strace -f -qq -y -s 0 -o "$log" \
		-e trace=write,pwrite64,writev,pwritev,pwritev2,fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat \
		"$@"
}

durable_steps() { # LOG DIR
	awk -v dir="${2%/}" '
	function norm(p, rel) {
		if (p == dir)
			return "."
		if (index(p, dir "/") != 1)
			return ""
		rel = substr(p, length(dir) + 2)
		if (rel ~ /\.tmp\.[0-9]+$/)
			sub(/\.tmp\.[0-9]+$/, ".tmp.PID", rel)
		else if (rel ~ /\.[A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9][A-Za-z0-9]$/)
			rel = substr(rel, 1, length(rel) - 6) "XXXXXX"
		return rel
	}
	# the next "<path>" (a descriptor strace -y named) or "\"path\"" in s
	function next_tok(re) {
		if (!match(rest, re))
			return ""
		tok = substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, RSTART + RLENGTH)
		return tok
	}
	# a path argument: the path, relative ones joined to their dirfd
	function path_arg(at, d, p) {
		d = at ? next_tok("<[^>]*>") : ""
		p = next_tok("\"[^\"]*\"")
		return (p ~ /^\// || d == "") ? p : d "/" p
	}
	{
		sub(/^[0-9]+ +/, "")
		if (!match($0, /^[a-z0-9_]+\(/) || $0 ~ /\) += -1 /)
			next
		call = substr($0, 1, RLENGTH - 1)
		rest = substr($0, RLENGTH)
		if (call ~ /^rename/) {
			at = call != "rename"
			a = norm(path_arg(at))
			b = norm(path_arg(at))
			if (a == "" && b == "")
				next
			step = "rename " (a == "" ? "(elsewhere)" : a) " " (b == "" ? "(elsewhere)" : b)
		} else if (call ~ /^unlink/) {
			a = norm(path_arg(call != "unlink"))
			if (a == "")
				next
			step = "unlink " a
		} else {
			if (!match(rest, /^\([0-9]+<[^>]*>/))
				next
			p = norm(substr(rest, index(rest, "<") + 1, RLENGTH - index(rest, "<") - 1))
			if (p == "")
				next
			step = (call ~ /write/ ? "write" : call) " " p
		}
		if (step != last)
			print step
		last = step
	}' "$1"
}

durable_replace() { # FILE [TMP]
	local tmp=${2:-$1.XXXXXX}
	printf 'write %s\nfsync %s\nrename %s %s\nfsync .\n' "$tmp" "$tmp" "$tmp" "$1"
}
