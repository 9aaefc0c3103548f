#!/bin/sh
# make bench: speed and memory figures (printed, never asserted).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$top"/tests/bench/b[0-9]*.sh; do
	bash "$b" </dev/null || echo "bench: $(basename "$b") failed"
done
