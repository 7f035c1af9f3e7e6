#!/usr/bin/env bash
# py-offsets.sh - regenerates the table rows of src/hostsample/py_offsets.h
# from the headers of every CPython found (pyenv's versions, the system's
# python3.X-dev): scripts/py-offsets.c is compiled against each one's
# Include/ and Include/internal/ and prints its row. A version whose rows
# differ between two builds is printed twice: then the table needs a look.
#   bash scripts/py-offsets.sh [PYTHON_ROOT...]
set -eu
cd "$(dirname "$0")/.."
roots=("$@")
if [ ${#roots[@]} -eq 0 ]; then
	for d in "$HOME"/.pyenv/versions/3.* /usr /usr/local; do roots+=("$d"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in "${roots[@]}"; do
	for inc in "$r"/include/python3.*; do
		[ -f "$inc/internal/pycore_runtime.h" ] || continue
		gcc -I"$inc" -I"$inc/internal" scripts/py-offsets.c -o "$tmp/off" 2>/dev/null || {
			echo "# $inc: does not compile" >&2
			continue
		}
		printf '%s\t/* %s */\n' "$("$tmp/off")" "$inc"
	done
done | sort -u
